// Binance's futures statistics under /futures/data, one row per period boundary T of the last
// 30 days, each saying what held at T or over the period that ended at T:
// - openInterestHist: the open interest at T, valued at the last mark before T;
// - globalLongShortAccountRatio: the shares of sub-accounts net long and net short at T;
// - topLongShortAccountRatio and topLongShortPositionRatio: the same among the top fifth of the
//   holders by margin balance, and their long and short lots, at T (the core's sample);
// - takerlongshortRatio: taker buy and sell volume over [T − period, T);
// - basis: the last trade price before T against the index then.
// The projections keep the open interest and account counts of each 5-minute bucket that saw a
// change (replica/projections/market-writer.ts) and the market cursor the current ones; the
// volumes and prices come from the trade and price klines of the period's interval.

import type { FastifyPluginAsync } from 'fastify'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { PerpMarket } from '../../core/state.js'
import type { OpenInterestRecord } from '../../replica/projections/index.js'
import { TOP_TRADERS_BUCKET_MS } from '../../core/top-traders.js'
import type { TopTradersRecord } from '../../replica/projections/top-traders.js'
import type { GatewayContext } from '../context.js'
import { formatExact, formatPrice, formatRatio } from '../decimal.js'
import { invalidParam } from '../errors.js'
import { priceE8 } from '../format-market.js'
import { contractTypeParam, limitParam, perpOfPair, perpParam, required, timeRange, type Params } from '../market-params.js'
import { arrayOf, int, object, str } from '../schemas/common.js'
import type { WeightCounter } from '../weights.js'
import { publicGet } from './public-get.js'

const MIN = 60_000
/** Binance's periods; each is also a kline interval, whose klines price and size the rows. */
const PERIODS = { '5m': 5 * MIN, '15m': 15 * MIN, '30m': 30 * MIN, '1h': 60 * MIN, '2h': 120 * MIN, '4h': 240 * MIN,
  '6h': 360 * MIN, '12h': 720 * MIN, '1d': 1_440 * MIN } as const
type Period = keyof typeof PERIODS
/** Binance serves the last month only. */
const REACH_MS = 30 * 1_440 * MIN

export const openInterestHistSchema = arrayOf(object({ symbol: str, sumOpenInterest: str, sumOpenInterestValue: str, timestamp: int }))
export const longShortRatioSchema = arrayOf(object({ symbol: str, longShortRatio: str, longAccount: str, shortAccount: str, timestamp: int }))
export const takerRatioSchema = arrayOf(object({ buySellRatio: str, buyVol: str, sellVol: str, timestamp: int }))
export const basisSchema = arrayOf(object({
  indexPrice: str, contractType: str, basisRate: str, futuresPrice: str, annualizedBasisRate: str, basis: str, pair: str, timestamp: int,
}))

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

/** A period and the rows' range, as every route here reads them. */
interface Query {
  period: Period
  periodMs: number
  limit: number
  startTime?: number
  endTime?: number
}

function query(p: Params): Query {
  const v = required(p, 'period')
  if (!Object.hasOwn(PERIODS, v)) throw invalidParam('period')
  const period = v as Period
  return { period, periodMs: PERIODS[period], limit: limitParam(p, 30, 500), ...timeRange(p) }
}

/** Binance pads quantities and values to 8 decimals (more when the market's are finer). */
const wide = (units: bigint, decimals: number, least = 8): string => formatExact(units, decimals, Math.max(least, decimals))

/** n / d (d > 0) to 4 decimals, halves away from zero, as Binance prints its ratios. */
const ratio4 = (n: bigint, d: bigint): string => formatRatio(n, d, 0, 4, 'HALF_UP')

