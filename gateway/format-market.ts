// Market-data bodies in Binance's shapes, formatted from the core's integer book and the
// projections' integer records: prices and quantities with the market's precision, quote
// amounts exact (tick·lot units never rounded), ids and times as numbers.

import type { BookSide } from '../core/book.js'
import { estimatedFundingRateE8 } from '../core/funding.js'
import type { Market, PerpMarket, SpotMarket, State } from '../core/state.js'
import type { AggTradeRecord, KlineRecord, TickerRecord, TradeRecord } from '../replica/projections/index.js'
import { formatAvgPrice, formatExact, formatNotional, formatPrice, formatQty, formatRatio, formatUnits, trimZeros, type MarketScales } from './decimal.js'

export type PriceLevel = [price: string, qty: string]

/** The best `limit` levels of one side, best first (the book keeps them worst first). */
export function depthLevels(m: Market, side: BookSide, limit: number): PriceLevel[] {
  const levels = side.levels
  const out: PriceLevel[] = []
  for (let i = levels.length - 1; i >= 0 && out.length < limit; i--) {
    out.push([formatPrice(m, levels[i]!.priceTicks), formatQty(m, levels[i]!.qtyLots)])
  }
  return out
}

export interface TradeBody {
  id: number
  price: string
  qty: string
  quoteQty: string
  time: number
  isBuyerMaker: boolean
}

export function tradeBody(m: MarketScales, t: TradeRecord): TradeBody {
  return {
    id: t.tradeId, price: formatPrice(m, t.priceTicks), qty: formatQty(m, t.qtyLots),
    quoteQty: formatNotional(m, t.quoteQtyTicksLots), time: t.time, isBuyerMaker: t.buyerIsMaker,
  }
}

export function aggTradeBody(m: MarketScales, a: AggTradeRecord): object {
  return {
    a: a.aggId, p: formatPrice(m, a.priceTicks), q: formatQty(m, a.qtyLots),
    f: a.firstTradeId, l: a.lastTradeId, T: a.time, m: a.buyerIsMaker,
  }
}

/** Binance spot's: every fill is at the book's best price, so isBestMatch. */
export function spotTradeBody(m: MarketScales, t: TradeRecord): object {
  return { ...tradeBody(m, t), isBestMatch: true }
}

/** Binance spot's M (best price match), always true here. */
export function spotAggTradeBody(m: MarketScales, a: AggTradeRecord): object {
  return { ...aggTradeBody(m, a), M: true }
}

/** Binance's kline array; the twelfth field is the "ignore" Binance always sends as "0". */
export function klineBody(m: MarketScales, k: KlineRecord): (number | string)[] {
  return [
    k.openTime, formatPrice(m, k.openPriceTicks), formatPrice(m, k.highPriceTicks), formatPrice(m, k.lowPriceTicks),
    formatPrice(m, k.closePriceTicks), formatQty(m, k.volumeLots), k.closeTime,
    formatNotional(m, k.quoteVolumeTicksLots), k.count, formatQty(m, k.takerBuyVolumeLots),
    formatNotional(m, k.takerBuyQuoteVolumeTicksLots), '0',
  ]
}

/** Percent with Binance's three decimals, half-up; "0.000" before any trade (no open price). */
function changePercent(t: TickerRecord): string {
  if (t.openPriceTicks === 0) return '0.000'
  return formatRatio(BigInt(t.priceChangeTicks) * 100n, t.openPriceTicks, 0, 3, 'HALF_UP')
}

/** The futures 24 h ticker: the spec's fields plus Binance's lastQty, open/high/low, first/last id. */
export function tickerBody(m: Market, t: TickerRecord): object {
  return {
    symbol: m.symbol,
    priceChange: formatPrice(m, t.priceChangeTicks),
    priceChangePercent: changePercent(t),
    // Quote volume over volume, half-up to the price's precision; zero when nothing traded.
    weightedAvgPrice: formatAvgPrice(m, t.quoteVolumeTicksLots, t.volumeLots),
    lastPrice: formatPrice(m, t.lastPriceTicks),
    lastQty: formatQty(m, t.lastQtyLots),
    openPrice: formatPrice(m, t.openPriceTicks),
    highPrice: formatPrice(m, t.highPriceTicks),
    lowPrice: formatPrice(m, t.lowPriceTicks),
    volume: formatQty(m, t.volumeLots),
    quoteVolume: formatNotional(m, t.quoteVolumeTicksLots),
    openTime: t.openTime,
    closeTime: t.closeTime,
    firstId: t.firstId,
    lastId: t.lastId,
    count: t.count,
  }
}

/** The best level of a side as [price, qty], zeros at the market's precision when it is empty. */
export function bestOf(m: Market, side: BookSide): PriceLevel {
  const best = side.best()
  return [formatPrice(m, best?.priceTicks ?? 0), formatQty(m, best?.qtyLots ?? 0)]
}

/**
 * Spot's FULL 24 h ticker. prevClosePrice is the window's open: the projections keep no
 * trade from before the window to take the previous close from.
 */
export function spotTickerBody(m: Market, t: TickerRecord): object {
  // Field order comes from the response schema, so the futures body extends in place.
  const [bidPrice, bidQty] = bestOf(m, m.book.bids)
  const [askPrice, askQty] = bestOf(m, m.book.asks)
  return { ...tickerBody(m, t), prevClosePrice: formatPrice(m, t.openPriceTicks), bidPrice, bidQty, askPrice, askQty }
}

