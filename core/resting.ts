// The life of an order in the book: resting it (book, account index, margin or balance
// held, GTD queue) and retiring it (the reverse), so every exit path releases the same way.

import { assert } from './assert.js'
import type { Event, ExecType, ExpiryReason, OrderStatus } from './events.js'
import { ensureHolding, ensureSpotBalance } from './accounts.js'
import { nextSlice } from './book.js'
import { isClosing, orderEvent } from './records.js'
import { LIMITS } from './limits.js'
import { endList } from './order-lists.js'
import { unrestPending } from './oto-lists.js'
import { unrestConditional } from './conditional.js'
import { holdPrice, unrestSpotStop } from './spot-stops.js'
import { lockFor, unlockSpot } from './spot.js'
import type { Market, Order, PerpMarket, SpotMarket, State, SubAccount } from './state.js'

export function rest(o: Order): void {
  const m = o.market
  // All it has left, or an iceberg's first slice (after filling as a taker, the next one).
  o.visibleLots = nextSlice(o)
  m.book.insert(o)
  o.owner.orders.set(o.clientOrderId, o)
  countOpen(o, 1)
  if (m.kind === 'PERP' && o.marginCounted) addMarginLots(ensureHolding(o.owner, m), o, o.origQtyLots - o.executedQtyLots)
  if (m.kind === 'PERP' && isClosing(o)) o.owner.closingResting += 1
  if (o.goodTillDate > 0) trackGoodTillDate(m, o)
}

export function trackGoodTillDate(m: Market, o: Order): void {
  m.gtdOpen += 1
  m.gtd.push({ goodTillDate: o.goodTillDate, marketId: m.marketId, orderId: o.orderId })
  if (m.gtd.size > 2 * m.gtdOpen + LIMITS.gtdStaleMax) {
    m.gtd.compact((item) => openOrderOf(m, item.orderId)?.goodTillDate === item.goodTillDate)
  }
}

/** A market's open order by id: resting in the book, a conditional one (a spot stop) waiting for its trigger, or an OTO list's pending one. */
export function openOrderOf(m: Market, orderId: number): Order | undefined {
  if (m.kind === 'PERP') return m.book.orders.get(orderId) ?? m.triggers.live.get(orderId)
  return m.book.orders.get(orderId) ?? m.stops.live.get(orderId) ?? m.stops.pending.get(orderId)
}

/**
 * The open order a command names in `m`, of `sub`: by orderId (which prevails when both are
 * sent, as Binance's), or by client id; a client id sent beside an orderId must agree.
 */
export function openOrderNamed(m: Market, sub: SubAccount, ref: { orderId?: number; clientOrderId?: string }): Order | undefined {
  const o = ref.orderId !== undefined ? openOrderOf(m, ref.orderId) : sub.orders.get(ref.clientOrderId!)
  if (o === undefined || o.owner !== sub || o.market !== m) return undefined
  if (ref.clientOrderId !== undefined && o.clientOrderId !== ref.clientOrderId) return undefined
  return o
}

/** Whether `o` is an iceberg with no room left: its account has the most open icebergs a market allows (any state: resting, waiting, pending). */
export function tooManyIcebergs(m: Market, sub: SubAccount, o: Order): boolean {
  if (o.icebergLots === 0) return false
  let n = 0
  for (const x of sub.orders.values()) if (x.market === m && x.icebergLots !== 0) n++
  return n >= LIMITS.icebergOrdersPerMarketMax
}

export function countOpen(o: Order, by: number): void {
  const map = o.owner.openByMarket
  const id = o.market.marketId
  const n = (map.get(id) ?? 0) + by
  assert(n >= 0, 'negative open order count')
  if (n === 0) map.delete(id)
  else map.set(id, n)
}

/** Adds (or with negative lots removes) resting lots to the holding's margin aggregates. */
export function addMarginLots(h: { buyLots: number; buyNotional: number; sellLots: number; sellNotional: number },
  o: Order, lots: number): void {
  if (o.side === 'BUY') {
    h.buyLots += lots
    h.buyNotional += lots * o.priceTicks
  } else {
    h.sellLots += lots
    h.sellNotional += lots * o.priceTicks
  }
}

