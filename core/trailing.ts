// Activated trailing stops, kept so that a new high or low costs what it merges, not what it
// moves. A trailing SELL stop's extreme is the highest watched price seen since it activated,
// a BUY stop's the lowest. A new high p raises every SELL extreme below p to p, after which
// all those stops share one extreme. So the stops of one side (per market and working type)
// sit in groups sharing an extreme, and a new high merges the groups below it into one group
// at p (a union-find link per group) without touching a stop. A stop reads its own extreme
// from its group (ConditionalState.extremeTicks), so the state root, the snapshot and order
// records see exactly what they saw when each stop carried its own.
//
// A stop's trigger, extreme × (1000 ∓ callback) (ticks × 1000, exact), depends on its
// callback as well, so each callback value (1..100 permille) has its own class of groups:
// within a class the trigger follows the extreme, and the groups, sorted by extreme, are
// merged at one end (the near one: lowest extremes for SELL) and fired from the other (the
// far one: highest extremes, hence highest triggers, for SELL). Derived from the orders, like
// the rest of the trigger index: the snapshot stores each stop's extreme and rebuilds this.

import { assert } from './assert.js'
import type { ConditionalType, WorkingType } from './commands.js'
import type { Conditional, Order, PerpMarket } from './state.js'
import type { TriggerEntry } from './trigger-index.js'

const PERMILLE = 1000

/** Activated trailing stops sharing one extreme. */
export class TrailGroup {
  /** Set once merged into another group, whose extreme is then this group's (union-find). */
  parent: TrailGroup | null = null
  /** Members, a doubly-linked list through ConditionalState.prev/next (root groups only). */
  head: Order | null = null
  tail: Order | null = null
  size = 0

  constructor(public extreme: number) {}
}

function rootOf(g: TrailGroup): TrailGroup {
  let r = g
  while (r.parent !== null) r = r.parent
  // Path compression: later lookups from these groups take one step.
  while (g.parent !== null && g.parent !== r) {
    const up: TrailGroup = g.parent
    g.parent = r
    g = up
  }
  return r
}

/** The two member lists as one, under the larger group (which stays the root). */
function union(a: TrailGroup, b: TrailGroup): TrailGroup {
  const [big, small] = a.size >= b.size ? [a, b] : [b, a]
  if (small.head !== null) {
    if (big.tail === null) {
      big.head = small.head
    } else {
      condOf(big.tail).next = small.head
      condOf(small.head).prev = big.tail
    }
    big.tail = small.tail
  }
  big.size += small.size
  small.parent = big
  small.head = null
  small.tail = null
  small.size = 0
  return big
}

function condOf(o: Order): ConditionalState {
  return o.cond as ConditionalState
}

/**
 * A conditional order's trigger parameters and state (the Conditional of state.ts). An
 * activated trailing stop waiting in the index reads its extreme from its group; out of the
 * index (not activated, fired, canceled) from its own field.
 */
export class ConditionalState implements Conditional {
  origType: ConditionalType
  stopPriceTicks: number
  activationPriceTicks: number
  callbackPermille: number
  workingType: WorkingType
  priceProtect: boolean
  closePosition: boolean
  triggerTime: number
  reason: string
  activated: boolean
  entry: TriggerEntry | null
  /** While grouped: a group whose root holds its extreme (derived, not in the root). */
  group: TrailGroup | null = null
  prev: Order | null = null
  next: Order | null = null
  /** The extreme at which priceProtect held its trigger during this trigger run (0: not held). */
  heldAt = 0
  private ownExtreme: number

  constructor(c: Conditional) {
    this.origType = c.origType
    this.stopPriceTicks = c.stopPriceTicks
    this.activationPriceTicks = c.activationPriceTicks
    this.callbackPermille = c.callbackPermille
    this.workingType = c.workingType
    this.priceProtect = c.priceProtect
    this.closePosition = c.closePosition
    this.triggerTime = c.triggerTime
    this.reason = c.reason
    this.activated = c.activated
    this.entry = null
    this.ownExtreme = c.extremeTicks
  }

