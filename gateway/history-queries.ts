// The caller's history in one market as Binance's lists ask for it: fills (futures userTrades /
// myTrades, spot myTrades: orderId, fromId, a time range of at most 24 hours, limit 500/1000)
// and orders (allOrders of both venues and allAlgoOrders: orderId or a time range of at most 7
// days on USDⓈ-M, the last 7 by default, and 24 hours on spot; limit 500/1000), as the venue's
// history rule shows them (replica/projections/order-retention.ts). A spot market's time range
// may be sent in µs as well as ms (market-params.ts timeRange).

import { PROJECTION_LIMITS } from '../core/limits.js'
import type { Market } from '../core/state.js'
import type { PageArgs } from '../replica/projections/index.js'
import type { Authenticated } from './auth.js'
import { combinationInvalid } from './errors.js'
import { idParam, limitParam, timeRange } from './market-params.js'

const DAY_MS = 86_400_000

/**
 * The projections' userTrades query the request asks, its parameters checked: `fromId` with a
 * time bound is -1128 on both venues (Binance USD-M: "fromId cannot be sent with startTime or
 * endTime"), and on spot `orderId` with one too (its table of supported combinations).
 */
export function userTradesArgs(a: Authenticated, m: Market): PageArgs<'userTrades'> {
  const orderId = idParam(a.params, 'orderId')
  const range = timeRange(a.params, DAY_MS, m.kind === 'SPOT')
  const fromId = idParam(a.params, 'fromId')
  const timed = range.startTime !== undefined || range.endTime !== undefined
  if (timed && (fromId !== undefined || (orderId !== undefined && m.kind === 'SPOT'))) throw combinationInvalid()
  const limit = limitParam(a.params, 500, 1000)
  return [{ account: a.session.account, sub: a.session.sub }, m.marketId,
    { ...range, ...(orderId !== undefined ? { orderId } : {}), ...(fromId !== undefined ? { fromId } : {}), limit, spot: m.kind === 'SPOT' }]
}

/**
 * The projections' allOrders query the request asks, its parameters checked; `now` ends the
 * default window. `algo`: allAlgoOrders', conditional orders only, from the order its algoId
 * names (if any) on.
 */
export function allOrdersArgs(a: Authenticated, m: Market, now: number, algo?: { orderId: number | undefined }): PageArgs<'allOrders'> {
  const spot = m.kind === 'SPOT'
  const window = spot ? PROJECTION_LIMITS.spotOrderHistoryWindowMs : PROJECTION_LIMITS.perpOrderHistoryWindowMs
  const orderId = algo !== undefined ? algo.orderId : idParam(a.params, 'orderId')
  const limit = limitParam(a.params, 500, 1000)
  const range = timeRange(a.params, window, spot)
  // USDⓈ-M's: with neither orderId nor startTime, the newest orders of the 7 days to endTime or now.
  const floor = !spot && orderId === undefined && range.startTime === undefined ? { floorTime: (range.endTime ?? now) - window } : {}
  return [{ account: a.session.account, sub: a.session.sub }, m.marketId,
    { ...range, ...floor, ...(orderId !== undefined ? { orderId } : {}), limit, spot, ...(algo !== undefined ? { conditionalOnly: true } : {}) }]
}
