// Spot stop orders: Binance spot's STOP_LOSS and TAKE_PROFIT (a market order at the trigger)
// and STOP_LOSS_LIMIT and TAKE_PROFIT_LIMIT (a limit order), here STOP_MARKET, TAKE_PROFIT_MARKET,
// STOP and TAKE_PROFIT on a spot market. A stop waits off the book for the market's last trade
// price to reach its stopPrice (STOP BUY and TAKE_PROFIT SELL as it rises, the others as it
// falls), holding what it will need: a limit form its limit order's lock, a market sell its
// base, a market buy its quantity's cost at the stop price. At the trigger it lets that go
// and is placed as the LIMIT or MARKET order it becomes, with the same checks and locks as any
// placement (a market buy locks the book's exact cost then); refused, it expires with the code
// as its reason. Perpetual conditional orders (core/conditional.ts) watch marks; these only
// watch the last price, so they keep a smaller index of their own.
//
// Trailing stops (Binance's trailingDelta, in BIPS): reaching the stop price starts the
// trailing instead of the trigger (no stop price: it starts at placement, from the last
// price). From then a SELL follows the highest last price and triggers once the price falls
// trailingDelta below it; a BUY follows the lowest and triggers once the price rises
// trailingDelta above it. Activated, they wait grouped by shared extreme (core/trailing.ts).
// The prices watched are the last prices after each command and after each round of stops,
// as for the other stops.

import { ensureSpotBalance, spotBalance } from './accounts.js'
import { checkTriggerPrice, rising } from './conditional.js'
import type { Code } from './codes.js'
import type { PlaceOrder } from './commands.js'
import type { Event, Result } from './events.js'
import { buildOrder } from './filters.js'
import { LIMITS } from './limits.js'
import { generatedClientId, placeTriggeredSpot } from './orders.js'
import { endList } from './order-lists.js'
import { priceAtEntry } from './peg.js'
import { orderEvent } from './records.js'
import { acceptOrder } from './results.js'
import { countOpen, pushSpotBalanceEvent, releaseSpotLock, tooManyIcebergs } from './resting.js'
import { lockFor, lockSpot } from './spot.js'
import type { Conditional, Order, OrderList, Peg, SpotMarket, State, SubAccount } from './state.js'
import { BIPS_CALLBACK, byCrossing, ConditionalState, type Due, TrailSide } from './trailing.js'
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
  /** Activated trailing stops: SELLs follow the highest last price, BUYs the lowest (derived, like the heaps). */
  sell: TrailSide
  buy: TrailSide
  /** Activated trailing stops now in `sell` and `buy`. */
  trailing: number
  /** OTO lists' pending orders (PENDING_NEW) by orderId: they hold nothing until placed. */
  pending: Map<number, Order>
  /** OTO lists whose working order filled in full during the command: placed after it (empty between commands). */
  activations: OrderList[]
}

export function newSpotStops(): SpotStops {
  return {
    live: new Map(), up: new TriggerHeap(true), down: new TriggerHeap(false),
    sell: new TrailSide(true, BIPS_CALLBACK), buy: new TrailSide(false, BIPS_CALLBACK), trailing: 0,
    pending: new Map(), activations: [],
  }
}

function isLimitForm(c: Conditional): boolean {
  return c.origType === 'STOP' || c.origType === 'TAKE_PROFIT'
}

/**
 * The price a waiting stop holds at: a limit form's limit; a market form's stop price or, for
 * a trailing stop placed without one, the last price its trailing started from. A pegged limit
 * form has no limit until it triggers: it holds at the price it was sent with, or as a market
 * form would.
 */
export function holdPrice(o: Order): number {
  const c = o.cond!
  if (isLimitForm(c) && o.peg === null) return o.priceTicks
  return (o.peg !== null ? o.peg.sentPriceTicks : 0) || c.stopPriceTicks || c.activationPriceTicks
}

/** What a waiting stop holds: a limit form its limit order's lock, a market sell its base, a market buy the cost at holdPrice. */
export function stopLock(m: SpotMarket, o: Order): number {
  return lockFor(m, o, o.origQtyLots, holdPrice(o))
}

/**
 * Whether the market takes trailing stops: their triggers are exact in ticks × 10,000
 * (core/trailing.ts), so a market whose prices could overflow that has none.
 */
export function trailingAllowed(m: SpotMarket): boolean {
  return m.maxPriceTicks * (BIPS_CALLBACK.scale + LIMITS.trailingDeltaMaxBips) <= Number.MAX_SAFE_INTEGER
}

