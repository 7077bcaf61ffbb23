// A sub-account's fill budget: lets most trades skip the maintenance check that follows them.
// A cache, like the watch (watch.ts) it lives in: not state, not in the root or the snapshot,
// and it only ever skips a check that would have found nothing to do.
//
// When a full check finds a cross-only sub-account with no risk flags clear of the warning
// level, its headroom W0 = margin balance − 1.25 × maintenance (as `atWarning` rounds it) is
// split. Less a rounding slack of 3n + 3 ledger units (n markets held), half goes to the price
// triggers (watch.ts) and half to fills:
//
//   - Price moves. In each market held, the trigger is set to fire once the mark has moved D
//     ticks (cumulatively) since the check, D chosen so that up to `cap` lots lose at most the
//     market's share: 3 × cap × quotePerTickLot × D ≤ share (a lot loses at most 1 for the PnL
//     plus 1.25 × the highest maintenance rate ≤ 2 per tick and quotePerTickLot). cap is at
//     least twice the lots held then, more when the share allows (D at most a quarter of the
//     mark), so positions may grow under the budget without their triggers coming too late.
//   - Fills. Each fill is charged, at the marks of the check, with what it can take off
//     W: its fee, the fill's size × (fill price − mark) against the position, and the rise
//     of 1.25 × maintenance its growth can cause (warningRise), at the highest rate of the
//     brackets up to the notional the market's cap allows at the check's mark.
//     This is exact for the PnL (fills and marks separate: a fill at price p is worth
//     size × (mark − p) at any fixed mark), and an upper bound for the maintenance.
//
// So while the budget is valid, W ≥ W0 − slack − (price loss ≤ trigger half) − (charges ≤ fill
// half) > 0: the sub-account is not at the warning level, let alone below maintenance, and a
// check would send nothing, set or clear no flag, and only rearm triggers that are still sound.
// Such a fill is not noted for the sweep (watch.ts `noteFill`), and `checkSub` returns at once
// for a budgeted sub-account the sweep looks at for another reason.
//
// The budget is dropped (the next check is a full one, which may set it again) by anything
// else that moves W or that the bound does not cover: a fill that takes a market past its cap,
// opens one not held at the check or leaves one flat (the full check's rearm drops the market
// from the watch), a charge past what is left, a trigger firing (the price bound is used up),
// funding (sweep.ts), margin leaving without a price move (watch.ts `marginMoved`: transfers
// out, margin to an isolated position), an isolated fill, a margin type change, a risk flag,
// and a liquidation's wallet moves. A restored state starts with none.

import { abs } from '../arith.js'
import type { PerpHolding, PerpMarket, Position, State, SubAccount } from '../state.js'
import { warningRate, warningRise } from './maintenance.js'
import { noteFill, subWatch, SUB_WATCH, type WatchedSub } from './watch.js'

/** Tests turn budgets off to compare against the engine that checks after every trade. */
export const budgets = { enabled: true }

/** A market held at a check: what `clearCross` gathered, and the trigger it will set. */
export interface HeldMarket {
  m: PerpMarket
  /** Lots held (all position sides). */
  lots: number
  /** For rearm (watch.ts): the trigger fires after floor(headroom / lossPerTick) ticks. */
  headroom: number
  lossPerTick: number
}

/** Below this mark a quarter of it is too coarse a step to bound a trigger by. */
const MARK_MIN = 8
/** Past this a charge is not computed exactly in doubles: drop the budget instead. */
const CHARGE_MAX = 2 ** 50

/**
 * At a check that found the sub-account clear (`w0` = margin balance − warning level > 0 or
 * no maintenance): sets its budget and its markets' triggers (`held[i].headroom`,
 * `lossPerTick`). False, changing nothing, when budgets are off or the headroom too thin to
 * split; the caller then sets the triggers from the whole headroom, as without budgets.
 */
