// Which sub-accounts a price move must look at, so a move does not check every account.
// Derived caches, not state: nothing here is in the root or the snapshot, and a state
// restored from a snapshot starts with empty caches, whose first sweep of each market checks
// every holder (core/liquidation/sweep.ts explains why that gives the same results).
//
// Per market: the holders (sub-accounts with a position there), the cumulative distance its
// mark has travelled (`moved`, ticks), and a min-heap of triggers. When a sub-account is
// checked and found clear of the warning level, its headroom (margin balance − 1.25 ×
// maintenance) is shared among the markets it holds, and each gets a trigger: the `moved`
// value at which that market's mark could have eaten its share. A position loses at most
// 3 × |qty| × quotePerTickLot per tick of mark (1 for the PnL, ≤ 1.25 × mmr ≤ 1.25 for the
// maintenance, rounded up), so until some trigger fires the account cannot have reached
// the warning level, let alone maintenance.
//
// Each sub-account has at most one live entry per market, kept on the sub-account itself
// (`SubWatch`, a non-enumerable symbol property like the market's watch: a check after every
// trade reads it, and the sub-account is at hand then while a map lookup would not be). A
// check that computes a later trigger than the live one keeps the live one (it only checks
// earlier than needed); an earlier one replaces it. Replaced entries are dropped when they
// surface (an entry is live while its sub-account's slot for the market holds it).

import type { PerpMarket, State, SubAccount } from '../state.js'
import { findSub } from '../accounts.js'
import type { Issuer } from '../commands.js'
import { Heap } from '../heap.js'
import { LIMITS } from '../limits.js'

interface Trigger {
  /** The market's `moved` value at which to check again. */
  at: number
  sub: SubAccount
}

/** A sub-account's live trigger per marketId, and its `at` (read without touching the entry). */
interface SubWatch {
  entry: (Trigger | undefined)[]
  at: number[]
}

const SUB_WATCH = Symbol('liquidation sub-account watch')
type WatchedSub = SubAccount & { [SUB_WATCH]?: SubWatch }

function subWatch(sub: SubAccount): SubWatch {
  let w = (sub as WatchedSub)[SUB_WATCH]
  if (w === undefined) {
    w = { entry: [], at: [] }
    Object.defineProperty(sub, SUB_WATCH, { value: w, enumerable: false, writable: false, configurable: true })
  }
  return w
}

function isLive(t: Trigger, marketId: number): boolean {
  return (t.sub as WatchedSub)[SUB_WATCH]?.entry[marketId] === t
}

/** Min-heap (core/heap.ts) of triggers by `at`; ties surface in any order (the sweep sorts who it checks). */
class TriggerHeap extends Heap<Trigger> {
  constructor() {
    super(earlier)
  }
}

function earlier(a: Trigger, b: Trigger): boolean {
  return a.at < b.at
}

export interface MarketWatch {
  /** The mark `moved` was last brought up to. */
  markTicks: number
  /** Σ |Δmark| since the watch began, ticks. */
  moved: number
  heap: TriggerHeap
  /** Live entries in `heap` (each sub-account's is in its SubWatch). */
  live: number
  /** Sub-accounts that held a position here when last seen; checks drop the ones that left. */
  holders: Set<SubAccount>
  /** False until the first sweep, which checks every holder. */
  primed: boolean
}

interface StateWatch {
  markets: Map<number, MarketWatch>
  /** Sub-accounts with a risk flag set (always checked while their markets move). */
  hot: Set<SubAccount>
  /** Sub-accounts whose margin fell without a price move (a transfer out): checked at their next sweep. */
  dirty: Set<SubAccount>
}

/** Kept on the state object (non-enumerable, like the market watches below). */
const STATE_WATCH = Symbol('liquidation state watch')
type WatchedState = State & { [STATE_WATCH]?: StateWatch }

function stateWatch(state: State): StateWatch {
  let w = (state as WatchedState)[STATE_WATCH]
  if (w === undefined) {
    w = { markets: new Map(), hot: new Set(), dirty: new Set() }
    for (const account of state.accounts.values()) {
      for (const sub of account.subs) if (sub !== undefined && sub.riskFlags.size > 0) w.hot.add(sub)
    }
    Object.defineProperty(state, STATE_WATCH, { value: w, enumerable: false, writable: false, configurable: true })
  }
  return w
}

function hasPosition(sub: SubAccount, marketId: number): boolean {
  const h = sub.perp.get(marketId)
  return h !== undefined && (h.both.qtyLots !== 0 || h.long.qtyLots !== 0 || h.short.qtyLots !== 0)
}

/**
 * Where a market's watch is kept: a non-enumerable symbol property of the market object, so it
 * costs no map lookup, and snapshots, the root and copies never see it.
 */
const WATCH = Symbol('liquidation watch')
type Watched = PerpMarket & { [WATCH]?: MarketWatch }