/** Whether a trailing delta is one the TRAILING_DELTA filter passes. */
function validDelta(d: unknown): d is number {
  return typeof d === 'number' && Number.isInteger(d) && d >= LIMITS.trailingDeltaMinBips && d <= LIMITS.trailingDeltaMaxBips
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
export function checkSpotStop(m: SpotMarket, sub: SubAccount | undefined, cmd: PlaceOrder, time: number, pending = false,
  peg: Peg | null = null): Order | Code {
  if (cmd.orderType === 'TRAILING_STOP_MARKET') return 'ORDER_TYPE_INVALID'
  if (cmd.side !== 'BUY' && cmd.side !== 'SELL') return 'SIDE_INVALID'
  if (cmd.workingType !== undefined || cmd.priceProtect !== undefined || cmd.closePosition !== undefined
    || cmd.activationPriceTicks !== undefined || cmd.callbackPermille !== undefined || cmd.quoteQty !== undefined) {
    return 'COMMAND_INVALID'
  }
  const delta = cmd.trailingDeltaBips
  const trailing = delta !== undefined
  if (trailing && !validDelta(delta)) return 'TRAILING_DELTA_INVALID'
  if (trailing && !trailingAllowed(m)) return 'ORDER_TYPE_INVALID'
  // A trailing stop's stop price is optional: without one it trails from the placement.
  if (!trailing || cmd.stopPriceTicks !== undefined) {
    const stopCode = checkTriggerPrice(m, cmd.stopPriceTicks)
    if (stopCode) return stopCode
  }
  const t = conditionalTypeOf(cmd.orderType)
  const limit = t === 'STOP' || t === 'TAKE_PROFIT'
  // A pegged limit form is priced at its trigger (core/peg.ts): until then it is checked at the
  // price it was sent with, or without price filters (the market's highest price stands in).
  const priceTicks = !limit ? undefined : peg !== null ? cmd.priceTicks ?? m.maxPriceTicks : cmd.priceTicks
  const o = buildOrder(m, sub, false, {
    type: 'PlaceOrder', account: cmd.account, sub: cmd.sub, marketId: cmd.marketId, side: cmd.side,
    orderType: limit ? 'LIMIT' : 'MARKET', timeInForce: limit ? cmd.timeInForce : undefined,
    priceTicks, qtyLots: cmd.qtyLots, clientOrderId: cmd.clientOrderId,
    positionSide: cmd.positionSide, reduceOnly: cmd.reduceOnly, stp: cmd.stp, goodTillDate: cmd.goodTillDate,
    icebergLots: cmd.icebergLots,
  }, time)
  if (typeof o === 'string') return o
  if (peg !== null) {
    o.peg = peg
    o.priceTicks = 0
  }
  if (o.timeInForce === 'GTX' || o.timeInForce === 'GTD') return 'TIF_INVALID'
  const stop = cmd.stopPriceTicks ?? 0
  const last = m.lastPriceTicks
  // No stop price: it trails from the last price, which must exist (a pending order's is read as it is placed).
  if (stop === 0 && last === 0 && !pending) return 'TRAILING_NO_PRICE'
  const from = stop === 0 ? last : 0
  // A market form's notional at its hold price (a limit form's was checked at its price).
  const hold = stop || from
  if (!limit && hold > 0 && o.origQtyLots * hold * m.quotePerTickLot < m.minNotional) return 'NOTIONAL_TOO_SMALL'
  if (sub === undefined) return 'BALANCE_INSUFFICIENT'
  o.owner = sub
  o.orderType = t
  if (!limit) o.timeInForce = 'GTC'
  o.cond = {
    origType: t, stopPriceTicks: stop, activationPriceTicks: from, callbackPermille: 0, workingType: 'CONTRACT_PRICE',
    priceProtect: false, closePosition: false, activated: false, extremeTicks: 0, trailingDeltaBips: delta ?? 0, trailingTime: 0,
    triggerTime: 0, reason: '', entry: null,
  }
  if (sub.orders.size >= LIMITS.openOrdersPerAccountMax) return 'TOO_MANY_ORDERS'
  if ((sub.openByMarket.get(m.marketId) ?? 0) >= LIMITS.openOrdersPerMarketMax) return 'TOO_MANY_ORDERS'
  if (spotStopCount(sub, m) >= LIMITS.conditionalOrdersPerMarketMax) return 'TOO_MANY_CONDITIONAL'
  if (tooManyIcebergs(m, sub, o)) return 'TOO_MANY_ICEBERGS'
  if (pending) return o
  // A trailing stop whose stop price the last price has reached starts trailing at once instead.
  if (!trailing && last > 0 && (rising(o) ? last >= stop : last <= stop)) return 'WOULD_TRIGGER'
  if (spotBalance(sub, o.side === 'BUY' ? m.quote : m.base).free < stopLock(m, o)) return 'BALANCE_INSUFFICIENT'
  return o
}

/** An activated trailing stop's side of the index. */
function trailSide(m: SpotMarket, o: Order): TrailSide {
  return o.side === 'SELL' ? m.stops.sell : m.stops.buy
}

/** A trailing stop's trailing starts from `price`: its extreme, and the price it started from. */
function beginTrailing(c: Conditional, price: number, time: number): void {
  c.entry = null
  c.activated = true
  c.extremeTicks = price
  c.activationPriceTicks = price
  c.trailingTime = time
}

/** A waiting trailing stop the price reached: it leaves its heap (popped) for its side. */
function startTrailing(m: SpotMarket, o: Order, price: number, time: number): void {
  beginTrailing(o.cond!, price, time)
  fileTrailing(m, o)
}

function fileTrailing(m: SpotMarket, o: Order): void {
  m.stops.trailing += 1
  trailSide(m, o).join(o)
}

/** Indexes a waiting stop (placement, snapshot restore): by stop price, or an activated trailing stop by its extreme. */
export function indexSpotStop(m: SpotMarket, o: Order): void {
  // The trailing index works on ConditionalState (a snapshot restores plain objects).
  let c = o.cond!
  if (!(c instanceof ConditionalState)) o.cond = c = new ConditionalState(c)
  m.stops.live.set(o.orderId, o)
  if (c.activated) {
    fileTrailing(m, o)
    return
  }
  const entry: TriggerEntry = { priceTicks: c.stopPriceTicks, orderId: o.orderId, order: o }
  c.entry = entry
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
  // A trailing stop without a stop price trails from the last price at once (checkSpotStop saw one).
  const c = o.cond!
  if (c.trailingDeltaBips !== 0 && c.stopPriceTicks === 0) beginTrailing(c, m.lastPriceTicks, time)
  indexSpotStop(m, o)
  const events: Event[] = [orderEvent(o, 'NEW')]
  pushSpotBalanceEvent(o, time, events)
  return acceptOrder(events, o.orderId)
}

/** Out of the index (cancel, trigger). */
function unindex(m: SpotMarket, o: Order): void {
  const c = o.cond as ConditionalState
  m.stops.live.delete(o.orderId)
  if (c.entry !== null) (rising(o) ? m.stops.up : m.stops.down).markStale()
  c.entry = null
  // Still grouped: not yet taken out by a trigger run that found it due.
  if (c.group !== null) {
    trailSide(m, o).leave(o)
    m.stops.trailing -= 1
  }
}

/** The unrest of a waiting stop: index, account, open count, what it held (resting.ts calls it). */
export function unrestSpotStop(o: Order): void {
  unindex(o.market as SpotMarket, o)
  o.owner.orders.delete(o.clientOrderId)
  countOpen(o, -1)
  if (o.lockedRemaining > 0) releaseSpotLock(o)
}

/** A stop the price reached: a trailing stop starts trailing, any other is due. */
function reached(m: SpotMarket, o: Order, last: number, time: number, due: Order[]): void {
  if (o.cond!.trailingDeltaBips !== 0) startTrailing(m, o, last, time)
  else due.push(o)
}

const NEVER_HELD = (): boolean => false

/**
 * Activated trailing stops of one side: extremes move to the price, then those it retraced to
 * are due, farthest behind the price first, ties by orderId (the groups' inner order depends on
 * their merges, which a snapshot restore does not repeat).
 */
function trail(m: SpotMarket, side: TrailSide, last: number, due: Order[]): void {
  side.move(last)
  const fired: Due[] = []
  side.fire(last, m, NEVER_HELD, fired, [])
  m.stops.trailing -= fired.length
  fired.sort(byCrossing)
  for (const d of fired) due.push(d.order)
}

/**
 * After a command that may have traded on `m`: every stop the last price has reached fires,
 * up-heap then down-heap, nearest first, then the trailing stops it retraced to, SELLs then
 * BUYs, farthest extreme first; the orders they place may trade and reach more.
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
      reached(m, top.order, last, time, due)
    }
    for (let top = down.peek(); top !== undefined && top.priceTicks >= last; top = down.peek()) {
      down.pop()
      reached(m, top.order, last, time, due)
    }
    if (m.stops.trailing > 0) {
      trail(m, m.stops.sell, last, due)
      trail(m, m.stops.buy, last, due)
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
  // A pegged limit form takes its price from the book now (core/peg.ts).
  const code = (o.peg !== null ? priceAtEntry(m, o) : null) ?? placeTriggeredSpot(state, m, o, time, events)
  if (code === null) return
  c.reason = code
  o.status = 'EXPIRED'
  events.push(orderEvent(o, 'EXPIRED', 'REJECTED'))
  pushSpotBalanceEvent(o, time, events)
}
