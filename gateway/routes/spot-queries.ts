// The rest of what ccxt's `binance` reads on the spot side, under /api/v1 and /api/v3: the
// caller's trades (myTrades), order history (allOrders) and the matches self-trade prevention
// stopped (myPreventedMatches), and the public last price,
// best bid and ask, and 5-minute average price, in Binance spot's shapes and weights.

import type { FastifyPluginAsync } from 'fastify'
import type { SpotMarket } from '../../core/state.js'
import { authenticate, type Authenticated } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { AVG_PRICE_MINS, averagePrice } from '../avg-price.js'
import { formatPrice } from '../decimal.js'
import { bestOf } from '../format-market.js'
import { preventedQuantities } from '../format-order.js'
import { eitherParam } from '../errors.js'
import { idParam, limitParam, optional, spotParam, spotsListParam, type Params } from '../market-params.js'
import { spotQueryDocs } from '../schemas/spot.js'
import { allOrdersArgs, userTradesArgs } from '../history-queries.js'
import { pageReply, type PagePlan } from '../pages.js'
import type { WeightCounter } from '../weights.js'
import { publicGet } from './public-get.js'
import { executionRulesBody, executionRulesWeight, referenceCalculationBody, referencePriceBody } from '../reference-price.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

const PREFIXES = ['/api/v1', '/api/v3'] as const
const paths = (path: string): string[] => PREFIXES.map((p) => p + path)

/** One symbol's body, or a list for `symbols` or for every symbol (Binance's list form). */
function oneOrList(asked: { markets: SpotMarket[]; many: boolean }, body: (m: SpotMarket) => object): object | object[] {
  const bodies = asked.markets.map(body)
  return asked.many ? bodies : bodies[0]!
}

/** The average price (gateway/avg-price.ts), and its closeTime: Binance's "last trade time" (0 before any), as the avgPrice stream's T. */
async function avgPrice(ctx: GatewayContext, m: SpotMarket): Promise<object> {
  const now = Math.max(ctx.now(), ctx.projections.flushedTime)
  const [price, last] = await Promise.all([averagePrice(ctx.projections, m, now), ctx.projections.recentTrades(m.marketId, 1, now)])
  return { mins: AVG_PRICE_MINS, price, closeTime: last[0]?.time ?? 0 }
}

/** ticker/price and ticker/bookTicker weigh 2 for one symbol, 4 for several or all. */
export const spotTickerWeight = (p: Params): number => optional(p, 'symbol') === undefined ? 4 : 2

/** The last price of one symbol, of `symbols`, or of every spot market. */
export function spotPriceBody(ctx: GatewayContext, p: Params): object {
  return oneOrList(spotsListParam(ctx.state(), p, false), (m) => ({ symbol: m.symbol, price: formatPrice(m, m.lastPriceTicks) }))
}

/** The best bid and ask of one symbol, of `symbols`, or of every spot market. */
export function spotBookTickerBody(ctx: GatewayContext, p: Params): object {
  return oneOrList(spotsListParam(ctx.state(), p, false), (m) => {
    const [bidPrice, bidQty] = bestOf(m, m.book.bids)
    const [askPrice, askQty] = bestOf(m, m.book.asks)
    return { symbol: m.symbol, bidPrice, bidQty, askPrice, askQty }
  })
}

export function spotAvgPriceBody(ctx: GatewayContext, p: Params): Promise<object> {
  return avgPrice(ctx, spotParam(ctx.state(), p))
}

/** GET myTrades weighs 5 for one order's, 20 otherwise. */
export const spotMyTradesWeight = (p: Params): number => idParam(p, 'orderId') === undefined ? 20 : 5

/** GET myTrades: the sub-account's fills in one market, each with its order's list (Binance spot: a time range of at most 24 hours). */
export function spotMyTradesPage(ctx: GatewayContext, a: Authenticated): PagePlan {
  const m = spotParam(ctx.state(), a.params)
  return { form: 'spotUserTrades', market: m, ownHistory: true, query: 'userTradesWithLists', args: userTradesArgs(a, m) }
}

/** GET allOrders: the sub-account's orders in one market, open and done. */
export function spotAllOrdersPage(ctx: GatewayContext, a: Authenticated): PagePlan {
  const m = spotParam(ctx.state(), a.params)
  return { form: 'spotOrders', market: m, ownHistory: true, query: 'allOrders', args: allOrdersArgs(a, m, ctx.now()) }
}

