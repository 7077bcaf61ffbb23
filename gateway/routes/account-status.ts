// What a key and its account may do, as Binance's wallet API reports it: the key's
// permissions (/sapi/v1/account/apiRestrictions, from the session's), the account's status
// and trading status (never restricted here: no rule locks an account), its features
// (/sapi/v1/account/info), each coin's deposit and withdrawal terms (/sapi/v1/asset/assetDetail),
// the spot commission rates (/api/v3/account/commission) and the filters bearing on the account
// (/api/v3/myFilters), and the empty lists of features
// this exchange does not have (dust conversion, the funding wallet, spot delistings, the
// allocations of Smart Order Routing).

import type { FastifyPluginAsync } from 'fastify'
import { authenticate } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { formatLedger, trimZeros } from '../decimal.js'
import { spotCommissionBody } from '../format-market.js'
import { invalidParam } from '../errors.js'
import { idParam, limitParam, optional, spotParam, timeRange, type Params } from '../market-params.js'
import { anyObject, arrayOf, bool, int, object, route, str, type Schema } from '../schemas/common.js'
import { filter } from '../schemas/general.js'
import { spotMyFiltersBody } from './symbols.js'
import type { WeightCounter } from '../weights.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

const userData = (summary: string, weight: number, response: Schema, params: string[] = []) =>
  route({ family: 'wallet', summary, security: 'USER_DATA', weight, params, response })
const rates = object({ maker: str, taker: str, buyer: str, seller: str })

const docs = {
  apiRestrictions: userData("The key's permissions (the session's)", 1, object({
    ipRestrict: bool, createTime: int, enableReversal: bool, enableWithdrawals: bool, enableInternalTransfer: bool,
    permitsUniversalTransfer: bool, enableVanillaOptions: bool, enableFixApiTrade: bool, enableFixReadOnly: bool,
    enableSpotAndMarginTrading: bool, enableMargin: bool, enableFutures: bool, enablePortfolioMarginTrading: bool, enableReading: bool,
  })),
  status: userData('Account status (always Normal: no rule restricts an account)', 1, object({ data: str })),
  tradingStatus: userData('API trading status (never locked: no trading-pattern rules here)', 1, anyObject),
  info: userData("The account's features: futures yes; margin, options and portfolio margin no", 1, object({
    vipLevel: int, isMarginEnabled: bool, isFutureEnabled: bool, isOptionsEnabled: bool, isPortfolioMarginRetailEnabled: bool,
  })),
  assetDetail: userData('Deposit and withdrawal terms of each coin (or of `asset`)', 1, anyObject, ['asset']),
  commission: route({
    family: 'spot', summary: "A spot market's commission rates", security: 'USER_DATA', weight: 20, params: ['symbol'],
    response: object({ symbol: str, standardCommission: rates, specialCommission: rates, taxCommission: rates, discount: anyObject }),
  }),
  myFilters: route({
    family: 'spot', summary: "The filters that bear on the account in a spot market: its caps there, the exchange's on open orders",
    description: 'symbolFilters MAX_NUM_ORDERS, MAX_NUM_ALGO_ORDERS, MAX_NUM_ORDER_AMENDS, MAX_NUM_ORDER_LISTS; exchangeFilters '
      + 'EXCHANGE_MAX_NUM_ORDERS; assetFilters none (no MAX_ASSET here).',
    security: 'USER_DATA', weight: 40, params: ['symbol'], required: ['symbol'],
    response: object({ exchangeFilters: arrayOf(filter), symbolFilters: arrayOf(filter), assetFilters: arrayOf(anyObject) }),
  }),
  myAllocations: route({
    family: 'spot', summary: "The account's allocations in a spot market (none: there is no Smart Order Routing here)",
    description: 'The parameters are checked as Binance checks them (symbol required; limit 1..1000, default 500); the list is '
      + 'always empty, as no order is routed.',
    security: 'USER_DATA', weight: 20, params: ['symbol', 'startTime', 'endTime', 'fromAllocationId', 'limit', 'orderId'],
    required: ['symbol'], response: arrayOf(anyObject),
  }),
  dribblet: userData('Dust conversions (none: there is no dust conversion)', 1, object({ total: int, userAssetDribblets: arrayOf(anyObject) })),
  fundingAsset: userData('Funding wallet (none: spot and perpetual wallets only)', 1, arrayOf(anyObject), ['asset']),
  delistSchedule: route({
    family: 'spot', summary: 'Spot delisting schedule (none)', security: 'NONE', weight: 100, response: arrayOf(anyObject),
  }),
}