export function setBudget(sub: SubAccount, w0: number, held: HeldMarket[], n: number): boolean {
  if (!budgets.enabled) return false
  const h = w0 - 3 * n - 3
  if (h <= 1) return false
  for (let i = 0; i < n; i++) {
    const m = held[i]!.m
    // The price bound's 3 per lot and tick needs 1.25 × every bracket rate ≤ 2.
    if (m.markPriceTicks < MARK_MIN || warningRate(m, Infinity) > 2_000_000) return false
  }
  const forTriggers = Math.floor(h / 2)
  const w = subWatch(sub)
  const marks = w.budgetMark
  const caps = w.budgetLots
  const rates = w.budgetRate
  for (let i = 0; i < caps.length; i++) caps[i] = 0
  const share = n === 0 ? 0 : Math.floor(forTriggers / n)
  for (let i = 0; i < n; i++) {
    const x = held[i]!
    const m = x.m
    const unit = 3 * m.quotePerTickLot
    let ticks = Math.floor(share / (2 * x.lots * unit))
    const most = Math.floor(m.markPriceTicks / 4)
    if (ticks > most) ticks = most
    const id = m.marketId
    while (caps.length <= id) caps.push(0)
    const cap = ticks > 0 ? Math.floor(share / (unit * ticks)) : x.lots
    caps[id] = cap
    marks[id] = m.markPriceTicks
    // Every position the cap allows is worth at most this at the check's mark.
    rates[id] = warningRate(m, cap * m.markPriceTicks * m.quotePerTickLot)
    x.headroom = ticks
    x.lossPerTick = 1
  }
  w.budgetLeft = h - forTriggers
  w.budgeted = true
  w.budgetSets += 1
  return true
}

/** Whether the sub-account's budget is valid: a check now would find nothing to do. */
export function hasBudget(sub: SubAccount): boolean {
  const w = (sub as WatchedSub)[SUB_WATCH]
  return w !== undefined && w.budgeted
}

/** Drops the sub-account's budget: its next check is a full one. */
export function dropBudget(sub: SubAccount): void {
  const w = (sub as WatchedSub)[SUB_WATCH]
  if (w !== undefined) w.budgeted = false
}

/**
 * After one side of a perp fill is settled (core/settle.ts): charges a cross fill to the
 * sub-account's budget (`p` is the position after it, `qtyBefore` its size before, `fee` what the
 * fill paid, negative for a rebate); a fill the budget does not cover, or an isolated one, drops
 * it and is noted for the market's sweep to check (watch.ts `noteFill`).
 */
export function fillSettled(state: State, sub: SubAccount, m: PerpMarket, h: PerpHolding, p: Position, qtyBefore: number,
  priceTicks: number, fee: number): void {
  const w = (sub as WatchedSub)[SUB_WATCH]
  if (w === undefined || !w.budgeted) {
    noteFill(state, sub, m.marketId)
    return
  }
  const id = m.marketId
  const lots = abs(h.both.qtyLots) + abs(h.long.qtyLots) + abs(h.short.qtyLots)
  // Isolated, flat (the watch must drop the market), past the cap, or a market the check did not see.
  if (h.marginType === 'ISOLATED' || lots === 0 || !(lots <= w.budgetLots[id]!)) {
    w.budgeted = false
    noteFill(state, sub, id)
    return
  }
  const mark = w.budgetMark[id]!
  const q = p.qtyLots
  let charge = fee + (q - qtyBefore) * (priceTicks - mark) * m.quotePerTickLot
  const grown = abs(q) - abs(qtyBefore)
  if (grown > 0) charge += warningRise(w.budgetRate[id]!, grown * mark * m.quotePerTickLot)
  const left = w.budgetLeft - charge
  w.budgetLeft = left
  if (!(left >= 0) || !(charge < CHARGE_MAX) || !(charge > -CHARGE_MAX)) {
    w.budgeted = false
    noteFill(state, sub, id)
  }
}
