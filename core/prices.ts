// Index, mark and premium index of a perpetual (API.md "Prices, funding, liquidation"). The
// index is the newest signed oracle price; the mark is the median of three estimates; the
// premium index is sampled every 5 s of sequencer time from the impact bid and ask. All of it
// is integer arithmetic on E8 prices (1e-8 of the quote) and E8 rates, so replay recomputes it
// exactly. Until a market has an oracle price its mark stays the last trade price.

import { max, min, mulDivFloor } from './arith.js'
import type { Bracket, CreatePerpMarket } from './commands.js'
import type { BookSide } from './book.js'
import { LIMITS } from './limits.js'
import type { PerpMarket, PriceState } from './state.js'

export const E8 = 100_000_000
const E8n = 100_000_000n
export const HOUR_MS = 3_600_000
export const DEFAULT_FUNDING_INTERVAL_MS = 8 * HOUR_MS
/** Premium samples are taken once per this much sequencer time. */
export const PREMIUM_SAMPLE_MS = 5_000
/** The mark's moving average of (mid − index) spans this long, one sample per second. */
export const BASIS_WINDOW_MS = 30_000
const BASIS_SLOT_MS = 1_000

/**
 * Funding parameters of a new perpetual, from the command or the defaults: impact notional
 * 200 quote coins / initial margin rate at the highest leverage (Binance's impact margin
 * notional), cap and floor ±0.75 × the first bracket's maintenance rate (Binance's rule:
 * ±0.3 % for BTC), and an 8 h interval. Returns null when a given value is out of range.
 */
export function newPriceState(cmd: CreatePerpMarket, quoteScale: number): PriceState | null {
  const first: Bracket = cmd.brackets[0]!
  const impactNotional = cmd.impactNotional ?? 200 * 10 ** quoteScale * first.maxLeverage
  // mmrPpm × 0.75 in E8: ppm → E8 is × 100.
  const cap = cmd.fundingCapE8 ?? first.mmrPpm * 75
  const floor = cmd.fundingFloorE8 ?? -cap
  const interval = cmd.fundingIntervalMs ?? DEFAULT_FUNDING_INTERVAL_MS
  if (!Number.isSafeInteger(impactNotional) || impactNotional <= 0 || impactNotional > LIMITS.ledgerAmountMax) return null
  if (!Number.isSafeInteger(cap) || !Number.isSafeInteger(floor) || cap < 0 || floor > 0 || cap > E8 || floor < -E8) return null
  if (!Number.isSafeInteger(interval) || interval <= 0 || interval % HOUR_MS !== 0 || interval > LIMITS.fundingIntervalMaxMs ||
    LIMITS.fundingIntervalMaxMs % interval !== 0) return null
  return {
    oracle: '', indexE8: 0, indexTime: 0, impactNotional, fundingCapE8: cap, fundingFloorE8: floor, fundingIntervalMs: interval,
    lastFundingRateE8: 0, nextFundingTime: 0, premiumWeightedE8: 0, premiumWeights: 0, premiumSamples: 0,
    premiumSlot: -1, lastPremiumE8: 0, basis: [], basisSumE8: 0,
  }
}

/** The first funding boundary strictly after `time`: boundaries are multiples of the interval from 00:00 UTC. */
export function boundaryAfter(time: number, intervalMs: number): number {
  return Math.floor(time / intervalMs) * intervalMs + intervalMs
}

/** E8 per tick as a fraction: price = ticks × tickSize × 10^-pricePrecision. */
function tickNum(m: PerpMarket): bigint { return BigInt(m.tickSize) * E8n }
function tickDen(m: PerpMarket): bigint { return 10n ** BigInt(m.pricePrecision) }

// The conversions below run after every order command (the mark's refresh), so they work in
// plain numbers whenever every intermediate is a safe integer, where a float quotient truncated
// or floored is exact (arith.ts floorDiv), and fall back to bigint otherwise: the same results.
const SAFE = Number.MAX_SAFE_INTEGER
const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i)

/** tickNum and tickDen as numbers, or 0 when either is not a safe integer. */
function tickNumber(m: PerpMarket): number {
  const n = m.tickSize * E8
  return n <= SAFE ? n : 0
}
function tickDenNumber(m: PerpMarket): number {
  return POW10[m.pricePrecision] ?? 0
}

/** A price in ticks as E8 (exact for pricePrecision ≤ 8, truncated beyond). */
export function ticksToE8(m: PerpMarket, ticks: number): number {
  const num = tickNumber(m)
  const den = tickDenNumber(m)
  const p = ticks * num
  if (num > 0 && den > 0 && p <= SAFE && p >= -SAFE) return Math.trunc(p / den)
  return Number((BigInt(ticks) * tickNum(m)) / tickDen(m))
}

/** An E8 price to the nearest tick (halves up), at least one tick. */
export function e8ToTicks(m: PerpMarket, e8: number): number {
  const num = tickNumber(m)
  const den = tickDenNumber(m)
  const x = 2 * e8 * den
  if (num > 0 && den > 0 && x <= SAFE - num && x >= -SAFE && 2 * num <= SAFE) return max(1, Math.trunc((x + num) / (2 * num)))
  const bigNum = BigInt(e8) * tickDen(m)
  const bigDen = tickNum(m)
  return max(1, Number((2n * bigNum + bigDen) / (2n * bigDen)))
}