/** GET myAllocations (and the WebSocket API's): its parameters checked, no allocation ever made. */
export function spotAllocationsFrom(ctx: GatewayContext, p: Params): object[] {
  spotParam(ctx.state(), p)
  limitParam(p, 500, 1000)
  timeRange(p, undefined, true)
  idParam(p, 'fromAllocationId')
  idParam(p, 'orderId')
  return []
}

export const accountStatusRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  app.get('/sapi/v1/account/apiRestrictions', docs.apiRestrictions, async (req) => {
    weights.charge(req.ip, 1)
    const { session } = authenticate(ctx, req, 'USER_DATA')
    const can = (p: string): boolean => session.permissions.includes(p)
    return {
      ipRestrict: false, createTime: session.createdAt, enableReversal: false, enableWithdrawals: can('WITHDRAW'),
      enableInternalTransfer: false, permitsUniversalTransfer: can('TRADE'), enableVanillaOptions: false,
      enableFixApiTrade: false, enableFixReadOnly: false, enableSpotAndMarginTrading: can('TRADE'), enableMargin: false,
      enableFutures: can('TRADE'), enablePortfolioMarginTrading: false, enableReading: can('USER_DATA'),
    }
  })

  app.get('/sapi/v1/account/status', docs.status, async (req) => {
    weights.charge(req.ip, 1)
    authenticate(ctx, req, 'USER_DATA')
    return { data: 'Normal' }
  })

  app.get('/sapi/v1/account/apiTradingStatus', docs.tradingStatus, async (req) => {
    weights.charge(req.ip, 1)
    authenticate(ctx, req, 'USER_DATA')
    return { data: { isLocked: false, plannedRecoverTime: 0, triggerCondition: {}, updateTime: 0 } }
  })

  app.get('/sapi/v1/account/info', docs.info, async (req) => {
    weights.charge(req.ip, 1)
    authenticate(ctx, req, 'USER_DATA')
    return { vipLevel: 0, isMarginEnabled: false, isFutureEnabled: true, isOptionsEnabled: false, isPortfolioMarginRetailEnabled: false }
  })

  // The terms /sapi/v1/capital/config/getall gives: no fee, a minimum of one ledger unit.
  app.get('/sapi/v1/asset/assetDetail', docs.assetDetail, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'USER_DATA')
    const assets = [...ctx.state().assets.values()]
    const only = optional(a.params, 'asset')
    if (only !== undefined && !assets.some((x) => x.name === only)) throw invalidParam('asset')
    return Object.fromEntries(assets.filter((x) => only === undefined || x.name === only).map((x) => [x.name, {
      minWithdrawAmount: trimZeros(formatLedger(1, x.scale)), depositStatus: true, withdrawFee: 0, withdrawStatus: true, depositTip: '',
    }]))
  })

  for (const v of ['/api/v1', '/api/v3']) {
    app.get(`${v}/account/commission`, docs.commission, async (req) => {
      weights.charge(req.ip, 20)
      const a = authenticate(ctx, req, 'USER_DATA')
      return spotCommissionBody(spotParam(ctx.state(), a.params), false)
    })
    app.get(`${v}/myAllocations`, docs.myAllocations, async (req) => {
      weights.charge(req.ip, 20)
      return spotAllocationsFrom(ctx, authenticate(ctx, req, 'USER_DATA').params)
    })
    app.get(`${v}/myFilters`, docs.myFilters, async (req) => {
      weights.charge(req.ip, 40)
      spotParam(ctx.state(), authenticate(ctx, req, 'USER_DATA').params)
      return spotMyFiltersBody()
    })
  }

  app.get('/sapi/v1/asset/dribblet', docs.dribblet, async (req) => {
    weights.charge(req.ip, 1)
    authenticate(ctx, req, 'USER_DATA')
    return { total: 0, userAssetDribblets: [] }
  })

  app.post('/sapi/v1/asset/get-funding-asset', docs.fundingAsset, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'USER_DATA')
    const only = optional(a.params, 'asset')
    if (only !== undefined && !ctx.state().assets.has(only)) throw invalidParam('asset')
    return []
  })

  app.get('/sapi/v1/spot/delist-schedule', docs.delistSchedule, async (req) => {
    weights.charge(req.ip, 100)
    return []
  })
}
