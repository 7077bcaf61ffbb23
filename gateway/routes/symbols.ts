// exchangeInfo bodies: markets as Binance's futures and spot clients read them, formatted
// from the core's integer market definitions.

import { LIMITS } from '../../core/limits.js'
import { trailingAllowed } from '../../core/spot-stops.js'
import type { Market, PerpMarket, SpotMarket, State } from '../../core/state.js'
import { AVG_PRICE_MINS } from '../avg-price.js'
import { formatPrice, formatQty, formatUnits, trimZeros } from '../decimal.js'
import { PERPETUAL_DELIVERY_DATE } from '../format-market.js'

export const ORDERS_PER_10S = 300
export const ORDERS_PER_1M = 1200

function quoteScale(state: State, m: Market): number {
  return state.assets.get(m.quote)!.scale
}

/**
 * PRICE_FILTER, LOT_SIZE, MARKET_LOT_SIZE, `limits` (MAX_NUM_ORDERS and the other per-account
 * caps) and the notional filter.
 */
function filters(m: Market, notionalFilter: object, limits: object[]): object[] {
  const tick = formatPrice(m, 1)
  const step = formatQty(m, 1)
  return [
    { filterType: 'PRICE_FILTER', minPrice: formatPrice(m, m.minPriceTicks), maxPrice: formatPrice(m, m.maxPriceTicks), tickSize: tick },
    { filterType: 'LOT_SIZE', minQty: formatQty(m, m.minQtyLots), maxQty: formatQty(m, m.maxQtyLots), stepSize: step },
    { filterType: 'MARKET_LOT_SIZE', minQty: formatQty(m, m.minQtyLots), maxQty: formatQty(m, m.marketMaxQtyLots), stepSize: step },
    ...limits,
    notionalFilter,
  ]
}

/**
 * A spot market's caps on each account (Binance spot's names: MAX_NUM_ORDERS' maxNumOrders,
 * not USD-M's limit): exchangeInfo lists them among its filters, myFilters as the symbol's.
 */
function spotAccountFilters(): object[] {
  return [
    { filterType: 'MAX_NUM_ORDERS', maxNumOrders: LIMITS.openOrdersPerMarketMax },
    { filterType: 'MAX_NUM_ALGO_ORDERS', maxNumAlgoOrders: LIMITS.conditionalOrdersPerMarketMax },
    { filterType: 'MAX_NUM_ICEBERG_ORDERS', maxNumIcebergOrders: LIMITS.icebergOrdersPerMarketMax },
    { filterType: 'MAX_NUM_ORDER_AMENDS', maxNumOrderAmends: LIMITS.amendmentsPerOrderMax },
    { filterType: 'MAX_NUM_ORDER_LISTS', maxNumOrderLists: LIMITS.orderListsPerMarketMax },
  ]
}

/**
 * GET /api/v3/myFilters: the filters that bear on an account in `m`: its caps on the symbol,
 * the exchange-wide cap on open orders; no asset caps (MAX_ASSET) here.
 */
export function spotMyFiltersBody(): object {
  return {
    exchangeFilters: [{ filterType: 'EXCHANGE_MAX_NUM_ORDERS', maxNumOrders: LIMITS.openOrdersPerAccountMax }],
    symbolFilters: spotAccountFilters(),
    assetFilters: [],
  }
}

/** A ppm figure as a fraction with Binance's four decimals (50,000 ppm: "0.0500"). */
function fraction4(ppm: number): string {
  return formatUnits(Math.round(ppm / 100), 4)
}

/** PERCENT_PRICE's multipliers (1.0500 / 0.9500); none for a market without a band. */
function percentPrice(m: PerpMarket): object[] {
  if (m.percentPricePpm === 0) return []
  return [{ filterType: 'PERCENT_PRICE', multiplierUp: fraction4(1_000_000 + m.percentPricePpm),
    multiplierDown: fraction4(1_000_000 - m.percentPricePpm), multiplierDecimal: '4' }]
}

