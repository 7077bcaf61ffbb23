// General endpoints: ping, server time and exchange information, futures and spot.

import type { FastifyPluginAsync } from 'fastify'
import type { PerpMarket, SpotMarket } from '../../core/state.js'
import type { GatewayContext } from '../context.js'
import { ApiError, invalidSymbol } from '../errors.js'
import { symbolStatusParam } from '../market-params.js'
import { checkDuplicates, rawRequest } from '../params.js'
import { generalDocs } from '../schemas/general.js'
import type { WeightCounter } from '../weights.js'
import { perpSymbol, spotSymbol } from './symbols.js'
import { rateLimitsBody } from '../rate-limits.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

/** The `symbol` or `symbols` (JSON array) parameter, or every symbol when neither is sent. */
function requestedSymbols(params: ReadonlyMap<string, string>): Set<string> | null {
  const one = params.get('symbol')
  if (one !== undefined) return new Set([one])
  const many = params.get('symbols')
  if (many === undefined) return null
  let list: unknown
  try { list = JSON.parse(many) } catch { throw invalidSymbol() }
  if (!Array.isArray(list) || list.some((s) => typeof s !== 'string')) throw invalidSymbol()
  return new Set(list as string[])
}

/** The spot markets' rules: all of them, `symbol`'s or `symbols`'; also the spot WebSocket API's exchangeInfo. */
export function spotExchangeInfoBody(ctx: GatewayContext, params: ReadonlyMap<string, string>): object {
  const state = ctx.state()
  const wanted = requestedSymbols(params)
  // symbolStatus lists the markets in that status; Binance takes it with neither symbol nor symbols.
  const status = symbolStatusParam(params)
  if (status !== undefined && wanted !== null) throw new ApiError(400, -1128, 'Combination of optional parameters invalid.')
  const spots = state.markets.filter((m): m is SpotMarket => m?.kind === 'SPOT')
  const symbols = spots.filter((m) => (wanted === null || wanted.has(m.symbol)) && (status === undefined || m.status === status))
  if (wanted !== null && symbols.length === 0) throw invalidSymbol()
  return {
    timezone: 'UTC', serverTime: ctx.now(), rateLimits: rateLimitsBody(ctx.rateLimits), exchangeFilters: [],
    symbols: symbols.map((m) => spotSymbol(state, m)),
  }
}

export const generalRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  const ping = async (req: { ip: string }): Promise<object> => {
    weights.charge(req.ip, 1)
    return {}
  }
  const time = async (req: { ip: string }): Promise<object> => {
    weights.charge(req.ip, 1)
    return { serverTime: ctx.now() }
  }
  for (const prefix of ['/fapi/v1', '/api/v1', '/api/v3']) {
    app.get(`${prefix}/ping`, generalDocs.ping, ping)
    app.get(`${prefix}/time`, generalDocs.time, time)
  }

  app.get('/fapi/v1/exchangeInfo', generalDocs.futuresExchangeInfo, async (req) => {
    weights.charge(req.ip, 20)
    const state = ctx.state()
    const raw = rawRequest(req)
    checkDuplicates(raw)
    const wanted = requestedSymbols(raw.params)
    const perps = state.markets.filter((m): m is PerpMarket => m?.kind === 'PERP')
    const symbols = perps.filter((m) => wanted === null || wanted.has(m.symbol))
    if (wanted !== null && symbols.length === 0) throw invalidSymbol()
    const margin = new Set(perps.map((m) => m.quote))
    return {
      timezone: 'UTC', serverTime: ctx.now(), futuresType: 'U_MARGINED',
      rateLimits: rateLimitsBody(ctx.rateLimits), exchangeFilters: [],
      assets: [...margin].map((asset) => ({ asset, marginAvailable: true, autoAssetExchange: '-10000' })),
      symbols: symbols.map((m) => perpSymbol(state, m)),
    }
  })

  // COIN-margined futures: none are listed here. Answered (not 404) because ccxt's `binance`
  // loads spot, USD-M and COIN-M markets by default, and one missing list fails them all.
  app.get('/dapi/v1/exchangeInfo', generalDocs.coinExchangeInfo, async (req) => {
    weights.charge(req.ip, 1)
    return { timezone: 'UTC', serverTime: ctx.now(), rateLimits: rateLimitsBody(ctx.rateLimits), exchangeFilters: [], symbols: [] }
  })

  for (const prefix of ['/api/v1', '/api/v3']) {
    app.get(`${prefix}/exchangeInfo`, generalDocs.spotExchangeInfo, async (req) => {
      weights.charge(req.ip, 20)
      const raw = rawRequest(req)
      checkDuplicates(raw)
      return spotExchangeInfoBody(ctx, raw.params)
    })
  }
}
