// The reference ledger for the property tests: sub-accounts with spot balances, a perp
// wallet and positions, all amounts in bigint so nothing can round or overflow by accident,
// plus the margin rule recomputed from the open orders themselves (not from aggregates).

import type { PositionSide, Side } from '../../core/commands.js'
import type { RefBook, RefOrder } from './reference-book.js'
import { remainingLots } from './reference-book.js'
import type { PriceRange } from '../../core/price-range.js'

export interface RefBracket {
  notionalCap: bigint
  maxLeverage: number
  mmrPpm: bigint
}

export interface RefMarket {
  marketId: number
  kind: 'PERP' | 'SPOT'
  base: string
  quote: string
  status: string
  minPriceTicks: number
  maxPriceTicks: number
  minQtyLots: number
  maxQtyLots: number
  marketMaxQtyLots: number
  minNotional: bigint
  makerFeePpm: bigint
  takerFeePpm: bigint
  /** Quote ledger units of one tick × one lot. */
  quotePerTickLot: bigint
  /** Base ledger units of one lot. */
  basePerLot: bigint
  brackets: RefBracket[]
  /** Liquidation clearance fee (reference-liquidation.ts). */
  liquidationFeePpm: bigint
  /** The price band's half-widths around the mark, ppm (0: none): limit prices, market fills. */
  percentPricePpm: bigint
  marketTakeBoundPpm: bigint
  maxLeverage: number
  defaultLeverage: number
  nextOrderId: number
  nextTradeId: number
  /** Perp: the last trade price (0 before the first trade). */
  markPriceTicks: number
  /** Spot: the Price Range rule (null: none), and every trade under it as [time, price]. */
  priceRange: PriceRange | null
  trades: [number, number][]
  book: RefBook
}

export interface RefPosition {
  qtyLots: number
  costTicksLots: bigint
}

export interface RefBalance {
  free: bigint
  locked: bigint
}

export interface RefSub {
  key: string
  account: string
  sub: number
  perpWallet: bigint
  dualSide: boolean
  spot: Map<string, RefBalance>
  /** By `marketId:BOTH|LONG|SHORT`. */
  positions: Map<string, RefPosition>
  /** Leverage by perp marketId, for every market the sub-account has touched. */
  leverage: Map<number, number>
  pendingWithdrawals: number
}

export const PPM = 1_000_000n

export function subKey(account: string, sub: number): string {
  return `${account}/${sub}`
}

export function newRefSub(account: string, sub: number): RefSub {
  return {
    key: subKey(account, sub), account, sub, perpWallet: 0n, dualSide: false,
    spot: new Map(), positions: new Map(), leverage: new Map(), pendingWithdrawals: 0,
  }
}

/** ceil(a / b) for b > 0. */
export function ceilDiv(a: bigint, b: bigint): bigint {
  return a >= 0n ? (a + b - 1n) / b : -(-a / b)
}

const big = BigInt
const absN = (n: number): number => (n < 0 ? -n : n)
const absB = (n: bigint): bigint => (n < 0n ? -n : n)

export function balance(s: RefSub, asset: string): RefBalance {
  let b = s.spot.get(asset)
  if (b === undefined) {
    b = { free: 0n, locked: 0n }
    s.spot.set(asset, b)
  }
  return b
}

export function position(s: RefSub, marketId: number, side: PositionSide): RefPosition {
  const key = `${marketId}:${side}`
  let p = s.positions.get(key)
  if (p === undefined) {
    p = { qtyLots: 0, costTicksLots: 0n }
    s.positions.set(key, p)
  }
  return p
}

export function positionQty(s: RefSub, marketId: number, side: PositionSide): number {
  return s.positions.get(`${marketId}:${side}`)?.qtyLots ?? 0
}

/**
 * Moves a position by a signed fill at a price; returns the realized PnL in tick·lots. A
 * partial close takes its share of the entry cost rounded up (toward +∞), so the PnL the
 * trader realizes rounds down.
 */
export function movePosition(p: RefPosition, signedLots: number, priceTicks: number): bigint {
  if (p.qtyLots === 0 || (p.qtyLots > 0) === (signedLots > 0)) {
    p.qtyLots += signedLots
    p.costTicksLots += big(signedLots) * big(priceTicks)
    return 0n
  }
  const closing = Math.min(absN(signedLots), absN(p.qtyLots))
  const dir = p.qtyLots > 0 ? 1 : -1
  const share = closing === absN(p.qtyLots) ? p.costTicksLots : ceilDiv(p.costTicksLots * big(closing), big(absN(p.qtyLots)))
  const pnl = big(dir * closing) * big(priceTicks) - share
  p.qtyLots -= dir * closing
  p.costTicksLots -= share
  const opening = signedLots + dir * closing
  p.qtyLots += opening
  p.costTicksLots += big(opening) * big(priceTicks)
  return pnl
}

