// Futures order batches and amendments: place up to 5 orders (POST /fapi/v1/batchOrders),
// amend one (PUT /fapi/v1/order) or up to 5 (PUT /fapi/v1/batchOrders), cancel up to 10
// (DELETE /fapi/v1/batchOrders). A batch answers one element per order, in the order sent:
// the order, or its {code, msg} refusal in its place. Elements are checked and applied one
// after the other with the single-order code, so each meets exactly the rules it would alone.

import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import type { PerpMarket } from '../../core/state.js'
import { authenticate, type Authenticated } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { parsePriceTicks, parseQtyLots } from '../decimal.js'
import { ApiError, eitherParam, fromCore, invalidParam } from '../errors.js'
import { orderAfter, orderJson } from '../format-order.js'
import { amendmentHistory } from '../order-amendments.js'
import { clientIdRefParam, idParam, optional, perpParam, required, sideParam } from '../market-params.js'
import type { OrderCounter } from '../order-counter.js'
import { batchDocs } from '../schemas/batch.js'
import type { WeightCounter } from '../weights.js'
import { coreError, placeFrom, priceMatchParam, type Params } from './trade.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
  orders: OrderCounter
}

/** Orders per place or amend batch, and ids per cancel batch (Binance's limits). */
export const BATCH_ORDERS_MAX = 5
export const BATCH_CANCEL_MAX = 10

function batchSizeError(): ApiError {
  return new ApiError(400, -4082, 'Invalid number of batch place orders.')
}

/** A JSON list parameter, or -1130 naming it when it is not one. */
function jsonList(raw: string, name: string): unknown[] {
  let v: unknown
  try {
    v = JSON.parse(raw)
  } catch {
    throw invalidParam(name)
  }
  if (!Array.isArray(v)) throw invalidParam(name)
  return v
}

/** `batchOrders`: 1 to 5 JSON objects, each read as one order's parameters (values as strings). */
function batchElements(p: Params): Params[] {
  const list = jsonList(required(p, 'batchOrders'), 'batchOrders')
  if (list.length === 0 || list.length > BATCH_ORDERS_MAX) throw batchSizeError()
  return list.map((el) => {
    if (el === null || typeof el !== 'object' || Array.isArray(el)) throw invalidParam('batchOrders')
    const params: Params = new Map()
    for (const [k, v] of Object.entries(el as Record<string, unknown>)) {
      if (typeof v === 'string') params.set(k, v)
      else if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean') params.set(k, String(v))
      else if (v !== null) throw invalidParam('batchOrders')
    }
    return params
  })
}

/** Each element's answer, or its refusal in its place; anything but a refusal fails the request. */
async function eachInPlace<T>(items: readonly T[], run: (item: T) => Promise<object>): Promise<object[]> {
  const out: object[] = []
  for (const item of items) {
    try {
      out.push(await run(item))
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      out.push(err.toBody())
    }
  }
  return out
}

/** Amends one order from its parameters (a request's or a batch element's); answers the order after it. */
export async function modifyFrom(ctx: GatewayContext, a: Authenticated, p: Params): Promise<Record<string, unknown>> {
  const state = ctx.state()
  const m = perpParam(state, p)
  const orderId = idParam(p, 'orderId')
  // orderId prevails when both are sent (Binance): the client id is then not consulted.
  const clientOrderId = orderId === undefined ? clientIdRefParam(p, 'origClientOrderId') : undefined
  if (orderId === undefined && clientOrderId === undefined) throw eitherParam('orderId', 'origClientOrderId')
  const side = sideParam(p)
  // With a priceMatch the core takes the new price from the book (and refuses one sent too).
  const priceMatch = priceMatchParam(p)
  const matched = priceMatch !== undefined && priceMatch !== 'NONE'
  const priceTicks = matched && optional(p, 'price') === undefined ? undefined : parsePriceTicks(m, optional(p, 'price'))
  const qtyLots = parseQtyLots(m, optional(p, 'quantity'), false)
  const ack = await ctx.submit({ type: 'ModifyOrder', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
    marketId: m.marketId, ...(orderId !== undefined ? { orderId } : { clientOrderId: clientOrderId! }), side, qtyLots,
    ...(priceTicks !== undefined ? { priceTicks } : {}), ...(matched ? { priceMatch } : {}) })
  if (!ack.result.ok) throw coreError(state, m, 'modify', ack.result.code)
  return orderJson(m, orderAfter(ack.result.events, m.marketId, ack.result.orderId!)!, 'response')
}

