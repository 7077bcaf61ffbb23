// Binance spot's Price Range execution rule: a taker may trade only at prices within a range
// around the market's reference price, the arithmetic mean of its trade prices over the last
// five minutes. The range is fixed when the order starts taking (`takerRange`); a taker that
// reaches a price outside it expires (core/match.ts), with the reason on its record.
//
// The mean is kept in buckets of REFERENCE_BUCKET_MS aligned to the entry time (a trade count
// and a sum of prices each); the window is REFERENCE_BUCKETS of them back from now, and the
// oldest bucket, straddling the window's start, counts for the part of it inside the window.
// Integers throughout: the reference is the fraction sum / count, compared in bigint.

import type { SpotMarket } from './state.js'

/** The rule's multipliers of the reference price, × 10,000 (Binance's four decimals: 1.1500 is 11,500). */
export interface PriceRange {
  /** A BUY may trade at most bidUp × reference, at least bidDown × reference. */
  bidUpE4: number
  bidDownE4: number
  /** A SELL likewise with the ask multipliers. */
  askUpE4: number
  askDownE4: number
}

/** One bucket of trade prices: its aligned open time, the trades in it, their prices summed (ticks). */
export interface ReferenceBucket {
  openTime: number
  count: number
  sumTicks: number
}

export const REFERENCE_BUCKET_MS = 3_750
export const REFERENCE_BUCKETS = 80
const WINDOW_MS = REFERENCE_BUCKET_MS * REFERENCE_BUCKETS
const E4 = 10_000n

/** Adds one trade's price to the market's buckets, dropping those wholly before the window. */
export function recordTradePrice(m: SpotMarket, priceTicks: number, time: number): void {
  const buckets = m.referenceBuckets
  const openTime = time - (time % REFERENCE_BUCKET_MS)
  const last = buckets[buckets.length - 1]
  if (last !== undefined && last.openTime === openTime) {
    last.count += 1
    last.sumTicks += priceTicks
  } else {
    buckets.push({ openTime, count: 1, sumTicks: priceTicks })
  }
  const cutoff = time - WINDOW_MS
  while (buckets.length > 0 && buckets[0]!.openTime + REFERENCE_BUCKET_MS <= cutoff) buckets.shift()
}

/** The reference price at `time` as ticks num / den, or null when no trade falls in the window. */
export function referencePrice(m: SpotMarket, time: number): { num: bigint; den: bigint } | null {
  const cutoff = time - WINDOW_MS
  let num = 0n
  let den = 0n
  for (const b of m.referenceBuckets) {
    const close = b.openTime + REFERENCE_BUCKET_MS
    if (close <= cutoff) continue
    // Each bucket weighs the milliseconds of it inside the window: all of it but the oldest's.
    const weight = BigInt(b.openTime < cutoff ? close - cutoff : REFERENCE_BUCKET_MS)
    num += BigInt(b.sumTicks) * weight
    den += BigInt(b.count) * weight
  }
  return den === 0n ? null : { num, den }
}

/** The prices (ticks, inclusive) a taker may trade at. */
export interface PriceBounds {
  minTicks: number
  maxTicks: number
}

/** Whether a taker held to `range` (null: none) may not trade at `priceTicks`. */
export function outsideRange(range: PriceBounds | null, priceTicks: number): boolean {
  return range !== null && (priceTicks < range.minTicks || priceTicks > range.maxTicks)
}

/**
 * The prices a taker on `isBuy`'s side may trade at from `time` on, or null when the market has
 * no rule or no reference price yet (nothing to hold it to).
 */
export function takerRange(m: SpotMarket, isBuy: boolean, time: number): PriceBounds | null {
  const r = m.priceRange
  if (r === null) return null
  const ref = referencePrice(m, time)
  if (ref === null) return null
  const down = BigInt(isBuy ? r.bidDownE4 : r.askDownE4)
  const up = BigInt(isBuy ? r.bidUpE4 : r.askUpE4)
  // p ≥ ref × down / 10,000 rounded up to a tick; p ≤ ref × up / 10,000 rounded down.
  const scale = ref.den * E4
  const lo = ref.num * down
  return { minTicks: Number((lo + scale - 1n) / scale), maxTicks: Number((ref.num * up) / scale) }
}

/** A genesis rule's multipliers: whole numbers, down ≤ 1 ≤ up, up to 100×. */
export function validPriceRange(r: PriceRange): boolean {
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0 && n <= 1_000_000
  return ok(r.bidUpE4) && ok(r.bidDownE4) && ok(r.askUpE4) && ok(r.askDownE4) &&
    r.bidDownE4 <= 10_000 && r.askDownE4 <= 10_000 && r.bidUpE4 >= 10_000 && r.askUpE4 >= 10_000
}
