// Command builders and event pickers for the core unit tests, so each table row states only
// what differs: who, which side, price in ticks, quantity in lots.

import type { Code } from '../../core/codes.js'
import type { CancelOrder, Command, PlaceOrder, Side } from '../../core/commands.js'
import type { BalanceEvent, Event, OrderEvent, PerpTradeEvent, Result, SpotTradeEvent } from '../../core/events.js'
import { stateRoot } from '../../core/root.js'
import type { State } from '../../core/state.js'
import { BTCPERP, type TestExchange } from './exchange.js'

/** Optional PlaceOrder fields a row may set (marketId defaults to BTCPERP, sub to 0). */
export type OrderExtra = Partial<Omit<PlaceOrder, 'type' | 'account' | 'side' | 'orderType' | 'qtyLots'>>

export function limit(account: string, side: Side, priceTicks: number, qtyLots: number, extra: OrderExtra = {}): PlaceOrder {
  return { type: 'PlaceOrder', account, sub: 0, marketId: BTCPERP, side, orderType: 'LIMIT', priceTicks, qtyLots, ...extra }
}

export function market(account: string, side: Side, qtyLots: number, extra: OrderExtra = {}): PlaceOrder {
  return { type: 'PlaceOrder', account, sub: 0, marketId: BTCPERP, side, orderType: 'MARKET', qtyLots, ...extra }
}

export function postOnly(account: string, side: Side, priceTicks: number, qtyLots: number, extra: OrderExtra = {}): PlaceOrder {
  return { type: 'PlaceOrder', account, sub: 0, marketId: BTCPERP, side, orderType: 'POST_ONLY', priceTicks, qtyLots, ...extra }
}

export function cancel(account: string, ref: Partial<Omit<CancelOrder, 'type' | 'account'>>): CancelOrder {
  return { type: 'CancelOrder', account, sub: 0, marketId: BTCPERP, ...ref }
}

export interface Rejection {
  /** The rejection code, or 'ACCEPTED' when the command was not rejected. */
  code: Code | 'ACCEPTED'
  eventCount: number
  /** True when the state root after the command equals the one before. */
  rootUnchanged: boolean
}

/** Runs a command expected to be rejected and reports its code and whether state moved. */
export function rejection(ex: TestExchange, command: Command): Rejection {
  const before = stateRoot(ex.state)
  const r = ex.run(command)
  return {
    code: r.ok ? 'ACCEPTED' : r.code,
    eventCount: r.events.length,
    rootUnchanged: stateRoot(ex.state) === before,
  }
}

export const orderEvents = (r: Result | Event[]): OrderEvent[] =>
  (Array.isArray(r) ? r : r.events).filter((e): e is OrderEvent => e.type === 'order')

export const tradeEvents = (r: Result | Event[]): PerpTradeEvent[] =>
  (Array.isArray(r) ? r : r.events).filter((e): e is PerpTradeEvent => e.type === 'trade')

export const spotTradeEvents = (r: Result | Event[]): SpotTradeEvent[] =>
  (Array.isArray(r) ? r : r.events).filter((e): e is SpotTradeEvent => e.type === 'spotTrade')

export const balanceEvents = (r: Result | Event[]): BalanceEvent[] =>
  (Array.isArray(r) ? r : r.events).filter((e): e is BalanceEvent => e.type === 'balance')

/** The order events of a result as [account, orderId, execType, status, executedQtyLots]. */
export function orderTrail(r: Result | Event[]): [string, number, string, string, number][] {
  return orderEvents(r).map((e) => [e.account, e.orderId, e.execType, e.status, e.executedQtyLots])
}

/** The fills of a result as [priceTicks, qtyLots, maker account, maker orderId, taker account]. */
export function fillTrail(r: Result | Event[]): [number, number, string, number, string][] {
  return tradeEvents(r).map((e) => [e.priceTicks, e.qtyLots, e.maker.account, e.maker.orderId, e.taker.account])
}

/** The order id a PlaceOrder result carries in its NEW event. */
export function placedId(r: Result): number {
  const e = orderEvents(r)[0]
  if (e === undefined || e.execType !== 'NEW') throw new Error('no NEW order event')
  return e.orderId
}

/** Entries in every market's GTD queue, live and stale. */
export function gtdSize(state: State): number {
  let n = 0
  for (const m of state.markets) if (m !== undefined) n += m.gtd.size
  return n
}
