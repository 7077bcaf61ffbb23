// A price-time priority order book on integer ticks. Each side keeps its levels in an array
// sorted so the best level is last (adds and removes near the touch move few elements);
// each level is an intrusive FIFO of orders, and each resting order points at its level, so
// a cancel touches the level array only when it empties the level.

import { assert } from './assert.js'
import { LIMITS } from './limits.js'
import { OrderIndex } from './order-index.js'
import type { Order } from './state.js'

export interface Level {
  priceTicks: number
  /** Sum of the remaining lots of the level's orders. */
  qtyLots: number
  count: number
  head: Order | null
  tail: Order | null
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

  /** Appends the order at the back of its price level. */
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
    level.qtyLots += order.origQtyLots - order.executedQtyLots
  }

  /** Unlinks the order; its remaining lots must still be counted in the level. */
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
    level.qtyLots -= order.origQtyLots - order.executedQtyLots
    if (level.count === 0) {
      assert(level.qtyLots === 0, 'empty level with quantity')
      const i = this.find(level.priceTicks)
      assert(this.levels[i] === level, 'order level missing')
      if (i === this.levels.length - 1) this.levels.pop()
      else this.levels.splice(i, 1)
    }
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
