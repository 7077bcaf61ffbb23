// The liquidation sweep after a price move in market m (core/price-moves.ts): every
// sub-account the move may have brought to the warning level or below maintenance is
// checked, and those below are liquidated, until a pass finds nothing more to do.
//
// Who is checked (watch.ts): the market's holders on its first sweep; then the hot ones
// (flagged), the dirty ones, those whose triggers the mark reached, and everyone this
// command's trades (those beyond their fill budgets, budget.ts) or funding payments in m
// touched. Liquidations trade and move marks, so
// their counterparties and the markets they traded in are looked at again.
//
// Determinism: checks run in the order of (address, sub-account), always taking the smallest
// key still waiting. A check that finds nothing to do changes nothing but caches, so checking
// more sub-accounts than needed (as a replica restored from a snapshot does on its first
// sweep, with empty caches) gives the same state: every sub-account that needs action is in
// the waiting set whenever it needs it, and actions happen in key order either way.

import type { Event } from '../events.js'
import { LIMITS } from '../limits.js'
import { refreshMark } from '../prices.js'
import type { PerpMarket, State, SubAccount } from '../state.js'
import { dropBudget } from './budget.js'
import { checkSub, IN_LIQUIDATION, setFlag, targetKey } from './check.js'
import { liquidate } from './liquidate.js'
import { dueForCheck, marketWatch, noteHolder, takeFills } from './watch.js'

function compareKey(a: SubAccount, b: SubAccount): number {
  if (a.address !== b.address) return a.address < b.address ? -1 : 1
  return a.sub - b.sub
}

/** The sub-accounts waiting to be checked, smallest key first. */
class Queue {
  private readonly items: SubAccount[] = []
  private readonly members = new Set<SubAccount>()

  addAll(subs: Iterable<SubAccount>): void {
    for (const s of subs) {
      if (this.members.has(s)) continue
      this.members.add(s)
      this.items.push(s)
    }
    // Sorted descending, so the smallest key pops off the end.
    if (this.items.length > 1) this.items.sort((a, b) => compareKey(b, a))
  }

  pop(): SubAccount | undefined {
    const s = this.items.pop()
    if (s !== undefined) this.members.delete(s)
    return s
  }
}

/**
 * Sub-accounts whose positions or wallets this command changed in `m`: those whose fills there
 * their budgets did not cover (a fill within its budget needs no check, budget.ts), and those
 * paid funding.
 */
function touchedIn(state: State, m: PerpMarket, events: readonly Event[], out: UniqueList): void {
  takeFills(state, m, out)
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!
    if (e.type !== 'funding' || e.marketId !== m.marketId) continue
    const s = state.accounts.get(e.account)?.subs[e.sub]
    if (s === undefined) continue
    // Funding moved its wallet outside the budget's bounds.
    dropBudget(s)
    noteHolder(state, m, s)
    out.add(s)
  }
}

/**
 * Sub-accounts without repeats: the first `size` slots of an array (kept, not truncated, between
 * sweeps: shortening an array is a runtime call), scanned for the few a trade touches; a Set
 * once there are many (a market's first sweep adds every holder).
 */
class UniqueList {
  readonly items: SubAccount[] = []
  size = 0
  private set: Set<SubAccount> | null = null

  has(s: SubAccount): boolean {
    if (this.set !== null) return this.set.has(s)
    const items = this.items
    for (let i = 0; i < this.size; i++) if (items[i] === s) return true
    return false
  }

  add(s: SubAccount): void {
    if (this.has(s)) return
    if (this.size < this.items.length) this.items[this.size] = s
    else this.items.push(s)
    this.size += 1
    if (this.set !== null) this.set.add(s)
    else if (this.size > 16) this.set = new Set(this.items.slice(0, this.size))
  }

  /** Empties the list; the slots past `size` keep stale references until overwritten. */
  clear(): void {
    this.size = 0
    this.set = null
  }

  /** Puts the listed sub-accounts in key order: insertion sort for a few, a sort for many. */
  sortByKey(): void {
    const a = this.items
    const n = this.size
    if (n > 16) {
      const sorted = a.slice(0, n).sort(compareKey)
      for (let i = 0; i < n; i++) a[i] = sorted[i]!
      return
    }
    for (let i = 1; i < n; i++) {
      const x = a[i]!
      let j = i - 1
      while (j >= 0 && compareKey(a[j]!, x) > 0) {
        a[j + 1] = a[j]!
        j -= 1
      }
      a[j + 1] = x
    }
  }
}

// Reused by every sweep (sweeps do not nest): the common move checks a trade's two sides and
// liquidates no one, and should allocate nothing for it.
const dueScratch = new UniqueList()

export function liquidationSweep(state: State, m: PerpMarket, time: number, events: Event[]): void {
  const due = dueScratch
  due.clear()
  dueForCheck(state, m, marketWatch(state, m), due)
  touchedIn(state, m, events, due)
  const n = due.size
  if (n === 0) return
  if (n > 1) due.sortByKey()
  const list = due.items
  for (let i = 0; i < n; i++) {
    if (checkSub(state, list[i]!, time, events) === null) continue
    // Someone to liquidate: the general loop takes over from here (it checks this one again).
    const queue = new Queue()
    queue.addAll(list.slice(i, n))
    liquidateQueued(state, queue, time, events)
    return
  }
}

/**
 * Checks in key order, liquidating whoever is below maintenance, until no one waits. A
 * sub-account's targets below maintenance are taken in order until one trades. One that cannot
 * (its market halted, no one to take it) stays flagged and must not hold up the next: with no
 * trade no mark moved, and what it moved (its own wallet, the fund) is no other target's margin.
 */
function liquidateQueued(state: State, queue: Queue, time: number, events: Event[]): void {
  let budget: number = LIMITS.liquidationsPerMoveMax
  for (let sub = queue.pop(); sub !== undefined; sub = queue.pop()) {
    const targets = checkSub(state, sub, time, events)
    if (targets === null) continue
    const touched = new Set<SubAccount>()
    const traded = new Set<PerpMarket>()
    for (const target of targets) {
      if (budget === 0) {
        // Past the limit: it stays flagged in liquidation, and hot, so the next move resumes it.
        setFlag(state, sub, targetKey(target), IN_LIQUIDATION, true)
        continue
      }
      budget -= 1
      liquidate(state, sub, target, time, events, touched, traded)
      // Trades moved marks, maybe this sub-account's other targets' too: it is checked again below.
      if (traded.size > 0) break
    }
    // Nothing could trade (halted markets, no one to take it): it stays flagged, and waits.
    if (traded.size === 0) continue
    // The trades moved marks: everyone the moves reach, and everyone the liquidation touched.
    const again = new Set<SubAccount>(touched)
    for (const mm of traded) {
      refreshMark(mm, time)
      dueForCheck(state, mm, marketWatch(state, mm), again)
      for (const s of touched) noteHolder(state, mm, s)
    }
    queue.addAll(again)
  }
}
