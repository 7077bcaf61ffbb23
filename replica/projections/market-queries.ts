// Queries of the market read models: recent and historical trades, aggregate trades,
// klines, open interest. Each reads only what has been flushed.

import { aggTradeCodec, klineCodec, numberCodec, openInterestCodec, tradeCodec } from './codec.js'
import { intervalIndex, zoneKeepsBuckets, type KlineInterval } from './intervals.js'
import { key } from './keys.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import { cursorCodec, type MarketCursor } from './market-writer.js'
import type { AggTradeRecord, KlineRecord, OpenInterestRecord, TradeRecord } from './records.js'
import { klinePrefix, marketPrefix, type Stores } from './stores.js'
import { checkLimit, fromBounds, scan, timeRangeBounds, type Bounds, type TimeRange } from './time-range.js'
import { zonedKlines } from './zoned-klines.js'

export interface TradesQuery {
  /** Oldest trade id to return; absent: the most recent trades. */
  fromId?: number | undefined
  limit: number
}

export interface AggTradesQuery extends TimeRange {
  /** Oldest aggregate id to return; with it, startTime and endTime only bound the result. */
  fromId?: number | undefined
  limit: number
}

export interface RangeQuery extends TimeRange {
  limit: number
}

export interface KlineQuery extends RangeQuery {
  /** Buckets read in a zone this far east of UTC, ms (Binance spot's timeZone); startTime and endTime stay UTC. */
  offsetMs?: number
  /**
   * One kline per interval, those without trades flat at the last close, as Binance serves
   * them (kline-gaps.ts); otherwise only the stored ones, intervals with trades.
   */
  gapless?: boolean
}

/**
 * Trades of a market, newest `limit` or ascending from `fromId`, never older than
 * `floorTime` (the three-month reach of historicalTrades).
 */
export async function trades(stores: Stores, marketId: number, q: TradesQuery, max: number,
  floorTime: number): Promise<TradeRecord[]> {
  checkLimit(q.limit, max)
  const prefix = marketPrefix(marketId)
  const bounds: Bounds = q.fromId === undefined
    ? { ...fromBounds(prefix, key().u64(0).build()), reverse: true }
    : fromBounds(prefix, key().u64(q.fromId).build())
  return scan(stores.trades, bounds, q.limit, (_k, v) => {
    const t = tradeCodec.decode(v)
    if (t.time >= floorTime) return t
    // Walking back, everything further is older still.
    return bounds.reverse ? 'stop' : undefined
  })
}

export async function aggTrades(stores: Stores, marketId: number, q: AggTradesQuery): Promise<AggTradeRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.aggTradesMax)
  const prefix = marketPrefix(marketId)
  if (q.fromId === undefined) {
    return scan(stores.aggTrades, timeRangeBounds(prefix, q), q.limit, (_k, v) => aggTradeCodec.decode(v))
  }
  const first = await firstAggAtOrAfter(stores, marketId, q.fromId)
  if (first === undefined) return []
  const from = Math.max(first.time, q.startTime ?? 0)
  const bounds = timeRangeBounds(prefix, { startTime: from, endTime: q.endTime })
  return scan(stores.aggTrades, bounds, q.limit, (_k, v) => {
    const a = aggTradeCodec.decode(v)
    return a.aggId >= q.fromId! ? a : undefined
  })
}

/** The id and time of the first aggregate whose id is at least `aggId`. */
async function firstAggAtOrAfter(stores: Stores, marketId: number, aggId: number): Promise<{ time: number } | undefined> {
  const prefix = marketPrefix(marketId)
  const rows = await scan(stores.aggIds, fromBounds(prefix, key().u64(aggId).build()), 1,
    (_k, v) => ({ time: numberCodec.decode(v) }))
  return rows[0]
}

/** Klines of an interval in a range; none opening before `floorTime` (the 1s klines' retention window). */
export async function klines(stores: Stores, marketId: number, interval: KlineInterval,
  q: KlineQuery, floorTime = 0): Promise<KlineRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.klinesMax)
  if (q.offsetMs && !zoneKeepsBuckets(interval, q.offsetMs)) return zonedKlines(stores, marketId, interval, q.offsetMs, q)
  const bounds = timeRangeBounds(klinePrefix(marketId, intervalIndex(interval)), q, floorTime)
  return scan(stores.klines, bounds, q.limit, (_k, v) => klineCodec.decode(v))
}

export async function marketCursor(stores: Stores, marketId: number): Promise<MarketCursor | undefined> {
  const v = await stores.cursors.get(marketPrefix(marketId))
  return v === undefined ? undefined : cursorCodec.decode(v)
}

/** Current open interest and account counts of a perp market; undefined for a market that never traded as one. */
export async function openInterest(stores: Stores, marketId: number): Promise<OpenInterestRecord | undefined> {
  const c = await marketCursor(stores, marketId)
  if (c === undefined || !c.perp) return undefined
  return {
    marketId, openInterestLots: c.openInterestLots, time: c.openInterestTime,
    longAccounts: c.longAccounts ?? 0, shortAccounts: c.shortAccounts ?? 0,
  }
}

/** The last open interest of each bucket (openInterestBucketMs) that saw a change. */
export async function openInterestHistory(stores: Stores, marketId: number, q: RangeQuery): Promise<OpenInterestRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.openInterestHistoryMax)
  const bounds = timeRangeBounds(marketPrefix(marketId), q)
  return scan(stores.openInterest, bounds, q.limit, (_k, v) => openInterestCodec.decode(v))
}
