// Schemas of the general routes: ping, server time, exchange information (futures and spot),
// in Binance's field order.

import { anyObject, arrayOf, bool, int, object, route, str, strings, type Schema } from './common.js'

const rateLimit = object({ rateLimitType: str, interval: str, intervalNum: int, limit: int })

/** Every filter type's fields in one object: each filter carries its own subset, in this order. */
export const filter = object({
  filterType: str, minPrice: str, maxPrice: str, tickSize: str, minQty: str, maxQty: str, stepSize: str,
  limit: int, notional: str, minNotional: str, applyMinToMarket: bool, maxNotional: str, applyMaxToMarket: bool,
  avgPriceMins: int, multiplierUp: str, multiplierDown: str, multiplierDecimal: str, maxNumOrderAmends: int, maxNumAlgoOrders: int, maxNumIcebergOrders: int, maxNumOrderLists: int,
  maxNumOrders: int, minTrailingAboveDelta: int, maxTrailingAboveDelta: int, minTrailingBelowDelta: int, maxTrailingBelowDelta: int,
})

const perpSymbol = object({
  symbol: str, pair: str, contractType: str, deliveryDate: int, onboardDate: int, status: str, product_id: int,
  maintMarginPercent: str, requiredMarginPercent: str, baseAsset: str, quoteAsset: str, marginAsset: str,
  pricePrecision: int, quantityPrecision: int, baseAssetPrecision: int, quotePrecision: int,
  underlyingType: str, underlyingSubType: strings, settlePlan: int, triggerProtect: str, liquidationFee: str,
  marketTakeBound: str, maxLeverage: int, filters: arrayOf(filter), orderTypes: strings, timeInForce: strings,
})

const spotSymbol = object({
  symbol: str, status: str, baseAsset: str, baseAssetPrecision: int, quoteAsset: str, quotePrecision: int,
  quoteAssetPrecision: int, baseCommissionPrecision: int, quoteCommissionPrecision: int, orderTypes: strings, icebergAllowed: bool, ocoAllowed: bool, otoAllowed: bool, opoAllowed: bool,
  quoteOrderQtyMarketAllowed: bool, allowTrailingStop: bool, cancelReplaceAllowed: bool, amendAllowed: bool,
  pegInstructionsAllowed: bool, isSpotTradingAllowed: bool, isMarginTradingAllowed: bool, filters: arrayOf(filter),
  defaultSelfTradePreventionMode: str, allowedSelfTradePreventionModes: strings, permissions: strings,
  permissionSets: arrayOf(strings),
})

/** Exchange-wide filters: none yet; any object Binance may add. */
const exchangeFilters = arrayOf(anyObject)

const futuresExchangeInfo: Schema = object({
  timezone: str, serverTime: int, futuresType: str, rateLimits: arrayOf(rateLimit), exchangeFilters,
  assets: arrayOf(object({ asset: str, marginAvailable: bool, autoAssetExchange: str })),
  symbols: arrayOf(perpSymbol),
})

const spotExchangeInfo: Schema = object({
  timezone: str, serverTime: int, rateLimits: arrayOf(rateLimit), exchangeFilters, symbols: arrayOf(spotSymbol),
})

const symbolParams = { params: ['symbol', 'symbols'] } as const

export const generalDocs = {
  ping: route({ family: 'general', summary: 'Test connectivity', security: 'NONE', weight: 1, response: object({}) }),
  time: route({ family: 'general', summary: 'Server time', security: 'NONE', weight: 1, response: object({ serverTime: int }) }),
  futuresExchangeInfo: route({
    family: 'general', summary: 'Futures exchange information: rate limits, assets, perpetual markets and their filters',
    description: '`symbol`, or `symbols` as a JSON array, narrows the markets listed (any unknown: -1121).',
    security: 'NONE', weight: 20, ...symbolParams, response: futuresExchangeInfo,
  }),
  coinExchangeInfo: route({
    family: 'general', summary: 'COIN-margined futures exchange information: none are listed here (an empty symbols list)',
    security: 'NONE', weight: 1,
    response: object({ timezone: str, serverTime: int, rateLimits: arrayOf(rateLimit), exchangeFilters,
      symbols: { type: 'array', maxItems: 0 } }),
  }),
  spotExchangeInfo: route({
    family: 'general', summary: 'Spot exchange information: rate limits, spot markets and their filters',
    description: '`symbol`, or `symbols` as a JSON array, narrows the markets listed (any unknown: -1121); or `permissions` '
      + '(one, or a JSON array; default SPOT, MARGIN, LEVERAGED) lists the markets with any of them; `symbolStatus` (TRADING, '
      + 'HALT, BREAK) those in that status. One of symbol, symbols and permissions; symbolStatus with neither symbol nor symbols '
      + '(-1128 otherwise). `showPermissionSets=false` leaves each `permissionSets` empty.',
    security: 'NONE', weight: 20, params: ['symbol', 'symbols', 'permissions', 'showPermissionSets', 'symbolStatus'], response: spotExchangeInfo,
  }),
}