  /** Trailing stops: the highest (SELL) or lowest (BUY) price seen since activation. */
  get extremeTicks(): number {
    const g = this.group
    if (g === null) return this.ownExtreme
    if (g.parent === null) return g.extreme
    const r = rootOf(g)
    this.group = r
    return r.extreme
  }

  set extremeTicks(ticks: number) {
    assert(this.group === null, 'a grouped trailing stop moves with its group')
    this.ownExtreme = ticks
  }

  /** Leaves its group: its extreme becomes its own again. */
  ungroup(): TrailGroup {
    const r = rootOf(this.group!)
    this.ownExtreme = r.extreme
    this.group = null
    return r
  }
}

/** A fired conditional order and how far behind the current price its trigger lies (×1000). */
export interface Due {
  order: Order
  distance1000: number
}

/** One callback value's groups. */
class CallbackClass {
  /** Root groups with members, far to near (SELL: extreme descending; BUY: ascending); extremes distinct. */
  readonly groups: TrailGroup[] = []
  /** Index in TrailSide.active while it has groups; -1 otherwise. */
  slot = -1

  constructor(readonly callbackPermille: number) {}
}

/** The activated trailing stops of one side of one working type of a market. */
export class TrailSide {
  private readonly classes: (CallbackClass | undefined)[] = []
  /** Classes with groups, in no particular order (nothing depends on it: fired orders are sorted). */
  private readonly active: CallbackClass[] = []
  /** No extreme is nearer the price than this (SELL: ≤ every extreme; BUY: ≥): a price not past it moves none. */
  private near: number
  /** No trigger (×1000) is farther than this (SELL: ≥ every trigger; BUY: ≤): a price not past it fires none. */
  private far: number

  constructor(readonly sell: boolean) {
    this.near = sell ? Number.MAX_SAFE_INTEGER : 0
    this.far = sell ? 0 : Number.MAX_SAFE_INTEGER
  }

  /** The trigger an extreme implies for a callback, ×1000 (exact). */
  trigger1000(extreme: number, callbackPermille: number): number {
    return this.sell ? extreme * (PERMILLE - callbackPermille) : extreme * (PERMILLE + callbackPermille)
  }

  /** Whether extreme a lies strictly nearer the price end than b (a new extreme reaches it first). */
  private nearer(a: number, b: number): boolean {
    return this.sell ? a < b : a > b
  }

  /** Whether `price` would move no extreme and fire no stop (a cheap look before a trigger run). */
  quiet(price: number): boolean {
    return !this.nearer(this.near, price) && (this.sell ? price * PERMILLE > this.far : price * PERMILLE < this.far)
  }

