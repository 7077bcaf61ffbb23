// Reducing a resting spot order's quantity in place (Binance spot's order amend keep
// priority). Unlike a perpetual modify (core/modify.ts), the order does not leave its level:
// it keeps its orderId, its place in the queue and its price, so nothing can trade. The lots
// taken off release what they held, and the order may take a new client id.

import { findSub, validIssuer } from './accounts.js'
import type { AmendKeepPriority } from './commands.js'
import type { Event, Result } from './events.js'
import { checkQty, validClientId } from './filters.js'
import { LIMITS } from './limits.js'
import { generatedClientId } from './orders.js'
import { orderEvent } from './records.js'
import { acceptOrder, reject } from './results.js'
import { pushSpotBalanceEvent } from './resting.js'
import { lockFor } from './spot.js'
import type { Order, SpotMarket, State, SubAccount } from './state.js'

function findResting(m: SpotMarket, sub: SubAccount, cmd: AmendKeepPriority): Order | undefined {
  // orderId prevails when both are sent (Binance); the client id must then agree.
  const o = cmd.orderId !== undefined ? m.book.orders.get(cmd.orderId) : sub.orders.get(cmd.clientOrderId!)
  if (o === undefined || o.owner !== sub || o.market !== m) return undefined
  if (cmd.clientOrderId !== undefined && o.clientOrderId !== cmd.clientOrderId) return undefined
  return o
}

export function amendKeepPriority(state: State, cmd: AmendKeepPriority, time: number): Result {
  const m = state.markets[cmd.marketId]
  if (m === undefined || !Number.isInteger(cmd.marketId) || m.kind !== 'SPOT') return reject('MARKET_UNKNOWN')
  const sub = findSub(state, cmd)
  if (sub === undefined && !validIssuer(cmd)) return reject('ACCOUNT_INVALID')
  if (cmd.orderId === undefined && cmd.clientOrderId === undefined) return reject('ORDER_ID_REQUIRED')
  const o = sub && findResting(m, sub, cmd)
  if (sub === undefined || o === undefined) return reject('ORDER_UNKNOWN')
  if (m.status !== 'TRADING') return reject('MARKET_NOT_TRADING')
  const qty = cmd.qtyLots
  const qtyCode = checkQty(m, qty, false)
  if (qtyCode) return qtyCode === 'QTY_ABOVE_MAX' ? reject('AMEND_QTY_INCREASE') : reject(qtyCode)
  if (qty > o.origQtyLots) return reject('AMEND_QTY_INCREASE')
  if (qty === o.origQtyLots) return reject('MODIFY_UNCHANGED')
  // Down to what already filled would leave nothing to rest: a cancel, which the client can send.
  if (qty <= o.executedQtyLots) return reject('AMEND_QTY_FILLED')
  if (o.priceTicks * qty * m.quotePerTickLot < m.minNotional) return reject('NOTIONAL_TOO_SMALL')
  if (o.amendCount >= LIMITS.amendmentsPerOrderMax) return reject('MODIFY_LIMIT_REACHED')
  const newId = cmd.newClientOrderId
  if (newId !== undefined) {
    if (typeof newId !== 'string' || !validClientId(newId)) return reject('CLIENT_ID_INVALID')
    if (newId !== o.clientOrderId && sub.orders.has(newId)) return reject('CLIENT_ID_DUPLICATE')
  }

  const amendment = { priceBeforeTicks: o.priceTicks, origQtyBeforeLots: o.origQtyLots, count: o.amendCount + 1,
    clientOrderIdBefore: o.clientOrderId }
  const cut = o.origQtyLots - qty
  o.level!.qtyLots -= cut
  o.origQtyLots = qty
  const released = lockFor(m, o, cut, o.priceTicks)
  const b = sub.spot.get(o.side === 'BUY' ? m.quote : m.base)!
  b.locked -= released
  b.free += released
  o.lockedRemaining -= released
  const clientOrderId = newId ?? generatedClientId(m, o)
  if (clientOrderId !== o.clientOrderId) {
    sub.orders.rename(o.clientOrderId, clientOrderId)
    o.clientOrderId = clientOrderId
  }
  o.amendCount = amendment.count
  o.updateTime = time
  const e = orderEvent(o, 'REPLACED')
  e.amendment = amendment
  const events: Event[] = [e]
  pushSpotBalanceEvent(o, time, events)
  return acceptOrder(events, o.orderId)
}
