// Spot order lists (core/order-lists.ts, oto-lists.ts) under /api/v1 and /api/v3: place
// (orderList/oco and the older order/oco, orderList/oto, orderList/otoco), cancel, query one,
// all and the open ones, in Binance spot's shapes.
// The spot WebSocket API runs the same functions (gateway/ws-api/spot-methods.ts).

import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import type { Event, OrderListEvent } from '../../core/events.js'
import type { ListLeg, OrderType, PlaceOrderList, PlaceOtoList, TimeInForce } from '../../core/commands.js'
import type { OrderList, SpotMarket, State } from '../../core/state.js'
import { validClientId } from '../../core/filters.js'
import type { OrderListRecord } from '../../replica/projections/index.js'
import { authenticate, type Authenticated } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { parsePriceTicks, parseQtyLots } from '../decimal.js'
import { CLIENT_ID_LEGAL_RANGE, combinationInvalid, eitherParam, fromCore, illegalChars, invalidOrderType, invalidParam, invalidTimeInForce, mandatoryParam, paramNotRequired } from '../errors.js'
import { orderAfter, spotCancelId, type OrderFields } from '../format-order.js'
import { clientIdRefParam, idParam, limitParam, optional, required, sideParam, spotParam, stpParam, timeRange, type Params } from '../market-params.js'
import type { OrderCounter } from '../order-counter.js'
import { pegParams } from '../peg-params.js'
import { strategyParams } from '../strategy-params.js'
import { spotListDocs } from '../schemas/spot.js'
import type { WeightCounter } from '../weights.js'
import { respTypeOf } from './spot-trade.js'
import { spotOrderJson } from '../format-spot.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
  orders: OrderCounter
}

