// The trade klines and aggregate trades of a market from the projections, with the query
// parameters every route that serves them reads: futures klines and continuousKlines, spot
// klines, and both venues' aggTrades.

import type { Market } from '../../core/state.js'
import type { GatewayContext } from '../context.js'
import { aggTradeBody, klineBody } from '../format-market.js'
import { idParam, intervalParam, limitParam, timeParam, type Params } from '../market-params.js'

/** `interval`, `startTime`, `endTime` and `limit` (default 500, at most `limitMax`). */
export async function klineRows(ctx: GatewayContext, m: Market, p: Params, limitMax: number, offsetMs = 0): Promise<(number | string)[][]> {
  const { interval, q } = klineQuery(p, limitMax, m.kind === 'SPOT')
  return (await ctx.projections.klines(m.marketId, interval, { ...q, offsetMs })).map((k) => klineBody(m, k))
}

/** A kline request's interval (1s for spot), time range and limit (default 500, at most `limitMax`), checked. */
export function klineQuery(p: Params, limitMax: number, spot = false) {
  const interval = intervalParam(p, spot)
  return { interval, q: { startTime: timeParam(p, 'startTime'), endTime: timeParam(p, 'endTime'), limit: limitParam(p, 500, limitMax) } }
}

/** `fromId`, `startTime`, `endTime` and `limit` (default 500, at most 1000). */
export async function aggTradeRows(ctx: GatewayContext, m: Market, p: Params): Promise<object[]> {
  const q = {
    fromId: idParam(p, 'fromId'), startTime: timeParam(p, 'startTime'), endTime: timeParam(p, 'endTime'),
    limit: limitParam(p, 500, 1000),
  }
  return (await ctx.projections.aggTrades(m.marketId, q)).map((a) => aggTradeBody(m, a))
}
