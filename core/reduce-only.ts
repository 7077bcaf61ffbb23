// Resting closing orders (reduce-only, or a hedge-mode close) never outlive what they close.
// After any command that traded, each resting closing order of a sub-account whose position
// in that market moved, and whose remainder is now larger than the position it may reduce
// (none once the position is flat or has flipped), expires: the same rule placement applies
// to a new closing order, applied again as the position changes. Binance's docs say such
// orders are canceled by the system without saying how; an EXPIRED record is what its
// streams show for orders the system ends, and quantities are never cut down in place.

import type { PerpFillSide, Result } from './events.js'
import { remaining } from './filters.js'
import { isClosing } from './records.js'
import { retire } from './resting.js'
import { positionOf, type Order, type State, type SubAccount } from './state.js'

/** Lots an order may still close of its position side. */
function reducibleLots(sub: SubAccount, o: Order): number {
  const h = sub.perp.get(o.market.marketId)
  const q = h === undefined ? 0 : positionOf(h, o.positionSide).qtyLots
  return o.side === 'SELL' ? Math.max(q, 0) : Math.max(-q, 0)
}

/**
 * Whether a fill shrank or flipped the position it moved. A position that only grew leaves
 * every closing order of its owner as valid as it was (each fit before), so it needs no scan.
 */
function shrank(side: PerpFillSide, lots: number): boolean {
  const after = side.positionQtyLots
  const before = after - (side.side === 'BUY' ? lots : -lots)
  return before !== 0 && (Math.sign(before) !== Math.sign(after) || Math.abs(after) < Math.abs(before))
}

/** Whether a fill side shrank its position while its owner has resting closing orders. */
function mayTrim(state: State, side: PerpFillSide, lots: number): boolean {
  return shrank(side, lots) && state.accounts.get(side.account)?.subs[side.sub]?.closingResting !== 0
}

/** Expires the closing orders the command's perpetual fills left too large; their events join the result. */
export function trimClosingOrders(state: State, result: Result, time: number): void {
  if (!result.ok) return
  const events = result.events
  const n = events.length
  let touched: [string, number, number][] | undefined
  for (let i = 0; i < n; i++) {
    const e = events[i]!
    if (e.type !== 'trade') continue
    // Maker then taker, written out: this runs for every trade of every command.
    if (mayTrim(state, e.maker, e.qtyLots)) (touched ??= []).push([e.maker.account, e.maker.sub, e.marketId])
    if (mayTrim(state, e.taker, e.qtyLots)) (touched ??= []).push([e.taker.account, e.taker.sub, e.marketId])
  }
  if (touched === undefined) return
  const seen = new Set<string>()
  const expired: Order[] = []
  for (const [account, subId, marketId] of touched) {
    const key = account + '|' + subId + '|' + marketId
    if (seen.has(key)) continue
    seen.add(key)
    const sub = state.accounts.get(account)?.subs[subId]
    if (sub !== undefined) collectTooLarge(sub, marketId, expired)
  }
  // By market and orderId: an order every replica (and the reference model) agrees on.
  expired.sort((a, b) => a.market.marketId - b.market.marketId || a.orderId - b.orderId)
  for (const o of expired) retire(o, 'EXPIRED', 'EXPIRED', time, events)
}

function collectTooLarge(sub: SubAccount, marketId: number, into: Order[]): void {
  for (const o of sub.orders.values()) {
    // Waiting conditional orders are checked when they trigger; only resting ones are trimmed.
    if (o.market.marketId !== marketId || o.level === null || !isClosing(o)) continue
    if (remaining(o) > reducibleLots(sub, o)) into.push(o)
  }
}
