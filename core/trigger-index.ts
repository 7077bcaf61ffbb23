// A perpetual market's waiting conditional orders, indexed so that a price move touches only
// the orders it crosses: per working type (mark, last trade) one heap of triggers that fire
// as the price rises (`up`: price ≥ trigger) and one of those that fire as it falls (`down`:
// price ≤ trigger). Trailing stops wait in the same heaps for their activation price; once
// activated they are grouped by shared extreme per side (core/trailing.ts). Derived from the
// orders, so the snapshot stores the orders and rebuilds this.
//
// Heaps delete lazily: an entry is live while its order's `cond.entry` is that entry; dead
// ones are dropped as they surface, and the heap is rebuilt when they outnumber the live.

import { assert } from './assert.js'
import type { ConditionalType, OrderType, WorkingType } from './commands.js'
import { Heap } from './heap.js'
import { LIMITS } from './limits.js'
import { newMarkMemo, type MarkMemo } from './prices.js'
import type { Order, SubAccount } from './state.js'
import { TrailSide } from './trailing.js'

/** Whether an order is a conditional one still waiting (at trigger its type becomes LIMIT or MARKET). */
export function isConditionalType(t: OrderType): t is ConditionalType {
  return t === 'STOP' || t === 'STOP_MARKET' || t === 'TAKE_PROFIT' || t === 'TAKE_PROFIT_MARKET' || t === 'TRAILING_STOP_MARKET'
}

/** The core's own literal for a conditional type (core/filters.ts says why an order keeps one). */
export function conditionalTypeOf(t: ConditionalType | OrderType): ConditionalType {
  switch (t) {
    case 'STOP': return 'STOP'
    case 'STOP_MARKET': return 'STOP_MARKET'
    case 'TAKE_PROFIT': return 'TAKE_PROFIT'
    case 'TAKE_PROFIT_MARKET': return 'TAKE_PROFIT_MARKET'
    default:
      if (t !== 'TRAILING_STOP_MARKET') assert(false, `not a conditional type: ${t}`)
      return 'TRAILING_STOP_MARKET'
  }
}

export interface TriggerEntry {
  /** Trigger or activation price in ticks. */
  priceTicks: number
  orderId: number
  order: Order
}

function risingBefore(a: TriggerEntry, b: TriggerEntry): boolean {
  return a.priceTicks !== b.priceTicks ? a.priceTicks < b.priceTicks : a.orderId < b.orderId
}

function fallingBefore(a: TriggerEntry, b: TriggerEntry): boolean {
  return a.priceTicks !== b.priceTicks ? a.priceTicks > b.priceTicks : a.orderId < b.orderId
}

/** Binary heap (core/heap.ts) of entries: nearest trigger on top (lowest for `up`, highest for `down`), ties by orderId. */
export class TriggerHeap extends Heap<TriggerEntry> {
  /** Entries whose order left (skipped when they surface). */
  stale = 0

  /** `rising`: lowest key on top; else highest. */
  constructor(readonly rising: boolean) {
    super(rising ? risingBefore : fallingBefore)
  }

  private live(e: TriggerEntry): boolean {
    const c = e.order.cond
    return c != null && c.entry === e
  }

  /** The nearest live entry, dropping dead ones above it. */
  override peek(): TriggerEntry | undefined {
    for (let top = this.items[0]; top !== undefined; top = this.items[0]) {
      if (this.live(top)) return top
      this.pop()
      if (this.stale > 0) this.stale -= 1
    }
    return undefined
  }

  /** One entry left early: rebuild once the dead outnumber the live (keeps size bounded). */
  markStale(): void {
    this.stale += 1
    if (this.stale > this.items.length - this.stale + LIMITS.triggerStaleMax) {
      this.retain((e) => this.live(e))
      this.stale = 0
    }
  }
}

/** One working type's heaps. */
export interface TriggerSet {
  up: TriggerHeap
  down: TriggerHeap
  /** Activated trailing stops by side, grouped by shared extreme. */
  sell: TrailSide
  buy: TrailSide
  /** Activated trailing stops now in `sell` and `buy`. */
  trailing: number
}

export interface TriggerIndex {
  /** Every waiting conditional order of the market by orderId, in placement order. */
  live: Map<number, Order>
  /** How many of `live` each sub-account owns (placement's per-market cap; derived like the rest). */
  bySub: Map<SubAccount, number>
  mark: TriggerSet
  contract: TriggerSet
  /**
   * The mark and last trade prices at which the last trigger run left nothing crossing and
   * nothing held (-1: none since the index changed): a run at the same prices does nothing.
   */
  quietMark: number
  quietLast: number
  /** What the mark was last computed from (core/prices.ts refreshMark), to skip recomputing it. */
  markMemo: MarkMemo
}

function newSet(): TriggerSet {
  return {
    up: new TriggerHeap(true), down: new TriggerHeap(false),
    sell: new TrailSide(true), buy: new TrailSide(false),
    trailing: 0,
  }
}

export function newTriggerIndex(): TriggerIndex {
  return { live: new Map(), bySub: new Map(), mark: newSet(), contract: newSet(), quietMark: -1, quietLast: -1, markMemo: newMarkMemo() }
}

export function setOf(index: TriggerIndex, wt: WorkingType): TriggerSet {
  return wt === 'MARK_PRICE' ? index.mark : index.contract
}
