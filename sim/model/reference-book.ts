// A naive order book for the property tests: every resting order in one plain array, and
// price-time priority recomputed by scanning it. Slow on purpose: it is short enough to be
// obviously right, so the real book (sorted levels, intrusive FIFOs) is checked against it.

import type { OrderType, PositionSide, Side, StpMode, TimeInForce } from '../../core/commands.js'
import type { OrderStatus } from '../../core/events.js'

export interface RefOrder {
  marketId: number
  orderId: number
  /** The owning sub-account, as `address/sub`. */
  owner: string
  clientOrderId: string
  side: Side
  orderType: OrderType
  timeInForce: TimeInForce
  /** 0 for market orders. */
  priceTicks: number
  qtyLots: number
  filledLots: number
  /** Sum of fill price × fill lots. */
  cumQuoteTicksLots: number
  status: OrderStatus
  positionSide: PositionSide
  reduceOnly: boolean
  stp: StpMode
  goodTillDate: number
  /** Spot: ledger units still held for the order (quote for buys, base for sells). */
  lockedRemaining: bigint
  /** When the order started resting (a counter): the account lists its orders in this order. */
  restedAt: number
  /** Its place in its price's queue (the same counter): when it rested, or when its iceberg's last slice came up. */
  queuedAt: number
  /** Spot icebergs: the slice (0: not an iceberg) and what of it the book shows now. */
  icebergLots: number
  visibleLots: number
  /** Spot: lots DECREMENT self-trade prevention took off (already gone from qtyLots). */
  preventedLots: number
  /** A quote-sized order the book ran short for (rules 5): it expires once filled. */
  quoteShort?: boolean
}

/** Resting orders of one market, in no particular order. */
export interface RefBook {
  orders: RefOrder[]
}

export function remainingLots(o: RefOrder): number {
  return o.qtyLots - o.filledLots
}

/** What a resting order shows: all it has left, an iceberg's slice only. */
export function shownLots(o: RefOrder): number {
  return o.icebergLots === 0 ? remainingLots(o) : o.visibleLots
}

/** True when a taker on `takerSide` with this limit (0: market) may trade at `restingTicks`. */
export function takerCrosses(takerSide: Side, limitTicks: number, restingTicks: number): boolean {
  if (limitTicks === 0) return true
  return takerSide === 'BUY' ? limitTicks >= restingTicks : limitTicks <= restingTicks
}

/** True when resting order `a` has priority over `b` (same side): better price, then earlier. */
function ahead(a: RefOrder, b: RefOrder): boolean {
  if (a.priceTicks !== b.priceTicks) return a.side === 'BUY' ? a.priceTicks > b.priceTicks : a.priceTicks < b.priceTicks
  return a.queuedAt < b.queuedAt
}

/** The resting orders of one side, best first. */
export function sideInPriority(book: RefBook, side: Side): RefOrder[] {
  return book.orders.filter((o) => o.side === side).sort((a, b) => (ahead(a, b) ? -1 : ahead(b, a) ? 1 : 0))
}

/** The order a taker meets next: the best opposite order its limit crosses. */
export function nextMaker(book: RefBook, takerSide: Side, limitTicks: number): RefOrder | undefined {
  let best: RefOrder | undefined
  for (const o of book.orders) {
    if (o.side === takerSide || !takerCrosses(takerSide, limitTicks, o.priceTicks)) continue
    if (best === undefined || ahead(o, best)) best = o
  }
  return best
}

/** Best price on a side, or undefined when the side is empty. */
export function bestPrice(book: RefBook, side: Side): number | undefined {
  return sideInPriority(book, side)[0]?.priceTicks
}

export function removeOrder(book: RefBook, o: RefOrder): void {
  const i = book.orders.indexOf(o)
  if (i < 0) throw new Error(`reference: order ${o.orderId} not in its book`)
  book.orders.splice(i, 1)
}

export interface RefLevel {
  priceTicks: number
  qtyLots: number
  /** [orderId, remaining lots] in time priority. */
  orders: [number, number][]
}

/** One side as price levels, best first, each level's orders in time priority. */
export function levelsOf(book: RefBook, side: Side): RefLevel[] {
  const out: RefLevel[] = []
  for (const o of sideInPriority(book, side)) {
    let level = out[out.length - 1]
    if (level === undefined || level.priceTicks !== o.priceTicks) {
      level = { priceTicks: o.priceTicks, qtyLots: 0, orders: [] }
      out.push(level)
    }
    level.qtyLots += shownLots(o)
    level.orders.push([o.orderId, remainingLots(o)])
  }
  return out
}
