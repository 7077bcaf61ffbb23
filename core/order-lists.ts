// OCO order lists (Binance spot's one-cancels-the-other), and what every list shares: its
// status events, its end, its cancel (OTO and OTOCO lists: core/oto-lists.ts).
//
// An OCO is two orders of one side and quantity
// on a spot market, the above order over the last price and the below order under it. One is
// the stop loss (STOP or STOP_MARKET, core/spot-stops.ts); the other a LIMIT_MAKER (POST_ONLY,
// resting in the book) or a take profit. When either fills, triggers or leaves the book, the
// other is canceled with it (EXPIRED; CANCELED when the client canceled) and the list is done.
//
// Holds: the two orders never both execute, so together they hold what the larger needs, not
// the sum. The leg that can rest in the book (the LIMIT_MAKER, else the below order) holds its
// own need, as any order, so its fills settle from its own lock; the other holds only what it
// needs beyond that. Whatever ends the list releases the other leg's hold first, so a leg that
// triggers finds all it needs free again when it is placed.

import { findSub, spotBalance, validIssuer } from './accounts.js'
import { assert } from './assert.js'
import type { Code } from './codes.js'
import type { CancelOrderList, Issuer, ListLeg, OrderType, PlaceOrder, PlaceOrderList, Side, StpMode } from './commands.js'
import type { Event, OrderEvent, OrderListEvent, Result, SpotFillSide } from './events.js'
import { validClientId } from './filters.js'
import { LIMITS } from './limits.js'
import { generatedClientId, placeSpot, testOrder } from './orders.js'
import { isTerminal } from './records.js'
import { accept, reject } from './results.js'
import { retire } from './resting.js'
import { holdProceeds } from './oto-lists.js'
import { armSpotStop, spotStopCount, stopLock } from './spot-stops.js'
import { lockFor, unlockSpot } from './spot.js'
import { pegOf, peggedPrice } from './peg.js'
import type { Order, OrderList, SpotMarket, State, SubAccount } from './state.js'

const isStopLoss = (t: OrderType): boolean => t === 'STOP' || t === 'STOP_MARKET'
const isTakeProfit = (t: OrderType): boolean => t === 'TAKE_PROFIT' || t === 'TAKE_PROFIT_MARKET'

/** The price a leg stands at: a LIMIT_MAKER's limit, a stop's trigger (0: a trailing stop without one, which stands nowhere yet). */
const levelOf = (leg: ListLeg): number => (leg.orderType === 'POST_ONLY' ? leg.priceTicks : leg.stopPriceTicks) ?? 0

/**
 * Which leg types may stand where (Binance's -1165/-1166, -1196..-1199): a SELL takes profit
 * or sells at its limit above and stops its loss below; a BUY the other way round.
 */
function placementCode(side: 'BUY' | 'SELL', above: OrderType, below: OrderType): Code | null {
  if (side === 'SELL') {
    if (isStopLoss(above)) return 'LIST_STOP_BELOW'
    if (below === 'POST_ONLY') return 'LIST_LIMIT_ABOVE'
    if (isTakeProfit(below)) return 'LIST_TAKE_PROFIT_ABOVE'
    return null
  }
  if (above === 'POST_ONLY') return 'LIST_LIMIT_BELOW'
  if (isTakeProfit(above)) return 'LIST_TAKE_PROFIT_BELOW'
  if (isStopLoss(below)) return 'LIST_STOP_ABOVE'
  return null
}

/** The sub-account's executing lists (on one market, at most LIMITS.orderListsPerMarketMax), each once, from its open orders. */
export function executingLists(sub: SubAccount, m: SpotMarket | undefined): OrderList[] {
  const out: OrderList[] = []
  for (const o of sub.orders.values()) {
    const l = o.list
    if (l !== null && !l.done && (m === undefined || o.market === m) && !out.includes(l)) out.push(l)
  }
  return out
}

/** A leg as the PlaceOrder placement's checks read. */
export function legCommand(cmd: Issuer & { marketId: number; side: Side; qtyLots: number; stp?: StpMode | undefined }, leg: ListLeg): PlaceOrder {
  return {
    type: 'PlaceOrder', account: cmd.account, sub: cmd.sub, marketId: cmd.marketId, side: cmd.side,
    orderType: leg.orderType, timeInForce: leg.timeInForce, priceTicks: leg.priceTicks, stopPriceTicks: leg.stopPriceTicks,
    trailingDeltaBips: leg.trailingDeltaBips, icebergLots: leg.icebergLots, qtyLots: cmd.qtyLots, clientOrderId: leg.clientOrderId,
    stp: cmd.stp, pegPriceType: leg.pegPriceType, pegOffsetLevels: leg.pegOffsetLevels,
    strategyId: leg.strategyId, strategyType: leg.strategyType,
  }
}

