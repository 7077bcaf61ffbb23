// Futures public market data (/fapi): order book, trades, aggregate trades, klines, tickers,
// open interest, mark price and funding, mark and index price klines, insurance fund, in
// Binance USD-M's shapes. Also registers the spot market data plugin, the same family under /api.

import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { GatewayContext } from '../context.js'
import type { PerpMarket } from '../../core/state.js'
import type { PriceKind } from '../../replica/projections/index.js'
import { sessionOf } from '../auth.js'
import {
  bookTickerBody, depthLevels, premiumIndexBody, tickerBody,
} from '../format-market.js'
import { formatPrice, formatQty } from '../decimal.js'
import { adlRisk, fundingInfoBody, fundingRateBodies, insuranceBodies } from '../format-prices.js'
import {
  allPerps, contractTypeParam, idParam, intervalParam, limitForWeight, limitOneOf, limitParam, optional, perpOfPair, perpParam,
  perpsParam, timeParam, type Params,
} from '../market-params.js'
import {
  adlRiskSchema, aggTradesSchema, bookTickerSchema, depthSchema, fundingInfoSchema, fundingRateSchema, insuranceBalanceSchema, klinesSchema,
  openInterestSchema, priceSchema, premiumIndexSchema, tickerSchema, tradesSchema,
} from '../market-schemas.js'
import type { WeightCounter } from '../weights.js'
import { publicGet } from './public-get.js'
import { aggTradeArgs, klineQuery, klinesPage } from './trade-history.js'
import { pageReply } from '../pages.js'
import { spotMarketRoutes } from './spot-market.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

const DEPTH_LIMITS = [5, 10, 20, 50, 100, 500, 1000] as const

/** Binance USD-M depth weight by limit. */
export function depthWeight(p: Params): number {
  const limit = limitForWeight(p, 500)
  return limit <= 50 ? 2 : limit <= 100 ? 5 : limit <= 500 ? 10 : 20
}

/** Binance USD-M klines weight by limit: [1,100) 1, [100,500) 2, [500,1000] 5, above 10. */
export function klinesWeight(limit: number): number {
  return limit < 100 ? 1 : limit < 500 ? 2 : limit <= 1000 ? 5 : 10
}

/** Weight `one` with a symbol, `all` without. */
export const bySymbol = (one: number, all: number) => (p: Params): number => optional(p, 'symbol') === undefined ? all : one

/** A single object when a symbol was sent, else the array Binance gives for every symbol. */
const oneOrAll = <T>(p: Params, items: T[]): T | T[] => optional(p, 'symbol') === undefined ? items : items[0]!

/** The order book (GET /fapi/v1/depth, WebSocket API `depth`). */
export function depthBody(ctx: GatewayContext, p: Params, limits: readonly number[] = DEPTH_LIMITS, limitDefault = 500): object {
  const state = ctx.state()
  const m = perpParam(state, p)
  const limit = limitOneOf(p, limitDefault, limits)
  const now = ctx.now()
  // Both sides and the seq are read in one synchronous step: the snapshot is exact at lastUpdateId.
  return { lastUpdateId: state.seq, E: now, T: now, bids: depthLevels(m, m.book.bids, limit), asks: depthLevels(m, m.book.asks, limit) }
}

/** Last prices (GET /fapi/v1/ticker/price, WebSocket API `ticker.price`). */
export function tickerPriceBody(ctx: GatewayContext, p: Params): object {
  const now = ctx.now()
  // The core's last trade price, current to the last applied entry; `time` is when it is read.
  return oneOrAll(p, perpsParam(ctx.state(), p).map((m) => ({ symbol: m.symbol, price: formatPrice(m, m.lastPriceTicks), time: now })))
}

/** Best bid and ask (GET /fapi/v1/ticker/bookTicker, WebSocket API `ticker.book`). */
export function bookTickerBodies(ctx: GatewayContext, p: Params): object {
  const state = ctx.state()
  const now = ctx.now()
  return oneOrAll(p, perpsParam(state, p).map((m) => bookTickerBody(m, state.seq, now)))
}

