// The liquidation sweep after a price move in market m (core/price-moves.ts): every
// sub-account the move may have brought to the warning level or below maintenance is
// checked, and those below are liquidated, until a pass finds nothing more to do.
//
// Who is checked (watch.ts): the market's holders on its first sweep; then the hot ones
// (flagged), the dirty ones, those whose triggers the mark reached, and everyone this
// command's trades or funding payments in m touched. Liquidations trade and move marks, so
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
import { checkSub, IN_LIQUIDATION, setFlag, targetKey } from './check.js'
import { liquidate } from './liquidate.js'
import { dueForCheck, marketWatch, noteHolder } from './watch.js'

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

/** Sub-accounts whose positions or wallets this command's events in `m` changed. */
function touchedIn(state: State, m: PerpMarket, events: readonly Event[], out: UniqueList): void {
  for (const e of events) {
    if (e.type === 'trade') {
      if (e.marketId !== m.marketId) continue
      touch(state, m, e.maker.account, e.maker.sub, out)
      touch(state, m, e.taker.account, e.taker.sub, out)
    } else if (e.type === 'funding' && e.marketId === m.marketId) {
      touch(state, m, e.account, e.sub, out)
    }
  }
}

function touch(state: State, m: PerpMarket, account: string, sub: number, out: UniqueList): void {
  const s = state.accounts.get(account)?.subs[sub]
  if (s === undefined) return
  // Noted as a holder even when already due (hot or dirty): ADL finds counterparties among
  // the holders, and a restored replica's rebuilt index has everyone with a position.
  noteHolder(state, m, s)
  out.add(s)
}

/**
 * Sub-accounts without repeats, in an array: a scan for the few a trade touches, a Set once
 * there are many (a market's first sweep adds every holder).
 */
class UniqueList {
  readonly items: SubAccount[] = []
  private set: Set<SubAccount> | null = null

  has(s: SubAccount): boolean {
    return this.set !== null ? this.set.has(s) : this.items.includes(s)
  }

  add(s: SubAccount): void {
    if (this.has(s)) return
    this.items.push(s)
    if (this.set !== null) this.set.add(s)
    else if (this.items.length > 16) this.set = new Set(this.items)
  }

  clear(): void {
    this.items.length = 0
    this.set = null
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
  const list = due.items
  if (list.length === 0) return
  if (list.length === 2) {
    if (compareKey(list[0]!, list[1]!) > 0) list.reverse()
  } else if (list.length > 2) {
    list.sort(compareKey)
  }
  for (let i = 0; i < list.length; i++) {
    if (checkSub(state, list[i]!, time, events) === null) continue
    // Someone to liquidate: the general loop takes over from here (it checks this one again).
    const queue = new Queue()
    queue.addAll(list.slice(i))
    liquidateQueued(state, queue, time, events)
    return
  }
}

/** Checks in key order, liquidating whoever is below maintenance, until no one waits. */
function liquidateQueued(state: State, queue: Queue, time: number, events: Event[]): void {
  let budget: number = LIMITS.liquidationsPerMoveMax
  for (let sub = queue.pop(); sub !== undefined; sub = queue.pop()) {
    const target = checkSub(state, sub, time, events)
    if (target === null) continue
    if (budget === 0) {
      // Past the limit: it stays flagged in liquidation, and hot, so the next move resumes it.
      setFlag(state, sub, targetKey(target), IN_LIQUIDATION, true)
      continue
    }
    budget -= 1
    const touched = new Set<SubAccount>()
    const traded = new Set<PerpMarket>()
    liquidate(state, sub, target, time, events, touched, traded)
    // Nothing could trade (its markets are halted): it stays flagged, and waits for them.
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
