// The caller's fills in one market as Binance's trade lists ask for them (futures userTrades /
// myTrades, spot myTrades): orderId, fromId, a time range of at most 24 hours, limit 500/1000.

import type { Market } from '../core/state.js'
import type { UserTradeRecord } from '../replica/projections/index.js'
import type { Authenticated } from './auth.js'
import type { GatewayContext } from './context.js'
import { idParam, limitParam, timeRange } from './market-params.js'

const DAY_MS = 86_400_000

export async function userTradesOf(ctx: GatewayContext, a: Authenticated, m: Market): Promise<UserTradeRecord[]> {
  const orderId = idParam(a.params, 'orderId')
  const range = timeRange(a.params, DAY_MS)
  const fromId = idParam(a.params, 'fromId')
  const limit = limitParam(a.params, 500, 1000)
  await ctx.projections.flush()
  return ctx.projections.userTrades({ account: a.session.account, sub: a.session.sub }, m.marketId,
    { ...range, ...(orderId !== undefined ? { orderId } : {}), ...(fromId !== undefined ? { fromId } : {}), limit })
}
