// Spot trading and account (/api/v1 per the spec, /api/v3 as Binance's spot clients call
// it): place (ACK, RESULT, FULL), cancel-replace, test, query, open orders, cancel, cancel
// all, balances, order limits. Amendments keeping priority: spot-amend.ts.

import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import type { Event } from '../../core/events.js'
import type { OrderType, PlaceOrder, TimeInForce } from '../../core/commands.js'
import { testOrder } from '../../core/orders.js'
import type { SpotMarket, State } from '../../core/state.js'
import { authenticate, type Authenticated } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { formatBalance, formatLedger, formatPrice, formatQty, parseAmount, parsePriceTicks, parseQtyLots } from '../decimal.js'
import { spotCommissionBody } from '../format-market.js'
import { ApiError, type ErrorBody, eitherParam, fromCore, invalidOrderType, invalidParam, invalidTimeInForce, mandatoryParam, paramNotRequired } from '../errors.js'
import { fieldsOfOrder, orderAfter, preventedQuantities, spotCancelId } from '../format-order.js'
import { spotOrderJson } from '../format-spot.js'
import { findOrder } from '../order-lookup.js'
import { pegParams } from '../peg-params.js'
import { strategyParams } from '../strategy-params.js'
import { cancelRestrictionParam, idParam, looseBool, optional, orderRefParam, sideParam, spotParam, stpParam, required, type Params } from '../market-params.js'
import type { OrderCounter } from '../order-counter.js'
import { spotDocs } from '../schemas/spot.js'
import type { WeightCounter } from '../weights.js'
import { spotAmendRoutes } from './spot-amend.js'
import { spotQueryRoutes } from './spot-queries.js'
import { cancelAllBodies, spotOrderListRoutes } from './spot-order-lists.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
  /** New-order limits per account, shared with the spot WebSocket API. */
  orders: OrderCounter
}


/** Binance spot's stop types for the core's (core/spot-stops.ts). */
const SPOT_STOP_TYPES = { STOP_LOSS: 'STOP_MARKET', STOP_LOSS_LIMIT: 'STOP', TAKE_PROFIT: 'TAKE_PROFIT_MARKET', TAKE_PROFIT_LIMIT: 'TAKE_PROFIT' } as const
type SpotStopType = keyof typeof SPOT_STOP_TYPES

/**
 * The matches self-trade prevention stopped as the order took (Binance's preventedMatches of a
 * placement's answer): each maker, at its price, with the lots the match kept each order from
 * trading where its mode took them (all it had left, or in DECREMENT mode the smaller's).
 */
function preventedMatches(m: SpotMarket, events: readonly Event[], orderId: number): object[] {
  const out: object[] = []
  for (const e of events) {
    if (e.type !== 'preventedMatch' || e.marketId !== m.marketId || e.takerOrderId !== orderId) continue
    out.push({ preventedMatchId: e.preventedMatchId, makerOrderId: e.makerOrderId, price: formatPrice(m, e.priceTicks),
      ...preventedQuantities(m, e.mode, e.takerLots, e.makerLots) })
  }
  return out
}

function fills(state: State, m: SpotMarket, events: readonly Event[], orderId: number): object[] {
  const out: object[] = []
  for (const e of events) {
    if (e.type !== 'spotTrade' || e.marketId !== m.marketId || e.taker.orderId !== orderId) continue
    out.push({ price: formatPrice(m, e.priceTicks), qty: formatQty(m, e.qtyLots),
      commission: formatLedger(e.taker.fee, state.assets.get(e.taker.feeAsset)!.scale), commissionAsset: e.taker.feeAsset,
      tradeId: e.tradeId })
  }
  return out
}

/**
 * The PlaceOrder a request names. A MARKET order takes `quantity`, or `quoteOrderQty` (the quote
 * to spend on a buy, to receive for a sell; the core sizes the order from the book).
 */
