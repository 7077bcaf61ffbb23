// Spot order amend keep priority (PUT /api/v3/order/amend/keepPriority): reduce an open
// order's quantity without losing its place in the queue (core/amend-quantity.ts); and one
// order's amendments (GET /api/v3/order/amendments). An amendment's executionId is the log
// entry that made it: one command amends one order, so the entry names the amendment.

import type { FastifyPluginAsync } from 'fastify'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { SpotMarket, State } from '../../core/state.js'
import { openOrderOf } from '../../core/resting.js'
import { entryOfAmendment } from '../../replica/projections/amendments.js'
import { authenticate, type Authenticated } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { formatBalance, formatNotional, formatPrice, formatQty, parseQtyLots } from '../decimal.js'
import { fromCore } from '../errors.js'
import { orderAfter, spotOrigQtyLots, spotPreventedQtyLots, spotTimeInForce, spotType, spotWorkingTime, type OrderFields } from '../format-order.js'
import { idParam, limitParam, optional, orderRefParam, required, spotParam } from '../market-params.js'
import { findOrder } from '../order-lookup.js'
import { spotAmendDocs } from '../schemas/spot.js'
import type { WeightCounter } from '../weights.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

/** The amended order as Binance's answer shows it (`amendedOrder`). */
function amendedOrderJson(state: State, m: SpotMarket, o: OrderFields, origClientOrderId: string): object {
  const out: Record<string, unknown> = {
    symbol: m.symbol, orderId: o.orderId, orderListId: o.orderListId ?? -1, origClientOrderId, clientOrderId: o.clientOrderId,
    price: formatPrice(m, o.priceTicks), qty: formatQty(m, spotOrigQtyLots(o)), executedQty: formatQty(m, o.executedQtyLots),
    preventedQty: formatQty(m, spotPreventedQtyLots(o)), quoteOrderQty: formatBalance(o.quoteQty ?? 0, state.assets.get(m.quote)!.scale),
    cumulativeQuoteQty: formatNotional(m, o.cumQuoteTicksLots), status: o.status, timeInForce: spotTimeInForce(o),
    type: spotType(o), side: o.side, workingTime: spotWorkingTime(o),
  }
  // The strategy tags it was sent with, only then (the amendment keeps them), as in every order answer.
  if (o.strategyId !== undefined) out.strategyId = o.strategyId
  if (o.strategyType !== undefined) out.strategyType = o.strategyType
  out.selfTradePreventionMode = o.stp
  return out
}

/** PUT order/amend/keepPriority: newQty below the order's quantity (and above its fills). */
export async function spotAmendFrom(ctx: GatewayContext, a: Authenticated): Promise<object> {
  const state = ctx.state()
  const m = spotParam(state, a.params)
  const ref = orderRefParam(a.params)
  const qtyLots = parseQtyLots(m, required(a.params, 'newQty'), false, 'newQty')
  const newClientOrderId = optional(a.params, 'newClientOrderId')
  const ack = await ctx.submit({ type: 'AmendKeepPriority', account: a.session.account, sub: a.session.sub,
    apiKey: a.session.apiKey, marketId: m.marketId, ...ref, qtyLots, ...(newClientOrderId !== undefined ? { newClientOrderId } : {}) })
  if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'spot', op: 'modify' })
  const e = ack.result.events.find((x) => x.type === 'order')!
  const before = e.type === 'order' ? e.amendment?.clientOrderIdBefore ?? e.clientOrderId : ''
  const o = orderAfter(ack.result.events, m.marketId, ack.result.orderId!)!
  const out: Record<string, unknown> = { transactTime: ack.time, executionId: ack.seq, amendedOrder: amendedOrderJson(ctx.state(), m, o, before) }
  // An order of an executing list: the list as it stands now (an OCO pair's other order was amended with it).
  const list = o.orderListId !== undefined ? openOrderOf(m, o.orderId)?.list ?? null : null
  if (list !== null && !list.done) {
    out.listStatus = { orderListId: list.orderListId, contingencyType: list.contingency === 'OCO' ? 'OCO' : 'OTO', listOrderStatus: 'EXECUTING',
      listClientOrderId: list.listClientOrderId, symbol: m.symbol,
      orders: list.orders.map((x) => ({ symbol: m.symbol, orderId: x.orderId, clientOrderId: x.clientOrderId })) }
  }
  return out
}

/** GET order/amendments: the order's amendments oldest first, from fromExecutionId on. */
export async function spotAmendmentsFrom(ctx: GatewayContext, a: Authenticated): Promise<object[]> {
  const state = ctx.state()
  const m = spotParam(state, a.params)
  const fromEntry = idParam(a.params, 'fromExecutionId') ?? 0
  const limit = limitParam(a.params, 500, PROJECTION_LIMITS.spotOrderAmendmentsMax)
  const order = await findOrder(ctx, a, m)
  if (order === undefined) throw fromCore('ORDER_UNKNOWN', { venue: 'spot', op: 'query' })
  // Amendments of an order still open are as new as the state it was found in.
  await ctx.projections.readable()
  const owner = { account: a.session.account, sub: a.session.sub }
  const rows = await ctx.projections.orderAmendmentsFrom(owner, m.marketId, order.orderId, fromEntry, limit)
  return rows.map((r) => ({
    symbol: m.symbol, orderId: r.orderId, executionId: entryOfAmendment(r.amendmentId),
    origClientOrderId: r.clientOrderIdBefore ?? r.clientOrderId, newClientOrderId: r.clientOrderId,
    origQty: formatQty(m, r.origQtyBeforeLots), newQty: formatQty(m, r.origQtyAfterLots), time: r.time,
  }))
}

export const spotAmendRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  for (const v of ['/api/v1', '/api/v3']) {
    app.put(`${v}/order/amend/keepPriority`, spotAmendDocs.amend, async (req) => {
      weights.charge(req.ip, 4)
      return spotAmendFrom(ctx, authenticate(ctx, req, 'TRADE'))
    })

    app.get(`${v}/order/amendments`, spotAmendDocs.amendments, async (req) => {
      weights.charge(req.ip, 4)
      return spotAmendmentsFrom(ctx, authenticate(ctx, req, 'USER_DATA'))
    })
  }
}
