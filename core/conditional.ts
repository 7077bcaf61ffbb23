// Conditional orders (STOP, STOP_MARKET, TAKE_PROFIT, TAKE_PROFIT_MARKET,
// TRAILING_STOP_MARKET): placed, they wait outside the book holding no margin, as open
// orders of their sub-account; when the watched price (mark or last trade) crosses their
// trigger they become a LIMIT or MARKET order with the same orderId and go through normal
// placement (filters, reduce-only, margin, matching). See docs/CORE.md "Conditional orders".

import type { Code } from './codes.js'
import type { PlaceOrder, WorkingType } from './commands.js'
import type { ConditionalFields, Event, Result } from './events.js'
import { buildOrder, goodTillDateOf } from './filters.js'
import { LIMITS } from './limits.js'
import { generatedClientId, placeTriggered } from './orders.js'
import { priceMatchLiteral, resolvePriceMatch } from './price-match.js'
import { refreshMark } from './prices.js'
import { orderEvent } from './records.js'
import { acceptOrder } from './results.js'
import { countOpen, retire, trackGoodTillDate } from './resting.js'
import { positionOf, type Conditional, type Market, type Order, type PerpMarket, type State, type SubAccount } from './state.js'
import { byCrossing, ConditionalState, type Due, type TrailSide } from './trailing.js'
import { conditionalTypeOf, isConditionalType, setOf, type TriggerHeap, type TriggerSet } from './trigger-index.js'


const PERMILLE = 1000

/** The price a working type watches; 0 while the market has none. */
function watched(m: PerpMarket, wt: WorkingType): number {
  return wt === 'MARK_PRICE' ? m.markPriceTicks : m.lastPriceTicks
}

/**
 * Whether a static trigger (or a trailing stop's activation) fires as the price rises
 * (price ≥ trigger): STOP BUY, TAKE_PROFIT SELL, trailing SELL's activation. Otherwise it
 * fires as the price falls (price ≤ trigger).
 */
export function rising(o: Order): boolean {
  const t = o.cond!.origType
  const buy = o.side === 'BUY'
  if (t === 'STOP' || t === 'STOP_MARKET') return buy
  if (t === 'TAKE_PROFIT' || t === 'TAKE_PROFIT_MARKET') return !buy
  return !buy
}

function heapOf(m: PerpMarket, o: Order): TriggerHeap {
  const set = setOf(m.triggers, o.cond!.workingType as WorkingType)
  return rising(o) ? set.up : set.down
}

/** An activated trailing stop's side of the index. */
function trailSide(set: TriggerSet, o: Order): TrailSide {
  return o.side === 'SELL' ? set.sell : set.buy
}

/** Files an activated trailing stop (placement, activation, snapshot restore). */
function fileTrailing(set: TriggerSet, o: Order): void {
  set.trailing += 1
  trailSide(set, o).join(o)
}

/** Puts a waiting conditional order into its market's index (placement, snapshot restore, a held trigger). */
export function arm(m: PerpMarket, o: Order): void {
  // A snapshot restores plain objects: the index works on ConditionalState.
  let c = o.cond!
  if (!(c instanceof ConditionalState)) o.cond = c = new ConditionalState(c)
  // Placement never arms one that crosses (WOULD_TRIGGER), but the shortcut does not rely on it.
  m.triggers.quietMark = -1
  const live = m.triggers.live
  const n = live.size
  live.set(o.orderId, o)
  // A held order re-armed was still waiting: only a new one counts.
  if (live.size !== n) counted(m, o, 1)
  if (c.activated) {
    c.entry = null
    fileTrailing(setOf(m.triggers, c.workingType), o)
    return
  }
  const key = c.origType === 'TRAILING_STOP_MARKET' ? c.activationPriceTicks : c.stopPriceTicks
  const entry = { priceTicks: key, orderId: o.orderId, order: o }
  c.entry = entry
  heapOf(m, o).push(entry)
}

/** A sub-account's waiting conditional orders in the market, `by` more or fewer. */
function counted(m: PerpMarket, o: Order, by: number): void {
  const bySub = m.triggers.bySub
  const n = (bySub.get(o.owner) ?? 0) + by
  if (n === 0) bySub.delete(o.owner)
  else bySub.set(o.owner, n)
}

