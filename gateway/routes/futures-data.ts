// Binance's futures statistics under /futures/data: openInterestHist, the open interest of a
// perpetual at each period boundary of the last 30 days, with its value at the period's last
// mark price. The projections keep the last open interest of each 5-minute bucket that saw a
// change (replica/projections/market-writer.ts) and the market cursor the current one.

import type { FastifyPluginAsync } from 'fastify'
import type { PerpMarket } from '../../core/state.js'
import type { GatewayContext } from '../context.js'
import { formatExact } from '../decimal.js'
import { invalidParam } from '../errors.js'
import { limitParam, perpParam, required, timeRange, type Params } from '../market-params.js'
import { arrayOf, int, object, str } from '../schemas/common.js'
import type { WeightCounter } from '../weights.js'
import { publicGet } from './public-get.js'

const MIN = 60_000
/** Binance's periods; each is also a kline interval, whose mark klines price the rows. */
const PERIODS = { '5m': 5 * MIN, '15m': 15 * MIN, '30m': 30 * MIN, '1h': 60 * MIN, '2h': 120 * MIN, '4h': 240 * MIN,
  '6h': 360 * MIN, '12h': 720 * MIN, '1d': 1_440 * MIN } as const
type Period = keyof typeof PERIODS
/** Binance serves the last month only. */
const REACH_MS = 30 * 1_440 * MIN

export const openInterestHistSchema = arrayOf(object({ symbol: str, sumOpenInterest: str, sumOpenInterestValue: str, timestamp: int }))

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

function periodParam(p: Params): Period {
  const v = required(p, 'period')
  if (!Object.hasOwn(PERIODS, v)) throw invalidParam('period')
  return v as Period
}

/** Binance pads quantities and values to 8 decimals (more when the market's are finer). */
const wide = (units: bigint, decimals: number): string => formatExact(units, decimals, Math.max(8, decimals))

export const futuresDataRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  publicGet(app, weights, {
    url: '/futures/data/openInterestHist', params: ['symbol', 'period', 'limit', 'startTime', 'endTime'],
    response: openInterestHistSchema, weight: 1,
    handler: async (p) => {
      const m = perpParam(ctx.state(), p)
      const periodMs = PERIODS[periodParam(p)]
      const limit = limitParam(p, 30, 500)
      const { startTime, endTime } = timeRange(p)
      return openInterestRows(ctx, m, periodMs, limit, startTime, endTime)
    },
  })
}

/**
 * The rows' boundaries: multiples of the period within reach, from the first period the market
 * had open interest in; the newest `limit` of the range, or the oldest from startTime.
 */
async function openInterestRows(ctx: GatewayContext, m: PerpMarket, periodMs: number, limit: number,
  startTime: number | undefined, endTime: number | undefined): Promise<object[]> {
  const now = ctx.now()
  const [first] = await ctx.projections.openInterestHistory(m.marketId, { startTime: 0, limit: 1 })
  const current = await ctx.projections.openInterest(m.marketId)
  const firstChange = first?.time ?? current?.time
  if (firstChange === undefined || firstChange === 0) return []
  const ceil = (t: number): number => Math.ceil(t / periodMs) * periodMs
  const lo = Math.max(ceil(firstChange + 1), ceil(now - REACH_MS), startTime === undefined ? 0 : ceil(startTime))
  const hi = Math.floor(Math.min(now, endTime ?? now) / periodMs) * periodMs
  if (hi < lo) return []
  const count = Math.min(limit, (hi - lo) / periodMs + 1)
  const from = startTime === undefined ? hi - (count - 1) * periodMs : lo
  const bounds = Array.from({ length: count }, (_, i) => from + i * periodMs)

  // The open interest at T: after every change before T. Buckets before the cursor's are stored.
  const lots = await Promise.all(bounds.map(async (t) => {
    if (current !== undefined && current.time < t) return current.openInterestLots
    const [r] = await ctx.projections.openInterestHistory(m.marketId, { endTime: t - 1, limit: 1 })
    return r?.openInterestLots ?? 0
  }))
  const marks = await markCloses(ctx, m, periodMs, bounds)
  return bounds.map((t, i) => ({
    symbol: m.symbol,
    sumOpenInterest: wide(BigInt(lots[i]!) * BigInt(m.stepSize), m.quantityPrecision),
    sumOpenInterestValue: wide(BigInt(lots[i]!) * BigInt(marks[i]!) * BigInt(m.stepSize) * BigInt(m.tickSize),
      m.quantityPrecision + m.pricePrecision),
    timestamp: t,
  }))
}

/** The last mark (ticks) before each boundary: the close of the newest mark kline ending by it. */
async function markCloses(ctx: GatewayContext, m: PerpMarket, periodMs: number, bounds: number[]): Promise<number[]> {
  const interval = (Object.keys(PERIODS) as Period[]).find((k) => PERIODS[k] === periodMs)!
  const q = { endTime: bounds.at(-1)! - 1, limit: Math.min(1_500, bounds.length + 100) }
  // Sampled marks once the market has oracle prices; before, the mark was the last trade.
  const klines = m.prices.indexE8 > 0
    ? (await ctx.projections.priceKlines('mark', m.marketId, interval, q)).map((k) => [k.openTime, k.close] as const)
    : (await ctx.projections.klines(m.marketId, interval, q)).map((k) => [k.openTime, k.closePriceTicks] as const)
  let j = -1
  return bounds.map((t) => {
    while (j + 1 < klines.length && klines[j + 1]![0] + periodMs <= t) j++
    return j < 0 ? 0 : klines[j]![1]
  })
}
