// Countdown cancel-all (Binance's POST /fapi/v1/countdownCancelAll): a sub-account's dead
// man's switch per market. Each call replaces the market's deadline with entry time +
// countdown, so a trader's heartbeats keep pushing it back; 0 clears it. The first Tick at or
// after a deadline cancels every open order the sub-account then has in that market, as
// CancelAll does, so a bot whose heartbeats stop leaves nothing resting.

import { ensureSub, findSub, validIssuer } from './accounts.js'
import type { CountdownCancelAll } from './commands.js'
import type { Event, Result } from './events.js'
import { LIMITS } from './limits.js'
import { retire } from './resting.js'
import { accept, reject } from './results.js'
import type { Order, State, SubAccount } from './state.js'

export function setCountdown(state: State, cmd: CountdownCancelAll, time: number): Result {
  const m = state.markets[cmd.marketId]
  if (m === undefined || !Number.isInteger(cmd.marketId)) return reject('MARKET_UNKNOWN')
  if (!validIssuer(cmd)) return reject('ACCOUNT_INVALID')
  const ms = cmd.countdownMs
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > LIMITS.countdownMaxMs) return reject('COMMAND_INVALID')
  if (ms === 0) {
    const sub = findSub(state, cmd)
    if (sub !== undefined) clear(state, sub, m.marketId)
    return accept([])
  }
  const sub = ensureSub(state, cmd)
  sub.countdowns.set(m.marketId, time + ms)
  state.countdownSubs.add(sub)
  return accept([])
}

function clear(state: State, sub: SubAccount, marketId: number): void {
  sub.countdowns.delete(marketId)
  if (sub.countdowns.size === 0) state.countdownSubs.delete(sub)
}

/** Fires every countdown whose deadline has passed (run by Tick), in (deadline, address, sub, market) order. */
export function fireCountdowns(state: State, time: number, events: Event[]): void {
  if (state.countdownSubs.size === 0) return
  const due: { deadline: number; sub: SubAccount; marketId: number }[] = []
  for (const sub of state.countdownSubs) {
    for (const [marketId, deadline] of sub.countdowns) if (deadline <= time) due.push({ deadline, sub, marketId })
  }
  due.sort((a, b) => a.deadline - b.deadline || (a.sub.address < b.sub.address ? -1 : a.sub.address > b.sub.address ? 1 : 0) ||
    a.sub.sub - b.sub.sub || a.marketId - b.marketId)
  for (const { sub, marketId } of due) {
    clear(state, sub, marketId)
    const mine: Order[] = []
    for (const o of sub.orders.values()) if (o.market.marketId === marketId) mine.push(o)
    for (const o of mine) retire(o, 'CANCELED', 'CANCELED', time, events)
  }
}