function placeCommand(state: State, a: Authenticated, m: SpotMarket): PlaceOrder {
  const p = a.params
  const side = sideParam(p)
  const type = required(p, 'type')
  const stopType = Object.hasOwn(SPOT_STOP_TYPES, type) ? SPOT_STOP_TYPES[type as SpotStopType] : undefined
  if (type !== 'LIMIT' && type !== 'MARKET' && type !== 'LIMIT_MAKER' && stopType === undefined) throw invalidOrderType()
  // Limit forms: LIMIT and the two stop-limits; market forms: MARKET and the two stop-markets.
  const limitForm = type === 'LIMIT' || type === 'STOP_LOSS_LIMIT' || type === 'TAKE_PROFIT_LIMIT'
  const marketForm = type === 'MARKET' || type === 'STOP_LOSS' || type === 'TAKE_PROFIT'
  const tif = optional(p, 'timeInForce')
  if (tif !== undefined && tif !== 'GTC' && tif !== 'IOC' && tif !== 'FOK') throw invalidTimeInForce()
  if (limitForm && tif === undefined) throw mandatoryParam('timeInForce')
  const quoteRaw = optional(p, 'quoteOrderQty')
  if (quoteRaw !== undefined && (type !== 'MARKET' || optional(p, 'quantity') !== undefined)) throw paramNotRequired('quoteOrderQty')
  if (type === 'MARKET' && quoteRaw === undefined && optional(p, 'quantity') === undefined) throw eitherParam('quantity', 'quoteOrderQty')
  // A stop's trigger: its stop price, a trailing delta (BIPS), or both.
  const trailingDeltaBips = idParam(p, 'trailingDelta')
  if (stopType === undefined && trailingDeltaBips !== undefined) throw paramNotRequired('trailingDelta')
  const stopRaw = optional(p, 'stopPrice')
  if (stopType === undefined && stopRaw !== undefined) throw paramNotRequired('stopPrice')
  if (stopType !== undefined && stopRaw === undefined && trailingDeltaBips === undefined) throw eitherParam('stopPrice', 'trailingDelta')
  const stopPriceTicks = stopRaw === undefined ? undefined : parsePriceTicks(m, stopRaw, 'stopPrice')
  let priceTicks: number | undefined
  if (marketForm) {
    if (optional(p, 'price') !== undefined) throw paramNotRequired('price')
  } else {
    // A pegged order's price is optional (core/peg.ts).
    const raw = optional(p, 'price')
    if (raw !== undefined || optional(p, 'pegPriceType') === undefined) priceTicks = parsePriceTicks(m, raw)
  }
  const quoteQty = quoteRaw === undefined ? undefined : parseAmount(state.assets.get(m.quote)!, quoteRaw, 'quoteOrderQty')
  const qtyLots = quoteQty === undefined ? parseQtyLots(m, optional(p, 'quantity'), marketForm) : 0
  // An iceberg's slice: a quantity under LOT_SIZE like any; the core says which orders take one.
  const icebergRaw = optional(p, 'icebergQty')
  const icebergLots = icebergRaw === undefined ? undefined : parseQtyLots(m, icebergRaw, false, 'icebergQty')
  const stp = stpParam(p, true)
  const cmd: PlaceOrder = { type: 'PlaceOrder', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
    marketId: m.marketId, side, orderType: (stopType ?? (type === 'LIMIT_MAKER' ? 'POST_ONLY' : type)) as OrderType, qtyLots,
    ...pegParams(p), ...strategyParams(p) }
  if (priceTicks !== undefined) cmd.priceTicks = priceTicks
  if (stopPriceTicks !== undefined) cmd.stopPriceTicks = stopPriceTicks
  if (trailingDeltaBips !== undefined) cmd.trailingDeltaBips = trailingDeltaBips
  if (quoteQty !== undefined) cmd.quoteQty = quoteQty
  if (icebergLots !== undefined) cmd.icebergLots = icebergLots
  if (limitForm) cmd.timeInForce = tif as TimeInForce
  const clientId = optional(p, 'newClientOrderId')
  if (clientId !== undefined) cmd.clientOrderId = clientId
  if (stp !== undefined) cmd.stp = stp
  return cmd
}

/** newOrderRespType: ACK, RESULT or FULL; LIMIT and MARKET default to FULL, the others (LIMIT_MAKER, stops) to ACK. */
function respTypeParam(p: Params, cmd: PlaceOrder): RespType {
  return respTypeOf(p, cmd.orderType === 'LIMIT' || cmd.orderType === 'MARKET' ? 'FULL' : 'ACK')
}

