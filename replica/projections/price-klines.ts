// Mark, index and premium index klines of every interval, from the core's `prices` events
// (each Tick and each oracle price; the premium index from the Ticks that took its 5-s sample):
// open, high, low and close of the sampled values, and how many samples the bucket took
// (Binance's "number of basic data"). Like the trade klines, each
// market's current buckets live in a cursor in memory, written with each batch.

import type { PricesEvent } from '../../core/events.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { PendingBatch } from './batch.js'
import { plainCodec, tupleCodec } from './codec.js'
import { bucketClose, bucketOpen, intervalIndex, KLINE_INTERVALS, PERP_INTERVAL_COUNT, type KlineInterval } from './intervals.js'
import { key } from './keys.js'
import type { Stores } from './stores.js'
import { checkLimit, scan, timeRangeBounds, type TimeRange } from './time-range.js'

export type PriceKind = 'mark' | 'index' | 'premium'
const KIND_CODE: Record<PriceKind, number> = { mark: 0, index: 1, premium: 2 }

/** Mark prices in ticks of the market, index prices in 1e-8 of the quote, the premium index in 1e-8. */
export interface PriceKlineRecord {
  openTime: number
  closeTime: number
  open: number
  high: number
  low: number
  close: number
  count: number
}

export const priceKlineCodec = tupleCodec<PriceKlineRecord>({ openTime: true, closeTime: true, open: true, high: true, low: true, close: true, count: true })

interface PriceCursor {
  marketId: number
  /** Current bucket per interval of each kind. */
  mark: (PriceKlineRecord | null)[]
  index: (PriceKlineRecord | null)[]
  /** Absent in cursors written before premium klines were kept. */
  premium?: (PriceKlineRecord | null)[]
}

const noBuckets = (): null[] => KLINE_INTERVALS.map(() => null)

const cursorCodec = plainCodec<PriceCursor>()

function prefix(kind: PriceKind, marketId: number, interval: number): Buffer {
  return key().u8(KIND_CODE[kind]).u32(marketId).u8(interval).build()
}

function klineKey(kind: PriceKind, marketId: number, interval: number, openTime: number): Buffer {
  return key().u8(KIND_CODE[kind]).u32(marketId).u8(interval).u64(openTime).build()
}

export class PriceKlineWriter {
  private readonly cursors = new Map<number, PriceCursor>()
  private dirty = new Set<number>()

  constructor(private readonly stores: Stores) {}

  async load(): Promise<void> {
    this.cursors.clear()
    this.dirty.clear()
    for await (const v of this.stores.priceCursors.values()) {
      const c = cursorCodec.decode(v)
      this.cursors.set(c.marketId, c)
    }
  }

  onPrices(batch: PendingBatch, e: PricesEvent): void {
    let c = this.cursors.get(e.marketId)
    if (c === undefined) {
      c = { marketId: e.marketId, mark: noBuckets(), index: noBuckets(), premium: noBuckets() }
      this.cursors.set(e.marketId, c)
    }
    c.premium ??= noBuckets()
    // Mark, index and premium are the perpetuals': no 1s.
    for (let i = 0; i < PERP_INTERVAL_COUNT; i++) {
      this.sample(batch, c, 'mark', i, e.markPriceTicks, e.time)
      this.sample(batch, c, 'index', i, e.indexE8, e.time)
      if (e.premiumE8 !== undefined) this.sample(batch, c, 'premium', i, e.premiumE8, e.time)
    }
    this.dirty.add(e.marketId)
  }

  private sample(batch: PendingBatch, c: PriceCursor, kind: PriceKind, i: number, price: number, time: number): void {
    const interval = KLINE_INTERVALS[i]!
    const openTime = bucketOpen(interval, time)
    const buckets = c[kind]!
    let k = buckets[i] ?? null
    if (k === null || k.openTime !== openTime) {
      // The bucket left behind is final: write it now.
      if (k) batch.put(this.stores.priceKlines, klineKey(kind, c.marketId, i, k.openTime), priceKlineCodec.encode(k))
      k = { openTime, closeTime: bucketClose(interval, openTime), open: price, high: price, low: price, close: price, count: 0 }
      buckets[i] = k
    }
    if (price > k.high) k.high = price
    if (price < k.low) k.low = price
    k.close = price
    k.count += 1
  }

  /** Writes the dirty cursors and their open buckets into `batch`. */
  takeDirty(batch: PendingBatch): void {
    for (const id of this.dirty) {
      const c = this.cursors.get(id)!
      for (const kind of ['mark', 'index', 'premium'] as const) {
        c[kind]?.forEach((k, i) => { if (k) batch.put(this.stores.priceKlines, klineKey(kind, id, i, k.openTime), priceKlineCodec.encode(k)) })
      }
      batch.put(this.stores.priceCursors, key().u32(id).build(), cursorCodec.encode(c))
    }
    this.dirty = new Set()
  }
}

export interface PriceKlineQuery extends TimeRange {
  limit: number
}

export function priceKlines(stores: Stores, kind: PriceKind, marketId: number, interval: KlineInterval,
  q: PriceKlineQuery): Promise<PriceKlineRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.klinesMax)
  return scan(stores.priceKlines, timeRangeBounds(prefix(kind, marketId, intervalIndex(interval)), q), q.limit,
    (_k, v) => priceKlineCodec.decode(v))
}
