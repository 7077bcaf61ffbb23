// Stream event payloads with Binance USD-M's field letters, built from core events, the
// replica's book and the projections' records; numbers formatted as the REST bodies are, so
// a stream and the matching REST endpoint always print the same value the same way.

import type { BookSide } from '../../core/book.js'
import type { ForceOrderEvent, PerpTradeEvent, SpotTradeEvent } from '../../core/events.js'
import type { Market, PerpMarket } from '../../core/state.js'
import { bucketOpen, type AggTradeRecord, type KlineInterval, type KlineRecord, type TickerRecord } from '../../replica/projections/index.js'
import { formatAvgPrice, formatNotional, formatPrice, formatQty } from '../decimal.js'
import { bestOf, depthLevels, PERPETUAL_DELIVERY_DATE, premiumIndexBody, spotTickerBody, tickerBody, type BracketRow, type PriceLevel } from '../format-market.js'

/**
 * `trade`: USD-M's letters for a perpetual; Binance spot's for a spot market (no order type `X`,
 * and its `M`, which Binance documents as "ignore" and always sends true).
 */
export function tradeEvent(m: Market, e: PerpTradeEvent | SpotTradeEvent, now: number): object {
  const p = formatPrice(m, e.priceTicks)
  const q = formatQty(m, e.qtyLots)
  if (m.kind === 'SPOT') return { e: 'trade', E: now, s: m.symbol, t: e.tradeId, p, q, T: e.time, m: e.buyerIsMaker, M: true }
  return { e: 'trade', E: now, T: e.time, s: m.symbol, t: e.tradeId, p, q, X: 'MARKET', m: e.buyerIsMaker }
}

/**
 * A liquidation order's snapshot (Binance `forceOrder`): printed as the LIMIT IOC order it is,
 * at its bankruptcy price, with its average fill price and its last and total fills.
 */
export function forceOrderEvent(m: Market, e: ForceOrderEvent, now: number): object {
  return {
    e: 'forceOrder', E: now,
    o: {
      s: m.symbol, S: e.side, o: 'LIMIT', f: 'IOC', q: formatQty(m, e.origQtyLots), p: formatPrice(m, e.priceTicks),
      ap: formatAvgPrice(m, e.cumQuoteTicksLots, e.executedQtyLots), X: e.status, l: formatQty(m, e.lastFilledQtyLots),
      z: formatQty(m, e.executedQtyLots), T: e.updateTime,
    },
  }
}

/** `aggTrade`; a spot market's has Binance spot's `M` (always true) too. */
export function aggTradeEvent(m: Market, a: AggTradeRecord, now: number): object {
  const p = formatPrice(m, a.priceTicks)
  const q = formatQty(m, a.qtyLots)
  if (m.kind === 'SPOT') return { e: 'aggTrade', E: now, s: m.symbol, a: a.aggId, p, q, f: a.firstTradeId, l: a.lastTradeId, T: a.time, m: a.buyerIsMaker, M: true }
  // USD-M's `nq`: the quantity without RPI orders, all of it here (there are none).
  return { e: 'aggTrade', E: now, s: m.symbol, a: a.aggId, p, q, nq: q, f: a.firstTradeId, l: a.lastTradeId, T: a.time, m: a.buyerIsMaker }
}

/** Levels as [price, qty] strings, in the order given. */
export function levelsOf(m: Market, levels: [priceTicks: number, lots: number][]): PriceLevel[] {
  return levels.map(([p, q]) => [formatPrice(m, p), formatQty(m, q)])
}

export interface DepthIds {
  /** First seq the event covers (the previous event's u + 1). */
  U: number
  /** Last seq it covers. */
  u: number
  /** The previous event's u. */
  pu: number
  /** Time of the entry at u. */
  T: number
}

/** A diff depth event: USD-M's; a spot market's as Binance spot sends it, without `T` and `pu`. */
export function depthEvent(m: Market, ids: DepthIds, now: number, b: PriceLevel[], a: PriceLevel[]): object {
  if (m.kind === 'SPOT') return { e: 'depthUpdate', E: now, s: m.symbol, U: ids.U, u: ids.u, b, a }
  return { e: 'depthUpdate', E: now, T: ids.T, s: m.symbol, U: ids.U, u: ids.u, pu: ids.pu, b, a }
}

/** Top `limit` levels of each side of the replica's book. */
export function partialDepth(m: Market, limit: number): { b: PriceLevel[]; a: PriceLevel[] } {
  return { b: depthLevels(m, m.book.bids, limit), a: depthLevels(m, m.book.asks, limit) }
}

/** `bookTicker`: USD-M's; a spot market's as Binance spot sends it, without an event type or times. */
export function bookTickerEvent(m: Market, updateId: number, time: number, now: number): object {
  const [b, B] = bestOf(m, m.book.bids)
  const [a, A] = bestOf(m, m.book.asks)
  if (m.kind === 'SPOT') return { u: updateId, s: m.symbol, b, B, a, A }
  return { e: 'bookTicker', u: updateId, s: m.symbol, b, B, a, A, T: time, E: now }
}

/** A side's best level as a comparable key (price and qty), '' when empty. */
export function bestKey(side: BookSide): string {
  const best = side.best()
  return best === undefined ? '' : `${best.priceTicks}:${best.qtyLots}`
}

export function klineEvent(m: Market, interval: KlineInterval, k: KlineRecord, closed: boolean, now: number): object {
  return {
    e: 'kline', E: now, s: m.symbol,
    k: {
      t: k.openTime, T: k.closeTime, s: m.symbol, i: interval, f: k.firstTradeId, L: k.lastTradeId,
      o: formatPrice(m, k.openPriceTicks), c: formatPrice(m, k.closePriceTicks),
      h: formatPrice(m, k.highPriceTicks), l: formatPrice(m, k.lowPriceTicks),
      v: formatQty(m, k.volumeLots), n: k.count, x: closed, q: formatNotional(m, k.quoteVolumeTicksLots),
      V: formatQty(m, k.takerBuyVolumeLots), Q: formatNotional(m, k.takerBuyQuoteVolumeTicksLots), B: '0',
    },
  }
}