/** A conditional order leaves the waiting list (cancel, trigger, expiry). */
function unlist(m: PerpMarket, o: Order): void {
  if (m.triggers.live.delete(o.orderId)) counted(m, o, -1)
}

/** Takes a conditional order out of the index (cancel, trigger, expiry). */
function disarm(m: PerpMarket, o: Order): void {
  const c = o.cond!
  unlist(m, o)
  if (!c.activated) {
    if (c.entry !== null) heapOf(m, o).markStale()
    c.entry = null
    return
  }
  const set = setOf(m.triggers, c.workingType)
  trailSide(set, o).leave(o)
  set.trailing -= 1
}

/** The unrest of a waiting conditional order: index, account, open count (resting.ts calls it). */
export function unrestConditional(o: Order): void {
  const m = o.market as PerpMarket
  disarm(m, o)
  o.owner.orders.delete(o.clientOrderId)
  countOpen(o, -1)
  if (o.goodTillDate > 0) m.gtdOpen -= 1
}

/** A waiting conditional order of the market by orderId. */
export function conditionalOf(m: PerpMarket, orderId: number): Order | undefined {
  return m.triggers.live.get(orderId)
}

/** The trigger a trailing stop's extreme implies, ×1000 (exact): extreme × (1 ∓ callback). */
function trailingTrigger1000(o: Order): number {
  const c = o.cond!
  return o.side === 'SELL' ? c.extremeTicks * (PERMILLE - c.callbackPermille) : c.extremeTicks * (PERMILLE + c.callbackPermille)
}

/** What order records show of a conditional (a copy: the state keeps changing). */
export function conditionalFields(o: Order): ConditionalFields {
  const c = o.cond!
  let stop = c.stopPriceTicks
  if (c.origType === 'TRAILING_STOP_MARKET') {
    // Ticks of the trigger the extreme implies, rounded toward the extreme (0 until activated).
    const t = trailingTrigger1000(o)
    stop = c.activated && c.extremeTicks > 0 ? (o.side === 'SELL' ? Math.ceil(t / PERMILLE) : Math.floor(t / PERMILLE)) : 0
  }
  const out: ConditionalFields = {
    origType: c.origType, stopPriceTicks: stop, activationPriceTicks: c.activationPriceTicks,
    callbackPermille: c.callbackPermille, workingType: c.workingType, priceProtect: c.priceProtect,
    closePosition: c.closePosition, triggerTime: c.triggerTime, reason: c.reason as Code | '',
  }
  // A spot trailing stop's (core/spot-stops.ts): stopPriceTicks stays the stop price it was placed with (0: none).
  if (c.trailingDeltaBips !== 0) {
    out.trailingDeltaBips = c.trailingDeltaBips
    out.trailingTime = c.trailingTime
  }
  return out
}

// ---- placement ----

function isInt(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n)
}

/** A trigger price against the market's price filter (a spot stop's too, core/spot-stops.ts). */
export function checkTriggerPrice(m: Market, p: unknown): Code | null {
  if (p === undefined) return 'STOP_PRICE_REQUIRED'
  if (typeof p !== 'number' || Number.isNaN(p)) return 'STOP_PRICE_REQUIRED'
  if (p <= 0) return 'PRICE_BELOW_ZERO'
  if (!isInt(p)) return p > m.maxPriceTicks ? 'PRICE_ABOVE_MAX' : 'PRICE_TICK'
  if (p < m.minPriceTicks) return 'PRICE_BELOW_MIN'
  if (p > m.maxPriceTicks) return 'PRICE_ABOVE_MAX'
  return null
}

