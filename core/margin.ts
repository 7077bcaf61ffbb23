// Margin arithmetic: what a sub-account's positions and open orders require, and what its
// cross wallet has available. Notionals are tick·lot products until the last step, where one
// multiply by the market's quote units per tick·lot turns them into ledger units.
//
// An isolated holding's positions are backed by their own isolated wallets and stay out of the
// cross figures; its open orders still need their initial margin from cross available, since
// a fill moves that margin from the cross wallet into the position's isolated wallet.

import { abs, ceilDiv, max, mul, mulDivCeil } from './arith.js'
import type { PerpHolding, PerpMarket, Position, State, SubAccount } from './state.js'

/** Notional of a position at the mark (its entry value before the market has a mark). */
export function positionNotional(m: PerpMarket, p: Position): number {
  return m.markPriceTicks > 0 ? abs(p.qtyLots) * m.markPriceTicks : abs(p.costTicksLots)
}

/** Unrealized PnL of a position, quote ledger units. */
export function unrealizedPnl(m: PerpMarket, p: Position): number {
  if (p.qtyLots === 0 || m.markPriceTicks === 0) return 0
  return (p.qtyLots * m.markPriceTicks - p.costTicksLots) * m.quotePerTickLot
}

/** Extra resting exposure a candidate order would add, in lots and tick·lot notional. */
export interface OrderDelta {
  buyLots: number
  buyNotional: number
  sellLots: number
  sellNotional: number
}

export const NO_DELTA: OrderDelta = Object.freeze({ buyLots: 0, buyNotional: 0, sellLots: 0, sellNotional: 0 })

/**
 * Worst-case notional of a holding: its positions at the mark plus the open orders that
 * could add to them. One-way mode counts the larger side, and orders that would only reduce
 * the position count for nothing; hedge mode counts both opening sides.
 */
export function exposure(m: PerpMarket, h: PerpHolding, dualSide: boolean, d: OrderDelta): number {
  const buyLots = h.buyLots + d.buyLots
  const buyNotional = h.buyNotional + d.buyNotional
  const sellLots = h.sellLots + d.sellLots
  const sellNotional = h.sellNotional + d.sellNotional
  if (dualSide) {
    return positionNotional(m, h.long) + positionNotional(m, h.short) + buyNotional + sellNotional
  }
  const q = h.both.qtyLots
  const buyExposure = q >= 0 ? buyNotional
    : buyLots > -q ? mulDivCeil(buyNotional, buyLots + q, buyLots) : 0
  const sellExposure = q <= 0 ? sellNotional
    : sellLots > q ? mulDivCeil(sellNotional, sellLots - q, sellLots) : 0
  return positionNotional(m, h.both) + max(buyExposure, sellExposure)
}

export function initialMargin(m: PerpMarket, exposureTicksLots: number, leverage: number): number {
  return ceilDiv(mul(exposureTicksLots, m.quotePerTickLot), leverage)
}

/** Notional of a holding's positions alone, tick·lots (the first term of `exposure`). */
export function positionsNotional(m: PerpMarket, h: PerpHolding, dualSide: boolean): number {
  return dualSide ? positionNotional(m, h.long) + positionNotional(m, h.short) : positionNotional(m, h.both)
}

/**
 * What a holding asks of the cross wallet: a cross holding, the initial margin of all its
 * exposure; an isolated one, that of its open orders only (the positions have their own).
 */
export function crossInitialMargin(m: PerpMarket, h: PerpHolding, dualSide: boolean, d: OrderDelta, leverage: number): number {
  return crossInitialMarginOf(m, h, dualSide, exposure(m, h, dualSide, d), leverage)
}

/** `crossInitialMargin` from the holding's exposure already computed (`exp`, tick·lots). */
export function crossInitialMarginOf(m: PerpMarket, h: PerpHolding, dualSide: boolean, exp: number, leverage: number): number {
  if (h.marginType === 'CROSSED') return initialMargin(m, exp, leverage)
  return initialMargin(m, exp - positionsNotional(m, h, dualSide), leverage)
}

/** Initial margin of one position at the mark and a leverage, ledger units. */
export function positionInitialMargin(m: PerpMarket, p: Position, leverage: number): number {
  return initialMargin(m, positionNotional(m, p), leverage)
}

/**
 * Binance's "max removable" of an isolated position: what may leave its wallet and still leave
 * wallet + unrealized PnL at the position's initial margin, never more than the wallet (profit
 * not yet realized does not leave).
 */
