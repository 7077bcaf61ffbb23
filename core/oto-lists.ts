// OTO and OTOCO order lists (Binance spot's one-triggers-the-other): a working order (LIMIT or
// LIMIT_MAKER) placed at once, and pending orders (one order, or an OCO pair: OTOCO) that wait
// as PENDING_NEW, off the book and holding nothing, until the working order fills in full.
// Then, once the command is done, they are checked again as they stand and placed (the pair as
// an OCO list under the same list id, core/order-lists.ts), or expire if refused. Until then
// the working order ending any other way (canceled, expired) takes them with it, and canceling
// one of them cancels the whole list.
//
// OPO and OPOCO (one-pays-the-other): a BUY working order whose SELL pending orders have no
// quantity of their own. Each fill of the working order brings base, less the fee taken from
// it; that is held by the first pending order as it comes in (not free to trade or withdraw),
// and once the working order has filled the pending orders are placed for all of it, to the lot,
// the rest of it (under a lot) freed. Ended before then, the list frees it.

import { assert } from './assert.js'
import type { Code } from './codes.js'
import type { ListLeg, PlaceOrderList, PlaceOtoList, Side } from './commands.js'
import type { Event, Result, SpotFillSide } from './events.js'
import { checkList, generatedListId, legCommand, listEvent, listIdCode, listMarket, listRoomCode, ocoShapeCode, ordersOf, placeOcoLegs } from './order-lists.js'
import { checkOrder, generatedClientId, placeSpot, testOrder } from './orders.js'
import { orderEvent } from './records.js'
import { accept, reject } from './results.js'
import { countOpen, pushSpotBalanceEvent, releaseSpotLock } from './resting.js'
import { armSpotStop } from './spot-stops.js'
import { lockSpot } from './spot.js'
import type { Order, OrderList, SpotMarket, State, SubAccount } from './state.js'
import { isConditionalType } from './trigger-index.js'

const PENDING_TYPES: ReadonlySet<string> = new Set(['LIMIT', 'MARKET', 'POST_ONLY', 'STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET'])

interface CheckedOto {
  m: SpotMarket
  sub: SubAccount
  working: Order
  /** The pending order, or the pair (below, above). */
  pending: Order[]
}

/** What the pending orders are checked with: an OPO's quantity is not known yet, so the working order's stands in. */
function pendingBase(cmd: PlaceOtoList): { account: string; sub: number; marketId: number; side: Side; qtyLots: number; stp?: PlaceOtoList['stp'] } {
  const qtyLots = cmd.opo === true ? cmd.working.qtyLots : cmd.pendingQtyLots
  return { account: cmd.account, sub: cmd.sub, marketId: cmd.marketId, side: cmd.pendingSide, qtyLots, stp: cmd.stp }
}

/** An OPO list's sides and quantity: it buys, then sells what it bought; the pending quantity is not sent. */
function opoCode(cmd: PlaceOtoList): Code | null {
  if (cmd.opo === undefined || cmd.opo === false) return null
  if (cmd.opo !== true) return 'COMMAND_INVALID'
  if (cmd.working.side !== 'BUY' || cmd.pendingSide !== 'SELL') return 'SIDE_INVALID'
  return cmd.pendingQtyLots === 0 || cmd.pendingQtyLots === undefined ? null : 'COMMAND_INVALID'
}

function checkOto(state: State, cmd: PlaceOtoList, time: number): CheckedOto | Code {
  const found = listMarket(state, cmd)
  if (typeof found === 'string') return found
  const { m, sub } = found
  const w = cmd.working
  if (w === null || typeof w !== 'object') return 'COMMAND_INVALID'
  if (w.orderType !== 'LIMIT' && w.orderType !== 'POST_ONLY') return 'LIST_LEG_TYPE'
  if (cmd.pendingSide !== 'BUY' && cmd.pendingSide !== 'SELL') return 'SIDE_INVALID'
  const opo = opoCode(cmd)
  if (opo) return opo
  const oto = cmd.pending !== undefined
  if (oto === (cmd.pendingAbove !== undefined || cmd.pendingBelow !== undefined)) return 'COMMAND_INVALID'
  const legs: ListLeg[] = []
  if (oto) {
    const p = cmd.pending!
    if (p === null || typeof p !== 'object') return 'COMMAND_INVALID'
    if (!PENDING_TYPES.has(p.orderType)) return 'LIST_LEG_TYPE'
    legs.push(p)
  } else {
    // The pair's shape now; the last price between its legs is checked as it is placed.
    const shape = ocoShapeCode(cmd.pendingSide, cmd.pendingAbove!, cmd.pendingBelow!, 0)
    if (shape) return shape
    legs.push(cmd.pendingBelow!, cmd.pendingAbove!)
  }
  const ids = [w.clientOrderId, ...legs.map((l) => l.clientOrderId)].filter((id) => id !== undefined)
  if (new Set(ids).size !== ids.length) return 'CLIENT_ID_DUPLICATE'
  const idCode = listIdCode(sub, cmd.listClientOrderId)
  if (idCode) return idCode
  // The working order as any placement (balance included); the pending ones by what does not change.
  const working = testOrder(state, legCommand({ ...cmd, side: w.side, qtyLots: w.qtyLots }, w), time)
  if (typeof working === 'string') return working
  const pending: Order[] = []
  for (const leg of legs) {
    const o = checkOrder(state, legCommand(pendingBase(cmd), leg), time, true)
    if (typeof o === 'string') return o
    pending.push(o)
  }
  const owner = working.owner
  const room = listRoomCode(owner, m, [working, ...pending])
  if (room) return room
  // An OPO's pending orders have no quantity until the working order has filled.
  if (cmd.opo === true) for (const o of pending) o.origQtyLots = 0
  return { m, sub: owner, working, pending }
}