/**
 * An OCO pair's shape: leg types, where each stands, the above leg's level over the below
 * leg's, and (`last` > 0) the last price between them; a leg with no level (a trailing stop
 * without a stop price) is compared with neither.
 */
export function ocoShapeCode(side: Side, above: ListLeg, below: ListLeg, last: number): Code | null {
  if (above === null || typeof above !== 'object' || below === null || typeof below !== 'object') return 'COMMAND_INVALID'
  for (const leg of [above, below]) {
    if (leg.orderType !== 'POST_ONLY' && !isStopLoss(leg.orderType) && !isTakeProfit(leg.orderType)) return 'LIST_LEG_TYPE'
  }
  if (above.orderType === 'POST_ONLY' && below.orderType === 'POST_ONLY') return 'LIST_BOTH_LIMIT'
  const placement = placementCode(side, above.orderType, below.orderType)
  if (placement) return placement
  const hi = levelOf(above)
  const lo = levelOf(below)
  if (hi !== 0 && lo !== 0 && hi <= lo) return 'LIST_PRICES'
  if (last > 0 && ((hi !== 0 && hi <= last) || (lo !== 0 && lo >= last))) return 'LIST_PRICES'
  if (below.clientOrderId !== undefined && below.clientOrderId === above.clientOrderId) return 'CLIENT_ID_DUPLICATE'
  for (const leg of [above, below]) {
    if (leg.orderType === 'POST_ONLY' && (leg.timeInForce !== undefined || leg.stopPriceTicks !== undefined)) return 'COMMAND_INVALID'
  }
  return null
}

/**
 * A leg as it would stand for the shape's checks: a pegged LIMIT_MAKER at the price the book
 * gives it now (none: left to its placement's checks to refuse).
 */
function standing(m: SpotMarket, side: Side, leg: ListLeg): ListLeg {
  if (leg === null || typeof leg !== 'object' || leg.orderType !== 'POST_ONLY' || leg.pegPriceType === undefined) return leg
  const peg = pegOf(m, legCommand({ account: '', sub: 0, marketId: m.marketId, side, qtyLots: 0 }, leg))
  const price = peg === null || typeof peg === 'string' ? 'PEG_INVALID' : peggedPrice(m, side, peg)
  return typeof price === 'string' ? leg : { ...leg, priceTicks: price }
}

/** What a leg would hold placed alone: a LIMIT_MAKER its limit order's lock, a stop its stopLock. */
function needOf(m: SpotMarket, o: Order): number {
  return o.cond === null ? lockFor(m, o, o.origQtyLots, o.priceTicks) : stopLock(m, o)
}

interface CheckedList {
  m: SpotMarket
  sub: SubAccount
  /** Below leg, above leg, as built (no ids yet). */
  legs: [Order, Order]
}

/**
 * A list command's spot market (trading, unless `anyStatus`: a cancel) and its issuer's
 * sub-account (undefined: holds nothing yet).
 */
export function listMarket(state: State, cmd: Issuer & { marketId: number }, anyStatus = false): { m: SpotMarket; sub: SubAccount | undefined } | Code {
  const m = state.markets[cmd.marketId]
  if (m === undefined || !Number.isInteger(cmd.marketId)) return 'MARKET_UNKNOWN'
  if (m.kind !== 'SPOT') return 'COMMAND_INVALID'
  const sub = findSub(state, cmd)
  if (sub === undefined && !validIssuer(cmd)) return 'ACCOUNT_INVALID'
  if (!anyStatus && m.status !== 'TRADING') return 'MARKET_NOT_TRADING'
  return { m, sub }
}

/** Every check placing the list makes, changing nothing. */
export function checkList(state: State, cmd: PlaceOrderList, time: number): CheckedList | Code {
  const found = listMarket(state, cmd)
  if (typeof found === 'string') return found
  const { m, sub } = found
  if (cmd.side !== 'BUY' && cmd.side !== 'SELL') return 'SIDE_INVALID'
  const shape = ocoShapeCode(cmd.side, standing(m, cmd.side, cmd.above), standing(m, cmd.side, cmd.below), m.lastPriceTicks)
  if (shape) return shape
  const listId = cmd.listClientOrderId
  const idCode = listIdCode(sub, listId)
  if (idCode) return idCode
  const legs: Order[] = []
  for (const leg of [cmd.below, cmd.above]) {
    const o = testOrder(state, legCommand(cmd, leg), time)
    if (typeof o === 'string') return o
    legs.push(o)
  }
  const owner = legs[0].owner
  const room = listRoomCode(owner, m, legs)
  if (room) return room
  const need = Math.max(needOf(m, legs[0]), needOf(m, legs[1]))
  if (spotBalance(owner, cmd.side === 'BUY' ? m.quote : m.base).free < need) return 'BALANCE_INSUFFICIENT'
  return { m, sub: owner, legs: [legs[0], legs[1]] }
}

