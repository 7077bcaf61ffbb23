// Spot stop orders: Binance spot's STOP_LOSS and TAKE_PROFIT (a market order at the trigger)
// and STOP_LOSS_LIMIT and TAKE_PROFIT_LIMIT (a limit order), here STOP_MARKET, TAKE_PROFIT_MARKET,
// STOP and TAKE_PROFIT on a spot market. A stop waits off the book for the market's last trade
// price to reach its stopPrice (STOP BUY and TAKE_PROFIT SELL as it rises, the others as it
// falls), holding what it will need: a limit form its limit order's lock, a market sell its
// base, a market buy its quantity's cost at the stop price. At the trigger it lets that go
// and is placed as the LIMIT or MARKET order it becomes, with the same checks and locks as any
// placement (a market buy locks the book's exact cost then); refused, it expires with the code
// as its reason. Perpetual conditional orders (core/conditional.ts) watch marks and trail; these
// only watch the last price, so they keep a smaller index of their own.

import { ensureSpotBalance, spotBalance } from './accounts.js'
import { checkTriggerPrice, rising } from './conditional.js'
import type { Code } from './codes.js'
import type { PlaceOrder } from './commands.js'
import type { Event, Result } from './events.js'
import { buildOrder } from './filters.js'
import { LIMITS } from './limits.js'
import { generatedClientId, placeTriggeredSpot } from './orders.js'
import { endList } from './order-lists.js'
import { orderEvent } from './records.js'
import { acceptOrder } from './results.js'
import { countOpen, pushSpotBalanceEvent, releaseSpotLock } from './resting.js'
import { lockFor, lockSpot } from './spot.js'
import type { Conditional, Order, OrderList, SpotMarket, State, SubAccount } from './state.js'
import { conditionalTypeOf, TriggerHeap, type TriggerEntry } from './trigger-index.js'

/**
 * A spot market's orders off the book: waiting stops by orderId, and by stop price in two heaps
 * (core/trigger-index.ts); and OTO lists' pending orders (core/oto-lists.ts).
 */
export interface SpotStops {
  live: Map<number, Order>
  /** Fire as the price rises (price ≥ stop): STOP BUY, TAKE_PROFIT SELL. */
  up: TriggerHeap
  /** Fire as the price falls (price ≤ stop): STOP SELL, TAKE_PROFIT BUY. */
  down: TriggerHeap
  /** OTO lists' pending orders (PENDING_NEW) by orderId: they hold nothing until placed. */
  pending: Map<number, Order>
  /** OTO lists whose working order filled in full during the command: placed after it (empty between commands). */
  activations: OrderList[]
}

export function newSpotStops(): SpotStops {
  return { live: new Map(), up: new TriggerHeap(true), down: new TriggerHeap(false), pending: new Map(), activations: [] }
}

function isLimitForm(c: Conditional): boolean {
  return c.origType === 'STOP' || c.origType === 'TAKE_PROFIT'
}

/** What a waiting stop holds: a limit form its limit order's lock, a market sell its base, a market buy the cost at the stop. */
export function stopLock(m: SpotMarket, o: Order): number {
  const c = o.cond!
  return isLimitForm(c) ? lockFor(m, o, o.origQtyLots, o.priceTicks) : lockFor(m, o, o.origQtyLots, c.stopPriceTicks)
}

/** The sub-account's waiting stops on `m` (MAX_NUM_ALGO_ORDERS counts them). */
export function spotStopCount(sub: SubAccount, m: SpotMarket): number {
  let n = 0
  for (const o of sub.orders.values()) if (o.market === m && o.cond !== null && o.cond.triggerTime === 0) n++
  return n
}

/**
 * Every check placing a spot stop makes, changing nothing: the order it would place (no id
 * yet, not linked), or why not. The perpetual-only fields are refused. `pending` (an OTO
 * list's pending order, core/oto-lists.ts): only what does not depend on the moment, for it
 * is checked again as it is placed.
 */
export function checkSpotStop(m: SpotMarket, sub: SubAccount | undefined, cmd: PlaceOrder, time: number, pending = false): Order | Code {
  if (cmd.orderType === 'TRAILING_STOP_MARKET') return 'ORDER_TYPE_INVALID'
  if (cmd.side !== 'BUY' && cmd.side !== 'SELL') return 'SIDE_INVALID'
  if (cmd.workingType !== undefined || cmd.priceProtect !== undefined || cmd.closePosition !== undefined
    || cmd.activationPriceTicks !== undefined || cmd.callbackPermille !== undefined || cmd.quoteQty !== undefined) {
    return 'COMMAND_INVALID'
  }
  const stopCode = checkTriggerPrice(m, cmd.stopPriceTicks)
  if (stopCode) return stopCode
  const t = conditionalTypeOf(cmd.orderType)
  const limit = t === 'STOP' || t === 'TAKE_PROFIT'
  const o = buildOrder(m, sub, false, {
    type: 'PlaceOrder', account: cmd.account, sub: cmd.sub, marketId: cmd.marketId, side: cmd.side,
    orderType: limit ? 'LIMIT' : 'MARKET', timeInForce: limit ? cmd.timeInForce : undefined,
    priceTicks: limit ? cmd.priceTicks : undefined, qtyLots: cmd.qtyLots, clientOrderId: cmd.clientOrderId,
    positionSide: cmd.positionSide, reduceOnly: cmd.reduceOnly, stp: cmd.stp, goodTillDate: cmd.goodTillDate,
  }, time)
  if (typeof o === 'string') return o
  if (o.timeInForce === 'GTX' || o.timeInForce === 'GTD') return 'TIF_INVALID'
  const stop = cmd.stopPriceTicks!
  // A market form's notional at its stop price (a limit form's was checked at its price).
  if (!limit && o.origQtyLots * stop * m.quotePerTickLot < m.minNotional) return 'NOTIONAL_TOO_SMALL'
  if (sub === undefined) return 'BALANCE_INSUFFICIENT'
  o.owner = sub
  o.orderType = t
  if (!limit) o.timeInForce = 'GTC'
  o.cond = {
    origType: t, stopPriceTicks: stop, activationPriceTicks: 0, callbackPermille: 0, workingType: 'CONTRACT_PRICE',
    priceProtect: false, closePosition: false, activated: false, extremeTicks: 0, triggerTime: 0, reason: '', entry: null,
  }
  if (sub.orders.size >= LIMITS.openOrdersPerAccountMax) return 'TOO_MANY_ORDERS'
  if ((sub.openByMarket.get(m.marketId) ?? 0) >= LIMITS.openOrdersPerMarketMax) return 'TOO_MANY_ORDERS'
  if (spotStopCount(sub, m) >= LIMITS.conditionalOrdersPerMarketMax) return 'TOO_MANY_CONDITIONAL'
  if (pending) return o
  const last = m.lastPriceTicks
  if (last > 0 && (rising(o) ? last >= stop : last <= stop)) return 'WOULD_TRIGGER'
  if (spotBalance(sub, o.side === 'BUY' ? m.quote : m.base).free < stopLock(m, o)) return 'BALANCE_INSUFFICIENT'
  return o
}