/** Binance spot's order types a list's orders may take, as the core's. */
const LEG_TYPES: Record<string, OrderType> = {
  LIMIT: 'LIMIT', MARKET: 'MARKET', LIMIT_MAKER: 'POST_ONLY', STOP_LOSS: 'STOP_MARKET', STOP_LOSS_LIMIT: 'STOP',
  TAKE_PROFIT: 'TAKE_PROFIT_MARKET', TAKE_PROFIT_LIMIT: 'TAKE_PROFIT',
}
/** What each kind of order may be: an OCO's legs, an OTO's working order, an OTO's pending order. */
const OCO_TYPES = ['LIMIT_MAKER', 'STOP_LOSS', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT', 'TAKE_PROFIT_LIMIT']
const WORKING_TYPES = ['LIMIT', 'LIMIT_MAKER']
const PENDING_TYPES = Object.keys(LEG_TYPES)

/** The list's fields every answer starts with. */
interface ListFields {
  /** OTO for OTO and OTOCO lists; absent or OCO otherwise. */
  contingencyType?: 'OCO' | 'OTO' | undefined
  orderListId: number
  listClientOrderId: string
  listStatusType: string
  listOrderStatus: string
  orders: { orderId: number; clientOrderId: string }[]
}

function listJson(m: SpotMarket, l: ListFields, transactionTime: number): Record<string, unknown> {
  return {
    orderListId: l.orderListId, contingencyType: l.contingencyType ?? 'OCO', listStatusType: l.listStatusType, listOrderStatus: l.listOrderStatus,
    listClientOrderId: l.listClientOrderId, transactionTime, symbol: m.symbol,
    orders: l.orders.map((o) => ({ symbol: m.symbol, orderId: o.orderId, clientOrderId: o.clientOrderId })),
  }
}

/** A list of the state (executing): its fields as its events show them. */
function liveFields(l: OrderList): ListFields {
  return { contingencyType: l.contingency === 'OCO' ? 'OCO' : 'OTO', orderListId: l.orderListId, listClientOrderId: l.listClientOrderId,
    listStatusType: 'EXEC_STARTED',
    listOrderStatus: 'EXECUTING', orders: l.orders }
}

/**
 * One order of a list from its prefixed parameters (`above…`, `working…`, `pendingBelow…`):
 * its type, one of `allowed` (-1158 for an OCO's, -1116 otherwise), and what the type reads.
 */
function legParam(p: Params, m: SpotMarket, at: string, allowed: readonly string[] = OCO_TYPES): ListLeg {
  const type = required(p, `${at}Type`)
  if (!allowed.includes(type)) throw allowed === OCO_TYPES ? fromCore('LIST_LEG_TYPE', { venue: 'spot', op: 'place' }) : invalidOrderType()
  const stopLimit = type === 'STOP_LOSS_LIMIT' || type === 'TAKE_PROFIT_LIMIT'
  const stop = type !== 'LIMIT' && type !== 'MARKET' && type !== 'LIMIT_MAKER'
  return leg(p, m, LEG_TYPES[type]!, {
    price: type === 'LIMIT' || type === 'LIMIT_MAKER' || stopLimit ? `${at}Price` : undefined,
    stopPrice: stop ? `${at}StopPrice` : undefined,
    trailingDelta: stop ? `${at}TrailingDelta` : undefined,
    timeInForce: type === 'LIMIT' || stopLimit ? `${at}TimeInForce` : undefined,
    icebergQty: type === 'LIMIT' || type === 'LIMIT_MAKER' || stopLimit ? `${at}IcebergQty` : undefined,
    clientOrderId: `${at}ClientOrderId`, pegPrefix: at, strategyPrefix: at,
  }, [`${at}Price`, `${at}StopPrice`, `${at}TrailingDelta`, `${at}TimeInForce`, `${at}IcebergQty`])
}

/**
 * A leg from the parameters its type reads (`names`): each one read is required (a stop's
 * stop price unless it trails: a trailing delta and an iceberg's slice are optional), each one
 * of `all` it does not read refused if sent.
 */
function leg(p: Params, m: SpotMarket, orderType: OrderType,
  names: { price?: string | undefined; stopPrice?: string | undefined; trailingDelta?: string | undefined; timeInForce?: string | undefined;
    icebergQty?: string | undefined; clientOrderId: string; pegPrefix?: string; strategyPrefix: string },
  all: string[]): ListLeg {
  const read = new Set([names.price, names.stopPrice, names.trailingDelta, names.timeInForce, names.icebergQty])
  for (const name of all) if (!read.has(name) && optional(p, name) !== undefined) throw paramNotRequired(name)
  // A peg (core/peg.ts, which says which orders take one) makes the price optional.
  const out: ListLeg = { orderType, ...(names.pegPrefix === undefined ? {} : pegParams(p, names.pegPrefix)),
    ...strategyParams(p, names.strategyPrefix) }
  if (names.price !== undefined) {
    const raw = out.pegPriceType === undefined ? required(p, names.price) : optional(p, names.price)
    if (raw !== undefined) out.priceTicks = parsePriceTicks(m, raw, names.price)
  }
  const delta = names.trailingDelta === undefined ? undefined : idParam(p, names.trailingDelta)
  if (delta !== undefined) out.trailingDeltaBips = delta
  if (names.stopPrice !== undefined) {
    const raw = optional(p, names.stopPrice)
    if (raw === undefined && delta === undefined) {
      throw names.trailingDelta === undefined ? mandatoryParam(names.stopPrice) : eitherParam(names.stopPrice, names.trailingDelta)
    }
    if (raw !== undefined) out.stopPriceTicks = parsePriceTicks(m, raw, names.stopPrice)
  }
  if (names.timeInForce !== undefined) {
    const tif = required(p, names.timeInForce)
    if (tif !== 'GTC' && tif !== 'IOC' && tif !== 'FOK') throw invalidTimeInForce()
    out.timeInForce = tif as TimeInForce
  }
  const iceberg = names.icebergQty === undefined ? undefined : optional(p, names.icebergQty)
  if (iceberg !== undefined) out.icebergLots = parseQtyLots(m, iceberg, false, names.icebergQty)
  const clientId = optional(p, names.clientOrderId)
  // Refused here, named: the core's refusal comes after the balance check, naming the list's id.
  if (clientId !== undefined && !validClientId(clientId)) throw illegalChars(names.clientOrderId, CLIENT_ID_LEGAL_RANGE)
  if (clientId !== undefined) out.clientOrderId = clientId
  return out
}

/**
 * The older POST order/oco: a LIMIT_MAKER at `price` and a stop at `stopPrice` (a stop limit
 * with `stopLimitPrice`), above and below as the side puts them.
 */
function legacyLegs(p: Params, m: SpotMarket, side: 'BUY' | 'SELL'): { above: ListLeg; below: ListLeg } {
  const maker = leg(p, m, 'POST_ONLY', { price: 'price', icebergQty: 'limitIcebergQty', clientOrderId: 'limitClientOrderId',
    strategyPrefix: 'limit' }, [])
  const stopLimit = optional(p, 'stopLimitPrice') !== undefined
  // The stop price is mandatory here, a trailing delta (the stop's) optional.
  required(p, 'stopPrice')
  const stop = leg(p, m, stopLimit ? 'STOP' : 'STOP_MARKET', {
    price: stopLimit ? 'stopLimitPrice' : undefined, stopPrice: 'stopPrice', trailingDelta: 'trailingDelta',
    timeInForce: stopLimit ? 'stopLimitTimeInForce' : undefined, icebergQty: stopLimit ? 'stopIcebergQty' : undefined,
    clientOrderId: 'stopClientOrderId', strategyPrefix: 'stop',
  }, ['stopLimitTimeInForce', 'stopIcebergQty'])
  return side === 'SELL' ? { above: maker, below: stop } : { above: stop, below: maker }
}

/**
 * The list's orders the command changed, as they stand after it, in the cancel form when
 * `canceled` (an OTOCO's working order, filled before, is not among a cancel's).
 */
function orderReports(state: State, m: SpotMarket, events: readonly Event[], l: ListFields, time: number, canceled: boolean): object[] {
  return l.orders.flatMap(({ orderId, clientOrderId }) => {
    const rec = orderAfter(events, m.marketId, orderId)
    return rec === undefined ? [] : [report(state, m, events, rec, clientOrderId, time, canceled)]
  })
}

/** One order's report: the placement form, or the cancel form with the cancel's own client id. */
function report(state: State, m: SpotMarket, events: readonly Event[], rec: OrderFields, clientOrderId: string, time: number,
  canceled: boolean): object {
  const body = spotOrderJson(state, m, rec, 'response')
  if (!canceled) return { ...body, transactTime: time }
  const e = events.find((x) => x.type === 'order' && x.orderId === rec.orderId)
  if (e?.type === 'order') body.clientOrderId = spotCancelId(e)
  return { symbol: body.symbol, origClientOrderId: clientOrderId, ...body, transactTime: time }
}

/** POST orderList/oco (or, `legacy`, order/oco): sequences the list and answers it in newOrderRespType's form. */
export async function spotOcoPlaceFrom(ctx: GatewayContext, a: Authenticated, legacy = false): Promise<object> {
  const state = ctx.state()
  const p = a.params
  const m = spotParam(state, p)
  const side = sideParam(p)
  const qtyLots = parseQtyLots(m, required(p, 'quantity'), false)
  const legs = legacy ? legacyLegs(p, m, side) : { above: legParam(p, m, 'above'), below: legParam(p, m, 'below') }
  return submitList(ctx, a, m, { type: 'PlaceOrderList', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
    marketId: m.marketId, side, qtyLots, ...legs })
}

/**
 * Sequences a list placement with the parameters every kind reads (listClientOrderId,
 * selfTradePreventionMode, newOrderRespType) and answers its body, with the orders' reports
 * unless ACK was asked for.
 */
async function submitList(ctx: GatewayContext, a: Authenticated, m: SpotMarket, cmd: PlaceOrderList | PlaceOtoList): Promise<object> {
  const p = a.params
  const stp = stpParam(p, true)
  const respType = respTypeOf(p, 'FULL')
  const listClientOrderId = optional(p, 'listClientOrderId')
  if (listClientOrderId !== undefined) cmd.listClientOrderId = listClientOrderId
  if (stp !== undefined) cmd.stp = stp
  const state = ctx.state()
  const ack = await ctx.submit(cmd)
  if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'spot', op: 'place', param: 'listClientOrderId' })
  const l = listEventOf(ack.result.events)
  const body = listJson(m, l, l.time)
  if (respType !== 'ACK') body.orderReports = orderReports(state, m, ack.result.events, l, l.time, false)
  return body
}

