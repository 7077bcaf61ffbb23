// Reducing a resting spot order's quantity in place (Binance spot's order amend keep
// priority). Unlike a perpetual modify (core/modify.ts), the order does not leave its level:
// it keeps its orderId, its place in the queue and its price, so nothing can trade. The lots
// taken off release what they held, and the order may take a new client id. A spot stop still
// waiting for its price is cut the same way, off any book.

import { amendTarget } from './amend-target.js'
import type { AmendKeepPriority } from './commands.js'
import type { Event, Result } from './events.js'
import { checkQty, validClientId } from './filters.js'
import { LIMITS } from './limits.js'
import { generatedClientId } from './orders.js'
import { orderEvent } from './records.js'
import { acceptOrder, reject } from './results.js'
import { shrinkShown } from './prevention.js'
import { pushSpotBalanceEvent } from './resting.js'
import { holdPrice } from './spot-stops.js'
import { lockFor, unlockSpot } from './spot.js'
import type { State } from './state.js'

export function amendKeepPriority(state: State, cmd: AmendKeepPriority, time: number): Result {
  const target = amendTarget(state, cmd, 'SPOT')
  if (typeof target === 'string') return reject(target)
  const { m, sub, o } = target
  if (m.status !== 'TRADING') return reject('MARKET_NOT_TRADING')
  // An executing OCO leg shares its hold with the other (core/order-lists.ts): cut alone, the share would not add up.
  if (o.list !== null && !o.list.done) return reject('LIST_LEG_AMEND')
  const qty = cmd.qtyLots
  const qtyCode = checkQty(m, qty, false)
  if (qtyCode) return qtyCode === 'QTY_ABOVE_MAX' ? reject('AMEND_QTY_INCREASE') : reject(qtyCode)
  // The quantity is the order's as sent: what self-trade prevention took off (core/prevention.ts) stays taken.
  const sent = o.origQtyLots + o.preventedLots
  if (qty > sent) return reject('AMEND_QTY_INCREASE')
  if (qty === sent) return reject('MODIFY_UNCHANGED')
  // Down to what already filled would leave nothing to rest: a cancel, which the client can send.
  if (qty - o.preventedLots <= o.executedQtyLots) return reject('AMEND_QTY_FILLED')
  // A stop waiting for its price (core/spot-stops.ts) is on no level: it holds at its holdPrice.
  const price = o.cond !== null ? holdPrice(o) : o.priceTicks
  if (price * qty * m.quotePerTickLot < m.minNotional) return reject('NOTIONAL_TOO_SMALL')
  if (o.amendCount >= LIMITS.amendmentsPerOrderMax) return reject('MODIFY_LIMIT_REACHED')
  const newId = cmd.newClientOrderId
  if (newId !== undefined) {
    if (typeof newId !== 'string' || !validClientId(newId)) return reject('CLIENT_ID_INVALID')
    if (newId !== o.clientOrderId && sub.orders.has(newId)) return reject('CLIENT_ID_DUPLICATE')
  }

  const amendment = { priceBeforeTicks: o.priceTicks, origQtyBeforeLots: sent, count: o.amendCount + 1,
    clientOrderIdBefore: o.clientOrderId }
  const cut = sent - qty
  o.origQtyLots -= cut
  shrinkShown(o)
  // What the cut lots held: at the limit price, or a waiting stop's at its holdPrice.
  unlockSpot(o, lockFor(m, o, cut, price))
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
