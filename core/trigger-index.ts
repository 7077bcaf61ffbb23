// A perpetual market's waiting conditional orders, indexed so that a price move touches only
// the orders it crosses: per working type (mark, last trade) one heap of triggers that fire
// as the price rises (`up`: price ≥ trigger) and one of those that fire as it falls (`down`:
// price ≤ trigger). Trailing stops wait in the same heaps for their activation price; once
// activated each sits in two heaps of its side: one by its extreme (the orders a new high,
// for SELL, or low, for BUY, moves) and one by the trigger that extreme implies, ×1000 (the
// orders a retrace fires). Derived from the orders, so the snapshot stores the orders and
// rebuilds this.
//
// Heaps delete lazily: an entry is live while its order's `cond.entry` (or, in an extreme
// heap, `cond.extremeEntry`) is that entry; dead ones are dropped as they surface, and the
// heap is rebuilt when they outnumber the live.

import type { ConditionalType, OrderType, WorkingType } from './commands.js'
import { Heap } from './heap.js'
import { LIMITS } from './limits.js'
import type { Order } from './state.js'

/** Whether an order is a conditional one still waiting (at trigger its type becomes LIMIT or MARKET). */
export function isConditionalType(t: OrderType): t is ConditionalType {
  return t === 'STOP' || t === 'STOP_MARKET' || t === 'TAKE_PROFIT' || t === 'TAKE_PROFIT_MARKET' || t === 'TRAILING_STOP_MARKET'
}

export interface TriggerEntry {
  /** Trigger or activation price in ticks; extreme in ticks; or a trailing trigger in ticks × 1000. */
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

  /** `rising`: lowest key on top; else highest. `extremes`: entries are `cond.extremeEntry`. */
  constructor(readonly rising: boolean, readonly extremes = false) {
    super(rising ? risingBefore : fallingBefore)
  }

  private live(e: TriggerEntry): boolean {
    const c = e.order.cond
    return c != null && (this.extremes ? c.extremeEntry === e : c.entry === e)
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
  /** Activated trailing SELL stops by extreme (lowest on top: a new high raises them) and by trigger ×1000 (highest on top). */
  sellExtreme: TriggerHeap
  sellTrigger: TriggerHeap
  /** Activated trailing BUY stops by extreme (highest on top: a new low lowers them) and by trigger ×1000 (lowest on top). */
  buyExtreme: TriggerHeap
  buyTrigger: TriggerHeap
  /** Activated trailing stops now in these heaps. */
  trailing: number
}

export interface TriggerIndex {
  /** Every waiting conditional order of the market by orderId, in placement order. */
  live: Map<number, Order>
  mark: TriggerSet
  contract: TriggerSet
}

function newSet(): TriggerSet {
  return {
    up: new TriggerHeap(true), down: new TriggerHeap(false),
    sellExtreme: new TriggerHeap(true, true), sellTrigger: new TriggerHeap(false),
    buyExtreme: new TriggerHeap(false, true), buyTrigger: new TriggerHeap(true),
    trailing: 0,
  }
}

export function newTriggerIndex(): TriggerIndex {
  return { live: new Map(), mark: newSet(), contract: newSet() }
}

export function setOf(index: TriggerIndex, wt: WorkingType): TriggerSet {
  return wt === 'MARK_PRICE' ? index.mark : index.contract
}