/** Whether an order can only shrink a position (reduce-only, or a hedge-mode close). */
export function isClosing(o: { reduceOnly: boolean; positionSide: PositionSide; side: Side }): boolean {
  if (o.reduceOnly) return true
  return (o.positionSide === 'LONG' && o.side === 'SELL') || (o.positionSide === 'SHORT' && o.side === 'BUY')
}

/** Lots a closing order may fill before its position would flip. */
export function reducibleLots(s: RefSub, marketId: number, o: { side: Side; positionSide: PositionSide }): number {
  const q = positionQty(s, marketId, o.positionSide)
  return Math.max(0, o.side === 'SELL' ? q : -q)
}

// ---- margin -------------------------------------------------------------------------------

function positionNotional(m: RefMarket, p: RefPosition | undefined): bigint {
  if (p === undefined) return 0n
  return m.markPriceTicks > 0 ? big(absN(p.qtyLots)) * big(m.markPriceTicks) : absB(p.costTicksLots)
}

/** An order not yet in the book whose margin is being tested. */
export interface Candidate {
  side: Side
  lots: number
  notionalTicksLots: bigint
}

/**
 * Worst-case notional (tick·lots) of a sub-account in one perp market: positions at the mark
 * plus resting opening orders. One-way: orders that only reduce the position count for
 * nothing, the rest pro rata, and the larger side counts. Hedge: everything counts.
 */
export function exposure(s: RefSub, m: RefMarket, candidate?: Candidate): bigint {
  let buyLots = 0
  let buyNotional = 0n
  let sellLots = 0
  let sellNotional = 0n
  const opening: { side: Side; lots: number; notional: bigint }[] = m.book.orders
    .filter((o) => o.owner === s.key && !isClosing(o))
    .map((o) => ({ side: o.side, lots: remainingLots(o), notional: big(remainingLots(o)) * big(o.priceTicks) }))
  if (candidate) opening.push({ side: candidate.side, lots: candidate.lots, notional: candidate.notionalTicksLots })
  for (const o of opening) {
    if (o.side === 'BUY') { buyLots += o.lots; buyNotional += o.notional } else { sellLots += o.lots; sellNotional += o.notional }
  }
  const pos = (side: PositionSide): RefPosition | undefined => s.positions.get(`${m.marketId}:${side}`)
  if (s.dualSide) return positionNotional(m, pos('LONG')) + positionNotional(m, pos('SHORT')) + buyNotional + sellNotional
  const q = pos('BOTH')?.qtyLots ?? 0
  let buyExposure = buyNotional
  if (q < 0) buyExposure = buyLots > -q ? ceilDiv(buyNotional * big(buyLots + q), big(buyLots)) : 0n
  let sellExposure = sellNotional
  if (q > 0) sellExposure = sellLots > q ? ceilDiv(sellNotional * big(sellLots - q), big(sellLots)) : 0n
  return positionNotional(m, pos('BOTH')) + (buyExposure > sellExposure ? buyExposure : sellExposure)
}

export function initialMargin(m: RefMarket, exposureTicksLots: bigint, leverage: number): bigint {
  return ceilDiv(exposureTicksLots * m.quotePerTickLot, big(leverage))
}

export function leverageOf(s: RefSub, m: RefMarket): number {
  return s.leverage.get(m.marketId) ?? m.defaultLeverage
}

export function unrealizedPnl(s: RefSub, m: RefMarket): bigint {
  if (m.markPriceTicks === 0) return 0n
  let pnl = 0n
  for (const side of ['BOTH', 'LONG', 'SHORT'] as const) {
    const p = s.positions.get(`${m.marketId}:${side}`)
    if (p && p.qtyLots !== 0) pnl += (big(p.qtyLots) * big(m.markPriceTicks) - p.costTicksLots) * m.quotePerTickLot
  }
  return pnl
}

/** Largest position notional (ledger units) a leverage allows. */
export function maxNotionalAt(m: RefMarket, leverage: number): bigint {
  let cap = 0n
  for (const b of m.brackets) if (b.maxLeverage >= leverage && b.notionalCap > cap) cap = b.notionalCap
  return cap
}