/**
 * Room for a new list's orders: each was checked for room alone, the list needs room for all
 * (open orders, waiting stops) and for one more list.
 */
export function listRoomCode(owner: SubAccount, m: SpotMarket, orders: readonly Order[]): Code | null {
  if (owner.orders.size + orders.length > LIMITS.openOrdersPerAccountMax) return 'TOO_MANY_ORDERS'
  if ((owner.openByMarket.get(m.marketId) ?? 0) + orders.length > LIMITS.openOrdersPerMarketMax) return 'TOO_MANY_ORDERS'
  const stops = orders.filter((o) => o.cond !== null).length
  if (spotStopCount(owner, m) + stops > LIMITS.conditionalOrdersPerMarketMax) return 'TOO_MANY_CONDITIONAL'
  if (executingLists(owner, m).length >= LIMITS.orderListsPerMarketMax) return 'TOO_MANY_LISTS'
  return null
}

/** A list client id a client sent: well formed, and unique among the sub-account's executing lists. */
export function listIdCode(sub: SubAccount | undefined, listId: string | undefined): Code | null {
  if (listId === undefined) return null
  if (typeof listId !== 'string' || !validClientId(listId)) return 'CLIENT_ID_INVALID'
  if (sub !== undefined && executingLists(sub, undefined).some((l) => l.listClientOrderId === listId)) return 'CLIENT_ID_DUPLICATE'
  return null
}

/** A list client id for lists sent without one, never equal to an executing list's. */
export function generatedListId(sub: SubAccount, orderListId: number): string {
  const taken = new Set(executingLists(sub, undefined).map((l) => l.listClientOrderId))
  let id = 'xl-' + orderListId
  for (let n = 1; taken.has(id); n++) id = 'xl-' + orderListId + '-' + n
  return id
}

export function placeOrderList(state: State, cmd: PlaceOrderList, time: number): Result {
  const checked = checkList(state, cmd, time)
  if (typeof checked === 'string') return reject(checked)
  const { m, sub, legs } = checked
  const orderListId = state.nextOrderListId++
  const list: OrderList = {
    orderListId, listClientOrderId: cmd.listClientOrderId ?? generatedListId(sub, orderListId), contingency: 'OCO', working: null,
    opo: false, legs, orders: [], done: false, time,
  }
  // Ids given now, so neither generated client id takes the other's given one.
  for (let i = 0; i < 2; i++) legs[i].orderId = m.nextOrderId++
  for (let i = 0; i < 2; i++) if (legs[i].clientOrderId === '') legs[i].clientOrderId = generatedClientId(m, legs[i], legs[i].orderId, [legs[1 - i].clientOrderId])
  list.orders = ordersOf(legs)
  const events: Event[] = []
  placeOcoLegs(state, m, sub, list, legs, time, events)
  events.push(listEvent(list, sub, 'EXEC_STARTED', time))
  return accept(events)
}

/**
 * What each order of an OCO pair holds: the one that may rest (the first when both or neither
 * may) its own need, the other what it needs beyond that.
 */
function ocoHolds(m: SpotMarket, legs: readonly Order[]): [number, number] {
  const primary = legs[0]!.cond === null ? 0 : legs[1]!.cond === null ? 1 : 0
  const primaryNeed = needOf(m, legs[primary]!)
  const other = Math.max(0, needOf(m, legs[1 - primary]!) - primaryNeed)
  return primary === 0 ? [primaryNeed, other] : [other, primaryNeed]
}

/** Whether `o` is an order of an executing OCO pair (an OCO list, or an OTOCO's pair once placed). */
export function inOcoPair(o: Order): boolean {
  const list = o.list
  return list !== null && !list.done && list.working === null && list.legs.length === 2
}

/**
 * After both orders of an executing OCO pair lost lots to self-trade prevention
 * (core/prevention.ts): each gives back what it held beyond its share of the smaller need.
 */
export function rebalanceOcoHolds(m: SpotMarket, list: OrderList): void {
  const holds = ocoHolds(m, list.legs)
  for (let i = 0; i < 2; i++) {
    const leg = list.legs[i]!
    unlockSpot(leg, leg.lockedRemaining - holds[i]!)
  }
}