/**
 * `!contractInfo`: a perpetual's listing or status, as Binance USD-M sends it when one changes;
 * `bks`, its leverage brackets (`mi`..`ma` the leverages each allows), only with the listing, as
 * Binance sends them only when they change.
 */
export function contractInfoEvent(m: PerpMarket, status: string, brackets: BracketRow[] | null, now: number): object {
  const event: Record<string, unknown> = { e: 'contractInfo', E: now, s: m.symbol, ps: m.pair, ct: 'PERPETUAL', dt: PERPETUAL_DELIVERY_DATE,
    ot: m.onboardDate, cs: status }
  if (brackets !== null) {
    event.bks = brackets.map((b, i) => ({ bs: b.bracket, bnf: b.notionalFloor, bnc: b.notionalCap, mmr: b.maintMarginRatio, cf: b.cum,
      mi: i + 1 < brackets.length ? brackets[i + 1]!.initialLeverage + 1 : 1, ma: b.initialLeverage }))
  }
  return event
}

/**
 * A perpetual's kline on `<pair>_perpetual@continuousKline_<interval>`: Binance's
 * `continuous_kline`, named by pair (`ps`) and contract type (`ct`), its `k` without a symbol.
 */
export function continuousKlineEvent(m: PerpMarket, interval: KlineInterval, k: KlineRecord, closed: boolean, now: number): object {
  const { k: { s: _symbol, ...body } } = klineEvent(m, interval, k, closed, now) as { k: { s: string } }
  return { e: 'continuous_kline', E: now, ps: m.pair, ct: 'PERPETUAL', k: body }
}

interface TickerFields {
  priceChange: string; priceChangePercent: string; weightedAvgPrice: string; lastPrice: string; lastQty: string
  openPrice: string; highPrice: string; lowPrice: string; volume: string; quoteVolume: string
  openTime: number; closeTime: number; firstId: number; lastId: number; count: number
}

/** What spotTickerBody adds (absent from a perpetual's body). */
interface SpotTickerFields extends TickerFields {
  prevClosePrice: string; bidPrice: string; bidQty: string; askPrice: string; askQty: string
}

/**
 * `24hrTicker`: the REST 24 h ticker's values under the stream's letters. A spot market's has
 * Binance spot's further letters, from GET /api/v3/ticker/24hr's body (spotTickerBody): `x` the
 * previous close and the best levels `b B a A`.
 */
export function tickerEvent(m: Market, t: TickerRecord, now: number): object {
  const spot = m.kind === 'SPOT'
  const r = (spot ? spotTickerBody(m, t) : tickerBody(m, t)) as SpotTickerFields
  const head = { e: '24hrTicker', E: now, s: m.symbol, p: r.priceChange, P: r.priceChangePercent, w: r.weightedAvgPrice }
  const tail = { o: r.openPrice, h: r.highPrice, l: r.lowPrice, v: r.volume, q: r.quoteVolume, O: r.openTime, C: r.closeTime,
    F: r.firstId, L: r.lastId, n: r.count }
  if (!spot) return { ...head, c: r.lastPrice, Q: r.lastQty, ...tail }
  return { ...head, x: r.prevClosePrice, c: r.lastPrice, Q: r.lastQty, b: r.bidPrice, B: r.bidQty, a: r.askPrice, A: r.askQty, ...tail }
}

/**
 * Binance spot's rolling window ticker (`1hTicker`…): the 24 h ticker's letters but the last
 * quantity, closing at `closeTime`, opening on a minute (the start of the minutes it sums), as Binance's.
 */
export function windowTickerEvent(m: Market, window: string, t: TickerRecord, closeTime: number, now: number): object {
  const r = tickerBody(m, t) as TickerFields
  return {
    e: `${window}Ticker`, E: now, s: m.symbol, p: r.priceChange, P: r.priceChangePercent, o: r.openPrice, h: r.highPrice,
    l: r.lowPrice, c: r.lastPrice, w: r.weightedAvgPrice, v: r.volume, q: r.quoteVolume, O: bucketOpen('1m', t.openTime), C: closeTime,
    F: r.firstId, L: r.lastId, n: r.count,
  }
}

export function miniTickerEvent(m: Market, t: TickerRecord, now: number): object {
  const r = tickerBody(m, t) as TickerFields
  return {
    e: '24hrMiniTicker', E: now, s: m.symbol, c: r.lastPrice, o: r.openPrice, h: r.highPrice, l: r.lowPrice,
    v: r.volume, q: r.quoteVolume,
  }
}

interface PremiumFields {
  markPrice: string; indexPrice: string; estimatedSettlePrice: string; lastFundingRate: string; nextFundingTime: number
}

/** Mark, index and funding exactly as /fapi/v1/premiumIndex prints them. */
export function markPriceEvent(m: PerpMarket, now: number): object {
  const r = premiumIndexBody(m, now) as PremiumFields
  return {
    e: 'markPriceUpdate', E: now, s: m.symbol, p: r.markPrice, ap: r.markPrice, P: r.estimatedSettlePrice,
    i: r.indexPrice, r: r.lastFundingRate, T: r.nextFundingTime,
  }
}

export function indexPriceEvent(m: PerpMarket, now: number): object {
  const r = premiumIndexBody(m, now) as PremiumFields
  return { e: 'indexPriceUpdate', E: now, i: m.pair, p: r.indexPrice }
}
