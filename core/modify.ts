// Amending a resting perpetual LIMIT order (Binance's modify order): a new price and total
// quantity, the same orderId and client id. The order leaves its place in the queue and
// re-enters as a taker would at the new price: it may trade at once, and what is left rests
// at the back of its level. Every check runs before the first change, as placement's do:
// the market's filters (through buildOrder), reduce-only room, and the margin the order
// would need on an account without its old self. Built only from placement's exported
// parts, so the two can never drift apart on what a resting order holds.

import { amendTarget } from './amend-target.js'
import type { Code } from './codes.js'
import type { ModifyOrder, PlaceOrder } from './commands.js'
import type { Event, Result } from './events.js'
import { buildOrder, crosses, remaining } from './filters.js'
import { sweep } from './match.js'
import { LIMITS } from './limits.js'
import { bandCode } from './price-band.js'
import { isPriceMatch, priceMatchLiteral, resolvePriceMatch } from './price-match.js'
import { isClosing, orderEvent } from './records.js'
import { acceptOrder, reject } from './results.js'
import { addMarginLots, rest, retire, unrest } from './resting.js'
import { checkOrderMargin } from './risk.js'
import { positionOf, type Order, type PerpMarket, type State, type SubAccount } from './state.js'

/** The market's filters on the new price and quantity, as a placement of the same order would meet them. */
function checkFilters(m: PerpMarket, sub: SubAccount, o: Order, cmd: ModifyOrder, priceTicks: number | undefined,
  time: number): Code | null {
  const probe: PlaceOrder = {
    type: 'PlaceOrder', account: cmd.account, sub: cmd.sub, marketId: m.marketId, side: o.side, orderType: 'LIMIT',
    // GTC: a GTD order's date was checked when it was placed and is not being changed.
    timeInForce: 'GTC', priceTicks, qtyLots: cmd.qtyLots, positionSide: o.positionSide,
    reduceOnly: o.reduceOnly,
  }
  const built = buildOrder(m, sub, sub.dualSide, probe, time)
  if (typeof built !== 'string') return null
  return built === 'NOTIONAL_TOO_SMALL' ? 'MODIFY_NOTIONAL_TOO_SMALL' : built
}

/** The new price: the command's own, or the one its priceMatch takes from the book. */
function newPrice(m: PerpMarket, o: Order, cmd: ModifyOrder): number | undefined | Code {
  if (cmd.priceMatch === undefined || cmd.priceMatch === 'NONE') return cmd.priceTicks
  if (!isPriceMatch(cmd.priceMatch)) return 'PRICE_MATCH_INVALID'
  if (cmd.priceTicks !== undefined) return 'PRICE_NOT_ALLOWED'
  return resolvePriceMatch(m, o.side, cmd.priceMatch)
}

/**
 * Margin as a placement of the amended order would need it, the old remainder taken out of
 * the holding's aggregates for the check and put back. An amendment that shrinks the order's
 * lots and notional needs less than the order already holds, so it always passes.
 */
function checkMargin(state: State, sub: SubAccount, m: PerpMarket, o: Order, priceTicks: number, left: number): Code | null {
  const oldLeft = remaining(o)
  if (left <= oldLeft && left * priceTicks <= oldLeft * o.priceTicks) return null
  const h = sub.perp.get(m.marketId)!
  addMarginLots(h, o, -oldLeft)
  const code = checkOrderMargin(state, sub, m, o.side, left, left * priceTicks)
  addMarginLots(h, o, oldLeft)
  return code
}

export function modifyOrder(state: State, cmd: ModifyOrder, time: number): Result {
  const target = amendTarget(state, cmd, 'PERP')
  if (typeof target === 'string') return reject(target)
  const { m, sub, o } = target
  if (m.status !== 'TRADING') return reject('MODIFY_NOT_TRADING')
  // POST_ONLY is a limit order with GTX under another name; stop orders will not qualify.
  if (o.orderType !== 'LIMIT' && o.orderType !== 'POST_ONLY') return reject('MODIFY_LIMIT_ONLY')
  if (cmd.side !== o.side) return reject('SIDE_INVALID')
  if (o.amendCount >= LIMITS.amendmentsPerOrderMax) return reject('MODIFY_LIMIT_REACHED')
  const price = newPrice(m, o, cmd)
  if (typeof price === 'string') return reject(price)
  const filterCode = checkFilters(m, sub, o, cmd, price, time)
  if (filterCode) return reject(filterCode)
  // The filters passed, so the price is there.
  const priceTicks = price!
  if (priceTicks === o.priceTicks && cmd.qtyLots === o.origQtyLots) return reject('MODIFY_UNCHANGED')
  // A new price must be in the band; a quantity change keeps the price it had.
  const band = priceTicks === o.priceTicks ? null : bandCode(m, o.side, priceTicks)
  if (band) return reject(band)

  const events: Event[] = []
  // Binance cancels, rather than refuses, an amendment to no more than what already filled,
  // and a post-only one whose new price would take.
  const isBuy = o.side === 'BUY'
  const best = m.book.side(!isBuy).best()
  if (cmd.qtyLots <= o.executedQtyLots
    || (o.timeInForce === 'GTX' && best !== undefined && crosses(isBuy, priceTicks, best.priceTicks))) {
    retire(o, 'CANCELED', 'CANCELED', time, events)
    return acceptOrder(events, o.orderId)
  }

  const left = cmd.qtyLots - o.executedQtyLots
  if (isClosing(o)) {
    const q = positionOf(sub.perp.get(m.marketId)!, o.positionSide).qtyLots
    if (left > (o.side === 'SELL' ? q : -q)) return reject('REDUCE_ONLY_REJECTED')
  }
  if (o.marginCounted) {
    const marginCode = checkMargin(state, sub, m, o, priceTicks, left)
    if (marginCode) return reject(marginCode)
  }
  // A new price needs a level: room for one, unless the order leaves its own level empty.
  if (priceTicks !== o.priceTicks && !m.book.side(isBuy).canAddLevel(priceTicks) && o.level!.count > 1) {
    return reject('TOO_MANY_ORDERS')
  }

  unrest(o)
  const amendment = { priceBeforeTicks: o.priceTicks, origQtyBeforeLots: o.origQtyLots, count: o.amendCount + 1 }
  o.priceTicks = priceTicks
  o.origQtyLots = cmd.qtyLots
  o.updateTime = time
  o.amendCount = amendment.count
  // The record shows the mode the current price came from; an explicit price clears it.
  if (cmd.priceMatch !== undefined && cmd.priceMatch !== 'NONE') o.priceMatch = priceMatchLiteral(cmd.priceMatch)
  else if (o.priceMatch !== undefined) o.priceMatch = undefined
  const e = orderEvent(o, 'AMENDMENT')
  e.amendment = amendment
  events.push(e)
  const end = sweep(state, m, o, time, events)
  if (remaining(o) > 0) {
    if (end === 'DONE') {
      rest(o)
    } else {
      const status = end === 'STP' ? 'EXPIRED_IN_MATCH' : 'EXPIRED'
      o.status = status
      o.updateTime = time
      events.push(orderEvent(o, status))
    }
  }
  return acceptOrder(events, o.orderId)
}
