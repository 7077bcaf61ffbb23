// A price-time priority order book on integer ticks. Each side keeps its levels in an array
// sorted so the best level is last (adds and removes near the touch move few elements);
// each level is an intrusive FIFO of orders, and each resting order points at its level, so
// a cancel touches the level array only when it empties the level.
//
// An iceberg order (Binance spot's icebergQty) shows one slice of its remaining lots at a time:
// the level counts only that slice, and a taker meets only that. When a slice is used up and
// lots remain, the next slice is shown at the back of the level, behind the orders already
// there (it loses its time priority), where the same sweep may meet it again.

import { assert } from './assert.js'
import { LIMITS } from './limits.js'
import { OrderIndex } from './order-index.js'
import type { Order } from './state.js'

export interface Level {
  priceTicks: number
  /** Sum of the lots its orders show (`visibleLots`): their remaining lots, an iceberg's slice only. */
  qtyLots: number
  count: number
  head: Order | null
  tail: Order | null
}

/**
 * What a resting order shows from now (its `visibleLots`): all it has left, or an iceberg's
 * next slice (the slice, or what is left when less).
 */
export function nextSlice(o: Order): number {
  const left = o.origQtyLots - o.executedQtyLots
  return o.icebergLots !== 0 && o.icebergLots < left ? o.icebergLots : left
}

export class BookSide {
  /** Worst first, best last. */
  readonly levels: Level[] = []

  constructor(readonly isBid: boolean) {}

  best(): Level | undefined {
    return this.levels[this.levels.length - 1]
  }

  /** True when `a` is a better price than `b` on this side. */
  better(a: number, b: number): boolean {
    return this.isBid ? a > b : a < b
  }

  /** Index of the level at `priceTicks`, or -(insertion point) - 1. */
  find(priceTicks: number): number {
    const levels = this.levels
    // Most activity is at the touch: look there before searching.
    let hi = levels.length - 1
    if (hi >= 0) {
      const top = levels[hi]!.priceTicks
      if (top === priceTicks) return hi
      if (this.better(priceTicks, top)) return -(hi + 1) - 1
    }
    let lo = 0
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      const p = levels[mid]!.priceTicks
      if (p === priceTicks) return mid
      if (this.better(priceTicks, p)) lo = mid + 1
      else hi = mid - 1
    }
    return -lo - 1
  }

  level(priceTicks: number): Level | undefined {
    const i = this.find(priceTicks)
    return i >= 0 ? this.levels[i] : undefined
  }

  canAddLevel(priceTicks: number): boolean {
    return this.levels.length < LIMITS.levelsPerSideMax || this.find(priceTicks) >= 0
  }

  /** Appends the order at the back of its price level; it shows its `visibleLots` there. */
  add(order: Order): void {
    const price = order.priceTicks
    let i = this.find(price)
    let level: Level
    if (i >= 0) {
      level = this.levels[i]!
    } else {
      i = -i - 1
      level = { priceTicks: price, qtyLots: 0, count: 0, head: null, tail: null }
      if (i === this.levels.length) this.levels.push(level)
      else this.levels.splice(i, 0, level)
    }
    order.level = level
    order.prev = level.tail
    order.next = null
    if (level.tail) level.tail.next = order
    else level.head = order
    level.tail = order
    level.count += 1
    level.qtyLots += order.visibleLots
  }

  /** Unlinks the order; the lots it shows must still be counted in the level. */
  remove(order: Order): void {
    const level = order.level
    assert(level !== null, 'order level missing')
    if (order.prev) order.prev.next = order.next
    else level.head = order.next
    if (order.next) order.next.prev = order.prev
    else level.tail = order.prev
    order.prev = null
    order.next = null
    order.level = null
    level.count -= 1
    level.qtyLots -= order.visibleLots
    if (level.count === 0) {
      assert(level.qtyLots === 0, 'empty level with quantity')
      const i = this.find(level.priceTicks)
      assert(this.levels[i] === level, 'order level missing')
      if (i === this.levels.length - 1) this.levels.pop()
      else this.levels.splice(i, 1)
    }
  }

  /**
   * An iceberg whose slice was used up (it shows 0, lots remain): shows the next slice, moved
   * to the back of its level.
   */
  requeue(order: Order): void {
    const level = order.level
    assert(level !== null && order.visibleLots === 0, 'iceberg requeued with its slice showing')
    order.visibleLots = nextSlice(order)
    level.qtyLots += order.visibleLots
    if (level.tail === order) return
    if (order.prev) order.prev.next = order.next
    else level.head = order.next
    order.next!.prev = order.prev
    order.prev = level.tail
    order.next = null
    level.tail!.next = order
    level.tail = order
  }
}

export class Book {
  readonly bids = new BookSide(true)
  readonly asks = new BookSide(false)
  /** Resting orders by orderId. */
  readonly orders = new OrderIndex()

  side(isBid: boolean): BookSide {
    return isBid ? this.bids : this.asks
  }

  /** Rests an order; the caller has checked the limits. */
  insert(order: Order): void {
    this.side(order.side === 'BUY').add(order)
    this.orders.set(order.orderId, order)
  }

  delete(order: Order): void {
    this.side(order.side === 'BUY').remove(order)
    this.orders.delete(order.orderId)
  }
}
