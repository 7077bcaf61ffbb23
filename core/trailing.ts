// Activated trailing stops, kept so that a new high or low costs what it merges, not what it
// moves. A trailing SELL stop's extreme is the highest watched price seen since it activated,
// a BUY stop's the lowest. A new high p raises every SELL extreme below p to p, after which
// all those stops share one extreme, whatever their callbacks. So the stops of one side (per
// market and working type) sit in groups sharing an extreme, and a new high merges the groups
// below it into one group at p (a union-find link per group) without touching a stop: a move
// costs one step per group it merges, however many callback values the stops use. A stop
// reads its own extreme from its group (ConditionalState.extremeTicks), so the state root, the
// snapshot and order records see exactly what they saw when each stop carried its own.
//
// A stop's trigger, extreme × (unit ∓ callback) (ticks × unit, exact; a perpetual stop's
// callback is in ‰, unit 1000, a spot stop's trailingDelta in BIPS, unit 10,000), depends on
// its callback as well: within a group the members sit in buckets by callback, smallest first,
// which is also the order they fire in (SELL: the smallest callback has the highest trigger;
// BUY the lowest). The groups, sorted by extreme, are merged at one end (the near one: lowest extremes
// for SELL) and fired from the other (the far one: highest extremes, hence highest triggers).
// Derived from the orders, like the rest of the trigger index: the snapshot stores each stop's
// extreme and rebuilds this.

import { assert } from './assert.js'
import type { ConditionalType, WorkingType } from './commands.js'
import { LIMITS } from './limits.js'
import type { Conditional, Order } from './state.js'
import type { TriggerEntry } from './trigger-index.js'

/** How one side reads its stops' callbacks: their unit (the trigger is exact in ticks × unit) and range. */
export interface CallbackUnit {
  scale: number
  max: number
  of(c: ConditionalState): number
}

/** Perpetual trailing stops: callbackRate in 0.1 % steps (1..100). */
const PERMILLE_CALLBACK: CallbackUnit = { scale: 1000, max: 100, of: (c) => c.callbackPermille }

/** Spot trailing stops (core/spot-stops.ts): trailingDelta in BIPS. */
export const BIPS_CALLBACK: CallbackUnit = { scale: 10_000, max: LIMITS.trailingDeltaMaxBips, of: (c) => c.trailingDeltaBips }

/** The members of a group with one callback value: a doubly-linked list through ConditionalState.prev/next. */
class Bucket {
  head: Order | null = null
  tail: Order | null = null
  size = 0

  constructor(readonly callback: number) {}
}

/** Activated trailing stops sharing one extreme. */
export class TrailGroup {
  /** Set once merged into another group, whose extreme is then this group's (union-find). */
  parent: TrailGroup | null = null
  /** Members by callback, ascending callback, none empty (root groups only). */
  buckets: Bucket[] = []
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

/** Index of the first bucket whose callback is not below `cb` (buckets.length if none). */
function bucketIndex(buckets: Bucket[], cb: number): number {
  let lo = 0
  let hi = buckets.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (buckets[mid]!.callback < cb) lo = mid + 1
    else hi = mid
  }
  return lo
}

function append(b: Bucket, o: Order): void {
  const c = condOf(o)
  c.prev = b.tail
  c.next = null
  if (b.tail === null) b.head = o
  else condOf(b.tail).next = o
  b.tail = o
  b.size += 1
}

function unlink(b: Bucket, c: ConditionalState): void {
  if (c.prev === null) b.head = c.next
  else condOf(c.prev).next = c.next
  if (c.next === null) b.tail = c.prev
  else condOf(c.next).prev = c.prev
  c.prev = null
  c.next = null
  b.size -= 1
}