/**
 * POST orderList/oto (one pending order) or, `pair`, orderList/otoco (a pending OCO pair): the
 * working order (workingType LIMIT or LIMIT_MAKER, workingSide, workingQuantity…) placed now,
 * the pending ones (pendingSide, pendingQuantity, pending… or pendingAbove… and pendingBelow…)
 * once it has filled in full. `opo`: orderList/opo and opoco, whose working order buys and whose
 * pending orders sell what it brings (no pendingQuantity).
 */
export async function spotOtoPlaceFrom(ctx: GatewayContext, a: Authenticated, pair: boolean, opo = false): Promise<object> {
  const state = ctx.state()
  const p = a.params
  const m = spotParam(state, p)
  const workingSide = sideParam(p, 'workingSide')
  const working = { ...legParam(p, m, 'working', WORKING_TYPES), side: workingSide, qtyLots: parseQtyLots(m, required(p, 'workingQuantity'), false, 'workingQuantity') }
  const pendingSide = sideParam(p, 'pendingSide')
  if (opo && optional(p, 'pendingQuantity') !== undefined) throw paramNotRequired('pendingQuantity')
  // Binance accepts only a buy that pays for a sell.
  if (opo && workingSide !== 'BUY') throw invalidParam('workingSide')
  if (opo && pendingSide !== 'SELL') throw invalidParam('pendingSide')
  const pendingQtyLots = opo ? 0 : parseQtyLots(m, required(p, 'pendingQuantity'), false, 'pendingQuantity')
  const pending = pair ? { pendingAbove: legParam(p, m, 'pendingAbove'), pendingBelow: legParam(p, m, 'pendingBelow') }
    : { pending: legParam(p, m, 'pending', PENDING_TYPES) }
  return submitList(ctx, a, m, { type: 'PlaceOtoList', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
    marketId: m.marketId, working, pendingSide, pendingQtyLots, ...pending, ...(opo ? { opo } : {}) })
}