/** Indexes a waiting stop (placement, snapshot restore). */
export function indexSpotStop(m: SpotMarket, o: Order): void {
  const c = o.cond!
  const entry: TriggerEntry = { priceTicks: c.stopPriceTicks, orderId: o.orderId, order: o }
  c.entry = entry
  m.stops.live.set(o.orderId, o)
  ;(rising(o) ? m.stops.up : m.stops.down).push(entry)
}

/**
 * Places a stop checkSpotStop passed: it holds what it will need and waits. `hold`: an OCO
 * leg's share of its list's hold (core/order-lists.ts), which may be less.
 */
export function armSpotStop(m: SpotMarket, o: Order, time: number, hold = stopLock(m, o)): Result {
  // A list's orders have theirs already (core/order-lists.ts).
  if (o.orderId === 0) o.orderId = m.nextOrderId++
  if (o.clientOrderId === '') o.clientOrderId = generatedClientId(m, o)
  o.owner.orders.set(o.clientOrderId, o)
  countOpen(o, 1)
  ensureSpotBalance(o.owner, m.base)
  ensureSpotBalance(o.owner, m.quote)
  lockSpot(o, hold)
  indexSpotStop(m, o)
  const events: Event[] = [orderEvent(o, 'NEW')]
  pushSpotBalanceEvent(o, time, events)
  return acceptOrder(events, o.orderId)
}

/** Out of the index (cancel, trigger). */
function unindex(m: SpotMarket, o: Order): void {
  const c = o.cond!
  m.stops.live.delete(o.orderId)
  if (c.entry !== null) (rising(o) ? m.stops.up : m.stops.down).markStale()
  c.entry = null
}

/** The unrest of a waiting stop: index, account, open count, what it held (resting.ts calls it). */
export function unrestSpotStop(o: Order): void {
  unindex(o.market as SpotMarket, o)
  o.owner.orders.delete(o.clientOrderId)
  countOpen(o, -1)
  if (o.lockedRemaining > 0) releaseSpotLock(o)
}

/**
 * After a command that may have traded on `m`: every stop the last price has reached fires,
 * up-heap then down-heap, nearest first; the orders they place may trade and reach more.
 */
export function runSpotStops(state: State, m: SpotMarket, time: number, events: Event[]): void {
  const { up, down } = m.stops
  for (let fired = true; fired && m.stops.live.size > 0;) {
    fired = false
    const last = m.lastPriceTicks
    if (last === 0) return
    const due: Order[] = []
    for (let top = up.peek(); top !== undefined && top.priceTicks <= last; top = up.peek()) {
      up.pop()
      due.push(top.order)
    }
    for (let top = down.peek(); top !== undefined && top.priceTicks >= last; top = down.peek()) {
      down.pop()
      due.push(top.order)
    }
    for (const o of due) {
      // A stop an earlier one's fills canceled (self-trade prevention) is no longer waiting.
      if (!m.stops.live.has(o.orderId)) continue
      fire(state, m, o, time, events)
      fired = true
    }
  }
}

/** One stop fires: it lets go what it held and is placed as LIMIT or MARKET, or expires. */
function fire(state: State, m: SpotMarket, o: Order, time: number, events: Event[]): void {
  // An OCO leg's partner leaves first, so what it held is free for this one's placement.
  if (o.list !== null && !o.list.done) endList(o, 'EXPIRED', time, events)
  const c = o.cond!
  c.entry = null
  m.stops.live.delete(o.orderId)
  // Out of the account and its hold; placement puts both back as the order needs them now.
  o.owner.orders.delete(o.clientOrderId)
  countOpen(o, -1)
  releaseSpotLock(o)
  c.triggerTime = time
  o.updateTime = time
  const limit = isLimitForm(c)
  o.orderType = limit ? 'LIMIT' : 'MARKET'
  if (!limit) {
    o.timeInForce = 'IOC'
    o.priceTicks = 0
  }
  const code = placeTriggeredSpot(state, m, o, time, events)
  if (code === null) return
  c.reason = code
  o.status = 'EXPIRED'
  events.push(orderEvent(o, 'EXPIRED'))
  pushSpotBalanceEvent(o, time, events)
}
