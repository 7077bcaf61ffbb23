// Builders of the events that carry order records.

import { conditionalFields } from './conditional.js'
import type { ExecType, ExpiryReason, OrderEvent, OrderRecordFields, OrderStatus } from './events.js'
import type { Order } from './state.js'

/** An order's record after a change; `expiryReason` for a spot order that expired (Binance spot's). */
export function orderEvent(o: Order, execType: ExecType, expiryReason?: ExpiryReason): OrderEvent {
  const e: OrderEvent = {
    type: 'order', execType,
    marketId: o.market.marketId, orderId: o.orderId,
    account: o.owner.address, sub: o.owner.sub,
    clientOrderId: o.clientOrderId, side: o.side, orderType: o.orderType,
    timeInForce: o.timeInForce, priceTicks: o.priceTicks,
    origQtyLots: o.origQtyLots, executedQtyLots: o.executedQtyLots,
    cumQuoteTicksLots: o.cumQuoteTicksLots, status: o.status,
    positionSide: o.positionSide, reduceOnly: o.reduceOnly, stp: o.stp,
    goodTillDate: o.goodTillDate, time: o.time, updateTime: o.updateTime,
  }
  // Only conditional orders carry the field, so plain order events keep their shape.
  if (o.cond) e.cond = conditionalFields(o)
  if (o.priceMatch !== undefined && o.priceMatch !== 'NONE') e.priceMatch = o.priceMatch
  if (o.quoteQty !== 0) e.quoteQty = o.quoteQty
  if (o.list !== null) e.orderListId = o.list.orderListId
  if (o.icebergLots !== 0) e.icebergLots = o.icebergLots
  if (o.peg !== null) e.peg = o.peg
  if (expiryReason !== undefined) e.expiryReason = expiryReason
  // Prevented lots come with a match (core/prevention.ts): most orders pay one test.
  if (o.preventedMatchId >= 0) {
    e.preventedMatchId = o.preventedMatchId
    if (o.preventedLots !== 0) e.preventedLots = o.preventedLots
  }
  if (o.strategyId >= 0) e.strategyId = o.strategyId
  if (o.strategyType !== 0) e.strategyType = o.strategyType
  return e
}

/**
 * The record an order event carries, without its type and execType: one literal, as a rest
 * destructuring (`{ type, execType, ...fields }`) copies field by field through the runtime
 * into an object of its own shape, on every order a gateway answers or streams.
 */
export function recordOf(e: OrderRecordFields): OrderRecordFields {
  const r: OrderRecordFields = {
    marketId: e.marketId, orderId: e.orderId, account: e.account, sub: e.sub,
    clientOrderId: e.clientOrderId, side: e.side, orderType: e.orderType,
    timeInForce: e.timeInForce, priceTicks: e.priceTicks,
    origQtyLots: e.origQtyLots, executedQtyLots: e.executedQtyLots,
    cumQuoteTicksLots: e.cumQuoteTicksLots, status: e.status,
    positionSide: e.positionSide, reduceOnly: e.reduceOnly, stp: e.stp,
    goodTillDate: e.goodTillDate, time: e.time, updateTime: e.updateTime,
  }
  if (e.cond !== undefined) r.cond = e.cond
  if (e.priceMatch !== undefined) r.priceMatch = e.priceMatch
  if (e.quoteQty !== undefined) r.quoteQty = e.quoteQty
  if (e.orderListId !== undefined) r.orderListId = e.orderListId
  if (e.icebergLots !== undefined) r.icebergLots = e.icebergLots
  if (e.peg !== undefined) r.peg = e.peg
  if (e.expiryReason !== undefined) r.expiryReason = e.expiryReason
  if (e.preventedMatchId !== undefined) r.preventedMatchId = e.preventedMatchId
  if (e.preventedLots !== undefined) r.preventedLots = e.preventedLots
  if (e.strategyId !== undefined) r.strategyId = e.strategyId
  if (e.strategyType !== undefined) r.strategyType = e.strategyType
  return r
}

const TERMINAL: ReadonlySet<OrderStatus> = new Set<OrderStatus>(['FILLED', 'CANCELED', 'EXPIRED', 'EXPIRED_IN_MATCH'])

/** Whether a status ends the order: it trades no more and leaves the open orders. */
export function isTerminal(status: OrderStatus): boolean {
  return TERMINAL.has(status)
}

/** Whether an order can only shrink a position: reduce-only, or a hedge-mode close. */
export function isClosing(o: Order): boolean {
  return o.reduceOnly || (o.positionSide === 'LONG' ? o.side === 'SELL' : o.positionSide === 'SHORT' && o.side === 'BUY')
}