async function cancelOne(ctx: GatewayContext, a: Authenticated, m: PerpMarket,
  id: { orderId: number } | { clientOrderId: string }): Promise<object> {
  const ack = await ctx.submit({ type: 'CancelOrder', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
    marketId: m.marketId, ...id })
  if (!ack.result.ok) throw coreError(ctx.state(), m, 'cancel', ack.result.code)
  const ev = ack.result.events.find((e) => e.type === 'order')
  if (!ev || ev.type !== 'order') throw fromCore('ORDER_UNKNOWN', { venue: 'futures', op: 'cancel' })
  return orderJson(m, orderAfter(ack.result.events, m.marketId, ev.orderId)!, 'response')
}

/** The ids of a batch cancel: orderIdList or origClientOrderIdList (ccxt sends them in lower case). */
function cancelIds(p: Params): ({ orderId: number } | { clientOrderId: string })[] {
  const ids = optional(p, 'orderIdList') ?? optional(p, 'orderidlist')
  const clientIds = optional(p, 'origClientOrderIdList') ?? optional(p, 'origclientorderidlist')
  if (ids === undefined && clientIds === undefined) throw eitherParam('orderIdList', 'origClientOrderIdList')
  if (ids !== undefined) {
    const list = jsonList(ids, 'orderIdList')
    if (list.length === 0 || list.length > BATCH_CANCEL_MAX) throw invalidParam('orderIdList')
    return list.map((item) => {
      // Ids as numbers ([1,2]) or as strings of digits (["1","2"]: Binance's own connector sends those).
      const id = typeof item === 'string' && /^\d{1,16}$/.test(item) ? Number(item) : item
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) throw invalidParam('orderIdList')
      return { orderId: id }
    })
  }
  const list = jsonList(clientIds!, 'origClientOrderIdList')
  if (list.length === 0 || list.length > BATCH_CANCEL_MAX) throw invalidParam('origClientOrderIdList')
  return list.map((id) => {
    if (typeof id !== 'string' || id === '') throw invalidParam('origClientOrderIdList')
    return { clientOrderId: id }
  })
}

export const batchOrderRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights, orders }) => {
  /** Counts `n` new orders against the account's limits; the last count's headers go out. */
  const count = (a: Authenticated, reply: FastifyReply, n: number): void => {
    for (let i = 0; i < n; i++) void reply.headers(orders.count(`${a.session.account}/${a.session.sub}`))
  }

  app.post('/fapi/v1/batchOrders', batchDocs.place, async (req, reply) => {
    weights.charge(req.ip, 5)
    const a = authenticate(ctx, req, 'TRADE')
    const elements = batchElements(a.params)
    count(a, reply, elements.length)
    // Binance answers batch elements with the order itself (RESULT) unless ACK is asked for.
    return eachInPlace(elements, (p) => placeFrom(ctx, a, p, 'RESULT'))
  })

  app.put('/fapi/v1/order', batchDocs.modify, async (req, reply) => {
    weights.charge(req.ip, 0)
    const a = authenticate(ctx, req, 'TRADE')
    perpParam(ctx.state(), a.params)
    count(a, reply, 1)
    return modifyFrom(ctx, a, a.params)
  })

  app.get('/fapi/v1/orderAmendment', batchDocs.amendments, async (req) => {
    weights.charge(req.ip, 1)
    return amendmentHistory(ctx, authenticate(ctx, req, 'USER_DATA'))
  })

  app.put('/fapi/v1/batchOrders', batchDocs.modifyBatch, async (req, reply) => {
    weights.charge(req.ip, 5)
    const a = authenticate(ctx, req, 'TRADE')
    const elements = batchElements(a.params)
    count(a, reply, elements.length)
    return eachInPlace(elements, (p) => modifyFrom(ctx, a, p))
  })

  app.delete('/fapi/v1/batchOrders', batchDocs.cancel, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'TRADE')
    const m = perpParam(ctx.state(), a.params)
    const ids = cancelIds(a.params)
    return eachInPlace(ids, (id) => cancelOne(ctx, a, m, id))
  })
}
