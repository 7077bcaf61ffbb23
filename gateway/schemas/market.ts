// What the document says about each public market-data route (registered through
// routes/public-get.ts, whose schemas are in ../market-schemas.ts): a summary, Binance's
// weight rule where it depends on the parameters, and the security type where a key is needed.
// Keyed by the route's first path; a route missing here is listed under its path.

import type { SecurityType } from './common.js'

export interface MarketDoc {
  summary: string
  description?: string
  /** The weight rule, for routes whose weight depends on the parameters. */
  weight?: string
  security?: SecurityType
  /** Parameters without which the request is refused. */
  required?: readonly string[]
}

const KLINE_FIELDS = 'Each kline: open time, open, high, low, close, volume, close time, quote volume, trades, '
  + 'taker buy volume, taker buy quote volume, ignore.'
const KLINES_WEIGHT = 'by limit: under 100 1, under 500 2, up to 1000 5, above 10'
const FUTURES_DATA_ROWS = 'period 5m, 15m, 30m, 1h, 2h, 4h, 6h, 12h or 1d; limit default 30, max 500; rows of the last 30 days; no times: the newest rows; startTime: the oldest from it.'
const bySymbol = (one: number, all: number): string => `${one} with symbol, ${all} without`

export const MARKET_DOCS: Record<string, MarketDoc> = {
  '/fapi/v1/depth': { required: ['symbol'], summary: 'Futures order book', weight: 'by limit: up to 50 2, 100 5, 500 10, 1000 20' },
  '/fapi/v1/trades': { required: ['symbol'], summary: 'Recent futures trades' },
  '/fapi/v1/historicalTrades': {
    required: ['symbol'], summary: 'Older futures trades, from fromId', security: 'MARKET_DATA',
  },
  '/fapi/v1/aggTrades': { required: ['symbol'], summary: 'Compressed (aggregate) futures trades' },
  '/fapi/v1/klines': {
    required: ['symbol', 'interval'],
    summary: 'Futures candlesticks', weight: KLINES_WEIGHT,
    description: KLINE_FIELDS,
  },
  '/fapi/v1/markPriceKlines': { required: ['symbol', 'interval'], summary: 'Mark price candlesticks', weight: KLINES_WEIGHT },
  '/fapi/v1/indexPriceKlines': { required: ['pair', 'interval'], summary: 'Index price candlesticks of a pair', weight: KLINES_WEIGHT },
  '/fapi/v1/premiumIndexKlines': { required: ['symbol', 'interval'], summary: 'Premium index candlesticks (the 5-s funding samples)', weight: KLINES_WEIGHT },
  '/fapi/v1/continuousKlines': {
    required: ['pair', 'contractType', 'interval'], summary: "Candlesticks of a pair's contract (PERPETUAL: its perpetual's)",
    weight: KLINES_WEIGHT, description: KLINE_FIELDS,
  },
  '/fapi/v1/ticker/24hr': { summary: 'Futures 24 h rolling ticker', weight: bySymbol(1, 40) },
  '/fapi/v1/ticker/price': { summary: 'Futures last price', weight: bySymbol(1, 2) },
  '/fapi/v1/ticker/bookTicker': { summary: 'Futures best bid and ask', weight: bySymbol(2, 5) },
  '/fapi/v1/openInterest': { required: ['symbol'], summary: 'Open interest of a perpetual' },
  '/fapi/v1/rpiDepth': { required: ['symbol'], summary: 'Order book with RPI orders (none here: the book)', description: 'limit 1000 only.' },
  '/fapi/v1/symbolAdlRisk': {
    summary: 'ADL risk rating of each perpetual (or of `symbol`)',
    description: "This exchange's rule: the insurance fund against the market's open interest at the mark; under 0.1 % HIGH, under 1 % MEDIUM, else LOW (LOW with no open interest).",
  },
  '/fapi/v1/indexInfo': { summary: 'Composite index constituents (none: every index here is one oracle)' },
  '/futures/data/delivery-price': { required: ['pair'], summary: 'Quarterly contract settlement prices (none: perpetuals only)' },
  '/futures/data/openInterestHist': {
    required: ['symbol', 'period'], summary: 'Open interest at each period boundary of the last 30 days, valued at the mark',
    description: FUTURES_DATA_ROWS,
  },
  '/futures/data/globalLongShortAccountRatio': {
    required: ['symbol', 'period'], summary: 'Shares of sub-accounts net long and net short at each period boundary',
    description: `${FUTURES_DATA_ROWS} A boundary with no open position has no row.`,
  },
  '/futures/data/topLongShortAccountRatio': {
    required: ['symbol', 'period'], summary: 'Among the top fifth of holders by margin balance: shares net long and net short',
    description: `${FUTURES_DATA_ROWS} The core samples the top traders at the first Tick of each 5-minute bucket; a boundary `
      + 'without a sample, or whose top traders are all on one side, has no row.',
  },
  '/futures/data/topLongShortPositionRatio': {
    required: ['symbol', 'period'], summary: 'Among the top fifth of holders by margin balance: shares of long and short lots',
    description: `${FUTURES_DATA_ROWS} From the same samples as topLongShortAccountRatio; a boundary without a sample, or `
      + 'whose top traders hold one side only, has no row.',
  },
  '/futures/data/takerlongshortRatio': {
    required: ['symbol', 'period'], summary: 'Taker buy and sell volume of the period ending at each boundary',
    description: `${FUTURES_DATA_ROWS} A period without trades, or whose takers only bought, has no row.`,
  },
  '/futures/data/basis': {
    required: ['pair', 'contractType', 'period'], summary: 'Last trade price against the index at each period boundary (contractType PERPETUAL)',
    description: `${FUTURES_DATA_ROWS} Rows start once the market has an index and a trade.`,
  },
  '/fapi/v1/premiumIndex': { summary: 'Mark price, index price and funding rate', weight: bySymbol(1, 10) },
  '/fapi/v1/fundingRate': { summary: 'Funding rate history' },
  '/fapi/v1/fundingInfo': { summary: 'Funding settings of every perpetual: rate cap, floor and interval' },
  '/fapi/v1/insuranceBalance': { summary: 'Insurance fund balances, with the perpetuals each fund covers' },
  '/api/v1/depth': {
    required: ['symbol'], summary: 'Spot order book', weight: 'by limit: up to 100 5, 500 25, 1000 50, 5000 250',
  },
  '/api/v1/trades': { required: ['symbol'], summary: 'Recent spot trades' },
  '/api/v1/historicalTrades': { required: ['symbol'], summary: 'Older spot trades, from fromId (no key needed, as Binance spot now)' },
  '/api/v3/ticker': {
    summary: 'Spot rolling-window ticker', weight: '4 per symbol, at most 200',
    description: 'symbol, or symbols as a JSON array (at most 100); windowSize 1m…59m, 1h…23h or 1d…7d (default 1d); type FULL or MINI.',
  },
  '/api/v3/ticker/tradingDay': {
    summary: 'Spot ticker of the trading day so far', weight: '4 per symbol, at most 200',
    description: 'symbol, or symbols as a JSON array (at most 100); timeZone hours (-5, 8) or hours:minutes (-1:00, 05:45), -12:00 to +14:00, default 0 (UTC); type FULL or MINI.',
  },
  '/api/v1/aggTrades': { required: ['symbol'], summary: 'Compressed (aggregate) spot trades' },
  '/api/v1/klines': {
    required: ['symbol', 'interval'], summary: 'Spot candlesticks',
    description: `${KLINE_FIELDS} timeZone hours (-5, 8) or hours:minutes (-1:00, 05:45), -12:00 to +14:00, default 0 (UTC): the intervals `
      + 'start at its local midnight, hour, Monday or first of the month; startTime and endTime stay UTC.',
  },
  '/api/v1/ticker/24hr': { summary: 'Spot 24 h rolling ticker', weight: bySymbol(2, 80) },
  '/api/v1/ticker/price': { summary: 'Spot last price', weight: bySymbol(2, 4) },
  '/api/v1/ticker/bookTicker': { summary: 'Spot best bid and ask', weight: bySymbol(2, 4) },
  '/api/v1/avgPrice': { required: ['symbol'], summary: 'Spot average price of the last 5 minutes (volume-weighted; the last price when nothing traded)' },
}
