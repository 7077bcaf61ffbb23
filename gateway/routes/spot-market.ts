// Spot public market data under /api/v1 (the spec) and /api/v3 (what Binance spot clients
// call): order book, trades (recent and historical), aggregate trades, klines and the 24 h
// ticker, in Binance spot's shapes and weights; the windowed tickers are in spot-tickers.ts.

import type { FastifyPluginAsync } from 'fastify'
import type { GatewayContext } from '../context.js'
import { depthLevels, spotTickerBody } from '../format-market.js'
import { pageReply, type PagePlan } from '../pages.js'
import {
  idParam, limitForWeight, limitParam, spotParam, spotsListParam, spotWithStatus, symbolCountForWeight, timeZoneParam, type Params,
} from '../market-params.js'
import { klinesSchema, spotAggTradesSchema, spotDepthSchema, spotTickerSchema, spotTradesSchema } from '../market-schemas.js'
import type { WeightCounter } from '../weights.js'
import { publicGet } from './public-get.js'
import { spotTickerRoutes, typeParam } from './spot-tickers.js'
import { aggTradeArgs, klinesPage } from './trade-history.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

const PREFIXES = ['/api/v1', '/api/v3'] as const
const paths = (path: string): string[] => PREFIXES.map((p) => p + path)

/** Binance spot: "If limit > 5000, then the response will truncate to 5000." */
const SPOT_DEPTH_MAX = 5000

/** Binance spot depth weight: 1-100 5, 101-500 25, 501-1000 50, 1001-5000 250. */
export function spotDepthWeight(p: Params): number {
  const limit = limitForWeight(p, 100)
  return limit <= 100 ? 5 : limit <= 500 ? 25 : limit <= 1000 ? 50 : 250
}

/** The spot book to `limit` levels a side (100 by default, at most 5000). */
export function spotDepthBody(ctx: GatewayContext, p: Params): object {
  const state = ctx.state()
  const m = spotWithStatus(state, p)
  const limit = Math.min(limitParam(p, 100, Number.MAX_SAFE_INTEGER), SPOT_DEPTH_MAX)
  return { lastUpdateId: state.seq, bids: depthLevels(m, m.book.bids, limit), asks: depthLevels(m, m.book.asks, limit) }
}

/** The sequencer time the projections have reached, as the windows' "now". */
const windowNow = (ctx: GatewayContext): number => Math.max(ctx.now(), ctx.projections.flushedTime)

// Each list's page: the route's and the spot WebSocket API's (trades.recent, klines, ...).

export function spotRecentTradesPage(ctx: GatewayContext, p: Params): PagePlan {
  const m = spotParam(ctx.state(), p)
  return { form: 'spotTrades', market: m, query: 'recentTrades', args: [m.marketId, limitParam(p, 500, 1000), windowNow(ctx)] }
}

export function spotHistoricalTradesPage(ctx: GatewayContext, p: Params): PagePlan {
  const m = spotParam(ctx.state(), p)
  const q = { limit: limitParam(p, 500, 1000), fromId: idParam(p, 'fromId') }
  return { form: 'spotTrades', market: m, query: 'historicalTrades', args: [m.marketId, q, windowNow(ctx)] }
}

export function spotAggTradesPage(ctx: GatewayContext, p: Params): PagePlan {
  const m = spotParam(ctx.state(), p)
  return { form: 'spotAggTrades', market: m, query: 'aggTrades', args: aggTradeArgs(m, p) }
}

/**
 * Binance spot weighs klines 2. In a zone other than UTC each kline is merged from several
 * stored candles (replica/projections/zoned-klines.ts), several times the work, so here such a
 * request weighs 2 per 100 klines asked for (10 at the default 500).
 */
export function spotKlinesWeight(p: Params): number {
  let offsetMs: number
  try {
    offsetMs = timeZoneParam(p)
  } catch {
    return 2 // refused by the handler
  }
  return offsetMs === 0 ? 2 : 2 * Math.max(1, Math.ceil(Math.min(limitForWeight(p, 500), 1000) / 100))
}

/** Spot klines read their intervals in `timeZone` (Binance spot: startTime and endTime stay UTC). */
export function spotKlinesPage(ctx: GatewayContext, p: Params): PagePlan {
  const m = spotParam(ctx.state(), p)
  return klinesPage(m, p, 1000, timeZoneParam(p))
}

/** Binance: 2 for one symbol or up to 20, 40 up to 100, 80 beyond or for all. */
export function spotTicker24hWeight(p: Params): number {
  const n = symbolCountForWeight(p)
  return n === 0 || n > 100 ? 80 : n > 20 ? 40 : 2
}

/** The 24 h statistics a MINI ticker keeps (Binance spot's `type=MINI`): no change, average, previous close, last quantity or book. */
const MINI_FIELDS = ['symbol', 'openPrice', 'highPrice', 'lowPrice', 'lastPrice', 'volume', 'quoteVolume', 'openTime', 'closeTime',
  'firstId', 'lastId', 'count'] as const

/** GET /api/v3/ticker/24hr: one symbol, `symbols`, or every spot market; `type` FULL or MINI. */
export async function spotTicker24h(ctx: GatewayContext, p: Params): Promise<object> {
  const { markets, many } = spotsListParam(ctx.state(), p, false)
  const mini = typeParam(p) === 'MINI'
  const now = windowNow(ctx)
  const bodies = await Promise.all(markets.map(async (m) => {
    const full = spotTickerBody(m, await ctx.projections.ticker24h(m.marketId, now)) as Record<string, unknown>
    return mini ? Object.fromEntries(MINI_FIELDS.map((k) => [k, full[k]])) : full
  }))
  return many ? bodies : bodies[0]!
}

export const spotMarketRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  const get = publicGet.bind(null, app, weights)

  get({
    url: paths('/depth'), params: ['symbol', 'limit', 'symbolStatus'], response: spotDepthSchema, weight: spotDepthWeight,
    handler: (p) => spotDepthBody(ctx, p),
  })

  get({
    url: paths('/trades'), params: ['symbol', 'limit'], response: spotTradesSchema, weight: 25,
    handler: (p, req, reply) => pageReply(ctx, req, reply, spotRecentTradesPage(ctx, p)),
  })

  get({
    url: paths('/aggTrades'), params: ['symbol', 'fromId', 'startTime', 'endTime', 'limit'], response: spotAggTradesSchema, weight: 4,
    handler: (p, req, reply) => pageReply(ctx, req, reply, spotAggTradesPage(ctx, p)),
  })

  get({
    url: paths('/historicalTrades'), params: ['symbol', 'limit', 'fromId'], response: spotTradesSchema, weight: 25,
    handler: (p, req, reply) => pageReply(ctx, req, reply, spotHistoricalTradesPage(ctx, p)),
  })

  // uiKlines: Binance tunes these for charts; here they are the klines.
  get({
    url: [...paths('/klines'), '/api/v3/uiKlines'], params: ['symbol', 'interval', 'startTime', 'endTime', 'timeZone', 'limit'],
    response: klinesSchema, weight: spotKlinesWeight,
    handler: (p, req, reply) => pageReply(ctx, req, reply, spotKlinesPage(ctx, p)),
  })

  get({
    url: paths('/ticker/24hr'), params: ['symbol', 'symbols', 'type', 'symbolStatus'], response: spotTickerSchema, weight: spotTicker24hWeight,
    handler: (p) => spotTicker24h(ctx, p),
  })

  await app.register(spotTickerRoutes, { ctx, weights })
}