/** Parameter rules of the conditional fields (Binance New Order): the conditional, or why not. */
function buildConditional(m: PerpMarket, cmd: PlaceOrder, dualSide: boolean): Conditional | Code {
  // Literals of the core's own, not the command's strings (core/filters.ts says why).
  const t = conditionalTypeOf(cmd.orderType)
  const wt = cmd.workingType === undefined || cmd.workingType === 'CONTRACT_PRICE' ? 'CONTRACT_PRICE'
    : cmd.workingType === 'MARK_PRICE' ? 'MARK_PRICE' : null
  if (wt === null) return 'WORKING_TYPE_INVALID'
  if (cmd.priceProtect !== undefined && typeof cmd.priceProtect !== 'boolean') return 'COMMAND_INVALID'
  if (cmd.closePosition !== undefined && typeof cmd.closePosition !== 'boolean') return 'COMMAND_INVALID'
  const closePosition = cmd.closePosition === true
  if (closePosition) {
    if (t !== 'STOP_MARKET' && t !== 'TAKE_PROFIT_MARKET') return 'CLOSE_POSITION_INVALID'
    if (cmd.qtyLots !== undefined && cmd.qtyLots !== 0) return 'CLOSE_POSITION_WITH_QTY'
    if (cmd.reduceOnly === true) return 'CLOSE_POSITION_WITH_REDUCE_ONLY'
    // Hedge mode: a position side (as any order there), and only the side that closes it (SELL LONG, BUY SHORT).
    if (dualSide && cmd.positionSide !== 'LONG' && cmd.positionSide !== 'SHORT') return 'POSITION_SIDE_INVALID'
    if (dualSide && (cmd.positionSide === 'LONG') !== (cmd.side === 'SELL')) return 'CLOSE_POSITION_INVALID'
  }
  let stop = 0
  let activation = 0
  let callback = 0
  if (t === 'TRAILING_STOP_MARKET') {
    if (!isInt(cmd.callbackPermille) || cmd.callbackPermille < 1 || cmd.callbackPermille > 100) return 'CALLBACK_RATE_INVALID'
    callback = cmd.callbackPermille
    if (cmd.activationPriceTicks !== undefined) {
      const code = checkTriggerPrice(m, cmd.activationPriceTicks)
      if (code) return code === 'STOP_PRICE_REQUIRED' ? 'ACTIVATION_PRICE_INVALID' : code
      activation = cmd.activationPriceTicks
    }
  } else {
    const code = checkTriggerPrice(m, cmd.stopPriceTicks)
    if (code) return code
    stop = cmd.stopPriceTicks!
  }
  return new ConditionalState({
    origType: t, stopPriceTicks: stop, activationPriceTicks: activation, callbackPermille: callback,
    workingType: wt, priceProtect: cmd.priceProtect === true, closePosition,
    activated: false, extremeTicks: 0, trailingDeltaBips: 0, trailingTime: 0, triggerTime: 0, reason: '', entry: null,
  })
}

/** The order the conditional becomes, checked by placement's own filters (LIMIT for STOP/TAKE_PROFIT, else MARKET). */
function probeOf(m: PerpMarket, cmd: PlaceOrder, c: Conditional, dualSide: boolean, matched: boolean): PlaceOrder {
  const limit = c.origType === 'STOP' || c.origType === 'TAKE_PROFIT'
  // Its quantity at trigger is the position's: the filters see the smallest, as reduce-only in one-way mode.
  const close = c.closePosition
  // Written out, not spread with a field deleted: a deleted property leaves a slow dictionary
  // object, and one more shape at every read of the order filters.
  return {
    type: 'PlaceOrder', account: cmd.account, sub: cmd.sub, marketId: cmd.marketId, side: cmd.side,
    orderType: limit ? 'LIMIT' : 'MARKET', timeInForce: limit ? cmd.timeInForce : undefined,
    // A STOP or TAKE_PROFIT whose price the book gives at trigger (priceMatch) is checked at its stop price.
    priceTicks: matched ? cmd.stopPriceTicks : cmd.priceTicks,
    qtyLots: close ? m.minQtyLots : cmd.qtyLots, clientOrderId: cmd.clientOrderId, positionSide: cmd.positionSide,
    reduceOnly: close && !dualSide ? true : cmd.reduceOnly, stp: cmd.stp, goodTillDate: cmd.goodTillDate,
  }
}

