// Futures trading (TRADE) and order queries (USER_DATA): place, cancel, cancel all, query,
// open orders, leverage. Parameters are checked in Binance's order before the core sees
// the command; the core's verdict comes back through the error catalogue.

import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import type { OrderType, PlaceOrder, PositionSide, PriceMatch, TimeInForce } from '../../core/commands.js'
import { LIMITS } from '../../core/limits.js'
import { testOrder } from '../../core/orders.js'
import { isPriceMatch } from '../../core/price-match.js'
import { buyCap, sellFloor } from '../../core/price-band.js'
import type { PerpMarket, State, SubAccount } from '../../core/state.js'
import { authenticate, type Authenticated } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { formatMinNotional, formatPrice, parsePriceTicks, parseQtyLots } from '../decimal.js'
import {
  ApiError, fromCore, invalidOrderType, invalidParam, invalidPositionSide,
  invalidTimeInForce, mandatoryParam, paramNotRequired, type Operation,
} from '../errors.js'
import { fieldsOfOrder, orderAfter, orderJson, type OrderFields } from '../format-order.js'
import { findOrder } from '../order-lookup.js'
import { cancelRestrictionParam, idParam, looseBool, optional, orderRefParam, perpParam, required, sideParam, stpParam, wholeParam } from '../market-params.js'
import type { OrderCounter } from '../order-counter.js'
import { tradeDocs } from '../schemas/trade.js'
import type { WeightCounter } from '../weights.js'
import { batchOrderRoutes } from './batch-orders.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
  orders: OrderCounter
}

export type Params = Map<string, string>

const TIFS = new Set(['GTC', 'IOC', 'FOK', 'GTX', 'GTD'])
/** Conditional types: they wait for a trigger in the core (core/conditional.ts). */
export const CONDITIONAL = new Set(['STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET', 'TRAILING_STOP_MARKET'])
const ORDER_TYPES = new Set(['LIMIT', 'MARKET', 'POST_ONLY', ...CONDITIONAL])

export function coreError(state: State, m: PerpMarket, op: Operation, code: Parameters<typeof fromCore>[0], marketOrder = false): ApiError {
  const scale = state.assets.get(m.quote)!.scale
  // The band at the mark this replica has now: the sequencer's may have been a tick apart.
  const band = code === 'PRICE_ABOVE_BAND' || code === 'PRICE_BELOW_BAND'
    ? { priceCap: formatPrice(m, buyCap(m)), priceFloor: formatPrice(m, sellFloor(m)) } : {}
  return fromCore(code, { venue: 'futures', op, minNotional: formatMinNotional(m, scale), marketOrder, ...band })
}

