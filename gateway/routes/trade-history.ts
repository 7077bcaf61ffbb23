// A market's trade klines and aggregate trades: the projections' queries, from the parameters
// every route that serves them reads (futures klines and continuousKlines, spot klines, both
// venues' aggTrades, and the spot WebSocket API's methods for them).

import type { Market } from '../../core/state.js'
import type { PageArgs } from '../../replica/projections/index.js'
import type { PagePlan } from '../pages.js'
import { idParam, intervalParam, limitParam, timeBounds, type Params } from '../market-params.js'

/**
 * A kline request's page: `interval`, `startTime`, `endTime` and `limit` (default 500, at most
 * `limitMax`); `offsetMs`, the spot time zone's.
 */
export function klinesPage(m: Market, p: Params, limitMax: number, offsetMs = 0): PagePlan {
  const { interval, q } = klineQuery(p, limitMax, m.kind === 'SPOT')
  return { form: 'klines', market: m, query: 'klines', args: [m.marketId, interval, { ...q, offsetMs, gapless: true }] }
}

/**
 * A kline request's interval, time range and limit (default 500, at most `limitMax`), checked;
 * `spot`: a spot market's (1s intervals, and times in ms or µs as Binance spot takes them).
 */
export function klineQuery(p: Params, limitMax: number, spot = false) {
  const interval = intervalParam(p, spot)
  return { interval, q: { ...timeBounds(p, spot), limit: limitParam(p, 500, limitMax) } }
}

/** `fromId`, `startTime`, `endTime` (a spot market's in ms or µs) and `limit` (default 500, at most 1000). */
export function aggTradeArgs(m: Market, p: Params): PageArgs<'aggTrades'> {
  const q = { fromId: idParam(p, 'fromId'), ...timeBounds(p, m.kind === 'SPOT'), limit: limitParam(p, 500, 1000) }
  return [m.marketId, q]
}