export function maxRemovable(m: PerpMarket, h: PerpHolding, p: Position): number {
  if (h.marginType !== 'ISOLATED' || p.qtyLots === 0) return 0
  const room = p.isolatedWallet + unrealizedPnl(m, p) - positionInitialMargin(m, p, h.leverage)
  return max(0, Math.min(p.isolatedWallet, room))
}

/**
 * Unrealized PnL of a holding's cross positions (none for an isolated holding). A one-way
 * account's LONG and SHORT positions are always flat (the mode changes only with every
 * position flat, and one-way orders trade BOTH), so they are not read then: this runs for
 * every holding on every order's margin check.
 */
export function holdingPnl(m: PerpMarket, h: PerpHolding, dualSide: boolean): number {
  if (h.marginType === 'ISOLATED') return 0
  if (!dualSide) return unrealizedPnl(m, h.both)
  return unrealizedPnl(m, h.both) + unrealizedPnl(m, h.long) + unrealizedPnl(m, h.short)
}

export interface MarginView {
  /** Perp (cross) wallet balance; isolated wallets are not part of it. */
  wallet: number
  /** Of cross positions. */
  unrealizedPnl: number
  /** Initial margin of cross positions and of every open order (isolated markets' too). */
  initialMargin: number
  /** wallet + unrealizedPnl - initialMargin; may be negative after prices move. */
  available: number
}

/**
 * The sub-account's margin, optionally as if `delta` were added to the orders of market
 * `marketId` and its leverage were `leverage` (0: unchanged).
 */
export function marginView(
  state: State, sub: SubAccount, marketId = -1, delta: OrderDelta = NO_DELTA, leverage = 0,
): MarginView {
  let pnl = 0
  let im = 0
  for (const h of sub.perp.values()) {
    const m = state.markets[h.marketId] as PerpMarket
    const target = h.marketId === marketId
    const lev = target && leverage > 0 ? leverage : h.leverage
    im += crossInitialMargin(m, h, sub.dualSide, target ? delta : NO_DELTA, lev)
    pnl += holdingPnl(m, h, sub.dualSide)
  }
  return { wallet: sub.perpWallet, unrealizedPnl: pnl, initialMargin: im, available: sub.perpWallet + pnl - im }
}

/** Sum of a sub-account's isolated wallets (Binance's balance = cross wallet + this). */
export function isolatedWalletTotal(sub: SubAccount): number {
  let n = 0
  for (const h of sub.perp.values()) n += h.both.isolatedWallet + h.long.isolatedWallet + h.short.isolatedWallet
  return n
}

/** What may leave the perp wallet now: never more than the wallet, never past the margin. */
export function maxWithdrawable(state: State, sub: SubAccount): number {
  const v = marginView(state, sub)
  return max(0, Math.min(v.wallet, v.available))
}

/** Largest position notional (ledger units) the market allows at a leverage. */
export function maxNotionalAt(m: PerpMarket, leverage: number): number {
  let cap = 0
  for (const b of m.brackets) if (b.maxLeverage >= leverage && b.notionalCap > cap) cap = b.notionalCap
  return cap
}

/**
 * The maintenance rate (ppm) and Binance's "cum" (ledger units × 1e6) of the bracket a position
 * notional (ledger units) falls in: cum makes notional × mmr − cum continuous at bracket edges.
 */
export function maintenanceBracket(m: PerpMarket, notional: number): { mmrPpm: bigint; cumPpm: bigint } {
  const n = BigInt(notional)
  let cum = 0n
  let prevCap = 0n
  let prevMmr = 0n
  let mmr = 0n
  for (const b of m.brackets) {
    mmr = BigInt(b.mmrPpm)
    cum += prevCap * (mmr - prevMmr)
    if (n <= BigInt(b.notionalCap)) break
    prevCap = BigInt(b.notionalCap)
    prevMmr = mmr
  }
  return { mmrPpm: mmr, cumPpm: cum }
}

/**
 * Maintenance margin of a position notional (ledger units) by the market's brackets:
 * notional × mmr − cum. Rounded up, in bigint because notional × ppm leaves the safe range.
 */
export function maintenanceMargin(m: PerpMarket, notional: number): number {
  const { mmrPpm, cumPpm } = maintenanceBracket(m, notional)
  const num = BigInt(notional) * mmrPpm - cumPpm
  return num <= 0n ? 0 : Number((num + 999_999n) / 1_000_000n)
}