  /** Files an activated trailing stop under its own extreme. */
  join(o: Order): void {
    const c = condOf(o)
    const extreme = c.extremeTicks
    const cls = this.classOf(c.callbackPermille)
    const gs = cls.groups
    let g: TrailGroup
    const last = gs[gs.length - 1]
    if (last === undefined || this.nearer(extreme, last.extreme)) {
      g = new TrailGroup(extreme)
      gs.push(g)
    } else if (last.extreme === extreme) {
      g = last
    } else {
      // Rare (a snapshot restore, a price no trigger run saw): the first group not farther.
      let lo = 0
      let hi = gs.length - 1
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (this.nearer(extreme, gs[mid]!.extreme)) lo = mid + 1
        else hi = mid
      }
      if (gs[lo]!.extreme === extreme) {
        g = gs[lo]!
      } else {
        g = new TrailGroup(extreme)
        gs.splice(lo, 0, g)
      }
    }
    if (cls.slot === -1) {
      cls.slot = this.active.length
      this.active.push(cls)
    }
    c.group = g
    c.prev = g.tail
    c.next = null
    if (g.tail === null) g.head = o
    else condOf(g.tail).next = o
    g.tail = o
    g.size += 1
    if (this.nearer(extreme, this.near)) this.near = extreme
    const t = this.trigger1000(extreme, c.callbackPermille)
    if (this.sell ? t > this.far : t < this.far) this.far = t
  }

  /** Takes a stop out (fired, canceled, expired): its extreme becomes its own again. */
  leave(o: Order): void {
    const c = condOf(o)
    const g = c.ungroup()
    this.unlink(g, c)
    if (g.size > 0) return
    const cls = this.classes[c.callbackPermille]!
    const gs = cls.groups
    // Distinct extremes in order: find it by bisection.
    let lo = 0
    let hi = gs.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.nearer(g.extreme, gs[mid]!.extreme)) lo = mid + 1
      else hi = mid
    }
    assert(gs[lo] === g, 'an emptied trailing group is in its class')
    gs.splice(lo, 1)
    if (gs.length === 0) this.retire(cls)
  }

  private unlink(g: TrailGroup, c: ConditionalState): void {
    if (c.prev === null) g.head = c.next
    else condOf(c.prev).next = c.next
    if (c.next === null) g.tail = c.prev
    else condOf(c.next).prev = c.prev
    c.prev = null
    c.next = null
    g.size -= 1
  }

  /**
   * The price reached `price`: every extreme it passed moves to it (a SELL stop's extreme
   * below it, a BUY stop's above), by merging the groups concerned in each class.
   */
  move(price: number): void {
    if (!this.nearer(this.near, price)) return
    for (const cls of this.active) {
      const gs = cls.groups
      const last = gs[gs.length - 1]!
      if (!this.nearer(last.extreme, price)) continue
      let merged = gs.pop()!
      // Those passed, and one already at the price.
      for (let g = gs[gs.length - 1]; g !== undefined && !this.nearer(price, g.extreme); g = gs[gs.length - 1]) {
        gs.pop()
        merged = union(merged, g)
      }
      merged.extreme = price
      gs.push(merged)
    }
    this.bound()
  }

  /**
   * Those whose trigger the price reached, into `due` (out of their groups) or, when
   * `protect` holds them, into `held` (they stay, skipped until their extreme moves again:
   * a held trigger waits for the run to end, as in the heaps before).
   */
  fire(price: number, m: PerpMarket, protect: (m: PerpMarket, o: Order) => boolean, due: Due[], held: Order[]): void {
    const price1000 = price * PERMILLE
    if (this.sell ? price1000 > this.far : price1000 < this.far) return
    for (let k = 0; k < this.active.length; k++) {
      const cls = this.active[k]!
      const cb = cls.callbackPermille
      const gs = cls.groups
      let i = 0
      let kept = 0
      for (; i < gs.length; i++) {
        const g = gs[i]!
        const t = this.trigger1000(g.extreme, cb)
        if (this.sell ? price1000 > t : price1000 < t) break
        const distance1000 = Math.abs(price1000 - t)
        for (let o = g.head; o !== null;) {
          const c = condOf(o)
          const next = c.next
          if (c.heldAt !== g.extreme) {
            if (protect(m, o)) {
              c.heldAt = g.extreme
              held.push(o)
            } else {
              this.unlink(g, c)
              c.ungroup()
              due.push({ order: o, distance1000 })
            }
          }
          o = next
        }
        if (g.size > 0) gs[kept++] = g
      }
      if (kept < i) gs.splice(kept, i - kept)
      if (gs.length === 0) {
        this.retire(cls)
        k -= 1
      }
    }
    this.bound()
  }

  /** A class left with no groups leaves the active list. */
  private retire(cls: CallbackClass): void {
    const lastCls = this.active.pop()!
    if (lastCls !== cls) {
      this.active[cls.slot] = lastCls
      lastCls.slot = cls.slot
    }
    cls.slot = -1
  }

  private classOf(cb: number): CallbackClass {
    let cls = this.classes[cb]
    if (cls === undefined) {
      cls = new CallbackClass(cb)
      this.classes[cb] = cls
    }
    return cls
  }

  /** Recomputes both bounds exactly from each class's ends. */
  private bound(): void {
    let near = this.sell ? Number.MAX_SAFE_INTEGER : 0
    let far = this.sell ? 0 : Number.MAX_SAFE_INTEGER
    for (const cls of this.active) {
      const gs = cls.groups
      const e = gs[gs.length - 1]!.extreme
      if (this.nearer(e, near)) near = e
      const t = this.trigger1000(gs[0]!.extreme, cls.callbackPermille)
      if (this.sell ? t > far : t < far) far = t
    }
    this.near = near
    this.far = far
  }
}
