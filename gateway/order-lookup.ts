// Finding the caller's order for query and cancel answers: by orderId or origClientOrderId,
// open orders from the replica state, closed ones from the order history projection.

import { openOrderOf } from '../core/resting.js'
import type { Market } from '../core/state.js'
import type { Authenticated } from './auth.js'
import type { GatewayContext } from './context.js'
import { fieldsOfOrder, type OrderFields } from './format-order.js'
import { orderRefParam } from './market-params.js'

/** The caller's order by orderId or origClientOrderId: open ones from state, others from history. */
export async function findOrder(ctx: GatewayContext, a: Authenticated, m: Market): Promise<OrderFields | undefined> {
  const { orderId, clientOrderId: clientId } = orderRefParam(a.params)
  const sub = a.sub
  const open = orderId !== undefined ? openOrderOf(m, orderId) : sub?.orders.get(clientId!)
  if (open && open.owner === sub && open.market === m && (clientId === undefined || open.clientOrderId === clientId)) {
    return fieldsOfOrder(open)
  }
  await ctx.projections.readable()
  const owner = { account: a.session.account, sub: a.session.sub }
  const rec = orderId !== undefined
    ? await ctx.projections.order(owner, m.marketId, orderId, m.kind === 'SPOT')
    : await ctx.projections.orderByClientId(owner, m.marketId, clientId!, m.kind === 'SPOT')
  if (rec && clientId !== undefined && rec.clientOrderId !== clientId) return undefined
  return rec
}