export const futuresDataRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  const route = (url: string, params: string[], response: Record<string, unknown>, handler: (p: Params) => Promise<object[]>): void =>
    publicGet(app, weights, { url, params: [...params, 'period', 'limit', 'startTime', 'endTime'], response, weight: 1, handler })

  // Quarterly contracts' settlement prices: a pair's one contract here is its perpetual, never settled.
  publicGet(app, weights, {
    url: '/futures/data/delivery-price', params: ['pair'], response: { type: 'array', maxItems: 0 }, weight: 0,
    handler: (p) => {
      perpOfPair(ctx.state(), p)
      return []
    },
  })

  route('/futures/data/openInterestHist', ['symbol'], openInterestHistSchema, async (p) => {
    const m = perpParam(ctx.state(), p)
    const q = query(p)
    const { bounds, records } = await positionsAt(ctx, m, q)
    const marks = await markCloses(ctx, m, q, bounds)
    return bounds.map((t, i) => {
      const lots = BigInt(records[i]?.openInterestLots ?? 0)
      return {
        symbol: m.symbol,
        sumOpenInterest: wide(lots * BigInt(m.stepSize), m.quantityPrecision),
        sumOpenInterestValue: wide(lots * BigInt(marks[i]!) * BigInt(m.stepSize) * BigInt(m.tickSize), m.quantityPrecision + m.pricePrecision),
        timestamp: t,
      }
    })
  })

  // Every sub-account is an account here. One with no position, or whose sides net to zero, is neither.
  route('/futures/data/globalLongShortAccountRatio', ['symbol'], longShortRatioSchema, async (p) => {
    const m = perpParam(ctx.state(), p)
    const { bounds, records } = await positionsAt(ctx, m, query(p))
    return bounds.flatMap((t, i) => {
      const long = BigInt(records[i]?.longAccounts ?? 0)
      const short = BigInt(records[i]?.shortAccounts ?? 0)
      // Net positions sum to zero, so a long account implies a short one: no row means no positions.
      if (long === 0n || short === 0n) return []
      return [{ symbol: m.symbol, longShortRatio: ratio4(long, short), longAccount: ratio4(long, long + short),
        shortAccount: ratio4(short, long + short), timestamp: t }]
    })
  })

  // The top fifth of the market's holders by margin balance, as the core samples them at the first
  // Tick of each 5-minute bucket (core/top-traders.ts): the row at T is the sample of the bucket T
  // opens. Accounts: net long against net short; positions: their long lots against short lots.
  const topRows = async (p: Params, pick: (r: TopTradersRecord) => [number, number]): Promise<object[]> => {
    const m = perpParam(ctx.state(), p)
    const q = query(p)
    const range = rowRange(ctx, q)
    if (range === undefined) return []
    const bounds = boundsOf(q, range)
    // One read: the samples of the buckets the boundaries open, keyed by bucket start.
    const samples = await ctx.projections.topTradersHistory(m.marketId, { startTime: bounds[0], endTime: bounds.at(-1),
      everyMs: q.periodMs, limit: bounds.length })
    const byBucket = new Map(samples.map((r) => [r.time - (r.time % TOP_TRADERS_BUCKET_MS), r]))
    return bounds.flatMap((t) => {
      const r = byBucket.get(t)
      if (r === undefined) return []
      const [long, short] = pick(r).map(BigInt) as [bigint, bigint]
      if (long === 0n || short === 0n) return []
      return [{ symbol: m.symbol, longShortRatio: ratio4(long, short), longAccount: ratio4(long, long + short),
        shortAccount: ratio4(short, long + short), timestamp: t }]
    })
  }
  route('/futures/data/topLongShortAccountRatio', ['symbol'], longShortRatioSchema, (p) => topRows(p, (r) => [r.longAccounts, r.shortAccounts]))
  route('/futures/data/topLongShortPositionRatio', ['symbol'], longShortRatioSchema, (p) => topRows(p, (r) => [r.longLots, r.shortLots]))

  route('/futures/data/takerlongshortRatio', ['symbol'], takerRatioSchema, async (p) => {
    const m = perpParam(ctx.state(), p)
    const q = query(p)
    const range = rowRange(ctx, q)
    if (range === undefined) return []
    // The period ending at T is the kline opened at T − period; no startTime asks for the newest.
    const endTime = range.to - q.periodMs
    const kq = q.startTime === undefined ? { endTime, limit: q.limit } : { startTime: range.from - q.periodMs, endTime, limit: q.limit }
    const klines = (await ctx.projections.klines(m.marketId, q.period, kq)).filter((k) => k.openTime + q.periodMs >= range.from)
    const decimals = Math.max(4, m.quantityPrecision)
    return klines.flatMap((k) => {
      const buy = BigInt(k.takerBuyVolumeLots)
      const sell = BigInt(k.volumeLots) - buy
      // Takers only bought: no ratio to give.
      if (sell === 0n) return []
      const step = BigInt(m.stepSize)
      return [{ buySellRatio: ratio4(buy, sell), buyVol: wide(buy * step, m.quantityPrecision, decimals),
        sellVol: wide(sell * step, m.quantityPrecision, decimals), timestamp: k.openTime + q.periodMs }]
    })
  })

  route('/futures/data/basis', ['pair', 'contractType'], basisSchema, async (p) => {
    const m = perpOfPair(ctx.state(), p)
    const quarterly = contractTypeParam(p) === 'QUARTERLY'
    const q = query(p)
    if (quarterly) return []
    const range = rowRange(ctx, q)
    if (range === undefined || m.prices.indexE8 === 0) return []
    const bounds = boundsOf(q, range)
    const trades = await lastBefore(bounds, q, (kq) => ctx.projections.klines(m.marketId, q.period, kq), (k) => k.closePriceTicks)
    const index = await lastBefore(bounds, q, (kq) => ctx.projections.priceKlines('index', m.marketId, q.period, kq), (k) => k.close)
    // Price ticks in E8 of the quote, so the basis is exact.
    const toE8 = BigInt(m.tickSize) * 10n ** BigInt(8 - m.pricePrecision)
    return bounds.flatMap((t, i) => {
      const last = trades[i]!
      const indexE8 = index[i]!
      if (last === 0 || indexE8 === 0) return []
      const basisE8 = BigInt(last) * toE8 - BigInt(indexE8)
      return [{ indexPrice: priceE8(m, indexE8), contractType: 'PERPETUAL', basisRate: ratio4(basisE8, BigInt(indexE8)),
        futuresPrice: formatPrice(m, last), annualizedBasisRate: '', basis: formatExact(basisE8, 8, 8), pair: m.pair, timestamp: t }]
    })
  })
}