/** Would the conditional fire at the price of its placement (Binance -2021)? */
function wouldTrigger(m: PerpMarket, o: Order): boolean {
  const c = o.cond!
  const price = watched(m, c.workingType)
  if (price === 0) return false
  const key = c.origType === 'TRAILING_STOP_MARKET' ? c.activationPriceTicks : c.stopPriceTicks
  if (key === 0) return false
  return rising(o) ? price >= key : price <= key
}

/** The sub-account's waiting conditional orders in the market (each is in the market's index). */
function conditionalCount(sub: SubAccount, m: PerpMarket): number {
  return m.triggers.bySub.get(sub) ?? 0
}

/**
 * Every check placing a conditional order makes, changing nothing: the order it would place
 * (not yet given an id or linked), or why not. POST /fapi/v1/order/test runs it too.
 */
export function checkConditional(m: PerpMarket, sub: SubAccount | undefined, cmd: PlaceOrder, time: number,
  marketGtd: boolean): Order | Code {
  const dualSide = sub?.dualSide ?? false
  if (cmd.side !== 'BUY' && cmd.side !== 'SELL') return 'SIDE_INVALID'
  const c = buildConditional(m, cmd, dualSide)
  if (typeof c === 'string') return c
  // Only STOP and TAKE_PROFIT get here with a priceMatch (placeOrder refuses it on the others).
  const matched = cmd.priceMatch !== undefined && cmd.priceMatch !== 'NONE'
  const o = buildOrder(m, sub, dualSide, probeOf(m, cmd, c, dualSide, matched), time)
  if (typeof o === 'string') return o
  if (sub === undefined) return c.closePosition || o.reduceOnly ? 'REDUCE_ONLY_REJECTED' : 'MARGIN_INSUFFICIENT'
  o.owner = sub
  o.orderType = c.origType
  o.cond = c
  if (matched) {
    // Its price comes from the book at trigger (matchAtTrigger).
    o.priceMatch = priceMatchLiteral(cmd.priceMatch!)
    o.priceTicks = 0
  }
  if (c.origType !== 'STOP' && c.origType !== 'TAKE_PROFIT') {
    // A market form's one time in force is how long it waits: GTD until its goodTillDate, as a
    // STOP's (rules 7; before, GTC whatever was sent), else GTC.
    o.timeInForce = 'GTC'
    if (marketGtd && cmd.timeInForce === 'GTD') {
      const gtd = goodTillDateOf(cmd, time)
      if (gtd === null) return 'GTD_INVALID'
      o.timeInForce = 'GTD'
      o.goodTillDate = gtd
    }
    // The notional a market form would have at its trigger (Binance checks it at placement).
    const ref = c.stopPriceTicks || c.activationPriceTicks || watched(m, c.workingType)
    if (!o.reduceOnly && !c.closePosition && ref > 0 && o.origQtyLots * ref * m.quotePerTickLot < m.minNotional) {
      return 'NOTIONAL_TOO_SMALL'
    }
  }
  if (c.closePosition) o.origQtyLots = 0
  if (sub.orders.size >= LIMITS.openOrdersPerAccountMax) return 'TOO_MANY_ORDERS'
  if ((sub.openByMarket.get(m.marketId) ?? 0) >= LIMITS.openOrdersPerMarketMax) return 'TOO_MANY_ORDERS'
  if (conditionalCount(sub, m) >= LIMITS.conditionalOrdersPerMarketMax) return 'TOO_MANY_CONDITIONAL'
  if (wouldTrigger(m, o)) return 'WOULD_TRIGGER'
  // No activation price: trailing starts at once from the price of the placement, which must
  // exist (a market with no trade, or no mark, has none to start from).
  if (c.origType === 'TRAILING_STOP_MARKET' && c.activationPriceTicks === 0 && watched(m, c.workingType) === 0) {
    return 'ACTIVATION_PRICE_INVALID'
  }
  return o
}

