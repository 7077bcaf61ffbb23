// Kline intervals and the bucket a time falls in. Fixed intervals (1s to 3d) align to the
// Unix epoch, weeks start Monday 00:00 UTC and months on the first of the month UTC.

import { assert } from '../../core/assert.js'

export const KLINE_INTERVALS = ['1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '6h', '8h', '12h', '1d', '3d', '1w', '1M', '1s'] as const
export type KlineInterval = (typeof KLINE_INTERVALS)[number]
/**
 * How many of KLINE_INTERVALS the perpetuals have: all but 1s, which Binance spot alone has
 * (it comes last, so a perpetual's loops stop before it).
 */
export const PERP_INTERVAL_COUNT = KLINE_INTERVALS.length - 1

const MINUTE_MS = 60_000
const HOUR_MS = 60 * MINUTE_MS
const DAY_MS = 24 * HOUR_MS
const WEEK_MS = 7 * DAY_MS
/** 1970-01-01 was a Thursday; the first Monday is four days later. */
const FIRST_MONDAY_MS = 4 * DAY_MS

const FIXED_MS: Record<Exclude<KlineInterval, '1w' | '1M'>, number> = {
  '1s': 1000, '1m': MINUTE_MS, '3m': 3 * MINUTE_MS, '5m': 5 * MINUTE_MS, '15m': 15 * MINUTE_MS, '30m': 30 * MINUTE_MS,
  '1h': HOUR_MS, '2h': 2 * HOUR_MS, '4h': 4 * HOUR_MS, '6h': 6 * HOUR_MS, '8h': 8 * HOUR_MS, '12h': 12 * HOUR_MS,
  '1d': DAY_MS, '3d': 3 * DAY_MS,
}

/** Index of the interval inside keys and cursors; the order of KLINE_INTERVALS, never changed. */
export function intervalIndex(interval: KlineInterval): number {
  const i = KLINE_INTERVALS.indexOf(interval)
  if (i < 0) assert(false, `unknown kline interval ${String(interval)}`)
  return i
}

export function isKlineInterval(s: string): s is KlineInterval {
  return (KLINE_INTERVALS as readonly string[]).includes(s)
}

/** An interval the perpetuals have klines of (not 1s). */
export function isPerpKlineInterval(s: string): s is KlineInterval {
  const i = KLINE_INTERVALS.indexOf(s as KlineInterval)
  return i >= 0 && i < PERP_INTERVAL_COUNT
}

/** Whether a zone's buckets of `interval` are UTC's: a fixed interval that divides its offset (1h at +08:00, 1s anywhere). */
export function zoneKeepsBuckets(interval: KlineInterval, offsetMs: number): boolean {
  return interval !== '1w' && interval !== '1M' && offsetMs % FIXED_MS[interval] === 0
}

/** Open time of the bucket holding `timeMs`. */
export function bucketOpen(interval: KlineInterval, timeMs: number): number {
  assert(Number.isSafeInteger(timeMs) && timeMs >= 0, 'kline time must be a non-negative integer')
  if (interval === '1M') {
    const d = new Date(timeMs)
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
  }
  if (interval === '1w') return Math.floor((timeMs - FIRST_MONDAY_MS) / WEEK_MS) * WEEK_MS + FIRST_MONDAY_MS
  const size = FIXED_MS[interval]
  return timeMs - (timeMs % size)
}

/** Close time of the bucket that opens at `openTime`: the next bucket's open − 1. */
export function bucketClose(interval: KlineInterval, openTime: number): number {
  if (interval === '1M') {
    const d = new Date(openTime)
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - 1
  }
  return openTime + (interval === '1w' ? WEEK_MS : FIXED_MS[interval]) - 1
}

/**
 * Open time (UTC ms) of the bucket holding `timeMs` when intervals are read in a zone
 * `offsetMs` east of UTC (Binance spot's timeZone): its days start at local midnight, its
 * weeks on local Mondays, its months on the local first. Any time, however early.
 */
export function zonedBucketOpen(interval: KlineInterval, timeMs: number, offsetMs: number): number {
  const local = timeMs + offsetMs
  if (interval === '1M') {
    const d = new Date(local)
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) - offsetMs
  }
  if (interval === '1w') return Math.floor((local - FIRST_MONDAY_MS) / WEEK_MS) * WEEK_MS + FIRST_MONDAY_MS - offsetMs
  const size = FIXED_MS[interval]
  return Math.floor(local / size) * size - offsetMs
}

/** Close time of the zoned bucket that opens at `openTime`: the next one's open − 1. */
export function zonedBucketClose(interval: KlineInterval, openTime: number, offsetMs: number): number {
  if (interval !== '1M') return openTime + (interval === '1w' ? WEEK_MS : FIXED_MS[interval]) - 1
  const d = new Date(openTime + offsetMs)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - 1 - offsetMs
}

/** Length of a fixed interval (1s to 3d), ms. */
export function fixedIntervalMs(interval: Exclude<KlineInterval, '1w' | '1M'>): number {
  return FIXED_MS[interval]
}
