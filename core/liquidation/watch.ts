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

/**
 * A sub-account's live trigger per marketId, and its `at` (read without touching the entry);
 * and its fill budget (budget.ts), kept here so that a trade reads one property of the sub-account.
 */
export interface SubWatch {
  entry: (Trigger | undefined)[]
  at: number[]
  /** The budget is valid: a check now would find nothing to do. */
  budgeted: boolean
  /** What fills may still cost (ledger units) before a check is due. */
  budgetLeft: number
  /** Per marketId: the mark the budget was set at, and the most lots it allows there (0: none). */
  budgetMark: number[]
  budgetLots: number[]
  /** Per marketId: ceil(1.25 × the highest maintenance rate up to the cap's notional), ppm. */
  budgetRate: number[]
  /** How many times a full check set the budget (tests tell a skipped check from a full one by it). */
  budgetSets: number
}

export const SUB_WATCH = Symbol('liquidation sub-account watch')
export type WatchedSub = SubAccount & { [SUB_WATCH]?: SubWatch }

export function subWatch(sub: SubAccount): SubWatch {
  let w = (sub as WatchedSub)[SUB_WATCH]
  if (w === undefined) {
    w = { entry: [], at: [], budgeted: false, budgetLeft: 0, budgetMark: [], budgetLots: [], budgetRate: [], budgetSets: 0 }
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
  /**
   * This command's (`fillSeq`) fills that their sub-accounts' budgets did not cover (budget.ts):
   * the sub-account and the market, for the market's sweep; a fill the budget covered needs no check.
   */
  fillSubs: SubAccount[]
  fillMarkets: number[]
  fillCount: number
  fillSeq: number
}

/** Kept on the state object (non-enumerable, like the market watches below). */
const STATE_WATCH = Symbol('liquidation state watch')
type WatchedState = State & { [STATE_WATCH]?: StateWatch }

function stateWatch(state: State): StateWatch {
  let w = (state as WatchedState)[STATE_WATCH]
  if (w === undefined) {
    w = { markets: new Map(), hot: new Set(), dirty: new Set(), fillSubs: [], fillMarkets: [], fillCount: 0, fillSeq: -1 }
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
    // The budget counted on this trigger to bound its price loss: the check must be a full one.
    sw.budgeted = false
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

/** A fill of `sub` in market `marketId` that its budget did not cover: the market's sweep checks it. */
export function noteFill(state: State, sub: SubAccount, marketId: number): void {
  const sw = stateWatch(state)
  if (sw.fillSeq !== state.seq) {
    sw.fillSeq = state.seq
    sw.fillCount = 0
  }
  const n = sw.fillCount
  // A taker's fills come one after another.
  if (n > 0 && sw.fillSubs[n - 1] === sub && sw.fillMarkets[n - 1] === marketId) return
  sw.fillSubs[n] = sub
  sw.fillMarkets[n] = marketId
  sw.fillCount = n + 1
}

/**
 * This command's fills in `m` that need a check, into `out`, each noted as a holder; they are
 * taken off the list (fills in other markets wait for their own markets' sweeps).
 */
export function takeFills(state: State, m: PerpMarket, out: { add(s: SubAccount): unknown }): void {
  const sw = stateWatch(state)
  if (sw.fillSeq !== state.seq || sw.fillCount === 0) return
  const subs = sw.fillSubs
  const markets = sw.fillMarkets
  const id = m.marketId
  let kept = 0
  for (let i = 0; i < sw.fillCount; i++) {
    const s = subs[i]!
    if (markets[i] === id) {
      // Noted as a holder even when already due (hot or dirty): ADL finds counterparties among
      // the holders, and a restored replica's rebuilt index has everyone with a position.
      noteHolder(state, m, s)
      out.add(s)
    } else {
      subs[kept] = s
      markets[kept] = markets[i]!
      kept += 1
    }
  }
  sw.fillCount = kept
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
  if (sub === undefined) return
  stateWatch(state).dirty.add(sub)
  const mine = (sub as WatchedSub)[SUB_WATCH]
  if (mine !== undefined) mine.budgeted = false
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
