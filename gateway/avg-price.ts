// Binance spot's average price: the volume-weighted price of the trades of the last five
// minutes (their 1-minute klines), or the last price when none traded in them. GET
// /api/v3/avgPrice, the spot WebSocket API's avgPrice and the `<symbol>@avgPrice` stream read
// it alike.

import { addExact } from '../core/arith.js'
import type { SpotMarket } from '../core/state.js'
import type { Projections } from '../replica/projections/index.js'
import { formatAvgPrice, formatPrice } from './decimal.js'

/** Binance spot's average price window, minutes (exchangeInfo's NOTIONAL filter shows it as avgPriceMins). */
export const AVG_PRICE_MINS = 5

/** The average price at `now`, printed as the market's prices are. */
export async function averagePrice(projections: Projections, m: SpotMarket, now: number): Promise<string> {
  const from = Math.floor(now / 60_000) * 60_000 - (AVG_PRICE_MINS - 1) * 60_000
  const klines = await projections.klines(m.marketId, '1m', { startTime: from, endTime: now, limit: AVG_PRICE_MINS })
  let quote: number | bigint = 0
  let lots = 0
  for (const k of klines) {
    quote = addExact(quote, k.quoteVolumeTicksLots)
    lots += k.volumeLots
  }
  return lots > 0 ? formatAvgPrice(m, quote, lots) : formatPrice(m, m.lastPriceTicks)
}