export function placeOtoList(state: State, cmd: PlaceOtoList, time: number): Result {
  const checked = checkOto(state, cmd, time)
  if (typeof checked === 'string') return reject(checked)
  const { m, sub, working, pending } = checked
  const orderListId = state.nextOrderListId++
  const legs = [working, ...pending]
  const list: OrderList = {
    orderListId, listClientOrderId: cmd.listClientOrderId ?? generatedListId(sub, orderListId),
    contingency: pending.length === 1 ? 'OTO' : 'OTOCO', working, opo: cmd.opo === true, legs, orders: [], done: false, time,
  }
  for (const o of legs) o.orderId = m.nextOrderId++
  for (const o of legs) {
    if (o.clientOrderId === '') o.clientOrderId = generatedClientId(m, o, o.orderId, legs.map((x) => x.clientOrderId))
    o.list = list
  }
  list.orders = ordersOf(legs)
  // The working order's NEW record first (ids in order), then the pending orders start to wait
  // before it trades, so that a working order ending at once finds them to take along; filled
  // in full here, it has them placed after the command (core/price-tick.ts).
  const events: Event[] = []
  const placed = placeSpot(state, m, sub, working, time, events, (into) => {
    for (const o of pending) {
      o.status = 'PENDING_NEW'
      m.stops.pending.set(o.orderId, o)
      sub.orders.set(o.clientOrderId, o)
      countOpen(o, 1)
      into.push(orderEvent(o, 'NEW'))
    }
    into.push(listEvent(list, sub, 'EXEC_STARTED', time))
  })
  assert(typeof placed !== 'string', 'working order refused after its checks')
  return accept(events)
}

/** A pending order out of its index and its account, freeing an OPO's proceeds it held (resting.ts unrest; activation). */
export function unrestPending(o: Order): void {
  const m = o.market as SpotMarket
  m.stops.pending.delete(o.orderId)
  o.owner.orders.delete(o.clientOrderId)
  countOpen(o, -1)
  if (o.lockedRemaining > 0) releaseSpotLock(o)
}

/**
 * An OPO list's working buy traded `lots` (core/order-lists.ts listFill): the base it brought,
 * less the fee taken from it, goes from free to the first pending order's hold. The fill's
 * balance figures follow.
 */
export function holdProceeds(l: OrderList, o: Order, fill: SpotFillSide, lots: number): void {
  const m = o.market as SpotMarket
  const holder = l.legs[1]!
  lockSpot(holder, lots * m.basePerLot - fill.fee)
  const b = o.owner.spot.get(m.base)!
  fill.base = { asset: m.base, free: b.free, locked: b.locked }
}

/** An OPO's pending quantity: the proceeds, in whole lots, within the largest its orders may take. */
function opoQtyLots(m: SpotMarket, pending: readonly Order[], proceeds: number): number {
  const marketForm = pending.some((o) => o.orderType === 'MARKET' || o.orderType === 'STOP_MARKET' || o.orderType === 'TAKE_PROFIT_MARKET')
  return Math.min(Math.floor(proceeds / m.basePerLot), marketForm ? Math.min(m.maxQtyLots, m.marketMaxQtyLots) : m.maxQtyLots)
}

/** Snapshot restore: a pending order back in its market's index. */
export function indexPending(m: SpotMarket, o: Order): void {
  m.stops.pending.set(o.orderId, o)
}

