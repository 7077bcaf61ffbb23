// Klines as Binance serves them: one for every interval from the market's first trade to the
// current one, those with no trade flat at the last close (volume 0, trade ids -1). Only
// intervals with trades are stored (market-writer.ts); the empty ones are made here as a query
// reads them, so a quiet market costs no rows. `limit` counts intervals, not stored rows, and
// the time-range rule (time-range.ts) picks them as it picks rows.

import { assert } from '../../core/assert.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import { zonedBucketClose, zonedBucketOpen, type KlineInterval } from './intervals.js'
import { klines, type KlineQuery } from './market-queries.js'
import type { KlineRecord } from './records.js'
import type { Stores } from './stores.js'
import { checkLimit, checkRange, type TimeRange } from './time-range.js'

/** A candle with no trade: flat at the close before it. */
export function emptyKline(openTime: number, closeTime: number, closePriceTicks: number): KlineRecord {
  return {
    openTime, closeTime, openPriceTicks: closePriceTicks, highPriceTicks: closePriceTicks, lowPriceTicks: closePriceTicks,
    closePriceTicks, volumeLots: 0, quoteVolumeTicksLots: 0, count: 0, takerBuyVolumeLots: 0, takerBuyQuoteVolumeTicksLots: 0,
    firstTradeId: -1, lastTradeId: -1,
  }
}

/**
 * Up to `q.limit` klines of `interval`, one per interval opening in the range, none before the
 * market's first trade (nor `floorTime`) or after the interval holding `nowMs`; ascending.
 */
export async function gaplessKlines(stores: Stores, marketId: number, interval: KlineInterval, q: KlineQuery,
  floorTime: number, nowMs: number): Promise<KlineRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.klinesMax)
  checkRange(q)
  const offsetMs = q.offsetMs ?? 0
  const openOf = (t: number): number => zonedBucketOpen(interval, t, offsetMs)
  const closeOf = (open: number): number => zonedBucketClose(interval, open, offsetMs)
  const stored = (range: TimeRange, limit: number): Promise<KlineRecord[]> =>
    klines(stores, marketId, interval, { ...range, limit, offsetMs }, floorTime)

  const [first] = await stored({ startTime: 0 }, 1)
  if (first === undefined) return []
  const top = openOf(Math.min(q.endTime ?? nowMs, nowMs))
  let low: number
  if (q.startTime !== undefined) {
    low = openOf(q.startTime)
    if (low < q.startTime) low = closeOf(low) + 1
  } else {
    // The newest `limit` intervals up to `top`.
    low = top
    for (let n = 1; n < q.limit && low > first.openTime; n++) low = openOf(low - 1)
  }
  low = Math.max(low, first.openTime)
  if (low > top) return []

  // The first `limit` intervals from `low` hold at most `limit` stored candles.
  const rows = await stored({ startTime: low, endTime: top }, q.limit)
  const [before] = low > first.openTime ? await stored({ endTime: low - 1 }, 1) : []
  let close = before?.closePriceTicks
  const out: KlineRecord[] = []
  let i = 0
  for (let open = low; open <= top && out.length < q.limit; open = closeOf(open) + 1) {
    const k = rows[i]
    if (k !== undefined && k.openTime === open) {
      out.push(k)
      close = k.closePriceTicks
      i++
      continue
    }
    // Every interval from the first trade's on has a close before it: `before`, or a row above.
    assert(close !== undefined, 'an empty kline needs the close before it')
    out.push(emptyKline(open, closeOf(open), close))
  }
  return out
}