/** Places a conditional order checkConditional passed: it waits in the market's trigger index. */
export function armConditional(m: PerpMarket, o: Order): Result {
  const c = o.cond!
  if (c.origType === 'TRAILING_STOP_MARKET' && c.activationPriceTicks === 0) {
    // No activation price: trailing starts at once from the price of the placement.
    const price = watched(m, c.workingType)
    c.activated = true
    c.extremeTicks = price
    c.activationPriceTicks = price
  }
  o.orderId = m.nextOrderId++
  if (o.clientOrderId === '') o.clientOrderId = generatedClientId(m, o)
  o.owner.orders.set(o.clientOrderId, o)
  countOpen(o, 1)
  arm(m, o)
  if (o.goodTillDate > 0) trackGoodTillDate(m, o)
  return acceptOrder([orderEvent(o, 'NEW')], o.orderId)
}

// ---- triggering ----

/** priceProtect: hold the trigger while |mark − last| / mark exceeds the market's triggerProtect. */
function protectedNow(m: PerpMarket, o: Order): boolean {
  if (!o.cond!.priceProtect) return false
  const mark = m.markPriceTicks
  const last = m.lastPriceTicks
  if (mark === 0 || last === 0) return false
  return Math.abs(mark - last) * 1_000_000 > mark * m.triggerProtectPpm
}

/** Pops what the price crossed in one heap: activates trailing stops, queues the rest. */
function drain(m: PerpMarket, set: TriggerSet, heap: TriggerHeap, price: number, due: Due[], held: Order[]): void {
  for (let e = heap.peek(); e !== undefined; e = heap.peek()) {
    if (heap.rising ? e.priceTicks > price : e.priceTicks < price) break
    heap.pop()
    const o = e.order
    const c = o.cond!
    c.entry = null
    if (c.origType === 'TRAILING_STOP_MARKET') {
      c.activated = true
      c.extremeTicks = price
      fileTrailing(set, o)
    } else if (protectedNow(m, o)) {
      held.push(o)
    } else {
      unlist(m, o)
      due.push({ order: o, distance: Math.abs(price - e.priceTicks) * PERMILLE })
    }
  }
}

/**
 * Activated trailing stops of one side: extremes the price passed move to it, then those
 * whose trigger the retrace reached are queued (or held). Each costs what it changes.
 */
function trail(m: PerpMarket, set: TriggerSet, side: TrailSide, price: number, due: Due[], held: Order[]): void {
  side.move(price)
  const from = due.length
  side.fire(price, m, protectedNow, due, held)
  for (let i = from; i < due.length; i++) {
    set.trailing -= 1
    unlist(m, due[i]!.order)
  }
}

function collect(m: PerpMarket, wt: WorkingType, due: Due[], held: Order[]): void {
  const price = watched(m, wt)
  if (price === 0) return
  const set = setOf(m.triggers, wt)
  drain(m, set, set.up, price, due, held)
  drain(m, set, set.down, price, due, held)
  if (set.trailing > 0) {
    trail(m, set, set.sell, price, due, held)
    trail(m, set, set.buy, price, due, held)
  }
}

/**
 * Whether the working type's price crosses nothing: no heap's top (live or not: the top has
 * the nearest key of all) and no trailing stop's extreme or trigger. Most moves cross
 * nothing, and then the run is skipped whole.
 */
function quiet(m: PerpMarket, wt: WorkingType): boolean {
  const price = watched(m, wt)
  if (price === 0) return true
  const set = setOf(m.triggers, wt)
  const up = set.up.items[0]
  if (up !== undefined && up.priceTicks <= price) return false
  const down = set.down.items[0]
  if (down !== undefined && down.priceTicks >= price) return false
  return set.trailing === 0 || (set.sell.quiet(price) && set.buy.quiet(price))
}

/**
 * Fires every conditional order the market's current prices cross, in the order the price
 * path crossed them (farthest behind the current price first, ties by orderId), then again
 * for what their trades crossed, until a round fires nothing. Run first after every price move.
 */
