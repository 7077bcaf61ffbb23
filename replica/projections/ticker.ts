// Rolling tickers (24 h by default, up to 7 days), summed from 1m klines rather than kept trade
// by trade. The window is every 1m bucket that overlaps (now − window, now], so it may take in
// up to 59.999 s of trades older than the window: the approximation Binance-style minute
// tickers make.

import { addExact } from '../../core/arith.js'
import { assert } from '../../core/assert.js'
import { klineCodec } from './codec.js'
import { intervalIndex } from './intervals.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import { marketCursor } from './market-queries.js'
import type { KlineRecord, TickerRecord } from './records.js'
import { klinePrefix, type Stores } from './stores.js'
import { scan, timeRangeBounds } from './time-range.js'

const MINUTE_MS = 60_000
export async function ticker24h(stores: Stores, marketId: number, nowMs: number,
  windowMs: number = PROJECTION_LIMITS.tickerWindowMs): Promise<TickerRecord> {
  assert(Number.isSafeInteger(windowMs) && windowMs >= 0 && windowMs <= PROJECTION_LIMITS.tickerWindowMaxMs, 'ticker window out of range')
  const openTime = Math.max(0, nowMs - windowMs)
  const from = openTime - (openTime % MINUTE_MS)
  const bounds = timeRangeBounds(klinePrefix(marketId, intervalIndex('1m')), { startTime: from, endTime: nowMs })
  // The window's minutes, and the partial one at its start.
  const minutes = await scan(stores.klines, bounds, Math.ceil(windowMs / MINUTE_MS) + 1, (_k, v) => klineCodec.decode(v))
  const cursor = await marketCursor(stores, marketId)
  return summarize(marketId, minutes, cursor?.lastPriceTicks ?? 0, cursor?.lastQtyLots ?? 0, openTime, nowMs)
}

export function summarize(marketId: number, minutes: KlineRecord[], lastPriceTicks: number, lastQtyLots: number,
  openTime: number, closeTime: number): TickerRecord {
  const t: TickerRecord = {
    marketId, openPriceTicks: lastPriceTicks, highPriceTicks: lastPriceTicks, lowPriceTicks: lastPriceTicks,
    lastPriceTicks, lastQtyLots, priceChangeTicks: 0, volumeLots: 0, quoteVolumeTicksLots: 0,
    openTime, closeTime, firstId: -1, lastId: -1, count: 0,
  }
  if (minutes.length === 0) return t
  const first = minutes[0]!
  const last = minutes[minutes.length - 1]!
  t.openPriceTicks = first.openPriceTicks
  t.highPriceTicks = first.highPriceTicks
  t.lowPriceTicks = first.lowPriceTicks
  for (const k of minutes) {
    if (k.highPriceTicks > t.highPriceTicks) t.highPriceTicks = k.highPriceTicks
    if (k.lowPriceTicks < t.lowPriceTicks) t.lowPriceTicks = k.lowPriceTicks
    t.volumeLots += k.volumeLots
    t.quoteVolumeTicksLots = addExact(t.quoteVolumeTicksLots, k.quoteVolumeTicksLots)
    t.count += k.count
  }
  // The window's last bucket holds the last trade the flushed state knows of.
  t.lastPriceTicks = last.closePriceTicks
  t.priceChangeTicks = t.lastPriceTicks - t.openPriceTicks
  t.firstId = first.firstTradeId
  t.lastId = last.lastTradeId
  return t
}