/** Removes a resting order from the book and the account, releasing what it held. */
export function unrest(o: Order): void {
  // Off the book: a conditional order waiting for its trigger, or an OTO list's pending order.
  if (o.level === null) {
    if (o.status === 'PENDING_NEW') unrestPending(o)
    else if (o.market.kind === 'SPOT') unrestSpotStop(o)
    else unrestConditional(o)
    return
  }
  const m = o.market
  const left = o.origQtyLots - o.executedQtyLots
  m.book.delete(o)
  const deleted = o.owner.orders.delete(o.clientOrderId)
  assert(deleted, 'resting order missing from its account')
  countOpen(o, -1)
  if (o.goodTillDate > 0) m.gtdOpen -= 1
  if (m.kind === 'PERP' && isClosing(o)) o.owner.closingResting -= 1
  if (m.kind === 'PERP') {
    if (o.marginCounted) addMarginLots(o.owner.perp.get(m.marketId)!, o, -left)
  } else if (o.lockedRemaining > 0) {
    releaseSpotLock(o)
  }
}

/**
 * The price a spot order's lots are held (and an amendment's notional checked) at: a stop still
 * waiting for its trigger holds at its holdPrice (core/spot-stops.ts), any other order at its
 * limit (0: none, a market form or a peg not yet priced).
 */
export function heldPrice(o: Order): number {
  return o.cond !== null && o.cond.triggerTime === 0 ? holdPrice(o) : o.priceTicks
}

/**
 * Takes `lots` off an open spot order in place (an amendment keeping priority, self-trade
 * prevention by DECREMENT): it keeps its place; what it shows shrinks to what it has left when
 * that is less (all of a plain order; an iceberg's slice only when less than it is left, as
 * Binance's amend FAQ says); with `release`, what the lots held goes back to free balance (a
 * market buy holds only its fills' cost: nothing).
 */
export function shrinkOrder(o: Order, lots: number, release: boolean): void {
  o.origQtyLots -= lots
  const left = o.origQtyLots - o.executedQtyLots
  if (o.level !== null && o.visibleLots > left) {
    o.level.qtyLots -= o.visibleLots - left
    o.visibleLots = left
  }
  if (release) unlockSpot(o, lockFor(o.market as SpotMarket, o, lots, heldPrice(o)))
}

/** Returns a spot order's remaining lock to free balance. */
export function releaseSpotLock(o: Order): void {
  unlockSpot(o, o.lockedRemaining)
}

/** Ends a resting order (cancel, expiry, self-trade prevention) and reports it; `reason`: a spot order's expiryReason. */
export function retire(o: Order, status: OrderStatus, execType: ExecType, time: number, events: Event[], reason?: ExpiryReason): void {
  const released = o.market.kind === 'SPOT' ? o.lockedRemaining : 0
  events.push(end(o, status, execType, time, reason))
  if (released > 0) pushSpotBalanceEvent(o, time, events)
  if (o.list !== null && !o.list.done) endList(o, status === 'CANCELED' ? 'CANCELED' : 'EXPIRED', time, events)
}

/**
 * `retire` as the first events of a result (a cancel): the array is built around its record
 * rather than grown from empty, which would allocate room for 17.
 */
export function retireInto(o: Order, status: OrderStatus, execType: ExecType, time: number): Event[] {
  const released = o.market.kind === 'SPOT' ? o.lockedRemaining : 0
  const events: Event[] = [end(o, status, execType, time)]
  if (released > 0) pushSpotBalanceEvent(o, time, events)
  if (o.list !== null && !o.list.done) endList(o, status === 'CANCELED' ? 'CANCELED' : 'EXPIRED', time, events)
  return events
}

/** Takes the order out and gives it its final status; its record. */
function end(o: Order, status: OrderStatus, execType: ExecType, time: number, reason?: ExpiryReason): Event {
  unrest(o)
  o.status = status
  o.updateTime = time
  return orderEvent(o, execType, reason)
}

/** Reports the balance an order locks or releases (quote for buys, base for sells). */
export function pushSpotBalanceEvent(o: Order, time: number, events: Event[]): void {
  const asset = o.side === 'BUY' ? o.market.quote : o.market.base
  const b = ensureSpotBalance(o.owner, asset)
  events.push({
    type: 'balance', account: o.owner.address, sub: o.owner.sub, wallet: 'SPOT', asset,
    free: b.free, locked: b.locked, delta: 0, reason: 'ORDER', time,
  })
}

export function marketOf(state: State, marketId: number): PerpMarket | undefined {
  const m = state.markets[marketId]
  return m && m.kind === 'PERP' ? m : undefined
}
