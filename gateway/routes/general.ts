// General endpoints: ping, server time and exchange information, futures and spot.

import type { FastifyPluginAsync } from 'fastify'
import type { Market } from '../../core/state.js'
import type { GatewayContext } from '../context.js'
import { combinationInvalid, invalidParam, invalidSymbol } from '../errors.js'
import { allPerps, allSpots, looseBool, optional, symbolStatusParam, type Params } from '../market-params.js'
import { checkDuplicates, rawRequest } from '../params.js'
import { generalDocs } from '../schemas/general.js'
import type { WeightCounter } from '../weights.js'
import { perpSymbol, SPOT_PERMISSION_SETS, spotSymbol } from './symbols.js'
import { rateLimitsBody } from '../rate-limits.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

/** The `symbol` or `symbols` (JSON array) parameter, or null (every symbol) when neither is sent. */
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

/**
 * The markets of `all` that `wanted` names, in the listing's order (all when null). Any name
 * not among them refuses the whole request (-1121), as Binance does: listing the known ones
 * alone would read to a client as "that symbol is not listed" rather than "no such symbol".
 */
function namedMarkets<M extends Market>(all: M[], wanted: Set<string> | null): M[] {
  if (wanted === null) return all
  const known = new Set(all.map((m) => m.symbol))
  if (wanted.size === 0 || [...wanted].some((s) => !known.has(s))) throw invalidSymbol()
  return all.filter((m) => wanted.has(m.symbol))
}

/** Binance spot's symbol permissions (its enums' "Account and Symbol Permissions"). */
const PERMISSIONS: ReadonlySet<string> = new Set(['SPOT', 'MARGIN', 'LEVERAGED',
  ...Array.from({ length: 24 }, (_, i) => `TRD_GRP_${String(i + 2).padStart(3, '0')}`)])
/** What Binance lists when `permissions` is not sent. */
const DEFAULT_PERMISSIONS: ReadonlySet<string> = new Set(['SPOT', 'MARGIN', 'LEVERAGED'])

/** `permissions`: one permission (`SPOT`) or a JSON array of them; -1130 for any other. */
function permissionsParam(params: ReadonlyMap<string, string>): ReadonlySet<string> | undefined {
  const v = optional(params as Params, 'permissions')
  if (v === undefined) return undefined
  let list: unknown = [v]
  if (v.startsWith('[')) {
    try { list = JSON.parse(v) } catch { throw invalidParam('permissions') }
  }
  if (!Array.isArray(list) || list.length === 0 || list.some((p) => typeof p !== 'string' || !PERMISSIONS.has(p))) {
    throw invalidParam('permissions')
  }
  return new Set(list as string[])
}

/**
 * The spot markets' rules: all of them, `symbol`'s or `symbols`' (any unknown: -1121), those
 * with one of `permissions` or in `symbolStatus`; `showPermissionSets=false` empties each
 * symbol's permissionSets. Also the spot WebSocket API's exchangeInfo.
 */
export function spotExchangeInfoBody(ctx: GatewayContext, params: ReadonlyMap<string, string>): object {
  const state = ctx.state()
  // Binance takes one of symbol, symbols and permissions; symbolStatus with neither symbol nor symbols.
  const status = symbolStatusParam(params)
  const permissions = permissionsParam(params)
  const named = ['symbol', 'symbols'].filter((k) => params.has(k)).length
  if (named + (permissions === undefined ? 0 : 1) > 1 || (status !== undefined && named > 0)) throw combinationInvalid()
  const showSets = looseBool(params as Params, 'showPermissionSets') ?? true
  const wanted = permissions ?? DEFAULT_PERMISSIONS
  const symbols = namedMarkets(allSpots(state), requestedSymbols(params))
    .filter((m) => (status === undefined || m.status === status) && SPOT_PERMISSION_SETS.some((set) => set.some((p) => wanted.has(p))))
  return {
    timezone: 'UTC', serverTime: ctx.now(), rateLimits: rateLimitsBody(ctx.rateLimits), exchangeFilters: [],
    symbols: symbols.map((m) => spotSymbol(state, m, showSets)),
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
    const perps = allPerps(state)
    const symbols = namedMarkets(perps, requestedSymbols(raw.params))
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
