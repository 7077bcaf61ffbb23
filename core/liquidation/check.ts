// Checking one sub-account against maintenance: its cross side (one target, 'C') and each
// isolated position (one target each, '<marketId>:<side>'). A target whose margin ratio
// (maintenance / margin balance) reaches the warning level of 80 % gets one margin call
// per crossing; one below maintenance is to be liquidated. Flags live in the state
// (SubAccount.riskFlags, in the root): bit 1 margin call sent, bit 2 in liquidation.

import { abs } from '../arith.js'
import type { PositionSide } from '../commands.js'
import type { Event, MarginCallPosition } from '../events.js'
import { positionNotional, unrealizedPnl } from '../margin.js'
import { belowMaintenance, crossRisk, isolatedRisk, positionMaintenance, type Risk } from '../margin-risk.js'
import { positionOf, type PerpHolding, type PerpMarket, type State, type SubAccount } from '../state.js'
import { dropBudget, hasBudget, setBudget, type HeldMarket } from './budget.js'
import { coverDebt } from './debt.js'
import { fastMaintenance } from './maintenance.js'
import { rearm, setHot } from './watch.js'

export const MARGIN_CALLED = 1
export const IN_LIQUIDATION = 2
export const CROSS = 'C'

/** Something to liquidate: the cross side, or one isolated position. */
export type Target = { kind: 'CROSS' } | { kind: 'ISOLATED'; m: PerpMarket; h: PerpHolding; side: PositionSide }

export function targetKey(t: Target): string {
  return t.kind === 'CROSS' ? CROSS : `${t.m.marketId}:${t.side}`
}

/** The warning level: maintenance ≥ 80 % of the margin balance, i.e. balance ≤ 1.25 × maintenance. */
export function atWarning(r: Risk): boolean {
  return r.maintenance > 0 && r.marginBalance <= r.maintenance + Math.floor(r.maintenance / 4)
}

export function setFlag(state: State, sub: SubAccount, key: string, bit: number, on: boolean): void {
  const before = sub.riskFlags.get(key) ?? 0
  const after = on ? before | bit : before & ~bit
  if (after === before) return
  dropBudget(sub)
  if (after === 0) sub.riskFlags.delete(key)
  else sub.riskFlags.set(key, after)
  setHot(state, sub)
}

const SIDES: readonly PositionSide[] = ['BOTH', 'LONG', 'SHORT']

/** The sub-account's targets with positions: cross first, then isolated in holding order. */
export function targetsOf(state: State, sub: SubAccount): Target[] {
  const out: Target[] = []
  let cross = false
  for (const h of sub.perp.values()) {
    for (const side of SIDES) {
      if (positionOf(h, side).qtyLots === 0) continue
      if (h.marginType === 'ISOLATED') out.push({ kind: 'ISOLATED', m: state.markets[h.marketId] as PerpMarket, h, side })
      else cross = true
    }
  }
  // A cross wallet in debt is a target with no position: see `coverDebt`.
  if (cross || sub.riskFlags.has(CROSS) || sub.perpWallet < 0) out.unshift({ kind: 'CROSS' })
  return out
}

export function riskOf(state: State, sub: SubAccount, t: Target): Risk {
  return t.kind === 'CROSS' ? crossRisk(state, sub) : isolatedRisk(t.m, t.h, t.side)
}

/**
 * Checks every target of the sub-account: margin calls sent or cleared, in-liquidation flags
 * cleared where the target recovered. Returns the targets below maintenance (to be
 * liquidated), in target order, or null, in which case the sub-account's triggers are set
 * afresh.
 */
export function checkSub(state: State, sub: SubAccount, time: number, events: Event[]): Target[] | null {
  // Within its fill budget (budget.ts) the check would find nothing to do.
  if (hasBudget(sub)) return null
  if (sub.riskFlags.size === 0 && clearCross(state, sub)) return null
  let due: Target[] | null = null
  const triggers: { m: PerpMarket; headroom: number; lossPerTick: number }[] = []
  for (const t of targetsOf(state, sub)) {
    const key = targetKey(t)
    let r = riskOf(state, sub, t)
    if (t.kind === 'CROSS' && r.maintenance === 0 && r.marginBalance < 0) r = coverDebt(state, sub, time, events)
    const warn = atWarning(r)
    const flags = sub.riskFlags.get(key) ?? 0
    if (warn && (flags & MARGIN_CALLED) === 0) {
      setFlag(state, sub, key, MARGIN_CALLED, true)
      events.push(marginCallEvent(state, sub, t, time))
    } else if (!warn && (flags & MARGIN_CALLED) !== 0) {
      setFlag(state, sub, key, MARGIN_CALLED, false)
    }
    const below = belowMaintenance(r)
    // A cross side left with a debt no one could cover stays in liquidation (bad debt on record).
    const settled = !below && (t.kind !== 'CROSS' || sub.perpWallet >= 0 || r.maintenance > 0)
    if (settled && (flags & IN_LIQUIDATION) !== 0) setFlag(state, sub, key, IN_LIQUIDATION, false)
    if (!settled && !below && (flags & IN_LIQUIDATION) === 0) setFlag(state, sub, key, IN_LIQUIDATION, true)
    if (below) (due ??= []).push(t)
    if (!below) triggers.push(...triggersOf(state, sub, t, r))
  }
  if (due === null) rearm(state, sub, triggers)
  return due
}