function listEventOf(events: readonly Event[], orderListId?: number): OrderListEvent {
  const l = events.find((e): e is OrderListEvent => e.type === 'orderList' && (orderListId === undefined || e.orderListId === orderListId))
  // Every accepted list command reports its list; this is for the type checker.
  if (l === undefined) throw fromCore('LIST_UNKNOWN', { venue: 'spot', op: 'cancel' })
  return l
}

/** DELETE orderList: cancels an executing list (both its orders), by orderListId or listClientOrderId. */
export async function spotOcoCancelFrom(ctx: GatewayContext, a: Authenticated): Promise<object> {
  const state = ctx.state()
  const m = spotParam(state, a.params)
  const orderListId = idParam(a.params, 'orderListId')
  const listClientOrderId = clientIdRefParam(a.params, 'listClientOrderId')
  if (orderListId === undefined && listClientOrderId === undefined) throw eitherParam('orderListId', 'listClientOrderId')
  const cancelClientOrderId = optional(a.params, 'newClientOrderId')
  // With both, orderListId names the list (as Binance's).
  const ack = await ctx.submit({ type: 'CancelOrderList', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
    marketId: m.marketId, ...(orderListId !== undefined ? { orderListId } : { listClientOrderId }),
    ...(cancelClientOrderId !== undefined ? { cancelClientOrderId } : {}) })
  if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'spot', op: 'cancel', param: 'newClientOrderId' })
  const l = listEventOf(ack.result.events)
  return { ...listJson(m, l, ack.time), orderReports: orderReports(state, m, ack.result.events, l, ack.time, true) }
}

/**
 * DELETE openOrders' answer: each order canceled alone as the cancel form, each list canceled
 * as one list body with its orders' reports, in the order the core canceled them.
 */
export function cancelAllBodies(state: State, m: SpotMarket, events: readonly Event[], time: number): object[] {
  const out: object[] = []
  for (const e of events) {
    if (e.type === 'orderList') out.push({ ...listJson(m, e, time), orderReports: orderReports(state, m, events, e, time, true) })
    if (e.type !== 'order' || e.orderListId !== undefined) continue
    // Each cancel's own id as clientOrderId (made for it, as for a cancel alone and in the stream), the order's as origClientOrderId.
    out.push({ ...spotOrderJson(state, m, orderAfter(events, m.marketId, e.orderId)!, 'response'), clientOrderId: spotCancelId(e),
      origClientOrderId: e.clientOrderId, transactTime: time })
  }
  return out
}

function recordJson(state: State, r: OrderListRecord): object {
  return listJson(state.markets[r.marketId] as SpotMarket, r, r.time)
}