export interface MarginOverride {
  marketId: number
  candidate?: Candidate
  leverage?: number
}

/** Wallet + unrealized PnL − initial margin over every perp market, optionally with an override. */
export function available(s: RefSub, perps: RefMarket[], override?: MarginOverride): { pnl: bigint; im: bigint; available: bigint } {
  let pnl = 0n
  let im = 0n
  for (const m of perps) {
    const target = override?.marketId === m.marketId
    const lev = target && override?.leverage !== undefined ? override.leverage : leverageOf(s, m)
    im += initialMargin(m, exposure(s, m, target ? override?.candidate : undefined), lev)
    pnl += unrealizedPnl(s, m)
  }
  return { pnl, im, available: s.perpWallet + pnl - im }
}

/** What may leave the perp wallet: never more than the wallet, never past the margin. */
export function maxWithdrawable(s: RefSub, perps: RefMarket[]): bigint {
  const a = available(s, perps).available
  const m = s.perpWallet < a ? s.perpWallet : a
  return m > 0n ? m : 0n
}

/**
 * Pre-trade check of an opening perp order: one that adds no exposure passes; otherwise the
 * exposure must fit the bracket its leverage allows and the margin must cover it.
 */
export function orderMarginCode(s: RefSub, perps: RefMarket[], m: RefMarket, candidate: Candidate):
  'POSITION_LIMIT' | 'MARGIN_INSUFFICIENT' | null {
  const after = exposure(s, m, candidate)
  if (after <= exposure(s, m)) return null
  if (after * m.quotePerTickLot > maxNotionalAt(m, leverageOf(s, m))) return 'POSITION_LIMIT'
  if (available(s, perps, { marketId: m.marketId, candidate }).available < 0n) return 'MARGIN_INSUFFICIENT'
  return null
}

// ---- settlement ---------------------------------------------------------------------------

export interface RefFill {
  fee: bigint
  realizedPnl: bigint
}

/** Settles one side of a perp fill: position, realized PnL, fee (rounded up), wallet. */
export function settlePerp(s: RefSub, m: RefMarket, o: RefOrder, lots: number, priceTicks: number, isMaker: boolean,
  fees: Map<string, bigint>): RefFill {
  const p = position(s, m.marketId, o.positionSide)
  const pnl = movePosition(p, o.side === 'BUY' ? lots : -lots, priceTicks) * m.quotePerTickLot
  const notional = big(lots) * big(priceTicks) * m.quotePerTickLot
  // Liquidation and ADL orders pay no trading fee (reference-liquidation.ts).
  const fee = o.orderType === 'LIQUIDATION' ? 0n : ceilDiv(notional * (isMaker ? m.makerFeePpm : m.takerFeePpm), PPM)
  s.perpWallet += pnl - fee
  fees.set(m.quote, (fees.get(m.quote) ?? 0n) + fee)
  return { fee, realizedPnl: pnl }
}

/**
 * Settles one side of a spot fill. A limit buy held quote at its own price and gets the
 * improvement back; a market buy held the exact cost. The fee is taken from what is
 * received, rounded up.
 */
export function settleSpot(s: RefSub, m: RefMarket, o: RefOrder, lots: number, priceTicks: number, isMaker: boolean,
  fees: Map<string, bigint>): RefFill {
  const quote = balance(s, m.quote)
  const base = balance(s, m.base)
  const quoteAmount = big(lots) * big(priceTicks) * m.quotePerTickLot
  const baseAmount = big(lots) * m.basePerLot
  const ppm = isMaker ? m.makerFeePpm : m.takerFeePpm
  let fee: bigint
  if (o.side === 'BUY') {
    const held = o.orderType === 'MARKET' ? quoteAmount : big(lots) * big(o.priceTicks) * m.quotePerTickLot
    quote.locked -= held
    o.lockedRemaining -= held
    quote.free += held - quoteAmount
    fee = ceilDiv(baseAmount * ppm, PPM)
    base.free += baseAmount - fee
    fees.set(m.base, (fees.get(m.base) ?? 0n) + fee)
  } else {
    base.locked -= baseAmount
    o.lockedRemaining -= baseAmount
    fee = ceilDiv(quoteAmount * ppm, PPM)
    quote.free += quoteAmount - fee
    fees.set(m.quote, (fees.get(m.quote) ?? 0n) + fee)
  }
  return { fee, realizedPnl: 0n }
}
