// Futures account and market information bots read on start or poll: the order-count limits
// (rateLimit/order), the trading-quantitative-rules status (apiTradingStatus: no indicator
// ever trips here), the ADL queue estimate (core/liquidation/adl.ts) and forced orders (the
// forceOrders projection), the multi-assets switch and the BNB fee discount (both always off:
// margin and fees are in the quote asset alone), and a symbol's index constituents (the oracle
// feeding the index price).

import type { FastifyPluginAsync } from 'fastify'
import type { PerpMarket } from '../../core/state.js'
import { authenticate } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { adlQuantiles } from '../../core/liquidation/adl.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { ForceOrderRecord } from '../../replica/projections/force-orders.js'
import { formatAvgPrice, formatNotional, formatPrice, formatQty, formatUnits, trimZeros } from '../decimal.js'
import { ApiError, invalidParam } from '../errors.js'
import { limitParam, optional, perpParam, perpsParam, required, timeRange } from '../market-params.js'
import { checkDuplicates, rawRequest } from '../params.js'
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
    family: 'account', summary: 'ADL queue estimate per market with a position: 0 (last) to 4 (first in the queue)',
    description: 'Computed on request from the ranking ADL uses (PnL % × effective leverage). One-way mode: BOTH carries the ' +
      'quantile, LONG and SHORT 0; hedge mode: LONG and SHORT, with HEDGE (a sign, always 0) for a cross holding and BOTH ' +
      '(0) for an isolated one, as Binance.',
    security: 'USER_DATA', weight: 5, params: ['symbol'],
    response: arrayOf(object({
      symbol: str, adlQuantile: object({ LONG: int, SHORT: int, HEDGE: int, BOTH: int }),
    })),
  }),
  forceOrders: route({
    family: 'account', summary: "The account's forced orders: its liquidation orders and the ADL orders that closed its positions",
    description: 'autoCloseType LIQUIDATION or ADL (both when absent); without startTime, the 7 days before endTime (or now); ' +
      'limit default 50, max 100; ascending by time.',
    security: 'USER_DATA', weight: '20 with symbol, 50 without',
    params: ['symbol', 'autoCloseType', 'startTime', 'endTime', 'limit'],
    response: arrayOf(object({
      orderId: int, symbol: str, status: str, clientOrderId: str, price: str, avgPrice: str, origQty: str, executedQty: str,
      cumQuote: str, timeInForce: str, type: str, reduceOnly: { type: 'boolean' }, closePosition: { type: 'boolean' }, side: str,
      positionSide: str, stopPrice: str, workingType: str, origType: str, time: int, updateTime: int,
    })),
  }),
  setMultiAssetsMargin: route({
    family: 'trade', summary: 'Change multi-assets mode: it is always off (false: -4171, true: -1020)',
    security: 'TRADE', weight: 1, params: ['multiAssetsMargin'], required: ['multiAssetsMargin'],
    response: object({ code: int, msg: str }),
  }),
  feeBurn: route({
    family: 'account', summary: 'BNB fee discount (always false: fees are paid in the quote asset; there is no BNB here)',
    security: 'USER_DATA', weight: 30, response: object({ feeBurn: { type: 'boolean' } }),
  }),
  setFeeBurn: route({
    family: 'trade', summary: 'Change the BNB fee discount: it is always off ("false" succeeds and changes nothing; "true": -1020)',
    security: 'TRADE', weight: 1, params: ['feeBurn'], required: ['feeBurn'],
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

/** A forced order as Binance prints it: a LIMIT IOC at the bankruptcy price (ADL ones too). */
function forceOrderJson(m: PerpMarket, r: ForceOrderRecord): object {
  return {
    orderId: r.orderId, symbol: m.symbol, status: r.status, clientOrderId: r.clientOrderId, price: formatPrice(m, r.priceTicks),
    avgPrice: formatAvgPrice(m, r.cumQuoteTicksLots, r.executedQtyLots), origQty: formatQty(m, r.origQtyLots),
    executedQty: formatQty(m, r.executedQtyLots), cumQuote: formatNotional(m, r.cumQuoteTicksLots), timeInForce: 'IOC',
    type: 'LIMIT', reduceOnly: r.reduceOnly, closePosition: false, side: r.side, positionSide: r.positionSide,
    stopPrice: formatPrice(m, 0), workingType: 'CONTRACT_PRICE', origType: 'LIMIT', time: r.time, updateTime: r.updateTime,
  }
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
    const state = ctx.state()
    const out: object[] = []
    for (const m of perpsParam(state, a.params)) {
      const h = sub?.perp.get(m.marketId)
      if (h === undefined || (h.both.qtyLots === 0 && h.long.qtyLots === 0 && h.short.qtyLots === 0)) continue
      const q = adlQuantiles(state, m, sub!)
      const cross = h.marginType !== 'ISOLATED'
      out.push({ symbol: m.symbol, adlQuantile: sub!.dualSide
        ? (cross ? { LONG: q.LONG, SHORT: q.SHORT, HEDGE: 0 } : { LONG: q.LONG, SHORT: q.SHORT, BOTH: 0 })
        : { LONG: 0, SHORT: 0, BOTH: q.BOTH } })
    }
    return out
  })

  app.get('/fapi/v1/forceOrders', docs.forceOrders, async (req) => {
    const a = authenticate(ctx, req, 'USER_DATA')
    weights.charge(req.ip, optional(a.params, 'symbol') === undefined ? 50 : 20)
    const state = ctx.state()
    const one = optional(a.params, 'symbol') !== undefined ? perpParam(state, a.params) : undefined
    const type = optional(a.params, 'autoCloseType')
    if (type !== undefined && type !== 'LIQUIDATION' && type !== 'ADL') throw invalidParam('autoCloseType')
    const range = timeRange(a.params)
    const limit = limitParam(a.params, 50, PROJECTION_LIMITS.forceOrdersMax)
    const rows = await ctx.projections.forceOrders({ account: a.session.account, sub: a.session.sub },
      { ...range, marketId: one?.marketId, autoCloseType: type, limit })
    return rows.map((r) => forceOrderJson(state.markets[r.marketId] as PerpMarket, r))
  })

  app.post('/fapi/v1/multiAssetsMargin', docs.setMultiAssetsMargin, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'TRADE')
    const v = required(a.params, 'multiAssetsMargin')
    if (v === 'false') throw multiAssetsUnchanged()
    if (v === 'true') throw new ApiError(400, -1020, 'This operation is not supported.')
    throw invalidParam('multiAssetsMargin')
  })

  app.get('/fapi/v1/feeBurn', docs.feeBurn, async (req) => {
    weights.charge(req.ip, 30)
    authenticate(ctx, req, 'USER_DATA')
    return { feeBurn: false }
  })

  app.post('/fapi/v1/feeBurn', docs.setFeeBurn, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'TRADE')
    const v = required(a.params, 'feeBurn')
    if (v === 'false') return { code: 200, msg: 'success' }
    if (v === 'true') throw new ApiError(400, -1020, 'This operation is not supported.')
    throw invalidParam('feeBurn')
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