/** GET orderList: one list, executing or done, by orderListId or origClientOrderId (its listClientOrderId). */
export async function spotOcoQueryFrom(ctx: GatewayContext, a: Authenticated): Promise<object> {
  const orderListId = idParam(a.params, 'orderListId')
  const listClientOrderId = clientIdRefParam(a.params, 'origClientOrderId')
  if (orderListId === undefined && listClientOrderId === undefined) throw eitherParam('orderListId', 'origClientOrderId')
  await ctx.projections.readable()
  // With both, origClientOrderId names the list (as Binance's).
  const r = await ctx.projections.orderList({ account: a.session.account, sub: a.session.sub },
    listClientOrderId !== undefined ? { listClientOrderId } : { orderListId })
  if (r === undefined) throw fromCore('LIST_UNKNOWN', { venue: 'spot', op: 'query' })
  return recordJson(ctx.state(), r)
}

/** GET allOrderList: from fromId up, or by the time-range rule on placement time; default 500, at most 1000. */
export async function spotAllOcoFrom(ctx: GatewayContext, a: Authenticated): Promise<object[]> {
  const fromId = idParam(a.params, 'fromId')
  const range = timeRange(a.params, undefined, true)
  if (fromId !== undefined && (range.startTime !== undefined || range.endTime !== undefined)) {
    throw combinationInvalid()
  }
  const limit = limitParam(a.params, 500, 1000)
  await ctx.projections.readable()
  const rows = await ctx.projections.allOrderLists({ account: a.session.account, sub: a.session.sub }, { fromId, ...range, limit })
  const state = ctx.state()
  return rows.map((r) => recordJson(state, r))
}

/** GET openOrderList: the executing lists, from the replica's state. */
export function spotOpenOcoFrom(a: Authenticated): object[] {
  const out: object[] = []
  for (const o of a.sub?.orders.values() ?? []) {
    const l = o.list
    if (l !== null && !l.done && l.legs[0] === o) out.push(listJson(o.market as SpotMarket, liveFields(l), l.time))
  }
  return out
}

export const spotOrderListRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights, orders }) => {
  /** Counts the list's orders against the account's order limits, once the symbol is known. */
  const count = (a: Authenticated, reply: FastifyReply, n = 2): void => {
    spotParam(ctx.state(), a.params)
    const key = `${a.session.account}/${a.session.sub}`
    for (let i = 1; i < n; i++) orders.count(key)
    void reply.headers(orders.count(key))
  }
  for (const v of ['/api/v1', '/api/v3']) {
    app.post(`${v}/orderList/oco`, spotListDocs.placeOco, async (req, reply) => {
      weights.charge(req.ip, 1)
      const a = authenticate(ctx, req, 'TRADE')
      count(a, reply)
      return spotOcoPlaceFrom(ctx, a)
    })

    const otoKinds = [['oto', false, false, spotListDocs.placeOto], ['otoco', true, false, spotListDocs.placeOtoco],
      ['opo', false, true, spotListDocs.placeOpo], ['opoco', true, true, spotListDocs.placeOpoco]] as const
    for (const [path, pair, opo, docs] of otoKinds) {
      app.post(`${v}/orderList/${path}`, docs, async (req, reply) => {
        weights.charge(req.ip, 1)
        const a = authenticate(ctx, req, 'TRADE')
        count(a, reply, pair ? 3 : 2)
        return spotOtoPlaceFrom(ctx, a, pair, opo)
      })
    }

    app.post(`${v}/order/oco`, spotListDocs.placeLegacyOco, async (req, reply) => {
      weights.charge(req.ip, 1)
      const a = authenticate(ctx, req, 'TRADE')
      count(a, reply)
      return spotOcoPlaceFrom(ctx, a, true)
    })

    app.delete(`${v}/orderList`, spotListDocs.cancel, async (req) => {
      weights.charge(req.ip, 1)
      return spotOcoCancelFrom(ctx, authenticate(ctx, req, 'TRADE'))
    })

    app.get(`${v}/orderList`, spotListDocs.query, async (req) => {
      weights.charge(req.ip, 4)
      return spotOcoQueryFrom(ctx, authenticate(ctx, req, 'USER_DATA'))
    })

    app.get(`${v}/allOrderList`, spotListDocs.all, async (req) => {
      weights.charge(req.ip, 20)
      return spotAllOcoFrom(ctx, authenticate(ctx, req, 'USER_DATA'))
    })

    app.get(`${v}/openOrderList`, spotListDocs.open, async (req) => {
      weights.charge(req.ip, 6)
      return spotOpenOcoFrom(authenticate(ctx, req, 'USER_DATA'))
    })
  }
}