export const marketRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  const get = publicGet.bind(null, app, weights)
  /**
   * The "now" of rolling windows: the server clock, but never before the newest entry the
   * projections hold, so a gateway clock behind the sequencer's hides no trade.
   */
  const windowNow = (): number => Math.max(ctx.now(), ctx.projections.flushedTime)

  get({
    url: '/fapi/v1/depth', params: ['symbol', 'limit'], response: depthSchema, weight: depthWeight,
    handler: (p) => depthBody(ctx, p),
  })

  // The book with Retail Price Improvement orders: this exchange has none, so it is the book.
  get({
    url: '/fapi/v1/rpiDepth', params: ['symbol', 'limit'], response: depthSchema, weight: 20,
    handler: (p) => depthBody(ctx, p, [1000], 1000),
  })

  get({
    url: '/fapi/v1/trades', params: ['symbol', 'limit'], response: tradesSchema, weight: 5,
    handler: async (p, req, reply) => {
      const m = perpParam(ctx.state(), p)
      const limit = limitParam(p, 500, 1000)
      return pageReply(ctx, req, reply, { form: 'trades', market: m, query: 'recentTrades', args: [m.marketId, limit, windowNow()] })
    },
  })

  get({
    url: '/fapi/v1/historicalTrades', params: ['symbol', 'limit', 'fromId'], response: tradesSchema, weight: 20,
    handler: async (p, req, reply) => {
      // MARKET_DATA: a live session's API key must be sent (no signature).
      sessionOf(ctx, req)
      const m = perpParam(ctx.state(), p)
      const q = { limit: limitParam(p, 100, 500), fromId: idParam(p, 'fromId') }
      return pageReply(ctx, req, reply, { form: 'trades', market: m, query: 'historicalTrades', args: [m.marketId, q, windowNow()] })
    },
  })

  get({
    url: '/fapi/v1/aggTrades', params: ['symbol', 'fromId', 'startTime', 'endTime', 'limit'],
    response: aggTradesSchema, weight: 20,
    handler: (p, req, reply) => {
      const m = perpParam(ctx.state(), p)
      return pageReply(ctx, req, reply, { form: 'aggTrades', market: m, query: 'aggTrades', args: aggTradeArgs(m, p) })
    },
  })

  get({
    url: '/fapi/v1/klines', params: ['symbol', 'interval', 'startTime', 'endTime', 'limit'],
    response: klinesSchema, weight: (p) => klinesWeight(limitForWeight(p, 500)),
    handler: (p, req, reply) => {
      const m = perpParam(ctx.state(), p)
      return pageReply(ctx, req, reply, klinesPage(m, p, 1500))
    },
  })

  get({
    url: '/fapi/v1/ticker/24hr', params: ['symbol'], response: tickerSchema, weight: bySymbol(1, 40),
    handler: async (p) => {
      const markets = perpsParam(ctx.state(), p)
      const now = windowNow()
      const bodies = await Promise.all(markets.map(async (m) => tickerBody(m, await ctx.projections.ticker24h(m.marketId, now))))
      return oneOrAll(p, bodies)
    },
  })

  get({
    url: ['/fapi/v1/ticker/price', '/fapi/v2/ticker/price'], params: ['symbol'], response: priceSchema,
    weight: bySymbol(1, 2),
    handler: (p) => tickerPriceBody(ctx, p),
  })

  get({
    url: '/fapi/v1/ticker/bookTicker', params: ['symbol'], response: bookTickerSchema, weight: bySymbol(2, 5),
    handler: (p) => bookTickerBodies(ctx, p),
  })

  get({
    url: '/fapi/v1/openInterest', params: ['symbol'], response: openInterestSchema, weight: 1,
    handler: (p) => {
      const m = perpParam(ctx.state(), p)
      return { openInterest: formatQty(m, m.openInterestLots), symbol: m.symbol, time: ctx.now() }
    },
  })

  get({
    url: '/fapi/v1/premiumIndex', params: ['symbol'], response: premiumIndexSchema, weight: bySymbol(1, 10),
    handler: (p) => {
      const now = ctx.now()
      return oneOrAll(p, perpsParam(ctx.state(), p).map((m) => premiumIndexBody(m, now)))
    },
  })

  get({
    url: '/fapi/v1/fundingRate', params: ['symbol', 'startTime', 'endTime', 'limit'], response: fundingRateSchema, weight: 1,
    handler: async (p) => {
      const state = ctx.state()
      const markets = optional(p, 'symbol') !== undefined ? [perpParam(state, p)] : allPerps(state)
      const q = { startTime: timeParam(p, 'startTime'), endTime: timeParam(p, 'endTime'), limit: limitParam(p, 100, 1000) }
      return fundingRateBodies(markets, q, (m) => ctx.projections.fundingRates(m.marketId, q))
    },
  })

  get({
    url: '/fapi/v1/fundingInfo', params: [], response: fundingInfoSchema, weight: 0,
    // Binance lists only perpetuals whose settings were adjusted; ours all print their settings.
    handler: () => allPerps(ctx.state()).map(fundingInfoBody),
  })

  /**
   * Once a market has oracle prices its mark and index klines are the sampled prices
   * (replica/projections/price-klines.ts); before, the mark was the last trade and the index
   * equal to it, so the trade klines are both. The premium index is sampled every 5 s once the
   * market has an index; before, it has none.
   */
  const priceKlines = (m: PerpMarket, p: Params, kind: PriceKind, req: FastifyRequest, reply: FastifyReply): Promise<Buffer> => {
    const interval = intervalParam(p)
    const q = { startTime: timeParam(p, 'startTime'), endTime: timeParam(p, 'endTime'), limit: limitParam(p, 500, 1500) }
    if (m.prices.indexE8 > 0 || kind === 'premium') {
      return pageReply(ctx, req, reply, { form: 'sampledPriceKlines', market: m, priceKind: kind, query: 'priceKlines', args: [kind, m.marketId, interval, q] })
    }
    return pageReply(ctx, req, reply, { form: 'tradePriceKlines', market: m, query: 'klines', args: [m.marketId, interval, { ...q, gapless: true }] })
  }
  const klinesWeightOf = (p: Params): number => klinesWeight(limitForWeight(p, 500))

  get({
    url: '/fapi/v1/markPriceKlines', params: ['symbol', 'interval', 'startTime', 'endTime', 'limit'],
    response: klinesSchema, weight: klinesWeightOf,
    handler: (p, req, reply) => priceKlines(perpParam(ctx.state(), p), p, 'mark', req, reply),
  })

  get({
    url: '/fapi/v1/indexPriceKlines', params: ['pair', 'interval', 'startTime', 'endTime', 'limit'],
    response: klinesSchema, weight: klinesWeightOf,
    // The index belongs to the pair: the oracle prices of the pair's perpetual.
    handler: (p, req, reply) => priceKlines(perpOfPair(ctx.state(), p), p, 'index', req, reply),
  })

  get({
    url: '/fapi/v1/premiumIndexKlines', params: ['symbol', 'interval', 'startTime', 'endTime', 'limit'],
    response: klinesSchema, weight: klinesWeightOf,
    handler: (p, req, reply) => priceKlines(perpParam(ctx.state(), p), p, 'premium', req, reply),
  })

  get({
    url: '/fapi/v1/continuousKlines', params: ['pair', 'contractType', 'interval', 'startTime', 'endTime', 'limit'],
    response: klinesSchema, weight: klinesWeightOf,
    handler: (p, req, reply) => {
      // A pair's one contract is its perpetual; its continuous klines are the perpetual's own,
      // and a quarterly contract's are none (as its stream carries nothing).
      const m = perpOfPair(ctx.state(), p)
      if (contractTypeParam(p) === 'QUARTERLY') {
        klineQuery(p, 1500)
        return []
      }
      return pageReply(ctx, req, reply, klinesPage(m, p, 1500))
    },
  })

  // Composite indexes (Binance's DEFIUSDT and the like): each index here is one oracle's price, so none.
  get({
    url: '/fapi/v1/indexInfo', params: ['symbol'], response: { type: 'array', maxItems: 0 }, weight: 1,
    handler: (p) => {
      if (optional(p, 'symbol') !== undefined) perpParam(ctx.state(), p)
      return []
    },
  })

  get({
    url: '/fapi/v1/insuranceBalance', params: ['symbol'], response: insuranceBalanceSchema, weight: 1,
    handler: (p) => {
      const state = ctx.state()
      const funds = insuranceBodies(state, allPerps(state))
      if (optional(p, 'symbol') === undefined) return funds
      const symbol = perpParam(state, p).symbol
      return funds.find((f) => f.symbols.includes(symbol))!
    },
  })

  get({
    url: '/fapi/v1/symbolAdlRisk', params: ['symbol'], response: adlRiskSchema, weight: 1,
    handler: (p) => {
      const state = ctx.state()
      return oneOrAll(p, perpsParam(state, p).map((m) => ({ symbol: m.symbol, adlRisk: adlRisk(state, m), updateTime: state.time })))
    },
  })

  await app.register(spotMarketRoutes, { ctx, weights })
}
