// Spot public market data under /api/v1 (the spec) and /api/v3 (what Binance spot clients
// call): order book, trades (recent and historical), aggregate trades, klines and the 24 h
// ticker, in Binance spot's shapes and weights; the windowed tickers are in spot-tickers.ts.

import type { FastifyPluginAsync } from 'fastify'
import type { GatewayContext } from '../context.js'
import { depthLevels, spotTickerBody, tradeBody } from '../format-market.js'
import { idParam, limitForWeight, limitParam, spotParam, spotsListParam, symbolCountForWeight, type Params } from '../market-params.js'
import { klinesSchema, spotAggTradesSchema, spotDepthSchema, spotTickerSchema, spotTradesSchema } from '../market-schemas.js'
import type { WeightCounter } from '../weights.js'
import { publicGet } from './public-get.js'
import { spotTickerRoutes } from './spot-tickers.js'
import { aggTradeRows, klineRows } from './trade-history.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

const PREFIXES = ['/api/v1', '/api/v3'] as const
const paths = (path: string): string[] => PREFIXES.map((p) => p + path)

/** Binance spot: "If limit > 5000, then the response will truncate to 5000." */
const SPOT_DEPTH_MAX = 5000

/** Binance spot depth weight: 1-100 5, 101-500 25, 501-1000 50, 1001-5000 250. */
function depthWeight(p: Params): number {
  const limit = limitForWeight(p, 100)
  return limit <= 100 ? 5 : limit <= 500 ? 25 : limit <= 1000 ? 50 : 250
}

export const spotMarketRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  const get = publicGet.bind(null, app, weights)
  const windowNow = (): number => Math.max(ctx.now(), ctx.projections.flushedTime)

  get({
    url: paths('/depth'), params: ['symbol', 'limit'], response: spotDepthSchema, weight: depthWeight,
    handler: (p) => {
      const state = ctx.state()
      const m = spotParam(state, p)
      const limit = Math.min(limitParam(p, 100, Number.MAX_SAFE_INTEGER), SPOT_DEPTH_MAX)
      return { lastUpdateId: state.seq, bids: depthLevels(m, m.book.bids, limit), asks: depthLevels(m, m.book.asks, limit) }
    },
  })

  get({
    url: paths('/trades'), params: ['symbol', 'limit'], response: spotTradesSchema, weight: 25,
    handler: async (p) => {
      const m = spotParam(ctx.state(), p)
      const limit = limitParam(p, 500, 1000)
      const trades = await ctx.projections.recentTrades(m.marketId, limit, windowNow())
      // Every fill is at the book's best price: Binance's isBestMatch is always true here.
      return trades.map((t) => ({ ...tradeBody(m, t), isBestMatch: true }))
    },
  })

  get({
    url: paths('/aggTrades'), params: ['symbol', 'fromId', 'startTime', 'endTime', 'limit'], response: spotAggTradesSchema, weight: 4,
    handler: async (p) => (await aggTradeRows(ctx, spotParam(ctx.state(), p), p)).map((a) => ({ ...a, M: true })),
  })

  get({
    url: paths('/historicalTrades'), params: ['symbol', 'limit', 'fromId'], response: spotTradesSchema, weight: 25,
    handler: async (p) => {
      const m = spotParam(ctx.state(), p)
      const q = { limit: limitParam(p, 500, 1000), fromId: idParam(p, 'fromId') }
      return (await ctx.projections.historicalTrades(m.marketId, q, windowNow())).map((t) => ({ ...tradeBody(m, t), isBestMatch: true }))
    },
  })

  // uiKlines: Binance tunes these for charts; here they are the klines.
  get({
    url: [...paths('/klines'), '/api/v3/uiKlines'], params: ['symbol', 'interval', 'startTime', 'endTime', 'limit'],
    response: klinesSchema, weight: 2,
    handler: (p) => klineRows(ctx, spotParam(ctx.state(), p), p, 1000),
  })

  get({
    url: paths('/ticker/24hr'), params: ['symbol', 'symbols'], response: spotTickerSchema,
    // Binance: 2 for one symbol or up to 20, 40 up to 100, 80 beyond or for all.
    weight: (p) => {
      const n = symbolCountForWeight(p)
      return n === 0 || n > 100 ? 80 : n > 20 ? 40 : 2
    },
    handler: async (p) => {
      const { markets, many } = spotsListParam(ctx.state(), p, false)
      const now = windowNow()
      const bodies = await Promise.all(markets.map(async (m) => spotTickerBody(m, await ctx.projections.ticker24h(m.marketId, now))))
      return many ? bodies : bodies[0]
    },
  })

  await app.register(spotTickerRoutes, { ctx, weights })
}