export type RespType = 'ACK' | 'RESULT' | 'FULL'

/** newOrderRespType: ACK, RESULT or FULL (-1130 otherwise), `dflt` when not sent. */
export function respTypeOf(p: Params, dflt: RespType): RespType {
  const respType = optional(p, 'newOrderRespType') ?? dflt
  if (respType !== 'ACK' && respType !== 'RESULT' && respType !== 'FULL') throw invalidParam('newOrderRespType')
  return respType
}

/** Sequences a spot order and answers it in `respType`'s form; a refusal is thrown as Binance's error. */
async function submitPlace(ctx: GatewayContext, state: State, m: SpotMarket, cmd: PlaceOrder, respType: RespType): Promise<object> {
  const ack = await ctx.submit(cmd)
  if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'spot', op: 'place', marketOrder: cmd.orderType === 'MARKET' })
  const orderId = ack.result.orderId!
  const rec = orderAfter(ack.result.events, m.marketId, orderId)!
  if (respType === 'ACK') return { symbol: m.symbol, orderId, orderListId: -1, clientOrderId: rec.clientOrderId, transactTime: ack.time }
  const body: Record<string, unknown> = { ...spotOrderJson(state, m, rec, 'response'), transactTime: ack.time }
  if (respType === 'FULL') body.fills = fills(state, m, ack.result.events, orderId)
  const prevented = preventedMatches(m, ack.result.events, orderId)
  if (prevented.length > 0) body.preventedMatches = prevented
  return body
}

/**
 * Sequences a spot cancel and answers the order after it: the cancel's own client id (the
 * request's newClientOrderId, or one made for it, format-order.ts spotCancelId) is the answer's
 * clientOrderId, the order's own its origClientOrderId.
 */
async function submitCancel(ctx: GatewayContext, a: Authenticated, m: SpotMarket,
  ref: { orderId?: number; clientOrderId?: string; restriction?: 'ONLY_NEW' | 'ONLY_PARTIALLY_FILLED'; cancelClientOrderId?: string },
  paramName = 'newClientOrderId'): Promise<object> {
  const ack = await ctx.submit({ type: 'CancelOrder', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
    marketId: m.marketId, ...ref })
  if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'spot', op: 'cancel', param: paramName })
  const ev = ack.result.events.find((e) => e.type === 'order')
  if (!ev || ev.type !== 'order') throw fromCore('ORDER_UNKNOWN', { venue: 'spot', op: 'cancel' })
  const body = spotOrderJson(ctx.state(), m, orderAfter(ack.result.events, m.marketId, ev.orderId)!, 'response')
  body.clientOrderId = spotCancelId(ev)
  return { ...body, origClientOrderId: ev.clientOrderId, transactTime: ack.time }
}

/** A cancel's own client id, when the request names one in `name`. */
function cancelIdParam(p: Params, name: string): { cancelClientOrderId?: string } {
  const id = optional(p, name)
  return id === undefined ? {} : { cancelClientOrderId: id }
}

/** cancelReplace names the order to cancel by cancelOrderId (prevails) or cancelOrigClientOrderId. */
function cancelRefParam(p: Params): { orderId: number } | { clientOrderId: string } {
  const id = idParam(p, 'cancelOrderId')
  if (id !== undefined) return { orderId: id }
  const clientOrderId = optional(p, 'cancelOrigClientOrderId')
  if (clientOrderId === undefined) throw eitherParam('cancelOrderId', 'cancelOrigClientOrderId')
  return { clientOrderId }
}

// Each route's work, on an authenticated request's params: the REST routes below and the spot
// WebSocket API (gateway/ws-api/spot-methods.ts) run the same code. New orders are counted
// against the ORDERS limits by the caller, once the symbol is known.

/** POST order: sequences it and answers in newOrderRespType's form. */
export async function spotPlaceFrom(ctx: GatewayContext, a: Authenticated): Promise<object> {
  const state = ctx.state()
  const m = spotParam(state, a.params)
  const cmd = placeCommand(state, a, m)
  return submitPlace(ctx, state, m, cmd, respTypeParam(a.params, cmd))
}