/** A pending order as the leg it was placed as, to be checked again. */
function legOf(o: Order): ListLeg {
  const c = o.cond
  const leg: ListLeg = { orderType: c !== null ? c.origType : o.orderType, clientOrderId: o.clientOrderId }
  if (c !== null && c.stopPriceTicks !== 0) leg.stopPriceTicks = c.stopPriceTicks
  if (c !== null && c.trailingDeltaBips !== 0) leg.trailingDeltaBips = c.trailingDeltaBips
  if (o.icebergLots !== 0) leg.icebergLots = o.icebergLots
  const limitForm = c !== null ? c.origType === 'STOP' || c.origType === 'TAKE_PROFIT' : o.orderType !== 'MARKET'
  // A pegged order is priced again as it is placed, from the price it was sent with, if any (core/peg.ts).
  const price = o.peg !== null ? o.peg.sentPriceTicks : o.priceTicks
  if (limitForm && price !== 0) leg.priceTicks = price
  if (o.peg !== null) {
    leg.pegPriceType = o.peg.type
    if (o.peg.offsetLevels !== 0) leg.pegOffsetLevels = o.peg.offsetLevels
  }
  if (limitForm && o.orderType !== 'POST_ONLY') leg.timeInForce = o.timeInForce
  // Its strategy tags (rules 7, core/strategy.ts), kept as it is placed.
  if (o.strategyId >= 0) leg.strategyId = o.strategyId
  if (o.strategyType !== 0) leg.strategyType = o.strategyType
  return leg
}

/**
 * Places the pending orders of the lists whose working order filled in full during the
 * command (price-tick.ts runs this, with the spot stops, until neither has more to do).
 */
export function activateLists(state: State, m: SpotMarket, time: number, events: Event[]): void {
  const queue = m.stops.activations
  while (queue.length > 0) {
    const list = queue.shift()!
    if (list.done || list.working === null) continue
    list.working = null
    const pending = list.legs.slice(1)
    // An OPO's proceeds, freed with the pending orders, are their quantity.
    const proceeds = pending[0]!.lockedRemaining
    for (const o of pending) unrestPending(o)
    const sub = pending[0]!.owner
    const qtyLots = list.opo ? opoQtyLots(m, pending, proceeds) : pending[0]!.origQtyLots
    const base = { account: sub.address, sub: sub.sub, marketId: m.marketId, side: pending[0]!.side, qtyLots, stp: pending[0]!.stp }
    if (pending.length === 1) {
      activateOne(state, m, list, pending[0]!, base, time, events)
      list.done = true
      events.push(listEvent(list, sub, 'ALL_DONE', time))
      continue
    }
    const pair: PlaceOrderList = { type: 'PlaceOrderList', ...base, below: legOf(pending[0]!), above: legOf(pending[1]!) }
    const checked = checkList(state, pair, time)
    if (typeof checked === 'string') {
      for (const o of pending) expire(o, checked, time, events)
      list.done = true
      events.push(listEvent(list, sub, 'ALL_DONE', time))
      continue
    }
    const [below, above] = checked.legs
    below.orderId = pending[0]!.orderId
    above.orderId = pending[1]!.orderId
    list.legs = [below, above]
    placeOcoLegs(state, m, sub, list, checked.legs, time, events)
    events.push(listEvent(list, sub, 'EXEC_STARTED', time))
  }
}

/** An OTO list's one pending order, checked as placement checks it now, placed or expired. */
function activateOne(state: State, m: SpotMarket, list: OrderList, p: Order, base: Parameters<typeof legCommand>[0], time: number,
  events: Event[]): void {
  const o = testOrder(state, legCommand(base, legOf(p)), time)
  if (typeof o === 'string') return expire(p, o, time, events)
  o.orderId = p.orderId
  o.list = list
  list.legs = [o]
  if (isConditionalType(o.orderType)) {
    for (const e of armSpotStop(m, o, time).events) events.push(e)
    return
  }
  const placed = placeSpot(state, m, o.owner, o, time, events)
  assert(typeof placed !== 'string', 'pending order refused after its checks')
}

/** A pending order its placement refused: it expires (a stop with the code as its reason; an OPO's freed proceeds reported). */
function expire(o: Order, code: Code, time: number, events: Event[]): void {
  o.status = 'EXPIRED'
  o.updateTime = time
  if (o.cond !== null) o.cond.reason = code
  events.push(orderEvent(o, 'EXPIRED', 'REJECTED'))
  // (Once per list: the first pending order held them.)
  if (o.list!.opo && o === o.list!.legs[1]) pushSpotBalanceEvent(o, time, events)
}