/** The first and last boundary within reach, startTime and endTime (from 0: no such boundary yet). */
function rowRange(ctx: GatewayContext, q: Query, first = 0): { from: number; to: number } | undefined {
  const now = ctx.now()
  const ceil = (t: number): number => Math.ceil(t / q.periodMs) * q.periodMs
  const from = Math.max(ceil(first), ceil(now - REACH_MS), q.startTime === undefined ? 0 : ceil(q.startTime))
  const to = Math.floor(Math.min(now, q.endTime ?? now) / q.periodMs) * q.periodMs
  return to < from ? undefined : { from, to }
}

/** The boundaries of a range: the newest `limit`, or the oldest from startTime. */
function boundsOf(q: Query, range: { from: number; to: number }): number[] {
  const count = Math.min(q.limit, (range.to - range.from) / q.periodMs + 1)
  const first = q.startTime === undefined ? range.to - (count - 1) * q.periodMs : range.from
  return Array.from({ length: count }, (_, i) => first + i * q.periodMs)
}

/**
 * The open interest and account counts at each boundary: after every change before it, from the
 * first period the market had open interest in. Buckets before the cursor's are stored.
 */
async function positionsAt(ctx: GatewayContext, m: PerpMarket, q: Query): Promise<{ bounds: number[]; records: (OpenInterestRecord | undefined)[] }> {
  const [first] = await ctx.projections.openInterestHistory(m.marketId, { startTime: 0, limit: 1 })
  const current = await ctx.projections.openInterest(m.marketId)
  const firstChange = first?.time ?? current?.time
  if (firstChange === undefined || firstChange === 0) return { bounds: [], records: [] }
  const range = rowRange(ctx, q, firstChange + 1)
  if (range === undefined) return { bounds: [], records: [] }
  const bounds = boundsOf(q, range)
  // Two reads, not one per boundary (500 round trips to the projections' thread, ~6 ms of the
  // main thread a request): the newest change before the first boundary, then every change up
  // to the last one (at most one per 5-minute bucket of the 30 days reached), walked in step.
  const [before] = await ctx.projections.openInterestHistory(m.marketId, { endTime: bounds[0]! - 1, limit: 1 })
  const changes = await ctx.projections.openInterestHistory(m.marketId,
    { startTime: bounds[0]!, endTime: bounds.at(-1)! - 1, limit: PROJECTION_LIMITS.openInterestHistoryMax })
  let last = before
  let i = 0
  const records = bounds.map((t) => {
    if (current !== undefined && current.time < t) return current
    while (i < changes.length && changes[i]!.time < t) last = changes[i++]
    return last
  })
  return { bounds, records }
}

/** The last mark (ticks) before each boundary; sampled marks once the market has oracle prices, before, the last trade. */
function markCloses(ctx: GatewayContext, m: PerpMarket, q: Query, bounds: number[]): Promise<number[]> {
  return m.prices.indexE8 > 0
    ? lastBefore(bounds, q, (kq) => ctx.projections.priceKlines('mark', m.marketId, q.period, kq), (k) => k.close)
    : lastBefore(bounds, q, (kq) => ctx.projections.klines(m.marketId, q.period, kq), (k) => k.closePriceTicks)
}

/**
 * For each boundary, the close of the newest kline of the period's interval that ended by it
 * (0 before any): klines have rows only for intervals with data, so a quiet period carries the
 * last close on.
 */
async function lastBefore<K extends { openTime: number }>(bounds: number[], q: Query,
  read: (kq: { endTime: number; limit: number }) => Promise<K[]>, close: (k: K) => number): Promise<number[]> {
  if (bounds.length === 0) return []
  const klines = await read({ endTime: bounds.at(-1)! - 1, limit: Math.min(1_500, bounds.length + 100) })
  let j = -1
  return bounds.map((t) => {
    while (j + 1 < klines.length && klines[j + 1]!.openTime + q.periodMs <= t) j++
    return j < 0 ? 0 : close(klines[j]!)
  })
}