/** Builds the PlaceOrder `p` (a request's or a batch element's) asks for, refusing bad parameters in Binance's order. */
function placeCommand(a: Authenticated, p: Params, m: PerpMarket): PlaceOrder {
  const side = sideParam(p)
  const type = required(p, 'type')
  if (!ORDER_TYPES.has(type)) throw invalidOrderType()
  // Forms that become a MARKET order: no price, no time in force of their own.
  const isMarket = type === 'MARKET' || type === 'STOP_MARKET' || type === 'TAKE_PROFIT_MARKET' || type === 'TRAILING_STOP_MARKET'
  const tif = optional(p, 'timeInForce')
  if (tif !== undefined && !TIFS.has(tif)) throw invalidTimeInForce()
  if (type === 'LIMIT' && tif === undefined) throw mandatoryParam('timeInForce')
  const closePosition = looseBool(p, 'closePosition')
  if (closePosition === true) {
    if (optional(p, 'quantity') !== undefined) throw new ApiError(400, -4137, 'Quantity must be zero with closePosition equals true.')
    if (type !== 'STOP_MARKET' && type !== 'TAKE_PROFIT_MARKET') throw fromCore('CLOSE_POSITION_INVALID', { venue: 'futures', op: 'place' })
  }
  const priceMatch = priceMatchParam(p)
  let priceTicks: number | undefined
  if (isMarket) {
    if (optional(p, 'price') !== undefined) throw paramNotRequired('price')
  } else if (priceMatch === undefined || optional(p, 'price') !== undefined) {
    // With a priceMatch the core takes the price from the book (and refuses one sent too).
    priceTicks = parsePriceTicks(m, optional(p, 'price'))
  }
  const qtyLots = closePosition === true ? 0 : parseQtyLots(m, optional(p, 'quantity'), isMarket)
  const positionSide = optional(p, 'positionSide')
  if (positionSide !== undefined && positionSide !== 'BOTH' && positionSide !== 'LONG' && positionSide !== 'SHORT') throw invalidPositionSide()
  const stp = stpParam(p)
  const gtd = idParam(p, 'goodTillDate')
  const cmd: PlaceOrder = {
    type: 'PlaceOrder', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
    marketId: m.marketId, side, orderType: type as OrderType, qtyLots,
  }
  if (priceTicks !== undefined) cmd.priceTicks = priceTicks
  // A market conditional form's only time in force is GTD: how long it waits for its trigger.
  if (tif !== undefined && (!isMarket || (tif === 'GTD' && type !== 'MARKET'))) cmd.timeInForce = tif as TimeInForce
  const clientId = optional(p, 'newClientOrderId')
  if (clientId !== undefined) cmd.clientOrderId = clientId
  if (positionSide !== undefined) cmd.positionSide = positionSide as PositionSide
  // In any case, as closePosition and priceProtect (Binance's server reads TRUE as true too).
  const reduceOnly = looseBool(p, 'reduceOnly')
  if (reduceOnly !== undefined) cmd.reduceOnly = reduceOnly
  if (stp !== undefined) cmd.stp = stp
  if (gtd !== undefined) cmd.goodTillDate = gtd
  if (priceMatch !== undefined) cmd.priceMatch = priceMatch
  if (CONDITIONAL.has(type)) conditionalParams(p, m, cmd, closePosition)
  return cmd
}

/** priceMatch (OPPONENT…QUEUE_20, or NONE); any other value is Binance's -5037. */
export function priceMatchParam(p: Params): PriceMatch | undefined {
  const v = optional(p, 'priceMatch')
  if (v === undefined) return undefined
  if (!isPriceMatch(v)) throw fromCore('PRICE_MATCH_INVALID', { venue: 'futures', op: 'place' })
  return v
}


/** callbackRate "0.1"…"10" (one decimal at most) as 0.1 % steps; malformed is -1102 as Binance. */
function callbackPermille(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined
  const match = /^(\d{1,3})(?:\.(\d))?0*$/.exec(raw)
  if (!match) throw mandatoryParam('callbackRate')
  return Number(match[1]) * 10 + Number(match[2] ?? '0')
}

/** The conditional fields of a STOP…TRAILING_STOP_MARKET order; their rules are the core's. */
function conditionalParams(p: Params, m: PerpMarket, cmd: PlaceOrder, closePosition: boolean | undefined): void {
  if (cmd.orderType === 'TRAILING_STOP_MARKET') {
    const cb = callbackPermille(optional(p, 'callbackRate'))
    if (cb !== undefined) cmd.callbackPermille = cb
    const activation = optional(p, 'activationPrice')
    if (activation !== undefined) cmd.activationPriceTicks = parsePriceTicks(m, activation, 'activationPrice')
  } else {
    const stop = optional(p, 'stopPrice')
    if (stop !== undefined) cmd.stopPriceTicks = parsePriceTicks(m, stop, 'stopPrice')
  }
  const wt = optional(p, 'workingType')
  if (wt !== undefined) {
    if (wt !== 'MARK_PRICE' && wt !== 'CONTRACT_PRICE') throw invalidParam('workingType')
    cmd.workingType = wt
  }
  const protect = looseBool(p, 'priceProtect')
  if (protect !== undefined) cmd.priceProtect = protect
  if (closePosition === true) {
    cmd.closePosition = true
    delete (cmd as Partial<PlaceOrder>).qtyLots
  }
}

function openOrdersOf(sub: SubAccount | undefined, m: PerpMarket | undefined): OrderFields[] {
  const out: OrderFields[] = []
  if (!sub) return out
  for (const o of sub.orders.values()) {
    if (o.market.kind === 'PERP' && (m === undefined || o.market === m)) out.push(fieldsOfOrder(o))
  }
  return out
}

