// A market's trade klines and aggregate trades: the projections' queries, from the parameters
// every route that serves them reads (futures klines and continuousKlines, spot klines, both
// venues' aggTrades, and the spot WebSocket API's methods for them).

import type { Market } from '../../core/state.js'
import type { PageArgs } from '../../replica/projections/index.js'
import type { PagePlan } from '../pages.js'
import { idParam, intervalParam, limitParam, timeParam, type Params } from '../market-params.js'

/**
 * A kline request's page: `interval`, `startTime`, `endTime` and `limit` (default 500, at most
 * `limitMax`); `offsetMs`, the spot time zone's.
 */
export function klinesPage(m: Market, p: Params, limitMax: number, offsetMs = 0): PagePlan {
  const { interval, q } = klineQuery(p, limitMax, m.kind === 'SPOT')
  return { form: 'klines', market: m, query: 'klines', args: [m.marketId, interval, { ...q, offsetMs, gapless: true }] }
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