/** cancelReplace's refusal, with each half's result (Binance's `data`). */
export class CancelReplaceError extends ApiError {
  constructor(status: number, code: number, msg: string, readonly data: object) {
    super(status, code, msg)
  }

  override toBody(): ErrorBody & { data: object } {
    return { ...super.toBody(), data: this.data }
  }
}

/**
 * cancelReplace's orderRateLimitExceededMode: DO_NOTHING (the default) refuses the whole request
 * past the new-order limits; CANCEL_ONLY (true) still cancels. Anything else is -1130.
 */
export function cancelsPastOrderLimit(p: Params): boolean {
  const mode = optional(p, 'orderRateLimitExceededMode')
  if (mode !== undefined && mode !== 'DO_NOTHING' && mode !== 'CANCEL_ONLY') throw invalidParam('orderRateLimitExceededMode')
  return mode === 'CANCEL_ONLY'
}

/**
 * POST order/cancelReplace: every parameter of both halves is read before either is
 * sequenced; STOP_ON_FAILURE or ALLOW_FAILURE as Binance's. Both halves done: the data;
 * one: 409 -2021; neither: 400 -2022, each with the data.
 */
export async function spotCancelReplaceFrom(ctx: GatewayContext, a: Authenticated, pastOrderLimit?: ApiError): Promise<object> {
  const state = ctx.state()
  const m = spotParam(state, a.params)
  const mode = required(a.params, 'cancelReplaceMode')
  if (mode !== 'STOP_ON_FAILURE' && mode !== 'ALLOW_FAILURE') throw invalidParam('cancelReplaceMode')
  cancelsPastOrderLimit(a.params)
  const ref = cancelRefParam(a.params)
  const restriction = cancelRestrictionParam(a.params)
  const cmd = placeCommand(state, a, m)
  const respType = respTypeParam(a.params, cmd)
  const attempt = (f: () => Promise<object>): Promise<{ ok: boolean; body: object }> =>
    f().then((body) => ({ ok: true, body }), (err: unknown) => {
      if (!(err instanceof ApiError)) throw err
      return { ok: false, body: err.toBody() }
    })
  const cancel = await attempt(() => submitCancel(ctx, a, m, { ...ref, ...(restriction !== undefined ? { restriction } : {}),
    ...cancelIdParam(a.params, 'cancelNewClientOrderId') }, 'cancelNewClientOrderId'))
  // Past the order limits (CANCEL_ONLY), the new order fails as -1015 once the cancel was tried.
  const place = pastOrderLimit === undefined ? () => submitPlace(ctx, state, m, cmd, respType) : () => Promise.reject(pastOrderLimit)
  const placed = cancel.ok || mode === 'ALLOW_FAILURE' ? await attempt(place) : undefined
  const data = {
    cancelResult: cancel.ok ? 'SUCCESS' : 'FAILURE',
    newOrderResult: placed === undefined ? 'NOT_ATTEMPTED' : placed.ok ? 'SUCCESS' : 'FAILURE',
    cancelResponse: cancel.body, newOrderResponse: placed?.body ?? null,
  }
  if (cancel.ok && placed?.ok === true) return data
  if (cancel.ok || placed?.ok === true) throw new CancelReplaceError(409, -2021, 'Order cancel-replace partially failed.', data)
  throw new CancelReplaceError(400, -2022, 'Order cancel-replace failed.', data)
}

/**
 * POST order/test, a dry run (core/orders.ts testOrder): every check placement makes,
 * balances included; nothing is sequenced. {} as Binance answers, or with
 * computeCommissionRates=true the market's rates (no special rates, taxes or discounts here).
 */
export function spotTestFrom(ctx: GatewayContext, a: Authenticated): object {
  const state = ctx.state()
  const m = spotParam(state, a.params)
  const rates = looseBool(a.params, 'computeCommissionRates')
  const cmd = placeCommand(state, a, m)
  const o = testOrder(state, cmd, ctx.now())
  if (typeof o === 'string') throw fromCore(o, { venue: 'spot', op: 'place', marketOrder: cmd.orderType === 'MARKET' })
  return rates === true ? spotCommissionBody(m, true) : {}
}