export function perpSymbol(state: State, m: PerpMarket): object {
  const notional = trimZeros(formatUnits(m.minNotional, quoteScale(state, m)))
  const bracket0 = m.brackets[0]!
  return {
    symbol: m.symbol, pair: m.pair, contractType: 'PERPETUAL', deliveryDate: PERPETUAL_DELIVERY_DATE,
    onboardDate: m.onboardDate, status: m.status, product_id: m.marketId,
    // Percent with 4 decimals: ppm / 10^4.
    maintMarginPercent: formatUnits(bracket0.mmrPpm, 4),
    requiredMarginPercent: formatUnits(Math.ceil(1_000_000 / bracket0.maxLeverage), 4),
    baseAsset: m.base, quoteAsset: m.quote, marginAsset: m.quote,
    pricePrecision: m.pricePrecision, quantityPrecision: m.quantityPrecision,
    baseAssetPrecision: state.assets.get(m.base)!.scale, quotePrecision: quoteScale(state, m),
    // priceProtect's threshold.
    underlyingType: 'COIN', underlyingSubType: [], settlePlan: 0, triggerProtect: fraction4(m.triggerProtectPpm),
    liquidationFee: formatUnits(m.liquidationFeePpm, 6), marketTakeBound: trimZeros(formatUnits(m.marketTakeBoundPpm, 6)),
    maxLeverage: m.maxLeverage,
    filters: filters(m, { filterType: 'MIN_NOTIONAL', notional }, [
      { filterType: 'MAX_NUM_ORDERS', limit: LIMITS.openOrdersPerMarketMax },
      { filterType: 'MAX_NUM_ALGO_ORDERS', limit: LIMITS.conditionalOrdersPerMarketMax },
      ...percentPrice(m),
    ]),
    orderTypes: ['LIMIT', 'MARKET', 'POST_ONLY', 'STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET', 'TRAILING_STOP_MARKET'],
    timeInForce: ['GTC', 'IOC', 'FOK', 'GTX', 'GTD'],
  }
}

/**
 * Every spot market's permission sets, as Binance reads them: an account with any one
 * permission of a set may trade (there is one set). No spot margin here: SPOT alone.
 */
export const SPOT_PERMISSION_SETS: readonly (readonly string[])[] = [['SPOT']]

/** A spot market as exchangeInfo lists it; `showPermissionSets` false leaves permissionSets empty, as Binance's parameter does. */
export function spotSymbol(state: State, m: SpotMarket, showPermissionSets = true): object {
  const notional = trimZeros(formatUnits(m.minNotional, quoteScale(state, m)))
  return {
    symbol: m.symbol, status: m.status,
    baseAsset: m.base, baseAssetPrecision: state.assets.get(m.base)!.scale,
    quoteAsset: m.quote, quotePrecision: quoteScale(state, m), quoteAssetPrecision: quoteScale(state, m),
    // Commissions print at the fee asset's scale (format-spot.ts), as the balances do.
    baseCommissionPrecision: state.assets.get(m.base)!.scale, quoteCommissionPrecision: quoteScale(state, m),
    orderTypes: ['LIMIT', 'LIMIT_MAKER', 'MARKET', 'STOP_LOSS', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT', 'TAKE_PROFIT_LIMIT'],
    icebergAllowed: true, ocoAllowed: true, otoAllowed: true, opoAllowed: true, quoteOrderQtyMarketAllowed: true, allowTrailingStop: trailingAllowed(m),
    cancelReplaceAllowed: true, amendAllowed: true, pegInstructionsAllowed: true,
    isSpotTradingAllowed: true, isMarginTradingAllowed: false,
    filters: filters(m, { filterType: 'NOTIONAL', minNotional: notional, applyMinToMarket: true,
      maxNotional: '9000000.00000000', applyMaxToMarket: false, avgPriceMins: AVG_PRICE_MINS },
    [...spotAccountFilters(),
      { filterType: 'ICEBERG_PARTS', limit: LIMITS.icebergPartsMax },
      { filterType: 'TRAILING_DELTA', minTrailingAboveDelta: LIMITS.trailingDeltaMinBips, maxTrailingAboveDelta: LIMITS.trailingDeltaMaxBips,
        minTrailingBelowDelta: LIMITS.trailingDeltaMinBips, maxTrailingBelowDelta: LIMITS.trailingDeltaMaxBips }]),
    defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
    allowedSelfTradePreventionModes: ['NONE', 'EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH', 'DECREMENT', 'TRANSFER'],
    // Binance now sends permissions empty and the sets in permissionSets; SPOT is kept in
    // permissions for clients written before permissionSets (they read it, and SPOT is true).
    permissions: ['SPOT'], permissionSets: showPermissionSets ? SPOT_PERMISSION_SETS : [],
  }
}
