// The forms of pages (replica/projections/pages.ts): the module the projections' thread imports
// to turn a query's rows into a response body. Each form prints a row with the function the
// routes use everywhere else (WebSocket API, downloads), so a page says what the objects did.
// It runs in another thread: everything it needs comes in the format (structured-clonable).

import type { Market } from '../core/state.js'
import type { AggTradeRecord, KlineRecord, OrderRecord, TradeRecord, UserTradeRecord } from '../replica/projections/index.js'
import type { MarketScales } from './decimal.js'
import { aggTradeBody, klineBody, spotAggTradeBody, spotTradeBody, tradeBody } from './format-market.js'
import { userTradeJson } from './format-history.js'
import { orderJson } from './format-order.js'
import { toMicroseconds } from './time-unit.js'

/** URL of this module: the projections are given it (`pageFormatter`) wherever a gateway reads them. */
export const PAGE_FORMATTER_URL = import.meta.url

/** What of a market a row's form reads: its symbol, quote asset and scales. */
export type PageMarket = MarketScales & Pick<Market, 'symbol' | 'quote'>

export function pageMarket(m: Market): PageMarket {
  return {
    symbol: m.symbol, quote: m.quote, tickSize: m.tickSize, stepSize: m.stepSize,
    pricePrecision: m.pricePrecision, quantityPrecision: m.quantityPrecision,
  }
}

/** Each form: one row as the route prints it. */
const FORMS = {
  /** /fapi/v1/allOrders */
  perpOrders: (f: PageFormat, r: OrderRecord): unknown => orderJson(f.market, r, 'record'),
  /** /fapi/v1/userTrades */
  perpUserTrades: (f: PageFormat, r: UserTradeRecord): unknown => userTradeJson(f.market, f.quoteScale, r),
  /** /fapi/v1/trades and historicalTrades */
  trades: (f: PageFormat, r: TradeRecord): unknown => tradeBody(f.market, r),
  /** /api/v3/trades and historicalTrades */
  spotTrades: (f: PageFormat, r: TradeRecord): unknown => spotTradeBody(f.market, r),
  /** /fapi/v1/aggTrades */
  aggTrades: (f: PageFormat, r: AggTradeRecord): unknown => aggTradeBody(f.market, r),
  /** /api/v3/aggTrades */
  spotAggTrades: (f: PageFormat, r: AggTradeRecord): unknown => spotAggTradeBody(f.market, r),
  /** klines of both venues */
  klines: (f: PageFormat, r: KlineRecord): unknown => klineBody(f.market, r),
} as const

export type PageForm = keyof typeof FORMS

export interface PageFormat {
  form: PageForm
  market: PageMarket
  /** The quote asset's ledger scale (balances and commissions in a user trade). */
  quoteScale: number
  /** X-MBX-TIME-UNIT: MICROSECOND */
  micro: boolean
}

/** The response body of `rows`, as the route would have serialized the objects. */
export function formatPage(format: PageFormat, rows: unknown): string {
  const row = FORMS[format.form] as (f: PageFormat, r: unknown) => unknown
  const body = (rows as unknown[]).map((r) => row(format, r))
  return JSON.stringify(format.micro ? toMicroseconds(body) : body)
}