/** GET myPreventedMatches weighs 2 for one match, 20 for an order's. */
export const spotPreventedMatchesWeight = (p: Params): number => optional(p, 'preventedMatchId') === undefined ? 20 : 2

/**
 * GET myPreventedMatches: the matches self-trade prevention stopped in one market, by
 * preventedMatchId, or those an order took part in (orderId, from fromPreventedMatchId).
 */
export async function spotPreventedMatchesFrom(ctx: GatewayContext, a: Authenticated): Promise<object[]> {
  const m = spotParam(ctx.state(), a.params)
  const preventedMatchId = idParam(a.params, 'preventedMatchId')
  const orderId = idParam(a.params, 'orderId')
  if (preventedMatchId === undefined && orderId === undefined) throw eitherParam('preventedMatchId', 'orderId')
  const fromPreventedMatchId = idParam(a.params, 'fromPreventedMatchId')
  const limit = limitParam(a.params, 500, 1000)
  await ctx.projections.readable()
  const rows = await ctx.projections.preventedMatches({ account: a.session.account, sub: a.session.sub }, m.marketId,
    { preventedMatchId, orderId, fromPreventedMatchId, limit })
  return rows.map((r) => ({
    symbol: m.symbol, preventedMatchId: r.preventedMatchId, takerOrderId: r.takerOrderId, makerSymbol: m.symbol,
    makerOrderId: r.makerOrderId, tradeGroupId: -1, selfTradePreventionMode: r.mode, price: formatPrice(m, r.priceTicks),
    ...preventedQuantities(m, r.mode, r.takerLots, r.makerLots), transactTime: r.time,
  }))
}

export const spotQueryRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  const get = publicGet.bind(null, app, weights)

  get({
    url: paths('/ticker/price'), params: ['symbol', 'symbols', 'symbolStatus'], response: spotQueryDocs.priceSchema,
    weight: spotTickerWeight, handler: (p) => spotPriceBody(ctx, p),
  })

  get({
    url: paths('/ticker/bookTicker'), params: ['symbol', 'symbols', 'symbolStatus'], response: spotQueryDocs.bookTickerSchema,
    weight: spotTickerWeight, handler: (p) => spotBookTickerBody(ctx, p),
  })

  get({
    url: paths('/avgPrice'), params: ['symbol'], response: spotQueryDocs.avgPriceSchema, weight: 2,
    handler: (p) => spotAvgPriceBody(ctx, p),
  })

  // The Price Range execution rule (gateway/reference-price.ts).
  get({
    url: ['/api/v3/executionRules'], params: ['symbol', 'symbols', 'symbolStatus'], response: spotQueryDocs.executionRulesSchema,
    weight: executionRulesWeight, handler: (p) => executionRulesBody(ctx, p),
  })
  get({
    url: ['/api/v3/referencePrice'], params: ['symbol'], response: spotQueryDocs.referencePriceSchema, weight: 2,
    handler: (p) => referencePriceBody(ctx, p),
  })
  get({
    url: ['/api/v3/referencePrice/calculation'], params: ['symbol'], response: spotQueryDocs.referenceCalculationSchema, weight: 2,
    handler: (p) => referenceCalculationBody(ctx, p),
  })

  for (const url of paths('/myTrades')) {
    app.get(url, spotQueryDocs.myTrades, async (req, reply) => {
      const a = authenticate(ctx, req, 'USER_DATA')
      weights.charge(req.ip, spotMyTradesWeight(a.params))
      return pageReply(ctx, req, reply, spotMyTradesPage(ctx, a))
    })
  }

  for (const url of paths('/myPreventedMatches')) {
    app.get(url, spotQueryDocs.preventedMatches, async (req) => {
      const a = authenticate(ctx, req, 'USER_DATA')
      weights.charge(req.ip, spotPreventedMatchesWeight(a.params))
      return spotPreventedMatchesFrom(ctx, a)
    })
  }

  for (const url of paths('/allOrders')) {
    app.get(url, spotQueryDocs.allOrders, async (req, reply) => {
      weights.charge(req.ip, 20)
      return pageReply(ctx, req, reply, spotAllOrdersPage(ctx, authenticate(ctx, req, 'USER_DATA')))
    })
  }
}