/** Sequences the PlaceOrder `p` asks for: the market, the order's record after the command, its time. */
export async function submitPlace(ctx: GatewayContext, a: Authenticated, p: Params): Promise<{ m: PerpMarket; rec: OrderFields; time: number }> {
  const state = ctx.state()
  const m = perpParam(state, p)
  const cmd = placeCommand(a, p, m)
  const ack = await ctx.submit(cmd)
  if (!ack.result.ok) throw coreError(state, m, 'place', ack.result.code, cmd.orderType === 'MARKET')
  return { m, rec: orderAfter(ack.result.events, m.marketId, ack.result.orderId!)!, time: ack.time }
}

/**
 * Places one order from its parameters (a request's, or one element of a batch) and answers
 * its ACK or RESULT body; a refusal is thrown as the ApiError Binance would send.
 */
export async function placeFrom(ctx: GatewayContext, a: Authenticated, p: Params,
  defaultRespType: 'ACK' | 'RESULT' = 'ACK'): Promise<Record<string, unknown>> {
  const respType = optional(p, 'newOrderRespType') ?? defaultRespType
  if (respType !== 'ACK' && respType !== 'RESULT') throw invalidParam('newOrderRespType')
  const { m, rec, time } = await submitPlace(ctx, a, p)
  const orderId = rec.orderId
  const ack = { time }
  if (respType === 'ACK') {
    return { symbol: m.symbol, product_id: m.marketId, orderId, clientOrderId: rec.clientOrderId, transactTime: ack.time }
  }
  return orderJson(m, rec, 'response')
}

/** Cancels one order named by `p` (orderId or origClientOrderId) and answers the order after it. */
export async function cancelFrom(ctx: GatewayContext, a: Authenticated, p: Params): Promise<Record<string, unknown>> {
  const state = ctx.state()
  const m = perpParam(state, p)
  const ref = orderRefParam(p)
  const restriction = cancelRestrictionParam(p)
  const ack = await ctx.submit({ type: 'CancelOrder', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
    marketId: m.marketId, ...ref, ...(restriction !== undefined ? { restriction } : {}) })
  if (!ack.result.ok) throw coreError(state, m, 'cancel', ack.result.code)
  const ev = ack.result.events.find((e) => e.type === 'order')
  if (!ev || ev.type !== 'order') throw fromCore('ORDER_UNKNOWN', { venue: 'futures', op: 'cancel' })
  return orderJson(m, orderAfter(ack.result.events, m.marketId, ev.orderId)!, 'response')
}

/** The caller's order named by `p`, as GET /fapi/v1/order answers it. */
export async function queryFrom(ctx: GatewayContext, a: Authenticated, p: Params): Promise<Record<string, unknown>> {
  const m = perpParam(ctx.state(), p)
  const rec = await findOrder(ctx, { ...a, params: p }, m)
  if (!rec) throw fromCore('ORDER_UNKNOWN', { venue: 'futures', op: 'query' })
  return orderJson(m, rec, 'record')
}

