// The forms of pages (replica/projections/pages.ts): the module the projections' thread imports
// to turn a query's rows into a response body. Each form prints a row with the function the
// routes use everywhere else (WebSocket API, downloads), so a page says what the objects did.
// It runs in another thread: what it reads of the state comes in the format (structured-clonable).

import type { Market } from '../core/state.js'
import type {
  AggTradeRecord, IncomeRecord, KlineRecord, OrderRecord, PriceKind, PriceKlineRecord, TradeRecord, UserTradeInList, UserTradeRecord,
} from '../replica/projections/index.js'
import type { MarketScales } from './decimal.js'
import { algoJson } from './format-algo.js'
import { csvLine, type DownloadKind } from './format-csv.js'
import { incomeJson, userTradeJson, type IncomeView } from './format-history.js'
import { aggTradeBody, klineBody, spotAggTradeBody, spotTradeBody, tradeBody } from './format-market.js'
import { orderJson } from './format-order.js'
import { priceKlineBody, sampledPriceKlineBody } from './format-prices.js'
import { spotOrderJson, spotUserTradeJson } from './format-spot.js'
import { toMicroseconds } from './time-unit.js'

/** URL of this module: the projections are given it (`pageFormatter`) wherever a gateway reads them. */
export const PAGE_FORMATTER_URL = import.meta.url

/** What of a market a row's form reads: its id, symbol, quote asset and scales. */
export type PageMarket = MarketScales & Pick<Market, 'marketId' | 'symbol' | 'quote'>

export function pageMarket(m: Market): PageMarket {
  return {
    marketId: m.marketId, symbol: m.symbol, quote: m.quote, tickSize: m.tickSize, stepSize: m.stepSize,
    pricePrecision: m.pricePrecision, quantityPrecision: m.quantityPrecision,
  }
}

export interface PageFormat {
  form: PageForm
  /** X-MBX-TIME-UNIT: MICROSECOND */
  micro: boolean
  /** The market the rows are of (-1: several, each row naming its own: income). */
  marketId: number
  /** The markets the rows may be of, by id. */
  markets: Record<number, PageMarket>
  /** Ledger scales of the assets the rows may name (balances, commissions). */
  scales: Record<string, number>
  /** Sampled price klines: which price. */
  priceKind?: PriceKind
  /** A history download's lines of the rows (no header) rather than a JSON list. */
  csv?: DownloadKind
}

/** The format as the row functions read it: the state's shape, holding only what was sent. */
interface View extends IncomeView {
  format: PageFormat
  /** The one market of a single-market page. */
  market: PageMarket
}

const scaleOf = (v: View, asset: string): number => v.assets.get(asset)!.scale

/** Each form: one row as the route prints it. */
const FORMS = {
  /** /fapi/v1/allOrders */
  perpOrders: (v: View, r: OrderRecord): unknown => orderJson(v.market, r, 'record'),
  /** /fapi/v1/allAlgoOrders */
  algoOrders: (v: View, r: OrderRecord): unknown => algoJson(v.market, r),
  /** /api/v3/allOrders */
  spotOrders: (v: View, r: OrderRecord): unknown => spotOrderJson(v, v.market, r, 'record'),
  /** /fapi/v1/userTrades */
  perpUserTrades: (v: View, r: UserTradeRecord): unknown => userTradeJson(v.market, scaleOf(v, v.market.quote), r),
  /** /api/v3/myTrades */
  spotUserTrades: (v: View, r: UserTradeInList): unknown => spotUserTradeJson(v, v.market, r, r.orderListId),
  /** /fapi/v1/income */
  income: (v: View, r: IncomeRecord): unknown => incomeJson(v, r),
  /** /fapi/v1/trades and historicalTrades */
  trades: (v: View, r: TradeRecord): unknown => tradeBody(v.market, r),
  /** /api/v3/trades and historicalTrades */
  spotTrades: (v: View, r: TradeRecord): unknown => spotTradeBody(v.market, r),
  /** /fapi/v1/aggTrades */
  aggTrades: (v: View, r: AggTradeRecord): unknown => aggTradeBody(v.market, r),
  /** /api/v3/aggTrades */
  spotAggTrades: (v: View, r: AggTradeRecord): unknown => spotAggTradeBody(v.market, r),
  /** klines of both venues */
  klines: (v: View, r: KlineRecord): unknown => klineBody(v.market, r),
  /** mark and index klines of a market with no oracle price yet: its trade klines' prices */
  tradePriceKlines: (v: View, r: KlineRecord): unknown => priceKlineBody(v.market, r),
  /** mark, index and premium index klines of sampled prices */
  sampledPriceKlines: (v: View, r: PriceKlineRecord): unknown => sampledPriceKlineBody(v.market, v.format.priceKind!, r),
} as const

export type PageForm = keyof typeof FORMS

/** The response body of `rows`, as the route would have serialized the objects (or a download's CSV lines of them). */
export function formatPage(format: PageFormat, rows: unknown): string {
  const view: View = {
    format, market: format.markets[format.marketId]!, markets: format.markets,
    assets: new Map(Object.entries(format.scales).map(([asset, scale]) => [asset, { scale }])),
  }
  const row = FORMS[format.form] as (v: View, r: unknown) => unknown
  const body = (rows as unknown[]).map((r) => row(view, r))
  const csv = format.csv
  if (csv !== undefined) return body.map((r) => csvLine(csv, r as Record<string, unknown>)).join('')
  return JSON.stringify(format.micro ? toMicroseconds(body) : body)
}