/** GET rateLimit/order: the order limits and this sub-account's counts in them now. */
export function spotOrderLimitsFrom(orders: OrderCounter, a: Authenticated): object[] {
  const u = orders.usage(`${a.session.account}/${a.session.sub}`)
  return [
    { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: u.limit10s, count: u.n10s },
    { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: u.limit1m, count: u.n1m },
  ]
}

/** GET order: the order's record, open or done. */
export async function spotQueryFrom(ctx: GatewayContext, a: Authenticated): Promise<object> {
  const m = spotParam(ctx.state(), a.params)
  const rec = await findOrder(ctx, a, m)
  if (!rec) throw fromCore('ORDER_UNKNOWN', { venue: 'spot', op: 'query' })
  return spotOrderJson(ctx.state(), m, rec, 'record')
}

/** DELETE order (with cancelRestrictions and the cancel's own newClientOrderId). */
export function spotCancelFrom(ctx: GatewayContext, a: Authenticated): Promise<object> {
  const m = spotParam(ctx.state(), a.params)
  const restriction = cancelRestrictionParam(a.params)
  return submitCancel(ctx, a, m, { ...orderRefParam(a.params), ...(restriction !== undefined ? { restriction } : {}),
    ...cancelIdParam(a.params, 'newClientOrderId') })
}

/** GET openOrders weighs 6 for one symbol, 80 for all. */
export const spotOpenOrdersWeight = (p: Params): number => optional(p, 'symbol') === undefined ? 80 : 6

/** GET openOrders: one symbol's or every spot market's. */
export function spotOpenOrdersFrom(ctx: GatewayContext, a: Authenticated): object[] {
  const state = ctx.state()
  const m = optional(a.params, 'symbol') === undefined ? undefined : spotParam(state, a.params)
  const out: object[] = []
  for (const o of a.sub?.orders.values() ?? []) {
    if (o.market.kind === 'SPOT' && (m === undefined || o.market === m)) out.push(spotOrderJson(state, o.market, fieldsOfOrder(o), 'record'))
  }
  return out
}

/** DELETE openOrders: cancels the symbol's open orders; their records (an OCO list's as one list body). */
export async function spotCancelAllFrom(ctx: GatewayContext, a: Authenticated): Promise<object[]> {
  const m = spotParam(ctx.state(), a.params)
  const ack = await ctx.submit({ type: 'CancelAll', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey, marketId: m.marketId })
  if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'spot', op: 'cancelAll' })
  const bodies = cancelAllBodies(ctx.state(), m, ack.result.events, ack.time)
  // Nothing was open: Binance spot answers -2011, as for one unknown order (USD-M's says done).
  if (bodies.length === 0) throw fromCore('ORDER_UNKNOWN', { venue: 'spot', op: 'cancel' })
  return bodies
}

/** GET account: every asset's spot balance (omitZeroBalances=true: those with any). */
export function spotAccountFrom(ctx: GatewayContext, a: Authenticated): object {
  const state = ctx.state()
  const omitZero = looseBool(a.params, 'omitZeroBalances') === true
  const balances = [...state.assets.values()].flatMap((asset) => {
    const b = a.sub?.spot.get(asset.name)
    if (omitZero && (b === undefined || (b.free === 0 && b.locked === 0))) return []
    // Binance spot prints balances with 8 decimals (more only for an asset whose scale is finer).
    return [{ asset: asset.name, free: formatBalance(b?.free ?? 0, asset.scale), locked: formatBalance(b?.locked ?? 0, asset.scale) }]
  })
  // The account's rates are the spot markets' (they charge alike unless an operator set them apart;
  // each market's own are in account/commission): in basis points, and as 8-decimal fractions.
  const spot = state.markets.find((m): m is SpotMarket => m?.kind === 'SPOT')
  const [maker, taker] = [spot?.makerFeePpm ?? 0, spot?.takerFeePpm ?? 0]
  return {
    makerCommission: Math.round(maker / 100), takerCommission: Math.round(taker / 100), buyerCommission: 0, sellerCommission: 0,
    commissionRates: { maker: formatBalance(maker * 100, 8), taker: formatBalance(taker * 100, 8), buyer: '0.00000000', seller: '0.00000000' },
    canTrade: true, canWithdraw: true, canDeposit: true, brokered: false, requireSelfTradePrevention: false, preventSor: false,
    updateTime: state.time, accountType: 'SPOT', balances, permissions: ['SPOT'], uid: uidOf(a.session.account, a.session.sub),
  }
}

