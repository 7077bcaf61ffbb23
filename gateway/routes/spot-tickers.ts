// Binance spot's windowed tickers: GET /api/v3/ticker (a rolling window of 1m to 7d ending
// now) and GET /api/v3/ticker/tradingDay (the calendar day so far in a time zone), for one
// `symbol` or a JSON list of `symbols`, FULL or MINI. Both are summed from the 1m klines as the
// 24 h ticker is (replica/projections/ticker.ts), so the window opens on a minute.

import type { FastifyPluginAsync } from 'fastify'
import type { SpotMarket } from '../../core/state.js'
import { bucketOpen, type TickerRecord } from '../../replica/projections/index.js'
import type { GatewayContext } from '../context.js'
import { invalidParam } from '../errors.js'
import { tickerBody } from '../format-market.js'
import { optional, spotsListParam, symbolCountForWeight, timeZoneParam, type Params } from '../market-params.js'
import { object, oneOrAll, int, str } from '../schemas/common.js'
import type { WeightCounter } from '../weights.js'
import { publicGet } from './public-get.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

const MINUTE_MS = 60_000
const UNIT_MS = { m: MINUTE_MS, h: 60 * MINUTE_MS, d: 1_440 * MINUTE_MS } as const
/** windowSize: 1m…59m, 1h…23h or 1d…7d; units are not combined. */
const UNIT_MAX = { m: 59, h: 23, d: 7 } as const

/** Binance's field order; MINI leaves out the change and the average. */
const windowTickerSchema = oneOrAll(object({
  symbol: str, priceChange: str, priceChangePercent: str, weightedAvgPrice: str, openPrice: str, highPrice: str, lowPrice: str,
  lastPrice: str, volume: str, quoteVolume: str, openTime: int, closeTime: int, firstId: int, lastId: int, count: int,
}))

/** 4 per symbol, at most 200 (Binance's rule for both tickers); must not throw. */
export function spotWindowTickerWeight(p: Params): number {
  return Math.min(4 * Math.max(1, symbolCountForWeight(p)), 200)
}

function windowSizeParam(p: Params): number {
  const v = optional(p, 'windowSize') ?? '1d'
  const match = /^([1-9][0-9]?)([mhd])$/.exec(v)
  if (match === null) throw invalidParam('windowSize')
  const n = Number(match[1])
  const unit = match[2] as keyof typeof UNIT_MS
  if (n > UNIT_MAX[unit]) throw invalidParam('windowSize')
  return n * UNIT_MS[unit]
}

/** type: FULL (the default) or MINI, as the spot tickers take it. */
export function typeParam(p: Params): 'FULL' | 'MINI' {
  const v = optional(p, 'type') ?? 'FULL'
  if (v !== 'FULL' && v !== 'MINI') throw invalidParam('type')
  return v
}

/**
 * FULL: the 24 h ticker's fields but the last quantity; MINI: without the change and average.
 * openTime is on a minute, as Binance's: the start of the minutes the figures sum.
 */
function windowBody(m: SpotMarket, t: TickerRecord, type: 'FULL' | 'MINI', closeTime: number): object {
  const { lastQty: _, ...full } = tickerBody(m, t) as Record<string, unknown>
  full.openTime = bucketOpen('1m', t.openTime)
  full.closeTime = closeTime
  if (type === 'FULL') return full
  const { priceChange: _c, priceChangePercent: _p, weightedAvgPrice: _w, ...mini } = full
  return mini
}

/** Reads every parameter before the projections, so a bad one is refused whole. */
async function tickers(ctx: GatewayContext, p: Params, window: (now: number) => { openTime: number; closeTime: number }): Promise<object> {
  const { markets, many } = spotsListParam(ctx.state(), p, true)
  const type = typeParam(p)
  const now = Math.max(ctx.now(), ctx.projections.flushedTime)
  const { openTime, closeTime } = window(now)
  const bodies = await Promise.all(markets.map(async (m) =>
    windowBody(m, await ctx.projections.ticker24h(m.marketId, now, now - openTime), type, closeTime)))
  return many ? bodies : bodies[0]!
}

/** GET /api/v3/ticker: the rolling window `windowSize` (1d by default) ending now. */
export function spotWindowTicker(ctx: GatewayContext, p: Params): Promise<object> {
  const windowMs = windowSizeParam(p)
  return tickers(ctx, p, (now) => ({ openTime: now - windowMs, closeTime: now }))
}

/** GET /api/v3/ticker/tradingDay: the day so far in `timeZone`, from its local midnight, closing a millisecond before the next. */
export function spotTradingDayTicker(ctx: GatewayContext, p: Params): Promise<object> {
  const offset = timeZoneParam(p)
  return tickers(ctx, p, (now) => {
    const openTime = Math.floor((now + offset) / UNIT_MS.d) * UNIT_MS.d - offset
    return { openTime, closeTime: openTime + UNIT_MS.d - 1 }
  })
}

export const spotTickerRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  const params = ['symbol', 'symbols', 'type', 'symbolStatus']
  publicGet(app, weights, {
    url: ['/api/v3/ticker'], params: [...params, 'windowSize'], response: windowTickerSchema, weight: spotWindowTickerWeight,
    handler: (p) => spotWindowTicker(ctx, p),
  })
  publicGet(app, weights, {
    url: ['/api/v3/ticker/tradingDay'], params: [...params, 'timeZone'], response: windowTickerSchema, weight: spotWindowTickerWeight,
    handler: (p) => spotTradingDayTicker(ctx, p),
  })
}
