// Binance's algo order routes for conditional orders: place, query, cancel, open, all, cancel
// all (/fapi/v1/algoOrder, openAlgoOrders, allAlgoOrders, algoOpenOrders). They are the same
// conditional orders /fapi/v1/order places, shown in the algo forms (gateway/format-algo.ts).

import type { FastifyPluginAsync } from 'fastify'
import { isConditionalType } from '../../core/trigger-index.js'
import type { PerpMarket } from '../../core/state.js'
import { authenticate, type Authenticated } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { ApiError, eitherParam, fromCore, invalidOrderType, invalidParam } from '../errors.js'
import { algoIdOf, algoJson, isAlgo, parseAlgoId } from '../format-algo.js'
import { fieldsOfOrder, type OrderFields } from '../format-order.js'
import { pageReply } from '../pages.js'
import { allPerps, clientIdRefParam, idParam, optional, perpParam, required, type Params } from '../market-params.js'
import { allOrdersArgs } from '../history-queries.js'
import type { OrderCounter } from '../order-counter.js'
import { algoDocs } from '../schemas/algo.js'
import type { WeightCounter } from '../weights.js'
import { CONDITIONAL, coreError, submitPlace } from './trade.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
  orders: OrderCounter
}


/** Algo parameters and the /fapi/v1/order parameters they stand for. */
const ORDER_NAMES: readonly (readonly [algo: string, order: string])[] =
  [['triggerPrice', 'stopPrice'], ['activatePrice', 'activationPrice'], ['clientAlgoId', 'newClientOrderId']]

/** The /fapi/v1/order parameters an algo request stands for (triggerPrice → stopPrice, …). */
function orderParams(p: Params): Params {
  const algoType = required(p, 'algoType')
  if (algoType !== 'CONDITIONAL') throw invalidParam('algoType')
  const type = required(p, 'type')
  if (!CONDITIONAL.has(type)) throw invalidOrderType()
  const out = new Map(p)
  for (const [from, to] of ORDER_NAMES) {
    out.delete(to)
    const v = p.get(from)
    if (v !== undefined) out.set(to, v)
  }
  return out
}

/** Places a conditional order from algo parameters and answers its algo record. */
export async function placeAlgoFrom(ctx: GatewayContext, a: Authenticated, p: Params): Promise<Record<string, unknown>> {
  try {
    const { m, rec } = await submitPlace(ctx, a, orderParams(p))
    return algoJson(m, rec)
  } catch (err) {
    throw algoNamed(err)
  }
}

/** A refusal naming an order parameter, in the algo parameter's name the request sent (stopPrice: triggerPrice). */
function algoNamed(err: unknown): unknown {
  if (!(err instanceof ApiError)) return err
  let msg = err.message
  for (const [algo, order] of ORDER_NAMES) msg = msg.replaceAll(`'${order}'`, `'${algo}'`)
  return msg === err.message ? err : new ApiError(err.status, err.code, msg, err.retryAfterSec, err.headers)
}

/** The caller's conditional order named by algoId or clientAlgoId: open from state, else from history. */
async function findAlgo(ctx: GatewayContext, a: Authenticated, p: Params): Promise<{ m: PerpMarket; rec: OrderFields } | undefined> {
  const algoId = idParam(p, 'algoId')
  const clientId = clientIdRefParam(p, 'clientAlgoId')
  if (algoId === undefined && clientId === undefined) throw eitherParam('algoId', 'clientAlgoId')
  const state = ctx.state()
  const owner = { account: a.session.account, sub: a.session.sub }
  if (algoId !== undefined) {
    const at = parseAlgoId(state, algoId)
    if (at === undefined) return undefined
    const open = at.m.triggers.live.get(at.orderId)
    if (open && open.owner === a.sub) return { m: at.m, rec: fieldsOfOrder(open) }
    await ctx.projections.readable()
    const rec = await ctx.projections.order(owner, at.m.marketId, at.orderId, false)
    return rec && isAlgo(rec) ? { m: at.m, rec } : undefined
  }
  const open = a.sub?.orders.get(clientId!)
  if (open && isConditionalType(open.orderType)) return { m: open.market as PerpMarket, rec: fieldsOfOrder(open) }
  // Closed ones: the newest with that id among the markets, in market order.
  await ctx.projections.readable()
  let found: { m: PerpMarket; rec: OrderFields } | undefined
  for (const m of allPerps(state)) {
    const rec = await ctx.projections.orderByClientId(owner, m.marketId, clientId!, false)
    if (rec && isAlgo(rec) && (found === undefined || rec.time > found.rec.time)) found = { m, rec }
  }
  return found
}