function median(a: number, b: number, c: number): number {
  return max(min(a, b), min(max(a, b), c))
}

/** Mid of the best bid and ask, E8; 0 unless both sides have orders. */
export function midE8(m: PerpMarket): number {
  const bid = m.book.bids.best()
  const ask = m.book.asks.best()
  if (bid === undefined || ask === undefined) return 0
  return Math.floor(ticksToE8(m, bid.priceTicks + ask.priceTicks) / 2)
}

/** Moving average of (mid − index) over the samples still in the window, E8; 0 with none. */
export function basisAverageE8(p: PriceState): number {
  const n = p.basis.length / 2
  return n === 0 ? 0 : Math.floor(p.basisSumE8 / n)
}

function pruneBasis(p: PriceState, time: number): void {
  const oldest = Math.floor(time / BASIS_SLOT_MS) - BASIS_WINDOW_MS / BASIS_SLOT_MS + 1
  let drop = 0
  while (drop < p.basis.length && p.basis[drop]! < oldest) {
    p.basisSumE8 -= p.basis[drop + 1]!
    drop += 2
  }
  if (drop > 0) p.basis.splice(0, drop)
}

/**
 * Takes this second's (mid − index) sample (on Ticks): when the book has both sides, or, with
 * `oneSidedZero` (rules 6), a basis of 0 when a side is empty (core/rules.ts ONE_SIDED_BASIS_ZERO).
 */
export function sampleBasis(m: PerpMarket, time: number, oneSidedZero: boolean): void {
  const p = m.prices
  pruneBasis(p, time)
  const mid = midE8(m)
  if ((mid === 0 && !oneSidedZero) || p.indexE8 === 0) return
  const slot = Math.floor(time / BASIS_SLOT_MS)
  if (p.basis.length > 0 && p.basis[p.basis.length - 2] === slot) return
  const basis = mid === 0 ? 0 : mid - p.indexE8
  p.basis.push(slot, basis)
  p.basisSumE8 += basis
}

/** The three estimates the mark is the median of, E8 (API.md). */
export interface MarkInputs {
  /** index × (1 + lastFundingRate × timeToNextFunding / interval). */
  fundingBasisE8: number
  /** index + 30-s moving average of (mid − index). */
  movingAverageE8: number
  /** The last trade price (the index before the first trade). */
  lastTradeE8: number
}

export function markInputs(m: PerpMarket, time: number): MarkInputs {
  const p = m.prices
  const toNext = max(0, p.nextFundingTime - time)
  const fundingBasisE8 = p.indexE8 + mulDivFloor(p.indexE8, p.lastFundingRateE8 * toNext, E8 * p.fundingIntervalMs)
  return {
    fundingBasisE8,
    movingAverageE8: p.indexE8 + basisAverageE8(p),
    lastTradeE8: m.lastPriceTicks > 0 ? ticksToE8(m, m.lastPriceTicks) : p.indexE8,
  }
}

/** The mark by API.md, E8: the median of the three estimates, or the index with an empty book. */
export function markE8(m: PerpMarket, time: number): number {
  const p = m.prices
  if (m.book.bids.best() === undefined && m.book.asks.best() === undefined) return p.indexE8
  const x = markInputs(m, time)
  return median(x.fundingBasisE8, x.movingAverageE8, x.lastTradeE8)
}

/**
 * Everything the mark was last computed from, and the result. It runs after every order
 * command and its inputs rarely all move: while they are the same the mark is too. Derived
 * (it lives in the market's trigger index, rebuilt empty on restore), never in the root.
 */
export interface MarkMemo {
  indexE8: number
  lastPriceTicks: number
  basisSumE8: number
  basisCount: number
  /** Whether the book had no order on either side (the mark is then the index). */
  emptyBook: boolean
  fundingRateE8: number
  fundingIntervalMs: number
  nextFundingTime: number
  /** The time it was computed at: with a funding rate the mark moves with time. */
  time: number
  /** Before this time pruneBasis drops no sample. */
  pruneFrom: number
  markPriceTicks: number
}

export function newMarkMemo(): MarkMemo {
  return {
    indexE8: 0, lastPriceTicks: 0, basisSumE8: 0, basisCount: 0, emptyBook: false, fundingRateE8: 0,
    fundingIntervalMs: 0, nextFundingTime: 0, time: 0, pruneFrom: 0, markPriceTicks: 0,
  }
}

