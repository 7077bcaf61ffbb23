// Binance spot's Price Range execution rule as clients read it (core/price-range.ts): the
// rules (GET /api/v3/executionRules), the reference price (GET /api/v3/referencePrice, the
// `<symbol>@referencePrice` stream) and how it is computed (GET /api/v3/referencePrice/calculation),
// shared by REST, the WebSocket API and the stream.

import { Decimal } from 'decimal.js'
import { REFERENCE_BUCKET_MS, REFERENCE_BUCKETS, referencePrice } from '../core/price-range.js'
import type { SpotMarket, State } from '../core/state.js'
import type { GatewayContext } from './context.js'
import { ApiError, combinationInvalid } from './errors.js'
import { optional, spotParam, spotsListParam, symbolCountForWeight, type Params } from './market-params.js'

/** The reference price at `now` with the quote asset's decimals (truncated), or null without trades in the window. */
export function referencePriceText(state: State, m: SpotMarket, now: number): string | null {
  const ref = referencePrice(m, now)
  if (ref === null) return null
  const scale = state.assets.get(m.quote)!.scale
  return new Decimal(ref.num.toString()).div(ref.den.toString()).div(new Decimal(10).pow(m.pricePrecision))
    .toDecimalPlaces(scale, Decimal.ROUND_DOWN).toFixed(scale)
}

const multiplier = (e4: number): string => new Decimal(e4).div(10_000).toFixed(4)

/** Binance: 2 for `symbol`, 2 per symbol of `symbols` up to 40; 40 for `symbolStatus` or all. */
export function executionRulesWeight(p: Params): number {
  const n = symbolCountForWeight(p)
  return n === 0 || optional(p, 'symbolStatus') !== undefined ? 40 : Math.min(40, 2 * n)
}

/** GET /api/v3/executionRules: `symbol`, `symbols` or `symbolStatus` (one at most), or every spot market. */
export function executionRulesBody(ctx: GatewayContext, p: Params): object {
  const given = ['symbol', 'symbols', 'symbolStatus'].filter((k) => optional(p, k) !== undefined)
  if (given.length > 1) throw combinationInvalid()
  const { markets } = spotsListParam(ctx.state(), p, false)
  return {
    symbolRules: markets.map((m) => ({
      symbol: m.symbol,
      rules: m.priceRange === null ? [] : [{
        ruleType: 'PRICE_RANGE', bidLimitMultUp: multiplier(m.priceRange.bidUpE4), bidLimitMultDown: multiplier(m.priceRange.bidDownE4),
        askLimitMultUp: multiplier(m.priceRange.askUpE4), askLimitMultDown: multiplier(m.priceRange.askDownE4),
      }],
    })),
  }
}

/** A spot market with the rule, or -2043: no other keeps a reference price. */
function ruledMarket(state: State, p: Params): SpotMarket {
  const m = spotParam(state, p)
  if (m.priceRange === null) throw noReferencePrice()
  return m
}

function noReferencePrice(): ApiError {
  return new ApiError(400, -2043, 'No reference price for this symbol: it has no price range rule, or no trade in the last five minutes.')
}

/** GET /api/v3/referencePrice: the reference price now (-2043 without one). */
export function referencePriceBody(ctx: GatewayContext, p: Params): object {
  const state = ctx.state()
  const m = ruledMarket(state, p)
  const now = ctx.now()
  const price = referencePriceText(state, m, now)
  if (price === null) throw noReferencePrice()
  return { symbol: m.symbol, referencePrice: price, timestamp: now }
}

/** GET /api/v3/referencePrice/calculation: the matching engine's mean over 80 buckets of 3,750 ms. */
export function referenceCalculationBody(ctx: GatewayContext, p: Params): object {
  const m = ruledMarket(ctx.state(), p)
  return { symbol: m.symbol, calculationType: 'ARITHMETIC_MEAN', bucketCount: REFERENCE_BUCKETS, bucketWidthMs: REFERENCE_BUCKET_MS }
}

/** The `<symbol>@referencePrice` event: `r` null without a reference price. */
export function referencePriceEvent(state: State, m: SpotMarket, now: number): object {
  return { e: 'referencePrice', s: m.symbol, r: referencePriceText(state, m, now), t: now }
}
