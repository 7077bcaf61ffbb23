// Reducing an open spot order's quantity in place (Binance spot's order amend keep priority).
// Unlike a perpetual modify (core/modify.ts), the order does not leave its level: it keeps its
// orderId, its place in the queue and its price, so nothing can trade. The lots taken off
// release what they held, and the order may take a new client id. A spot stop still waiting for
// its price is cut the same way, off any book, and so is an OTO list's pending order. An OCO
// pair's two orders share one quantity: amending either cuts both (Binance's amend FAQ).

import { amendTarget } from './amend-target.js'
import type { AmendKeepPriority } from './commands.js'
import type { Event, Result } from './events.js'
import type { Code } from './codes.js'
import { checkQty, validClientId } from './filters.js'
import { LIMITS } from './limits.js'
import { inOcoPair, listEvent, rebalanceOcoHolds } from './order-lists.js'
import { generatedClientId } from './orders.js'
import { orderEvent } from './records.js'
import { acceptOrder, reject } from './results.js'
import { heldPrice, pushSpotBalanceEvent, shrinkOrder } from './resting.js'
import type { Order, SpotMarket, State } from './state.js'

export function amendKeepPriority(state: State, cmd: AmendKeepPriority, time: number): Result {
  const target = amendTarget(state, cmd, 'SPOT')
  if (typeof target === 'string') return reject(target)
  const { m, sub, o } = target
  if (m.status !== 'TRADING') return reject('MARKET_NOT_TRADING')
  const qty = cmd.qtyLots
  const qtyCode = checkQty(m, qty, false)
  if (qtyCode) return qtyCode === 'QTY_ABOVE_MAX' ? reject('AMEND_QTY_INCREASE') : reject(qtyCode)
  const cuts = sharingQuantity(o)
  for (const x of cuts) {
    const code = amendCode(m, x, qty)
    if (code !== null) return reject(code)
  }
  const newId = cmd.newClientOrderId
  if (newId !== undefined) {
    if (typeof newId !== 'string' || !validClientId(newId)) return reject('CLIENT_ID_INVALID')
    if (newId !== o.clientOrderId && sub.orders.has(newId)) return reject('CLIENT_ID_DUPLICATE')
  }

  const events: Event[] = []
  const idBefore = o.clientOrderId
  for (const x of cuts) {
    const sent = x.origQtyLots + x.preventedLots
    const amendment = { priceBeforeTicks: x.priceTicks, origQtyBeforeLots: sent, count: x.amendCount + 1,
      clientOrderIdBefore: x.clientOrderId }
    // What the cut lots held goes back; a pending order holds nothing for its quantity yet (an
    // OPO's proceeds are not), and a pair's holds are recomputed below.
    shrinkOrder(x, sent - qty, cuts.length === 1 && x.status !== 'PENDING_NEW')
    // The order named takes the new client id; an OCO pair's other keeps its own.
    if (x === o) {
      const clientOrderId = newId ?? generatedClientId(m, o)
      if (clientOrderId !== o.clientOrderId) {
        sub.orders.rename(o.clientOrderId, clientOrderId)
        o.clientOrderId = clientOrderId
      }
    }
    x.amendCount = amendment.count
    x.updateTime = time
    const e = orderEvent(x, 'REPLACED')
    e.amendment = amendment
    events.push(e)
  }
  if (inOcoPair(o)) rebalanceOcoHolds(m, o.list!)
  pushSpotBalanceEvent(o, time, events)
  // A list's order under a new client id: the list names it so from now on (Binance's listStatus UPDATED).
  const list = o.list
  if (list !== null && !list.done && o.clientOrderId !== idBefore) {
    list.orders = list.orders.map((x) => x.orderId === o.orderId ? { orderId: x.orderId, clientOrderId: o.clientOrderId } : x)
    events.push(listEvent(list, sub, 'UPDATED', time))
  }
  return acceptOrder(events, o.orderId)
}

/**
 * The orders an amendment of `o` cuts, `o` first: an OCO pair's two (an OCO list's, or an OTOCO
 * list's, placed or pending) share one quantity, so amending either amends both (Binance's
 * amend FAQ); an OTO list's working and pending orders are amended alone.
 */
function sharingQuantity(o: Order): Order[] {
  const list = o.list
  if (list === null || list.done) return [o]
  const pendingPair = list.working !== null && list.working !== o && list.legs.length === 3
  if (!inOcoPair(o) && !pendingPair) return [o]
  return [o, ...list.legs.filter((x) => x !== o && x !== list.working)]
}

/** Why `o` cannot be amended to `qty` (its quantity as sent: what self-trade prevention took off, core/prevention.ts, stays taken), or null. */
function amendCode(m: SpotMarket, o: Order, qty: number): Code | null {
  const sent = o.origQtyLots + o.preventedLots
  if (qty > sent) return 'AMEND_QTY_INCREASE'
  if (qty === sent) return 'MODIFY_UNCHANGED'
  // Down to what already filled would leave nothing to rest: a cancel, which the client can send.
  if (qty - o.preventedLots <= o.executedQtyLots) return 'AMEND_QTY_FILLED'
  // A market form has no price to check: its notional is checked as it is placed.
  const price = heldPrice(o)
  if (price !== 0 && price * qty * m.quotePerTickLot < m.minNotional) return 'NOTIONAL_TOO_SMALL'
  if (o.amendCount >= LIMITS.amendmentsPerOrderMax) return 'MODIFY_LIMIT_REACHED'
  return null
}