/**
 * Places an OCO pair that passed checkList, with its ids: the leg that may rest holds its own
 * need, the other what it needs beyond that. Its NEW records go to `events`.
 */
export function placeOcoLegs(state: State, m: SpotMarket, sub: SubAccount, list: OrderList, legs: [Order, Order], time: number,
  events: Event[]): void {
  const holds = ocoHolds(m, legs)
  for (let i = 0; i < 2; i++) {
    const o = legs[i]
    o.list = list
    if (o.cond !== null) {
      for (const e of armSpotStop(m, o, time, holds[i]).events) events.push(e)
      continue
    }
    // checkList ran placement's checks (testOrder): a LIMIT_MAKER that passed them rests.
    const placed = placeSpot(state, m, sub, o, time, events)
    assert(typeof placed !== 'string', 'order list leg refused after its checks')
  }
}

/** The ids a list's status events list its orders by. */
export function ordersOf(legs: readonly Order[]): OrderList['orders'] {
  return legs.map((o) => ({ orderId: o.orderId, clientOrderId: o.clientOrderId }))
}

export function listEvent(list: OrderList, sub: SubAccount, status: OrderListEvent['listStatusType'], time: number): OrderListEvent {
  return {
    type: 'orderList', marketId: list.legs[0].market.marketId, account: sub.address, sub: sub.sub,
    orderListId: list.orderListId, listClientOrderId: list.listClientOrderId, contingencyType: list.contingency === 'OCO' ? 'OCO' : 'OTO',
    listStatusType: status, listOrderStatus: status === 'ALL_DONE' ? 'ALL_DONE' : 'EXECUTING',
    orders: list.orders.map((o) => ({ orderId: o.orderId, clientOrderId: o.clientOrderId })),
    time: list.time, updateTime: time,
  }
}

/**
 * An order of an executing list traded (core/match.ts, maker or taker; `fill` its side of the
 * trade, `lots` the trade's): an OCO leg ends its list; an OTO list's working order, filled in
 * full, has its pending orders placed once the command is done (core/oto-lists.ts); an OPO
 * list's has what each fill brings held for them.
 */
export function listFill(o: Order, fill: SpotFillSide, lots: number, time: number, events: Event[]): void {
  const l = o.list!
  if (l.working !== o) return endList(o, 'EXPIRED', time, events)
  if (l.opo) holdProceeds(l, o, fill, lots)
  if (o.status === 'FILLED') (o.market as SpotMarket).stops.activations.push(l)
}

/**
 * Ends `o`'s executing list: `o` filled, triggered or left the book (resting.ts, match.ts,
 * orders.ts and spot-stops.ts call this), so its other orders leave too, canceled or expired as
 * `status` says, releasing their holds; then the list reports ALL_DONE.
 */
export function endList(o: Order, status: 'CANCELED' | 'EXPIRED', time: number, events: Event[]): void {
  const list = o.list!
  list.done = true
  // Expired with it: an OTO's pending orders as its working order went, or an OCO's other order.
  const reason = status === 'CANCELED' ? undefined : list.working !== null ? 'OTO_PHASE_ONE_EXPIRED' : 'OCO_TRIGGER'
  for (const leg of list.legs) if (leg !== o && !isTerminal(leg.status)) retire(leg, status, status, time, events, reason)
  events.push(listEvent(list, o.owner, 'ALL_DONE', time))
}

export function cancelOrderList(state: State, cmd: CancelOrderList, time: number): Result {
  const found = listMarket(state, cmd, true)
  if (typeof found === 'string') return reject(found)
  const { m, sub } = found
  if (cmd.orderListId === undefined && cmd.listClientOrderId === undefined) return reject('LIST_ID_REQUIRED')
  const cancelId = cmd.cancelClientOrderId
  if (cancelId !== undefined && (typeof cancelId !== 'string' || !validClientId(cancelId))) return reject('CLIENT_ID_INVALID')
  const list = sub && executingLists(sub, m).find((l) => (cmd.orderListId === undefined || l.orderListId === cmd.orderListId)
    && (cmd.listClientOrderId === undefined || l.listClientOrderId === cmd.listClientOrderId))
  if (list === undefined) return reject('LIST_UNKNOWN')
  const events: Event[] = []
  // Retiring its first order ends the list (resting.ts): the others and the ALL_DONE status follow.
  retire(list.legs[0]!, 'CANCELED', 'CANCELED', time, events)
  if (cancelId !== undefined) {
    for (const e of events) if (e.type === 'order') (e as OrderEvent).cancelClientOrderId = cancelId
  }
  return accept(events)
}
