// Self-trade prevention in DECREMENT mode (Binance spot's DECREMENT, and its TRANSFER, which
// acts the same within one account): a match between two orders of one sub-account does not
// trade; both orders lose the lots it would have traded (their prevented quantity), the one
// with fewer left expires (both when equal) and the other stays where it is. A cut order keeps
// its place in the queue, as an amendment down does (core/amend-quantity.ts), and what the lots
// held goes back to free balance. The quantity an order was sent with stays in its records:
// origQtyLots (what it may trade) plus preventedLots.

import type { StpMode } from './commands.js'
import type { Event, PreventedMatchEvent } from './events.js'
import { min } from './arith.js'
import { orderEvent } from './records.js'
import { pushSpotBalanceEvent, retire, shrinkOrder } from './resting.js'
import { inOcoPair, rebalanceOcoHolds } from './order-lists.js'
import type { Order, SpotMarket } from './state.js'

/** Whether the taker's mode cuts both orders rather than expiring one. */
export function decrements(stp: StpMode): boolean {
  return stp === 'DECREMENT' || stp === 'TRANSFER'
}

/**
 * A DECREMENT match: `prevented` (already numbered and reported) takes its lots off both orders.
 * Whether the taker has nothing left (its sweep then ends; it expires as it finishes).
 */
export function decrementMatch(m: SpotMarket, taker: Order, maker: Order, prevented: PreventedMatchEvent, time: number,
  events: Event[]): boolean {
  const lots = prevented.takerLots
  taker.preventedMatchId = prevented.preventedMatchId
  maker.preventedMatchId = prevented.preventedMatchId
  if (lots === maker.origQtyLots - maker.executedQtyLots) {
    // Nothing left: it expires, releasing all it held (and ending its list, if any).
    takeOff(maker, lots, false)
    retire(maker, 'EXPIRED_IN_MATCH', 'EXPIRED_IN_MATCH', time, events)
  } else if (inOcoPair(maker)) {
    // An OCO's two orders share one quantity (Binance's amend FAQ): the other loses as much, and
    // the pair's hold is what the larger needs, as placed.
    const legs = [maker, ...maker.list!.legs.filter((leg) => leg !== maker)]
    for (const leg of legs) {
      leg.preventedMatchId = prevented.preventedMatchId
      takeOff(leg, lots, false)
      leg.updateTime = time
    }
    rebalanceOcoHolds(m, maker.list!)
    for (const leg of legs) reportCut(leg, time, events)
  } else {
    cutOpen(maker, lots, time, events)
  }
  if (lots === taker.origQtyLots - taker.executedQtyLots) {
    // Released and reported as it expires (core/orders.ts finish).
    takeOff(taker, lots, false)
    return true
  }
  cutOpen(taker, lots, time, events)
  return false
}

/** The lots a DECREMENT match prevents: all the smaller order has left. */
export function decrementLots(taker: Order, maker: Order): number {
  return min(taker.origQtyLots - taker.executedQtyLots, maker.origQtyLots - maker.executedQtyLots)
}

/** Moves `lots` of what an order may trade to its prevented quantity (resting.ts shrinkOrder). */
function takeOff(o: Order, lots: number, release: boolean): void {
  shrinkOrder(o, lots, release)
  o.preventedLots += lots
}

/** Cuts an order that keeps lots (resting, or the taker), releasing what they held, and reports it. */
function cutOpen(o: Order, lots: number, time: number, events: Event[]): void {
  takeOff(o, lots, true)
  o.updateTime = time
  reportCut(o, time, events)
}

function reportCut(o: Order, time: number, events: Event[]): void {
  events.push(orderEvent(o, 'TRADE_PREVENTION'))
  pushSpotBalanceEvent(o, time, events)
}

