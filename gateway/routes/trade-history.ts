// A market's trade klines and aggregate trades: the projections' queries, from the parameters
// every route that serves them reads (futures klines and continuousKlines, spot klines, both
// venues' aggTrades), and the rows of those the WebSocket API answers.

import type { Market } from '../../core/state.js'
import type { PageArgs } from '../../replica/projections/index.js'
import type { GatewayContext } from '../context.js'
import { klineBody } from '../format-market.js'
import { idParam, intervalParam, limitParam, timeParam, type Params } from '../market-params.js'

/** `interval`, `startTime`, `endTime` and `limit` (default 500, at most `limitMax`). */
export async function klineRows(ctx: GatewayContext, m: Market, p: Params, limitMax: number, offsetMs = 0): Promise<(number | string)[][]> {
  return (await ctx.projections.klines(...klineArgs(m, p, limitMax, offsetMs))).map((k) => klineBody(m, k))
}

/** The projections' klines query of such a request (`offsetMs`: the spot time zone's). */
export function klineArgs(m: Market, p: Params, limitMax: number, offsetMs = 0): PageArgs<'klines'> {
  const { interval, q } = klineQuery(p, limitMax, m.kind === 'SPOT')
  return [m.marketId, interval, { ...q, offsetMs }]
}

/** A kline request's interval (1s for spot), time range and limit (default 500, at most `limitMax`), checked. */
export function klineQuery(p: Params, limitMax: number, spot = false) {
  const interval = intervalParam(p, spot)
  return { interval, q: { startTime: timeParam(p, 'startTime'), endTime: timeParam(p, 'endTime'), limit: limitParam(p, 500, limitMax) } }
}

/** `fromId`, `startTime`, `endTime` and `limit` (default 500, at most 1000). */
export function aggTradeArgs(m: Market, p: Params): PageArgs<'aggTrades'> {
  const q = {
    fromId: idParam(p, 'fromId'), startTime: timeParam(p, 'startTime'), endTime: timeParam(p, 'endTime'),
    limit: limitParam(p, 500, 1000),
  }
  return [m.marketId, q]
}