/** The two groups as one, under the larger (which stays the root); buckets of one callback concatenated. */
function union(a: TrailGroup, b: TrailGroup): TrailGroup {
  const big = a.size >= b.size ? a : b
  const small = big === a ? b : a
  const bs = big.buckets
  for (const sb of small.buckets) {
    const i = bucketIndex(bs, sb.callback)
    const bb = bs[i]
    if (bb === undefined || bb.callback !== sb.callback) {
      bs.splice(i, 0, sb)
      continue
    }
    condOf(bb.tail!).next = sb.head
    condOf(sb.head!).prev = bb.tail
    bb.tail = sb.tail
    bb.size += sb.size
  }
  big.size += small.size
  small.parent = big
  small.buckets = []
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
  trailingDeltaBips: number
  trailingTime: number
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
    this.trailingDeltaBips = c.trailingDeltaBips
    this.trailingTime = c.trailingTime
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

/** A fired conditional order and how far behind the current price its trigger lies (× its side's unit). */
export interface Due {
  order: Order
  distance: number
}

/** The order fired orders are placed in: the price path crossed the farthest first; ties by orderId. */
export function byCrossing(a: Due, b: Due): number {
  return b.distance - a.distance || a.order.orderId - b.order.orderId
}

/** The activated trailing stops of one side of one working type of a market. */
export class TrailSide {
  /** Root groups with members, far to near (SELL: extreme descending; BUY: ascending); extremes distinct. */
  private readonly groups: TrailGroup[] = []
  // Each group's extreme and its farthest trigger (its smallest callback's, × unit), side by
  // side with `groups`: the scans read these packed numbers, not the group objects.
  private readonly exts: number[] = []
  private readonly tops: number[] = []
  /** Stops waiting per callback value, and the smallest value with any (MAX_SAFE_INTEGER: none). */
  private readonly perCallback: number[]
  private minCallback = Number.MAX_SAFE_INTEGER
  /** The farthest trigger (× unit) of all (SELL: the highest; BUY: the lowest): a price not past it fires none. */
  private far: number

  constructor(readonly sell: boolean, private readonly unit: CallbackUnit = PERMILLE_CALLBACK) {
    this.perCallback = new Array<number>(unit.max + 1).fill(0)
    this.far = this.none()
  }

  /** `far` with no stop: no price reaches it. */
  private none(): number {
    return this.sell ? 0 : Number.MAX_SAFE_INTEGER
  }

  /** The trigger an extreme implies for a callback, × unit (exact). */
  triggerScaled(extreme: number, callback: number): number {
    const u = this.unit.scale
    return this.sell ? extreme * (u - callback) : extreme * (u + callback)
  }

  /** Whether extreme a lies strictly nearer the price end than b (a new extreme reaches it first). */
  private nearer(a: number, b: number): boolean {
    return this.sell ? a < b : a > b
  }

  /** Whether trigger a (× unit) lies strictly farther than b (a retrace reaches it first). */
  private farther(a: number, b: number): boolean {
    return this.sell ? a > b : a < b
  }

  /** A root group's farthest trigger. */
  private topOf(g: TrailGroup): number {
    return this.triggerScaled(g.extreme, g.buckets[0]!.callback)
  }

  /** Whether `price` would move no extreme and fire no stop (a cheap look before a trigger run). */
  quiet(price: number): boolean {
    const n = this.exts.length
    if (n === 0) return true
    return !this.nearer(this.exts[n - 1]!, price) && this.farther(price * this.unit.scale, this.far)
  }

  /** Files an activated trailing stop under its own extreme. */
  join(o: Order): void {
    const c = condOf(o)
    const extreme = c.extremeTicks
    const cb = this.unit.of(c)
    const gs = this.groups
    const n = gs.length
    let i: number
    if (n === 0 || this.nearer(extreme, this.exts[n - 1]!)) {
      i = n
      gs.push(new TrailGroup(extreme))
      this.exts.push(extreme)
      this.tops.push(0)
    } else if (this.exts[n - 1] === extreme) {
      i = n - 1
    } else {
      // Rare (a snapshot restore, a price no trigger run saw): the first group not farther.
      i = this.groupIndex(extreme)
      if (this.exts[i] !== extreme) {
        gs.splice(i, 0, new TrailGroup(extreme))
        this.exts.splice(i, 0, extreme)
        this.tops.splice(i, 0, 0)
      }
    }
    const g = gs[i]!
    const bs = g.buckets
    const k = bucketIndex(bs, cb)
    let b = bs[k]
    if (b === undefined || b.callback !== cb) {
      b = new Bucket(cb)
      bs.splice(k, 0, b)
      if (k === 0) this.tops[i] = this.triggerScaled(extreme, cb)
    }
    append(b, o)
    g.size += 1
    c.group = g
    this.perCallback[cb] = (this.perCallback[cb] ?? 0) + 1
    if (cb < this.minCallback) this.minCallback = cb
    const t = this.triggerScaled(extreme, cb)
    if (this.farther(t, this.far)) this.far = t
  }

  /** Index of the root group with `extreme` or, if none, where it would go (extremes are distinct and in order). */
  private groupIndex(extreme: number): number {
    const es = this.exts
    let lo = 0
    let hi = es.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.nearer(extreme, es[mid]!)) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** Takes a stop out (fired, canceled, expired): its extreme becomes its own again. */
  leave(o: Order): void {
    const c = condOf(o)
    const g = c.ungroup()
    const cb = this.unit.of(c)
    const bs = g.buckets
    const k = bucketIndex(bs, cb)
    const b = bs[k]!
    assert(b !== undefined && b.callback === cb, 'a grouped trailing stop is in its bucket')
    unlink(b, c)
    g.size -= 1
    const i = this.groupIndex(g.extreme)
    assert(this.groups[i] === g, 'a trailing group is in its side')
    // The farthest trigger may have been this one's.
    const wasFar = this.triggerScaled(g.extreme, cb) === this.far
    if (b.size === 0) bs.splice(k, 1)
    if (g.size === 0) {
      this.groups.splice(i, 1)
      this.exts.splice(i, 1)
      this.tops.splice(i, 1)
    } else if (k === 0 && b.size === 0) {
      this.tops[i] = this.topOf(g)
    }
    this.counted(cb)
    if (wasFar) this.refar()
  }

  /** One stop of callback `cb` left. */
  private counted(cb: number): void {
    const n = this.perCallback[cb]! - 1
    this.perCallback[cb] = n
    if (n > 0 || cb !== this.minCallback) return
    let next = Number.MAX_SAFE_INTEGER
    for (let k = cb + 1; k < this.perCallback.length; k++) {
      if ((this.perCallback[k] ?? 0) > 0) {
        next = k
        break
      }
    }
    this.minCallback = next
  }

  /**
   * The price reached `price`: every extreme it passed moves to it (a SELL stop's extreme
   * below it, a BUY stop's above), by merging the groups concerned.
   */
  move(price: number): void {
    const es = this.exts
    let n = es.length
    if (n === 0 || !this.nearer(es[n - 1]!, price)) return
    const gs = this.groups
    const tops = this.tops
    let merged = gs.pop()!
    es.pop()
    tops.pop()
    n -= 1
    // Those passed, and one already at the price.
    while (n > 0 && !this.nearer(price, es[n - 1]!)) {
      merged = union(merged, gs.pop()!)
      es.pop()
      tops.pop()
      n -= 1
    }
    merged.extreme = price
    gs.push(merged)
    es.push(price)
    const t = this.topOf(merged)
    tops.push(t)
    // Its trigger is at least as far as those of the groups it took in: the farthest can only grow.
    if (this.farther(t, this.far)) this.far = t
  }

  /**
   * Those whose trigger the price reached, into `due` (out of their groups) or, when
   * `protect` holds them, into `held` (they stay, skipped until their extreme moves again:
   * a held trigger waits for the run to end, as in the heaps before).
   */
  fire<M>(price: number, m: M, protect: (m: M, o: Order) => boolean, due: Due[], held: Order[]): void {
    const priceScaled = price * this.unit.scale
    if (this.farther(priceScaled, this.far)) return
    const gs = this.groups
    const es = this.exts
    const tops = this.tops
    // No callback is smaller than this one: a group whose trigger with it the price has not reached fires none, nor do nearer ones.
    const minCb = this.minCallback
    let i = 0
    let kept = 0
    for (; i < es.length; i++) {
      const e = es[i]!
      if (this.farther(priceScaled, this.triggerScaled(e, minCb))) break
      if (this.farther(priceScaled, tops[i]!)) {
        // Not reached: it stays as it is.
        if (kept < i) {
          gs[kept] = gs[i]!
          es[kept] = e
          tops[kept] = tops[i]!
        }
        kept += 1
        continue
      }
      const g = gs[i]!
      const bs = g.buckets
      let j = 0
      let bKept = 0
      for (; j < bs.length; j++) {
        const b = bs[j]!
        const cb = b.callback
        const t = this.triggerScaled(e, cb)
        if (this.farther(priceScaled, t)) break
        const distance = Math.abs(priceScaled - t)
        for (let o = b.head; o !== null;) {
          const c = condOf(o)
          const next = c.next
          if (c.heldAt !== e) {
            if (protect(m, o)) {
              c.heldAt = e
              held.push(o)
            } else {
              unlink(b, c)
              g.size -= 1
              c.ungroup()
              this.counted(cb)
              due.push({ order: o, distance })
            }
          }
          o = next
        }
        if (b.size > 0) bs[bKept++] = b
      }
      if (bKept < j) bs.splice(bKept, j - bKept)
      if (g.size > 0) {
        gs[kept] = g
        es[kept] = e
        tops[kept] = this.topOf(g)
        kept += 1
      }
    }
    if (kept < i) {
      gs.splice(kept, i - kept)
      es.splice(kept, i - kept)
      tops.splice(kept, i - kept)
    }
    this.refar()
  }

  /** Recomputes the farthest trigger exactly, from the far end until no nearer group can beat it. */
  private refar(): void {
    const minCb = this.minCallback
    const es = this.exts
    const tops = this.tops
    let far = this.none()
    for (let i = 0; i < es.length; i++) {
      if (!this.farther(this.triggerScaled(es[i]!, minCb), far)) break
      const t = tops[i]!
      if (this.farther(t, far)) far = t
    }
    this.far = far
  }
}