/** Reused by `clearCross`: one entry per market the sub-account holds, refilled on each call. */
const scratch: HeldMarket[] = []

/**
 * The common case, without allocating: a cross-only sub-account with no flags that is clear of
 * the warning level gets its triggers and true; anything else (isolated holdings, at the
 * warning level) false, for the full check. Same arithmetic as `riskOf` and `triggersOf`.
 */
function clearCross(state: State, sub: SubAccount): boolean {
  let balance = sub.perpWallet
  let maintenance = 0
  let n = 0
  let left = false
  const dual = sub.dualSide
  for (const h of sub.perp.values()) {
    if (h.marginType === 'ISOLATED') return false
    const lots = abs(h.both.qtyLots) + abs(h.long.qtyLots) + abs(h.short.qtyLots)
    if (lots === 0) {
      left = true
      continue
    }
    const m = state.markets[h.marketId] as PerpMarket
    if (dual) {
      if (h.long.qtyLots !== 0) {
        balance += unrealizedPnl(m, h.long)
        maintenance += fastMaintenance(m, positionNotional(m, h.long) * m.quotePerTickLot)
      }
      if (h.short.qtyLots !== 0) {
        balance += unrealizedPnl(m, h.short)
        maintenance += fastMaintenance(m, positionNotional(m, h.short) * m.quotePerTickLot)
      }
    } else if (h.both.qtyLots !== 0) {
      balance += unrealizedPnl(m, h.both)
      maintenance += fastMaintenance(m, positionNotional(m, h.both) * m.quotePerTickLot)
    }
    let slot = scratch[n]
    if (slot === undefined) scratch[n] = slot = { m, lots: 0, headroom: 0, lossPerTick: 0 }
    slot.m = m
    slot.lots = lots
    n += 1
  }
  const warning = maintenance + Math.floor(maintenance / 4)
  if (maintenance > 0 ? balance <= warning : balance < 0) return false
  // With a budget, the triggers get their part of the headroom (budget.ts); without, all of it.
  if (!setBudget(sub, balance - warning, scratch, n)) {
    const share = n === 0 ? 0 : Math.floor((balance - warning - 2 * (n + 1)) / n)
    for (let i = 0; i < n; i++) {
      const slot = scratch[i]!
      slot.headroom = share
      slot.lossPerTick = 3 * slot.lots * slot.m.quotePerTickLot
    }
  }
  // Without a holding left flat, rearm need not look for markets to drop it from.
  rearm(state, sub, scratch, n, left)
  return true
}


/** Headroom of a clear target over the warning level, shared among its markets (watch.ts). */
function triggersOf(state: State, sub: SubAccount, t: Target, r: Risk): { m: PerpMarket; headroom: number; lossPerTick: number }[] {
  const markets: { m: PerpMarket; lots: number }[] = []
  if (t.kind === 'ISOLATED') {
    markets.push({ m: t.m, lots: abs(positionOf(t.h, t.side).qtyLots) })
  } else {
    for (const h of sub.perp.values()) {
      if (h.marginType === 'ISOLATED') continue
      const lots = abs(h.both.qtyLots) + abs(h.long.qtyLots) + abs(h.short.qtyLots)
      if (lots > 0) markets.push({ m: state.markets[h.marketId] as PerpMarket, lots })
    }
  }
  if (markets.length === 0) return []
  // Two ledger units per market for the maintenance's rounding, on top of the warning level.
  const headroom = r.marginBalance - r.maintenance - Math.floor(r.maintenance / 4) - 2 * (markets.length + 1)
  const share = Math.floor(headroom / markets.length)
  return markets.map(({ m, lots }) => ({ m, headroom: share, lossPerTick: 3 * lots * m.quotePerTickLot }))
}

function marginCallEvent(state: State, sub: SubAccount, t: Target, time: number): Event {
  const positions: MarginCallPosition[] = []
  const row = (m: PerpMarket, h: PerpHolding, side: PositionSide): void => {
    const p = positionOf(h, side)
    if (p.qtyLots === 0) return
    positions.push({ marketId: m.marketId, positionSide: side, qtyLots: p.qtyLots, marginType: h.marginType,
      isolatedWallet: p.isolatedWallet, markPriceTicks: m.markPriceTicks, unrealizedPnl: unrealizedPnl(m, p),
      maintenance: positionMaintenance(m, p) })
  }
  if (t.kind === 'ISOLATED') {
    row(t.m, t.h, t.side)
  } else {
    for (const h of sub.perp.values()) {
      if (h.marginType === 'ISOLATED') continue
      for (const side of SIDES) row(state.markets[h.marketId] as PerpMarket, h, side)
    }
  }
  return { type: 'marginCall', account: sub.address, sub: sub.sub, wallet: sub.perpWallet, positions, time }
}