/** `time` is when the quote is read: the book has no per-level time. */
export function bookTickerBody(m: Market, lastUpdateId: number, time: number): object {
  const [bidPrice, bidQty] = bestOf(m, m.book.bids)
  const [askPrice, askQty] = bestOf(m, m.book.asks)
  return { symbol: m.symbol, bidPrice, bidQty, askPrice, askQty, time, lastUpdateId }
}

// ---------------------------------------------------------------------------------------------
// Mark, index and funding from the core's price state (core/prices.ts, core/funding.ts). A
// market without an oracle price yet has its mark at the last trade and the index printed
// equal to it, and no funding is charged on it.

/** The default interval (a market's own is in its price state). */
export const FUNDING_INTERVAL_MS = 8 * 60 * 60 * 1000
/** Binance prints mark, index and settle prices and rates with 8 decimals. */
const MARK_DECIMALS = 8
/** 0.01 % per 8 h (API.md), as Binance prints it. */
const INTEREST_RATE = '0.00010000'

/** The first funding boundary strictly after `nowMs`; boundaries are every interval from 00:00 UTC. */
export function nextFundingTime(nowMs: number, intervalMs = FUNDING_INTERVAL_MS): number {
  return Math.floor(nowMs / intervalMs) * intervalMs + intervalMs
}

/** A mark (or index) price as Binance prints it: 8 decimals, or the price's when finer. */
export function markPrice(m: MarketScales, ticks: number): string {
  return formatExact(BigInt(ticks) * BigInt(m.tickSize), m.pricePrecision, Math.max(MARK_DECIMALS, m.pricePrecision))
}

/** An E8 price (the index) as Binance prints it. */
export function priceE8(m: MarketScales, e8: number): string {
  return formatExact(e8, 8, Math.max(MARK_DECIMALS, m.pricePrecision))
}

/** A rate in 1e-8 units, 8 decimals, signed. */
export function rateE8(e8: number): string {
  return formatExact(e8, 8, 8)
}

/**
 * Binance's premiumIndex: lastFundingRate is the rate the coming boundary would settle at
 * from the interval's samples so far (as Binance's figure moves during the interval); with
 * no sample yet, the rate last settled.
 */
export function premiumIndexBody(m: PerpMarket, nowMs: number): object {
  const mark = markPrice(m, m.markPriceTicks)
  const p = m.prices
  const priced = p.indexE8 > 0
  const rate = !priced ? 0 : p.premiumSamples > 0 ? estimatedFundingRateE8(m) : p.lastFundingRateE8
  return {
    symbol: m.symbol, markPrice: mark, indexPrice: priced ? priceE8(m, p.indexE8) : mark, estimatedSettlePrice: mark,
    lastFundingRate: rateE8(rate), interestRate: INTEREST_RATE,
    nextFundingTime: priced && p.nextFundingTime > nowMs ? p.nextFundingTime : nextFundingTime(nowMs, p.fundingIntervalMs),
    time: nowMs,
  }
}

/** A fee rate in ppm as Binance prints spot rates: "0.001". */
export function feeRate(ppm: number): string {
  return trimZeros(formatUnits(ppm, 6))
}

/**
 * A spot market's commission rates: /api/v3/account/commission's form, or with `forOrder` the
 * one /api/v3/order/test answers (maker and taker only). No special rates, taxes or discounts here.
 */
export function spotCommissionBody(m: SpotMarket, forOrder: boolean): object {
  const zero = forOrder ? { maker: '0', taker: '0' } : { maker: '0', taker: '0', buyer: '0', seller: '0' }
  const standard = { ...zero, maker: feeRate(m.makerFeePpm), taker: feeRate(m.takerFeePpm) }
  const discount = { enabledForAccount: false, enabledForSymbol: false, discountAsset: 'BNB', discount: '0' }
  return forOrder
    ? { standardCommissionForOrder: standard, specialCommissionForOrder: zero, taxCommissionForOrder: zero, discount }
    : { symbol: m.symbol, standardCommission: standard, specialCommission: zero, taxCommission: zero, discount }
}

/** Binance's delivery date of a perpetual, far in the future (2100-12-25): exchangeInfo's `deliveryDate`, `!contractInfo`'s `dt`. */
export const PERPETUAL_DELIVERY_DATE = 4133404800000

export interface BracketRow {
  bracket: number
  initialLeverage: number
  /** Quote units. */
  notionalCap: number
  notionalFloor: number
  maintMarginRatio: number
  /** The maintenance amount: notional × rate − this is the bracket's requirement. */
  cum: number
}

/** A perpetual's leverage brackets as GET /fapi/v1/leverageBracket lists them. */
export function leverageBrackets(state: State, m: PerpMarket): BracketRow[] {
  const scale = state.assets.get(m.quote)!.scale
  let floor = 0n
  let cum = 0n
  let prevMmr = 0n
  const unit = 10n ** BigInt(scale)
  return m.brackets.map((b, i) => {
    const mmr = BigInt(b.mmrPpm)
    cum += floor * (mmr - prevMmr)
    const row = {
      bracket: i + 1, initialLeverage: b.maxLeverage,
      notionalCap: Number(BigInt(b.notionalCap) / unit), notionalFloor: Number(floor / unit),
      maintMarginRatio: Number(formatUnits(b.mmrPpm, 6)), cum: Number(formatUnits(cum / 1_000_000n, scale)),
    }
    floor = BigInt(b.notionalCap)
    prevMmr = mmr
    return row
  })
}
