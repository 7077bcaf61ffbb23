// JSON schemas of the market-data routes' 200 bodies: they document the shapes (the OpenAPI
// document) and let fastify serialize them without JSON.stringify. Query parameters are
// declared as strings only (schemas/common.ts): parsing and its codes stay in market-params.ts.

import { arrayOf, bool, int, object, oneOrAll, str, tuple } from './schemas/common.js'

const levels = arrayOf(tuple(str, str))

export const depthSchema = object({ lastUpdateId: int, E: int, T: int, bids: levels, asks: levels })
export const spotDepthSchema = object({ lastUpdateId: int, bids: levels, asks: levels })

const trade = { id: int, price: str, qty: str, quoteQty: str, time: int, isBuyerMaker: bool }
export const tradesSchema = arrayOf(object(trade))
export const spotTradesSchema = arrayOf(object({ ...trade, isBestMatch: bool }))

export const aggTradesSchema = arrayOf(object({ a: int, p: str, q: str, f: int, l: int, T: int, m: bool }))
/** Binance spot's aggregate trades add M (the trade was at the best price: always true here). */
export const spotAggTradesSchema = arrayOf(object({ a: int, p: str, q: str, f: int, l: int, T: int, m: bool, M: bool }))

export const klinesSchema = arrayOf(tuple(int, str, str, str, str, str, int, str, int, str, str, str))

// fast-json-stringify writes properties in schema order: these lists are Binance's order.
export const tickerSchema = oneOrAll(object({
  symbol: str, priceChange: str, priceChangePercent: str, weightedAvgPrice: str, lastPrice: str, lastQty: str,
  openPrice: str, highPrice: str, lowPrice: str, volume: str, quoteVolume: str,
  openTime: int, closeTime: int, firstId: int, lastId: int, count: int,
}))
export const spotTickerSchema = oneOrAll(object({
  symbol: str, priceChange: str, priceChangePercent: str, weightedAvgPrice: str, prevClosePrice: str,
  lastPrice: str, lastQty: str, bidPrice: str, bidQty: str, askPrice: str, askQty: str,
  openPrice: str, highPrice: str, lowPrice: str, volume: str, quoteVolume: str,
  openTime: int, closeTime: int, firstId: int, lastId: int, count: int,
}))

export const priceSchema = oneOrAll(object({ symbol: str, price: str, time: int }))
export const bookTickerSchema = oneOrAll(object({
  symbol: str, bidPrice: str, bidQty: str, askPrice: str, askQty: str, time: int, lastUpdateId: int,
}))
export const openInterestSchema = object({ openInterest: str, symbol: str, time: int })
export const premiumIndexSchema = oneOrAll(object({
  symbol: str, markPrice: str, indexPrice: str, estimatedSettlePrice: str, lastFundingRate: str,
  interestRate: str, nextFundingTime: int, time: int,
}))
export const fundingRateSchema = arrayOf(object({ symbol: str, fundingRate: str, fundingTime: int, markPrice: str }))
export const fundingInfoSchema = arrayOf(object({
  symbol: str, adjustedFundingRateCap: str, adjustedFundingRateFloor: str, fundingIntervalHours: int, disclaimer: bool,
}))
export const insuranceBalanceSchema = oneOrAll(object({
  symbols: arrayOf(str), assets: arrayOf(object({ asset: str, marginBalance: str, updateTime: int })),
}))
export const adlRiskSchema = oneOrAll(object({ symbol: str, adlRisk: str, updateTime: int }))