/** Cancels the caller's waiting conditional order named by algoId or clientAlgoId. */
export async function cancelAlgoFrom(ctx: GatewayContext, a: Authenticated, p: Params): Promise<Record<string, unknown>> {
  const found = await findAlgo(ctx, a, p)
  // Only a waiting one is an algo order to cancel: once triggered, the order it became is
  // /fapi/v1/order's (Binance's algo service answers -2011 for it too).
  if (found === undefined || !found.m.triggers.live.has(found.rec.orderId)) throw fromCore('ORDER_UNKNOWN', { venue: 'futures', op: 'cancel' })
  const { m, rec } = found
  const ack = await ctx.submit({ type: 'CancelOrder', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
    marketId: m.marketId, orderId: rec.orderId })
  if (!ack.result.ok) throw coreError(ctx.state(), m, 'cancel', ack.result.code)
  return { algoId: algoIdOf(m.marketId, rec.orderId), clientAlgoId: rec.clientOrderId, code: '200', msg: 'success' }
}

export const algoOrderRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights, orders }) => {
  app.post('/fapi/v1/algoOrder', algoDocs.place, async (req, reply) => {
    weights.charge(req.ip, 0)
    const a = authenticate(ctx, req, 'TRADE')
    perpParam(ctx.state(), a.params)
    void reply.headers(orders.count(`${a.session.account}/${a.session.sub}`))
    return placeAlgoFrom(ctx, a, a.params)
  })

  app.get('/fapi/v1/algoOrder', algoDocs.query, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'USER_DATA')
    const found = await findAlgo(ctx, a, a.params)
    if (found === undefined) throw fromCore('ORDER_UNKNOWN', { venue: 'futures', op: 'query' })
    return algoJson(found.m, found.rec)
  })

  app.delete('/fapi/v1/algoOrder', algoDocs.cancel, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'TRADE')
    return cancelAlgoFrom(ctx, a, a.params)
  })

  app.get('/fapi/v1/openAlgoOrders', algoDocs.open, async (req) => {
    const a = authenticate(ctx, req, 'USER_DATA')
    const state = ctx.state()
    const m = optional(a.params, 'symbol') === undefined ? undefined : perpParam(state, a.params)
    weights.charge(req.ip, m ? 1 : 40)
    const out: Record<string, unknown>[] = []
    for (const o of a.sub?.orders.values() ?? []) {
      if (isConditionalType(o.orderType) && (m === undefined || o.market === m)) out.push(algoJson(o.market, fieldsOfOrder(o)))
    }
    return out
  })

  app.get('/fapi/v1/allAlgoOrders', algoDocs.all, async (req, reply) => {
    weights.charge(req.ip, 5)
    const a = authenticate(ctx, req, 'USER_DATA')
    const m = perpParam(ctx.state(), a.params)
    const algoId = idParam(a.params, 'algoId')
    // The market's conditional orders (an index of their own in the projections) from the
    // algoId's order on, or by allOrders' time-range rule: the newest of the last seven days by default.
    return pageReply(ctx, req, reply, { form: 'algoOrders', market: m, ownHistory: true, query: 'allOrders',
      args: allOrdersArgs(a, m, ctx.now(), { orderId: algoId === undefined ? undefined : Math.floor(algoId / 256) }) })
  })

  app.delete('/fapi/v1/algoOpenOrders', algoDocs.cancelAll, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'TRADE')
    const state = ctx.state()
    const m = perpParam(state, a.params)
    const ack = await ctx.submit({ type: 'CancelAll', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
      marketId: m.marketId, conditionalOnly: true })
    if (!ack.result.ok) throw coreError(state, m, 'cancelAll', ack.result.code)
    return { code: 200, msg: 'The operation of cancel all open order is done.' }
  })
}