/** The market's watch, its `moved` brought up to the current mark. */
export function marketWatch(state: State, m: PerpMarket): MarketWatch {
  let w = (m as Watched)[WATCH]
  if (w === undefined) {
    const sw = stateWatch(state)
    w = { markTicks: m.markPriceTicks, moved: 0, heap: new TriggerHeap(), live: 0, holders: new Set(), primed: false }
    for (const account of state.accounts.values()) {
      for (const sub of account.subs) if (sub !== undefined && hasPosition(sub, m.marketId)) w.holders.add(sub)
    }
    sw.markets.set(m.marketId, w)
    Object.defineProperty(m, WATCH, { value: w, enumerable: false, writable: false, configurable: true })
  }
  const d = m.markPriceTicks - w.markTicks
  w.moved += d < 0 ? -d : d
  w.markTicks = m.markPriceTicks
  return w
}

/**
 * Everyone the move of `m` asks to check, into `out`: every holder on the first sweep;
 * afterwards the hot and dirty holders and those whose triggers the move reached.
 */
export function dueForCheck(state: State, m: PerpMarket, w: MarketWatch, out: { add(s: SubAccount): unknown }): void {
  const sw = stateWatch(state)
  if (!w.primed) {
    w.primed = true
    for (const sub of w.holders) out.add(sub)
  }
  if (sw.hot.size > 0) for (const sub of sw.hot) if (sub.perp.has(m.marketId)) out.add(sub)
  if (sw.dirty.size > 0) for (const sub of sw.dirty) if (hasPosition(sub, m.marketId)) out.add(sub)
  for (let t = w.heap.peek(); t !== undefined && t.at <= w.moved; t = w.heap.peek()) {
    w.heap.pop()
    const sw = (t.sub as WatchedSub)[SUB_WATCH]
    if (sw === undefined || sw.entry[m.marketId] !== t) continue
    sw.entry[m.marketId] = undefined
    sw.at[m.marketId] = 0
    w.live -= 1
    out.add(t.sub)
  }
}

/** Records that a sub-account holds (or may hold) a position in `m`: it trades or is checked there. */
export function noteHolder(_state: State, m: PerpMarket, sub: SubAccount): void {
  const w = (m as Watched)[WATCH]
  if (w === undefined) return
  // A live trigger here means it is a holder already (rearm keeps the two in step).
  const mine = (sub as WatchedSub)[SUB_WATCH]
  if (mine !== undefined && mine.entry[m.marketId] !== undefined) return
  if (hasPosition(sub, m.marketId)) w.holders.add(sub)
}

/** The holders of `m` (for ADL and quantiles): sub-accounts with a position there, any order. */
export function holdersOf(state: State, m: PerpMarket): Iterable<SubAccount> {
  return marketWatch(state, m).holders
}

/** Keeps the hot set in step with a sub-account's flags. */
export function setHot(state: State, sub: SubAccount): void {
  const sw = stateWatch(state)
  if (sub.riskFlags.size > 0) sw.hot.add(sub)
  else sw.hot.delete(sub)
}

/** Margin left a sub-account without a price move (a transfer out, margin to an isolated position). */
export function marginMoved(state: State, issuer: Issuer): void {
  const sub = findSub(state, issuer)
  if (sub !== undefined) stateWatch(state).dirty.add(sub)
}

/**
 * After a check found the sub-account clear: set its triggers from each target's headroom
 * (`targets`: per market, the headroom share and the loss per tick it must cover), and drop
 * it from the markets it no longer holds.
 */
export function rearm(state: State, sub: SubAccount, targets: readonly { m: PerpMarket; headroom: number; lossPerTick: number }[],
  count = targets.length, mayHaveLeft = true): void {
  const sw = stateWatch(state)
  if (sw.dirty.size > 0) sw.dirty.delete(sub)
  const mine = subWatch(sub)
  if (mayHaveLeft) for (const h of sub.perp.values()) {
    if (h.both.qtyLots !== 0 || h.long.qtyLots !== 0 || h.short.qtyLots !== 0) continue
    const w = (state.markets[h.marketId] as Watched)[WATCH]
    if (w === undefined) continue
    w.holders.delete(sub)
    kill(w, mine, h.marketId)
  }
  for (let i = 0; i < count; i++) {
    const t = targets[i]!
    const w = marketWatch(state, t.m)
    const id = t.m.marketId
    const old = mine.entry[id]
    // A live entry means it is a holder already.
    if (old === undefined) w.holders.add(sub)
    const ticks = t.lossPerTick > 0 ? Math.floor(Math.max(0, t.headroom) / t.lossPerTick) : Number.MAX_SAFE_INTEGER - w.moved - 1
    const at = w.moved + ticks + 1
    // An earlier trigger only checks sooner than needed: keep it, and spare the heap.
    if (old !== undefined && mine.at[id]! <= at) continue
    const entry: Trigger = { at, sub }
    if (old === undefined) w.live += 1
    mine.entry[id] = entry
    mine.at[id] = at
    w.heap.push(entry)
    compact(w, id)
  }
}

function kill(w: MarketWatch, mine: SubWatch, marketId: number): void {
  if (mine.entry[marketId] === undefined) return
  mine.entry[marketId] = undefined
  mine.at[marketId] = 0
  w.live -= 1
}

/** Rebuilds a heap whose dead entries outnumber the live ones by the limit. */
function compact(w: MarketWatch, marketId: number): void {
  if (w.heap.size <= 2 * w.live + LIMITS.liquidationWatchStaleMax) return
  w.heap.retain((t) => isLive(t, marketId))
}
