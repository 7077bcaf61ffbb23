// GET /fapi/v1/orderAmendment: one order's amendments (replica/projections/amendments.ts) in
// Binance's row shape, newest first. The order is named as a query names it: by orderId, or
// by origClientOrderId (open, or in the order history).

import { PROJECTION_LIMITS } from '../core/limits.js'
import type { Authenticated } from './auth.js'
import type { GatewayContext } from './context.js'
import { formatPrice, formatQty } from './decimal.js'
import { fromCore } from './errors.js'
import { limitParam, perpParam, timeRange } from './market-params.js'
import { findOrder } from './order-lookup.js'

export async function amendmentHistory(ctx: GatewayContext, a: Authenticated): Promise<object[]> {
  const state = ctx.state()
  const m = perpParam(state, a.params)
  const range = timeRange(a.params)
  const limit = limitParam(a.params, 50, PROJECTION_LIMITS.orderAmendmentsMax)
  const order = await findOrder(ctx, a, m)
  if (order === undefined) throw fromCore('ORDER_UNKNOWN', { venue: 'futures', op: 'query' })
  // Amendments of an order still open are as new as the state it was found in.
  await ctx.projections.readable()
  const owner = { account: a.session.account, sub: a.session.sub }
  const rows = await ctx.projections.orderAmendments(owner, m.marketId, order.orderId, { ...range, limit })
  return rows.map((r) => ({
    amendmentId: r.amendmentId, symbol: m.symbol, pair: m.pair, orderId: r.orderId, clientOrderId: r.clientOrderId,
    time: r.time,
    amendment: {
      price: { before: formatPrice(m, r.priceBeforeTicks), after: formatPrice(m, r.priceAfterTicks) },
      origQty: { before: formatQty(m, r.origQtyBeforeLots), after: formatQty(m, r.origQtyAfterLots) },
      count: r.count,
    },
  }))
}
