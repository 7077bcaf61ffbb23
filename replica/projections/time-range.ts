// The spec's time-range rule, once, for every query: with neither startTime nor endTime the
// most recent items up to limit; startTime only, the oldest from startTime; endTime only,
// the most recent up to endTime; both, the oldest from startTime not past endTime. Results
// are always ascending. It works on any store whose keys are prefix ‖ u64(time) ‖ …

import { assert } from '../../core/assert.js'
import { key, prefixEnd } from './keys.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { Store } from './stores.js'

export interface TimeRange {
  /** Inclusive, ms. */
  startTime?: number | undefined
  /** Inclusive, ms. */
  endTime?: number | undefined
}

/** A key range to iterate, and whether to walk it newest first. */
export interface Bounds {
  gte: Buffer
  lt: Buffer
  reverse: boolean
}

function checkTime(t: number | undefined, what: string): void {
  assert(t === undefined || (Number.isSafeInteger(t) && t >= 0), `${what} must be a non-negative integer`)
}

/** Asserts a range's times are non-negative integers (a query's caller has checked them). */
export function checkRange(range: TimeRange): void {
  checkTime(range.startTime, 'startTime')
  checkTime(range.endTime, 'endTime')
}

/**
 * Bounds of `range` over keys `prefix ‖ u64(time) ‖ …`, or null when nothing can match.
 * `floorTime` (a retention window) cuts old rows off without changing which end a query
 * starts from: the rule picks the direction, retention only the oldest row visible.
 */
export function timeRangeBounds(prefix: Buffer, range: TimeRange, floorTime = 0): Bounds | null {
  checkRange(range)
  const from = Math.max(range.startTime ?? 0, floorTime)
  if (range.endTime !== undefined && range.endTime < from) return null
  return {
    gte: Buffer.concat([prefix, key().u64(from).build()]),
    lt: range.endTime === undefined ? prefixEnd(prefix) : Buffer.concat([prefix, key().u64(range.endTime + 1).build()]),
    // Only a startTime anchors a query at the old end; otherwise it starts from the newest.
    reverse: range.startTime === undefined,
  }
}

/** Ascending bounds over every key under `prefix` from `fromKey` (inclusive) on. */
export function fromBounds(prefix: Buffer, fromKey: Buffer): Bounds {
  return { gte: Buffer.concat([prefix, fromKey]), lt: prefixEnd(prefix), reverse: false }
}

export function checkLimit(limit: number, max: number): void {
  assert(Number.isInteger(limit) && limit >= 1 && limit <= max, `limit must be an integer in 1..${max}`)
}

/**
 * Up to `limit` rows of `bounds` that `pick` keeps (it returns undefined to skip a row, or
 * 'stop' to end the walk), returned ascending whichever way the walk went.
 */
export async function scan<T>(store: Store, bounds: Bounds | null, limit: number,
  pick: (key: Buffer, value: Buffer) => T | undefined | 'stop'): Promise<T[]> {
  const out: T[] = []
  if (bounds === null) return out
  const it = store.iterator({ gte: bounds.gte, lt: bounds.lt, reverse: bounds.reverse })
  try {
    for (;;) {
      const rows = await it.nextv(Math.min(PROJECTION_LIMITS.scanChunk, Math.max(limit, 16)))
      if (rows.length === 0) break
      for (const [k, v] of rows) {
        const item = pick(k, v)
        if (item === 'stop') return finish(out, bounds)
        if (item !== undefined) out.push(item)
        if (out.length >= limit) return finish(out, bounds)
      }
    }
  } finally {
    await it.close()
  }
  return finish(out, bounds)
}

function finish<T>(out: T[], bounds: Bounds): T[] {
  return bounds.reverse ? out.reverse() : out
}
