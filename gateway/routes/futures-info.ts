// Futures account and market information bots read on start or poll: the order-count limits
// (rateLimit/order), the trading-quantitative-rules status (apiTradingStatus: no indicator
// ever trips here), the ADL queue estimate and forced orders (zeros and none until
// liquidation exists), the multi-assets switch (always off), and a symbol's index
// constituents (the oracle feeding the index price).

import type { FastifyPluginAsync } from 'fastify'
import type { PerpMarket } from '../../core/state.js'
import { authenticate } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { formatUnits, trimZeros } from '../decimal.js'
import { ApiError, invalidParam } from '../errors.js'
import { checkDuplicates, limitParam, optional, perpParam, perpsParam, required, timeParam } from '../market-params.js'
import { rawRequest } from '../params.js'
import { DEFAULT_RATE_LIMITS } from '../rate-limits.js'
import { arrayOf, int, object, route, str } from '../schemas/common.js'
import type { WeightCounter } from '../weights.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

const rateLimitSchema = object({ rateLimitType: str, interval: str, intervalNum: int, limit: int })
const indicatorSchema = object({ isLocked: { type: 'boolean' }, plannedRecoverTime: int, indicator: str, value: { type: 'number' },
  triggerValue: { type: 'number' } })

const docs = {
  rateLimitOrder: route({
    family: 'account', summary: 'Order-count limits of the account (10 s and 1 min)', security: 'USER_DATA', weight: 1,
    response: arrayOf(rateLimitSchema),
  }),
  apiTradingStatus: route({
    family: 'account', summary: 'Trading quantitative rules indicators (none trip here: always empty)',
    security: 'USER_DATA', weight: '1 with symbol, 10 without', params: ['symbol'],
    response: object({ indicators: { type: 'object', additionalProperties: arrayOf(indicatorSchema) }, updateTime: int }),
  }),
  adlQuantile: route({
    family: 'account', summary: 'ADL queue estimate per market with a position (0 until liquidation exists)',
    description: 'One-way mode: LONG, SHORT and BOTH; hedge mode: LONG, SHORT and HEDGE (Binance\'s cross-margin form).',
    security: 'USER_DATA', weight: 5, params: ['symbol'],
    response: arrayOf(object({
      symbol: str, adlQuantile: object({ LONG: int, SHORT: int, HEDGE: int, BOTH: int }),
    })),
  }),
  forceOrders: route({
    family: 'account', summary: "The account's forced orders (liquidations, ADL): none until liquidation exists",
    security: 'USER_DATA', weight: '20 with symbol, 50 without',
    params: ['symbol', 'autoCloseType', 'startTime', 'endTime', 'limit'], response: arrayOf(object({})),
  }),
  setMultiAssetsMargin: route({
    family: 'trade', summary: 'Change multi-assets mode: it is always off (false: -4171, true: -1020)',
    security: 'TRADE', weight: 1, params: ['multiAssetsMargin'], required: ['multiAssetsMargin'],
    response: object({ code: int, msg: str }),
  }),
  constituents: route({
    family: 'market', summary: "Index constituents: the oracle whose prices make the market's index",
    description: 'One constituent, exchange "oracle", weight 1, with the newest oracle price; none before the first.',
    security: 'NONE', weight: 2, params: ['symbol'], required: ['symbol'],
    response: object({
      symbol: str, time: int,
      constituents: arrayOf(object({ exchange: str, symbol: str, price: str, weight: str })),
    }),
  }),
}

/** Binance's answer for the mode already in force (multi-assets margin is off, and stays off). */
function multiAssetsUnchanged(): ApiError {
  return new ApiError(400, -4171, 'Adjusted asset mode is currently set and does not need to be adjusted repeatedly.')
}

export const futuresInfoRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  app.get('/fapi/v1/rateLimit/order', docs.rateLimitOrder, async (req) => {
    weights.charge(req.ip, 1)
    authenticate(ctx, req, 'USER_DATA')
    const l = ctx.rateLimits ?? DEFAULT_RATE_LIMITS
    return [
      { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: l.orders10s },
      { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: l.orders1m },
    ]
  })

  app.get('/fapi/v1/apiTradingStatus', docs.apiTradingStatus, async (req) => {
    const a = authenticate(ctx, req, 'USER_DATA')
    weights.charge(req.ip, optional(a.params, 'symbol') === undefined ? 10 : 1)
    if (optional(a.params, 'symbol') !== undefined) perpParam(ctx.state(), a.params)
    return { indicators: {}, updateTime: ctx.state().time }
  })

  app.get('/fapi/v1/adlQuantile', docs.adlQuantile, async (req) => {
    weights.charge(req.ip, 5)
    const a = authenticate(ctx, req, 'USER_DATA')
    const sub = a.sub
    const out: object[] = []
    for (const m of perpsParam(ctx.state(), a.params)) {
      const h = sub?.perp.get(m.marketId)
      if (h === undefined || (h.both.qtyLots === 0 && h.long.qtyLots === 0 && h.short.qtyLots === 0)) continue
      out.push({ symbol: m.symbol, adlQuantile: sub!.dualSide ? { LONG: 0, SHORT: 0, HEDGE: 0 } : { LONG: 0, SHORT: 0, BOTH: 0 } })
    }
    return out
  })

  app.get('/fapi/v1/forceOrders', docs.forceOrders, async (req) => {
    const a = authenticate(ctx, req, 'USER_DATA')
    weights.charge(req.ip, optional(a.params, 'symbol') === undefined ? 50 : 20)
    if (optional(a.params, 'symbol') !== undefined) perpParam(ctx.state(), a.params)
    const type = optional(a.params, 'autoCloseType')
    if (type !== undefined && type !== 'LIQUIDATION' && type !== 'ADL') throw invalidParam('autoCloseType')
    const start = timeParam(a.params, 'startTime')
    const end = timeParam(a.params, 'endTime')
    if (start !== undefined && end !== undefined && start > end) throw invalidParam('startTime')
    limitParam(a.params, 50, 100)
    return []
  })

  app.post('/fapi/v1/multiAssetsMargin', docs.setMultiAssetsMargin, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'TRADE')
    const v = required(a.params, 'multiAssetsMargin')
    if (v === 'false') throw multiAssetsUnchanged()
    if (v === 'true') throw new ApiError(400, -1020, 'This operation is not supported.')
    throw invalidParam('multiAssetsMargin')
  })

  app.get('/fapi/v1/constituents', docs.constituents, async (req) => {
    weights.charge(req.ip, 2)
    const raw = rawRequest(req)
    checkDuplicates(raw)
    const m: PerpMarket = perpParam(ctx.state(), raw.params)
    const indexE8 = m.prices.indexE8
    const constituents = indexE8 > 0
      ? [{ exchange: 'oracle', symbol: m.pair, price: trimZeros(formatUnits(indexE8, 8)), weight: '1' }]
      : []
    return { symbol: m.symbol, time: indexE8 > 0 ? m.prices.indexTime : ctx.now(), constituents }
  })
}