export const tradeRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights, orders }) => {
  app.post('/fapi/v1/order', tradeDocs.placeOrder, async (req, reply: FastifyReply) => {
    weights.charge(req.ip, 0)
    const a = authenticate(ctx, req, 'TRADE')
    // An unknown symbol is refused before the order counts against the limits.
    perpParam(ctx.state(), a.params)
    void reply.headers(orders.count(`${a.session.account}/${a.session.sub}`))
    return placeFrom(ctx, a, a.params)
  })

  // A dry run (core/orders.ts testOrder): every check placement makes, margin included,
  // against the state now; nothing is sequenced. The answer is the order as it would be
  // placed, before any fill: status NEW, orderId 0 (none is given).
  app.post('/fapi/v1/order/test', tradeDocs.testOrder, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'TRADE')
    const state = ctx.state()
    const m = perpParam(state, a.params)
    const respType = optional(a.params, 'newOrderRespType')
    if (respType !== undefined && respType !== 'ACK' && respType !== 'RESULT') throw invalidParam('newOrderRespType')
    const cmd = placeCommand(a, a.params, m)
    const o = testOrder(state, cmd, ctx.now())
    if (typeof o === 'string') throw coreError(state, m, 'place', o, cmd.orderType === 'MARKET')
    return orderJson(m, fieldsOfOrder(o), 'response')
  })

  // Batches and amendments count against the same order limits.
  await app.register(batchOrderRoutes, { ctx, weights, orders })

  app.delete('/fapi/v1/order', tradeDocs.cancelOrder, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'TRADE')
    return cancelFrom(ctx, a, a.params)
  })

  for (const path of ['/fapi/v1/allOpenOrders', '/fapi/v1/openOrders']) {
    app.delete(path, tradeDocs.cancelAll, async (req) => {
      weights.charge(req.ip, 1)
      const a = authenticate(ctx, req, 'TRADE')
      const state = ctx.state()
      const m = perpParam(state, a.params)
      const ack = await ctx.submit({ type: 'CancelAll', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey, marketId: m.marketId })
      if (!ack.result.ok) throw coreError(state, m, 'cancelAll', ack.result.code)
      return { code: 200, msg: 'The operation of cancel all open order is done.' }
    })
  }

  // A dead man's switch (core/countdown.ts): the market's open orders are canceled
  // countdownTime ms from now unless called again first; 0 clears it.
  app.post('/fapi/v1/countdownCancelAll', tradeDocs.countdownCancelAll, async (req) => {
    weights.charge(req.ip, 10)
    const a = authenticate(ctx, req, 'TRADE')
    const state = ctx.state()
    const m = perpParam(state, a.params)
    const countdownMs = wholeParam(a.params, 'countdownTime', 15)
    if (countdownMs > LIMITS.countdownMaxMs) throw invalidParam('countdownTime')
    const ack = await ctx.submit({ type: 'CountdownCancelAll', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
      marketId: m.marketId, countdownMs })
    if (!ack.result.ok) throw coreError(state, m, 'cancelAll', ack.result.code)
    return { symbol: m.symbol, countdownTime: String(countdownMs) }
  })

  app.get('/fapi/v1/order', tradeDocs.queryOrder, async (req) => {
    weights.charge(req.ip, 4)
    const a = authenticate(ctx, req, 'USER_DATA')
    return queryFrom(ctx, a, a.params)
  })

  // One open order: Binance's GET /fapi/v1/openOrder, -2013 once it is filled or canceled.
  app.get('/fapi/v1/openOrder', tradeDocs.openOrder, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'USER_DATA')
    const m = perpParam(ctx.state(), a.params)
    const { orderId, clientOrderId } = orderRefParam(a.params)
    // Both sent: both must match, as GET /fapi/v1/order's lookup.
    const open = openOrdersOf(a.sub, m).find((o) => (orderId === undefined || o.orderId === orderId) &&
      (clientOrderId === undefined || o.clientOrderId === clientOrderId))
    if (!open) throw fromCore('ORDER_UNKNOWN', { venue: 'futures', op: 'query' })
    return orderJson(m, open, 'record')
  })

  app.get('/fapi/v1/openOrders', tradeDocs.openOrders, async (req) => {
    const a = authenticate(ctx, req, 'USER_DATA')
    const m = optional(a.params, 'symbol') === undefined ? undefined : perpParam(ctx.state(), a.params)
    weights.charge(req.ip, m ? 1 : 40)
    const state = ctx.state()
    return openOrdersOf(a.sub, m).map((o) => orderJson(state.markets[o.marketId] as PerpMarket, o, 'record'))
  })

  app.post('/fapi/v1/leverage', tradeDocs.leverage, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'TRADE')
    const state = ctx.state()
    const m = perpParam(state, a.params)
    const leverage = wholeParam(a.params, 'leverage', 3)
    const ack = await ctx.submit({ type: 'ChangeLeverage', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
      marketId: m.marketId, leverage })
    if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'futures', op: 'leverage', leverage: String(leverage) })
    const ev = ack.result.events.find((e) => e.type === 'leverage')
    const scale = state.assets.get(m.quote)!.scale
    const maxNotional = ev && ev.type === 'leverage' ? ev.maxNotional : 0
    return { leverage, maxNotionalValue: String(BigInt(maxNotional) / 10n ** BigInt(scale)), symbol: m.symbol }
  })
}
