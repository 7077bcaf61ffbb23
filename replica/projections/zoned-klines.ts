// Klines read in a time zone (Binance spot's timeZone): a zone's buckets start at its local
// midnight, hour, Monday or first of the month, and are built from the stored UTC candles.
// Each zoned bucket is tiled by as few stored candles as fit in it exactly (whole UTC days,
// then 12h, 6h, 2h … down to 1m at its ends: a day at +05:45 takes about ten), read by key;
// which buckets hold trades at all comes from a scan of one coarse UTC interval. So a query
// costs about what its buckets ask for, not what lies under them (a year of klines at +05:45
// read every 15-minute candle of the year before: 180 ms a call here, a cheap way to tie up
// the projections' thread).

import { addExact } from '../../core/arith.js'
import { klineCodec } from './codec.js'
import { fixedIntervalMs, intervalIndex, zonedBucketClose, zonedBucketOpen, type KlineInterval } from './intervals.js'
import type { RangeQuery } from './market-queries.js'
import type { KlineRecord } from './records.js'
import { klineKey, klinePrefix, type Stores } from './stores.js'
import { timeRangeBounds } from './time-range.js'

type Fixed = Exclude<KlineInterval, '1w' | '1M'>

/** Stored intervals, each a multiple of the next: the pieces a bucket is tiled with. */
const TILES: readonly Fixed[] = ['1d', '12h', '6h', '2h', '1h', '30m', '15m', '5m', '1m']

/** The stored candles (interval, open time) that tile [from, to) exactly, in time order; both ends whole minutes. */
export function tiles(from: number, to: number): [Fixed, number][] {
  const out: [Fixed, number][] = []
  for (let t = from; t < to;) {
    const tile = TILES.find((i) => t % fixedIntervalMs(i) === 0 && t + fixedIntervalMs(i) <= to)!
    out.push([tile, t])
    t += fixedIntervalMs(tile)
  }
  return out
}

/** Adds candle `k` (later in time) into `into`. */
function merge(into: KlineRecord, k: KlineRecord): void {
  if (k.highPriceTicks > into.highPriceTicks) into.highPriceTicks = k.highPriceTicks
  if (k.lowPriceTicks < into.lowPriceTicks) into.lowPriceTicks = k.lowPriceTicks
  into.closePriceTicks = k.closePriceTicks
  into.volumeLots += k.volumeLots
  into.quoteVolumeTicksLots = addExact(into.quoteVolumeTicksLots, k.quoteVolumeTicksLots)
  into.count += k.count
  into.takerBuyVolumeLots += k.takerBuyVolumeLots
  into.takerBuyQuoteVolumeTicksLots = addExact(into.takerBuyQuoteVolumeTicksLots, k.takerBuyQuoteVolumeTicksLots)
  into.lastTradeId = k.lastTradeId
}

/**
 * Up to `limit` zoned klines of `interval` with trades, whose open time is in the range: from
 * startTime on, or the newest without it (as UTC klines), ascending.
 */
export async function zonedKlines(stores: Stores, marketId: number, interval: KlineInterval, offsetMs: number,
  q: RangeQuery): Promise<KlineRecord[]> {
  const openOf = (t: number): number => zonedBucketOpen(interval, t, offsetMs)
  const closeOf = (open: number): number => zonedBucketClose(interval, open, offsetMs)
  // A UTC candle of `coarse` meets at most two zoned buckets: their candidates.
  const coarse: Fixed = interval === '1w' || interval === '1M' || interval === '3d' ? '1d' : interval
  const span = fixedIntervalMs(coarse)
  const last = q.endTime === undefined ? undefined : closeOf(openOf(q.endTime))
  const first = q.startTime === undefined ? undefined : q.startTime - (((q.startTime % span) + span) % span)
  const bounds = timeRangeBounds(klinePrefix(marketId, intervalIndex(coarse)), { startTime: first, endTime: last })
  const out: KlineRecord[] = []
  if (bounds === null) return out
  const wanted = (open: number): boolean => (q.startTime === undefined || open >= q.startTime) && (q.endTime === undefined || open <= q.endTime)
  const it = stores.klines.iterator({ gte: bounds.gte, lt: bounds.lt, reverse: bounds.reverse })
  try {
    let candidates: number[] = []
    let previous: number | undefined
    for (;;) {
      const rows = await it.nextv(256)
      for (const [, v] of rows) {
        const c = klineCodec.decode(v).openTime
        const both = [openOf(c), openOf(c + span - 1)]
        for (const open of bounds.reverse ? both.reverse() : both) {
          if (open === previous || !wanted(open)) continue
          previous = open
          candidates.push(open)
        }
      }
      // Resolved once there are enough to fill the answer (some may hold no trade: a coarse
      // candle's trades may all lie on one side of a boundary it straddles), or at the end.
      if (candidates.length >= q.limit - out.length || rows.length === 0) {
        out.push(...await resolve(stores, marketId, candidates, closeOf))
        candidates = []
        if (out.length >= q.limit || rows.length === 0) break
      }
    }
  } finally {
    await it.close()
  }
  const kept = out.slice(0, q.limit)
  return bounds.reverse ? kept.reverse() : kept
}

/** The buckets opening at `opens` (in walk order) built from their tiles, those with trades. */
async function resolve(stores: Stores, marketId: number, opens: number[], closeOf: (open: number) => number): Promise<KlineRecord[]> {
  const pieces = opens.map((open) => tiles(open, closeOf(open) + 1))
  const values = await stores.klines.getMany(pieces.flat().map(([i, t]) => klineKey(marketId, intervalIndex(i), t)))
  const out: KlineRecord[] = []
  let at = 0
  for (const [b, open] of opens.entries()) {
    let k: KlineRecord | undefined
    for (let n = 0; n < pieces[b]!.length; n++) {
      const v = values[at++]
      if (v === undefined) continue
      const part = klineCodec.decode(v)
      if (k === undefined) k = { ...part, openTime: open, closeTime: closeOf(open) }
      else merge(k, part)
    }
    if (k !== undefined) out.push(k)
  }
  return out
}