/**
 * Binance's numeric user id, which bots key accounts by: one per sub-account (each is a Binance
 * account of its own), stable, from the address's first 40 bits and the sub-account number.
 */
export function uidOf(address: string, sub: number): number {
  return Number.parseInt(address.slice(2, 12), 16) * 1000 + sub
}

export const spotTradeRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights, orders }) => {
  await app.register(spotQueryRoutes, { ctx, weights })
  await app.register(spotAmendRoutes, { ctx, weights })
  await app.register(spotOrderListRoutes, { ctx, weights, orders })
  /** Counts a new order of the request's account (its headers), once the symbol is known. */
  const count = (a: Authenticated, reply: FastifyReply): void => {
    spotParam(ctx.state(), a.params)
    void reply.headers(orders.count(`${a.session.account}/${a.session.sub}`))
  }
  for (const v of ['/api/v1', '/api/v3']) {
    app.post(`${v}/order`, spotDocs.placeOrder, async (req, reply) => {
      weights.charge(req.ip, 1)
      const a = authenticate(ctx, req, 'TRADE')
      count(a, reply)
      return spotPlaceFrom(ctx, a)
    })

    app.post(`${v}/order/cancelReplace`, spotDocs.cancelReplace, async (req, reply) => {
      weights.charge(req.ip, 1)
      const a = authenticate(ctx, req, 'TRADE')
      const cancelOnly = cancelsPastOrderLimit(a.params)
      try {
        count(a, reply)
      } catch (err) {
        if (!cancelOnly || !(err instanceof ApiError) || err.code !== -1015) throw err
        return spotCancelReplaceFrom(ctx, a, err)
      }
      return spotCancelReplaceFrom(ctx, a)
    })

    app.post(`${v}/order/test`, spotDocs.testOrder, async (req) => {
      weights.charge(req.ip, 1)
      const a = authenticate(ctx, req, 'TRADE')
      // Binance: 20 with computeCommissionRates=true, as the WebSocket API's order.test weighs it.
      if (looseBool(a.params, 'computeCommissionRates') === true) weights.charge(req.ip, 19)
      return spotTestFrom(ctx, a)
    })

    app.get(`${v}/rateLimit/order`, spotDocs.orderRateLimit, async (req) => {
      weights.charge(req.ip, 40)
      return spotOrderLimitsFrom(orders, authenticate(ctx, req, 'USER_DATA'))
    })

    app.get(`${v}/order`, spotDocs.queryOrder, async (req) => {
      weights.charge(req.ip, 4)
      return spotQueryFrom(ctx, authenticate(ctx, req, 'USER_DATA'))
    })

    app.delete(`${v}/order`, spotDocs.cancelOrder, async (req) => {
      weights.charge(req.ip, 1)
      return spotCancelFrom(ctx, authenticate(ctx, req, 'TRADE'))
    })

    app.get(`${v}/openOrders`, spotDocs.openOrders, async (req) => {
      const a = authenticate(ctx, req, 'USER_DATA')
      const all = spotOpenOrdersFrom(ctx, a)
      weights.charge(req.ip, spotOpenOrdersWeight(a.params))
      return all
    })

    app.delete(`${v}/openOrders`, spotDocs.cancelAll, async (req) => {
      weights.charge(req.ip, 1)
      return spotCancelAllFrom(ctx, authenticate(ctx, req, 'TRADE'))
    })

    app.get(`${v}/account`, spotDocs.account, async (req) => {
      weights.charge(req.ip, 20)
      return spotAccountFrom(ctx, authenticate(ctx, req, 'USER_DATA'))
    })
  }
}
