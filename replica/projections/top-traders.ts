// The top traders' positions of each perpetual, one row per 5-minute bucket: the sample the
// core takes at the bucket's first Tick (core/top-traders.ts), for Binance's
// /futures/data/topLongShortAccountRatio and topLongShortPositionRatio.

import type { PricesEvent, TopTradersFields } from '../../core/events.js'
import { TOP_TRADERS_BUCKET_MS } from '../../core/top-traders.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { PendingBatch } from './batch.js'
import { tupleCodec } from './codec.js'
import { key, readU64 } from './keys.js'
import { marketPrefix, type Stores } from './stores.js'
import { checkLimit, scan, timeRangeBounds, type TimeRange } from './time-range.js'

export interface TopTradersRecord extends TopTradersFields {
  /** When the sample was taken: the bucket's first Tick. */
  time: number
}

const topTradersCodec = tupleCodec<TopTradersRecord>({ time: true, longAccounts: true, shortAccounts: true, longLots: true, shortLots: true })

/** marketId u32, bucket start u64 → TopTradersRecord. */
function topTradersKey(marketId: number, bucket: number): Buffer {
  return key().u32(marketId).u64(bucket).build()
}

/** A prices event that carries a sample: its row. */
export function onTopTraders(stores: Stores, batch: PendingBatch, e: PricesEvent): void {
  const t = e.topTraders!
  const bucket = e.time - (e.time % TOP_TRADERS_BUCKET_MS)
  const r: TopTradersRecord = { time: e.time, longAccounts: t.longAccounts, shortAccounts: t.shortAccounts, longLots: t.longLots,
    shortLots: t.shortLots }
  batch.put(stores.topTraders, topTradersKey(e.marketId, bucket), topTradersCodec.encode(r))
}

export interface TopTradersQuery extends TimeRange {
  limit: number
  /** Only the buckets starting at a multiple of this (a period's boundaries); absent: every bucket. */
  everyMs?: number | undefined
}

/** A market's samples by bucket start, ascending (the time-range rule over bucket starts). */
export async function topTradersHistory(stores: Stores, marketId: number, q: TopTradersQuery): Promise<TopTradersRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.openInterestHistoryMax)
  const every = q.everyMs ?? TOP_TRADERS_BUCKET_MS
  return scan(stores.topTraders, timeRangeBounds(marketPrefix(marketId), q), q.limit, (k, v) =>
    readU64(k, k.length - 8) % every === 0 ? topTradersCodec.decode(v) : undefined)
}