/** Sets markPriceTicks from the formula; a market without an oracle price keeps its last trade price. */
export function refreshMark(m: PerpMarket, time: number): void {
  const p = m.prices
  if (p.indexE8 === 0) return
  const memo = m.triggers.markMemo
  const emptyBook = m.book.bids.best() === undefined && m.book.asks.best() === undefined
  // The same inputs give the same mark: index, last trade, the basis average (sum and count),
  // the book's emptiness, the funding term (time enters it only through a non-zero rate) and
  // no basis sample old enough for pruneBasis to drop.
  if (time < memo.pruneFrom && memo.indexE8 === p.indexE8 && memo.lastPriceTicks === m.lastPriceTicks &&
    memo.basisSumE8 === p.basisSumE8 && memo.basisCount === p.basis.length && memo.emptyBook === emptyBook &&
    memo.fundingRateE8 === p.lastFundingRateE8 && memo.fundingIntervalMs === p.fundingIntervalMs &&
    (p.lastFundingRateE8 === 0 || (memo.time === time && memo.nextFundingTime === p.nextFundingTime))) {
    m.markPriceTicks = memo.markPriceTicks
    return
  }
  pruneBasis(p, time)
  const ticks = e8ToTicks(m, markE8(m, time))
  m.markPriceTicks = ticks
  memo.indexE8 = p.indexE8
  memo.lastPriceTicks = m.lastPriceTicks
  memo.basisSumE8 = p.basisSumE8
  memo.basisCount = p.basis.length
  memo.emptyBook = emptyBook
  memo.fundingRateE8 = p.lastFundingRateE8
  memo.fundingIntervalMs = p.fundingIntervalMs
  memo.nextFundingTime = p.nextFundingTime
  memo.time = time
  // The oldest sample (its second, basis[0]) leaves the window once time reaches this.
  memo.pruneFrom = p.basis.length === 0 ? Number.MAX_SAFE_INTEGER : (p.basis[0]! + BASIS_WINDOW_MS / BASIS_SLOT_MS) * BASIS_SLOT_MS
  memo.markPriceTicks = ticks
}

/**
 * Average fill price (E8) of `notional` quote ledger units taken from `side` best first, or 0
 * when the side is too thin. The last level is taken fractionally, so the average is
 * notional × p / (lots × p × unit + rest) ticks, p the last level's price.
 */
export function impactPriceE8(m: PerpMarket, side: BookSide, notional: number): number {
  const unit = BigInt(m.quotePerTickLot)
  const goal = BigInt(notional)
  let filled = 0n
  let lots = 0n
  for (let i = side.levels.length - 1; i >= 0; i--) {
    const level = side.levels[i]!
    const price = BigInt(level.priceTicks)
    const value = price * BigInt(level.qtyLots) * unit
    if (filled + value >= goal) {
      const rest = goal - filled
      // avg ticks = goal × price / (lots × price × unit + rest); to E8 via the tick fraction.
      const num = goal * price * tickNum(m)
      const den = (lots * price * unit + rest) * tickDen(m)
      return Number(num / den)
    }
    filled += value
    lots += BigInt(level.qtyLots)
  }
  return 0
}

/**
 * One premium index sample, E8: (max(0, impactBid − index) − max(0, index − impactAsk)) /
 * index, clamped to ±premiumE8Max; 0 when either side cannot fill the impact notional.
 */
export function premiumE8(m: PerpMarket): number {
  const p = m.prices
  const bid = impactPriceE8(m, m.book.bids, p.impactNotional)
  const ask = impactPriceE8(m, m.book.asks, p.impactNotional)
  if (bid === 0 || ask === 0 || p.indexE8 === 0) return 0
  const diff = max(0, bid - p.indexE8) - max(0, p.indexE8 - ask)
  const premium = mulDivFloor(diff, E8, p.indexE8)
  return max(-LIMITS.premiumE8Max, min(LIMITS.premiumE8Max, premium))
}

/**
 * Takes the premium sample of this 5-s slot, weighted by its place in the interval (1, 2, …:
 * the linearly rising weights of API.md). True when this call took it (the slot's first Tick).
 */
export function samplePremium(m: PerpMarket, time: number): boolean {
  const p = m.prices
  if (p.indexE8 === 0) return false
  const slot = Math.floor(time / PREMIUM_SAMPLE_MS)
  if (slot === p.premiumSlot) return false
  p.premiumSlot = slot
  const premium = premiumE8(m)
  const weight = p.premiumSamples + 1
  p.premiumSamples = weight
  p.premiumWeights += weight
  p.premiumWeightedE8 += weight * premium
  p.lastPremiumE8 = premium
  return true
}

/** The interval's weighted average premium so far, E8 (floored); 0 before any sample. */
export function averagePremiumE8(p: PriceState): number {
  return p.premiumWeights === 0 ? 0 : Math.floor(p.premiumWeightedE8 / p.premiumWeights)
}

/** The canonical state-root leaf of a perpetual's price state. */
export function pricesLeaf(m: PerpMarket): string {
  const p = m.prices
  return ['prices', m.marketId, p.oracle, p.indexE8, p.indexTime, p.impactNotional, p.fundingCapE8, p.fundingFloorE8,
    p.fundingIntervalMs, p.lastFundingRateE8, p.nextFundingTime, p.premiumWeightedE8, p.premiumWeights, p.premiumSamples,
    p.premiumSlot, p.lastPremiumE8, p.basis.join(','), p.basisSumE8].join('|')
}