export function runTriggers(state: State, m: PerpMarket, time: number, events: Event[]): void {
  const ix = m.triggers
  if (ix.live.size === 0) return
  // Prices at which nothing crossed and nothing was held, and no order armed since: nothing does now.
  if (m.markPriceTicks === ix.quietMark && m.lastPriceTicks === ix.quietLast) return
  if (quiet(m, 'CONTRACT_PRICE') && quiet(m, 'MARK_PRICE')) {
    settled(m)
    return
  }
  const held: Order[] = []
  let done = false
  for (let round = 0; round < LIMITS.triggerRoundsMax; round++) {
    const due: Due[] = []
    collect(m, 'CONTRACT_PRICE', due, held)
    collect(m, 'MARK_PRICE', due, held)
    if (due.length === 0) {
      done = true
      break
    }
    due.sort(byCrossing)
    for (const d of due) fire(state, m, d.order, time, events)
    if (m.prices.indexE8 !== 0) refreshMark(m, time)
  }
  // Held by priceProtect: they keep waiting, back in their heaps.
  for (const o of held) rearm(m, o)
  // A last round that fired nothing moved every trailing extreme to the prices and left every trigger beyond them.
  if (done && held.length === 0) settled(m)
}

/** Nothing in the market's index crosses its current prices (runTriggers' shortcut until they or the index change). */
function settled(m: PerpMarket): void {
  m.triggers.quietMark = m.markPriceTicks
  m.triggers.quietLast = m.lastPriceTicks
}

/**
 * A held order back into its heap. An activated trailing stop never left its group: it is
 * no longer skipped (and if a later round fired it after all, it is gone).
 */
function rearm(m: PerpMarket, o: Order): void {
  const c = o.cond as ConditionalState
  if (c.activated) c.heldAt = 0
  else arm(m, o)
}

/** The lots a closePosition order closes: the whole position on the side it reduces. */
function closableLots(m: PerpMarket, o: Order): number {
  const h = o.owner.perp.get(m.marketId)
  if (h === undefined) return 0
  const q = positionOf(h, o.positionSide).qtyLots
  return o.side === 'SELL' ? Math.max(0, q) : Math.max(0, -q)
}

/**
 * A STOP or TAKE_PROFIT with a priceMatch takes its price from the book as it triggers; the
 * minimum notional is checked again at that price. Null, or why it cannot be placed.
 */
function matchAtTrigger(m: PerpMarket, o: Order): Code | null {
  const price = resolvePriceMatch(m, o.side, o.priceMatch!)
  if (typeof price === 'string') return price
  if (!o.reduceOnly && price * o.origQtyLots * m.quotePerTickLot < m.minNotional) return 'NOTIONAL_TOO_SMALL'
  o.priceTicks = price
  return null
}

/** One conditional order triggers: it leaves the index and is placed as LIMIT or MARKET, or expires. */
function fire(state: State, m: PerpMarket, o: Order, time: number, events: Event[]): void {
  const c = o.cond!
  // Out of the index and the account; placement puts it back if it rests.
  o.owner.orders.delete(o.clientOrderId)
  countOpen(o, -1)
  if (o.goodTillDate > 0) m.gtdOpen -= 1
  c.triggerTime = time
  o.updateTime = time
  const limit = c.origType === 'STOP' || c.origType === 'TAKE_PROFIT'
  o.orderType = limit ? 'LIMIT' : 'MARKET'
  if (!limit) o.timeInForce = 'IOC'
  let code: Code | null = null
  if (c.closePosition) {
    const lots = Math.min(closableLots(m, o), m.marketMaxQtyLots)
    if (lots === 0) code = 'CLOSE_POSITION_NOTHING'
    o.origQtyLots = lots
    if (!o.owner.dualSide) o.reduceOnly = true
  }
  if (code === null && limit && o.priceMatch !== undefined) code = matchAtTrigger(m, o)
  if (code === null) code = placeTriggered(state, m, o, time, events)
  if (code === null) return
  c.reason = code
  o.status = 'EXPIRED'
  events.push(orderEvent(o, 'EXPIRED'))
}

/**
 * Cancels a sub-account's waiting conditional orders in one market (marketId −1: in all), in
 * placement order; the liquidation engine calls it before closing an account.
 */
export function cancelConditionals(state: State, sub: SubAccount, marketId: number, time: number, events: Event[]): void {
  void state
  const mine: Order[] = []
  for (const o of sub.orders.values()) {
    if (isConditionalType(o.orderType) && (marketId === -1 || o.market.marketId === marketId)) mine.push(o)
  }
  for (const o of mine) retire(o, 'CANCELED', 'CANCELED', time, events)
}
