// Placing and canceling orders on perpetual and spot books: risk before matching
// (filters, reduce-only, post-only, FOK, margin or balance), then the sweep, then the
// remainder rests or expires. Every check runs before the first change.

import { ensureHolding, ensureSpotBalance, findSub, spotBalance, validIssuer } from './accounts.js'
import type { Code } from './codes.js'
import type { CancelAll, CancelOrder, PlaceOrder } from './commands.js'
import type { Event, ExpiryReason, OrderEvent, Result } from './events.js'
import { buildOrder, crosses, remaining, validClientId } from './filters.js'
import { floorDiv } from './arith.js'
import { LIMITS } from './limits.js'
import { checkOrderMargin } from './risk.js'
import { simulate, sweep, type SweepEnd } from './match.js'
import { isClosing, isTerminal, orderEvent } from './records.js'
import { accept, acceptOrder, reject } from './results.js'
import { MARKET_STOPS_GTD, QUOTE_ORDERS_AS_BINANCE, rulesOf } from './rules.js'
import { openOrderNamed, openOrderOf, pushSpotBalanceEvent, releaseSpotLock, rest, retire, retireInto, tooManyIcebergs } from './resting.js'
import { armConditional, checkConditional } from './conditional.js'
import { armSpotStop, checkSpotStop } from './spot-stops.js'
import { endList } from './order-lists.js'
import { bandCode, marketBandCode } from './price-band.js'
import { pegOf, peggedPrice } from './peg.js'
import { isPriceMatch, priceMatchLiteral, resolvePriceMatch } from './price-match.js'
import { isConditionalType } from './trigger-index.js'
import { lockFor, lockSpot } from './spot.js'
import { strategyOf, tag } from './strategy.js'
import { positionOf, type Market, type Order, type Peg, type PerpMarket, type SpotMarket, type State, type SubAccount } from './state.js'

export function placeOrder(state: State, cmd: PlaceOrder, time: number): Result {
  const o = checkOrder(state, cmd, time)
  if (typeof o === 'string') return reject(o)
  const m = o.market
  if (o.cond !== null) return m.kind === 'PERP' ? armConditional(m, o) : armSpotStop(m, o, time)
  const r = m.kind === 'PERP' ? placePerp(state, m, o.owner, o, time) : placeSpot(state, m, o.owner, o, time)
  if (typeof r === 'string') return reject(r)
  // Accepted promises the id the order was given, so a caller need not dig it out of the events.
  return acceptOrder(r, o.orderId)
}

/**
 * Every check placing `cmd` makes before margin, balances and matching, changing nothing: the
 * order it would place (no id yet, not linked), or why not. placeOrder starts with it, and
 * POST /fapi/v1/order/test and /api/v3/order/test run it alone. `pending`: an OTO list's
 * pending order (core/oto-lists.ts), whose stop is not held to the moment's price and balance.
 */
export function checkOrder(state: State, cmd: PlaceOrder, time: number, pending = false): Order | Code {
  const m = state.markets[cmd.marketId]
  if (m === undefined || !Number.isInteger(cmd.marketId)) return 'MARKET_UNKNOWN'
  const sub = findSub(state, cmd)
  if (sub === undefined && !validIssuer(cmd)) return 'ACCOUNT_INVALID'
  if (m.status !== 'TRADING') return 'MARKET_NOT_TRADING'
  const strategy = strategyOf(state, m, cmd)
  if (typeof strategy === 'string') return strategy
  if (cmd.priceMatch !== undefined && cmd.priceMatch !== 'NONE') {
    const matched = withMatchedPrice(m, cmd)
    if (typeof matched === 'string') return matched
    cmd = matched
  }
  const peg = pegOf(m, cmd)
  if (typeof peg === 'string') return peg
  if (isConditionalType(cmd.orderType)) {
    if (m.kind === 'SPOT') {
      const stop = checkSpotStop(m, sub, cmd, time, pending, peg)
      return typeof stop === 'string' ? stop : tag(stop, strategy)
    }
    // A trailing delta is a spot stop's (a perpetual trailing stop takes a callback).
    return cmd.trailingDeltaBips !== undefined ? 'COMMAND_INVALID'
      : checkConditional(m, sub, cmd, time, rulesOf(state) >= MARKET_STOPS_GTD)
  }
  if (cmd.trailingDeltaBips !== undefined) return 'COMMAND_INVALID'
  let quoteShort = false
  if (cmd.quoteQty !== undefined) {
    const sized = withQuoteQty(state, m, sub, cmd, time)
    if (typeof sized === 'string') return sized
    cmd = sized.cmd
    quoteShort = sized.short
  }
  if (peg !== null) {
    const priced = withPeggedPrice(m, sub, cmd, peg, time, pending)
    if (typeof priced === 'string') return priced
    cmd = priced
  }
  const o = buildOrder(m, sub, sub?.dualSide ?? false, cmd, time)
  if (typeof o === 'string') return o
  tag(o, strategy)
  if (peg !== null) {
    o.peg = peg
    // An OTO list's pending order takes its price as it is placed (core/oto-lists.ts).
    if (pending) o.priceTicks = 0
  }
  if (cmd.priceMatch !== undefined && cmd.priceMatch !== 'NONE') o.priceMatch = priceMatchLiteral(cmd.priceMatch)
  if (cmd.quoteQty !== undefined) {
    o.quoteQty = cmd.quoteQty
    o.quoteShort = quoteShort
  }
  if (sub === undefined) {
    // Nothing held yet: a closing order has nothing to reduce, anything else nothing to pay with.
    if (m.kind === 'SPOT') return 'BALANCE_INSUFFICIENT'
    return isClosing(o) ? 'REDUCE_ONLY_REJECTED' : 'MARGIN_INSUFFICIENT'
  }
  o.owner = sub
  return checkOrderLimits(m, sub, o) ?? o
}

/**
 * The command with the price its priceMatch names (core/price-match.ts). Perpetual LIMIT
 * orders take it now; STOP and TAKE_PROFIT keep the mode and take theirs as they trigger
 * (core/conditional.ts), as Binance's do.
 */
function withMatchedPrice(m: Market, cmd: PlaceOrder): PlaceOrder | Code {
  if (!isPriceMatch(cmd.priceMatch)) return 'PRICE_MATCH_INVALID'
  const atTrigger = cmd.orderType === 'STOP' || cmd.orderType === 'TAKE_PROFIT'
  if (m.kind !== 'PERP' || (cmd.orderType !== 'LIMIT' && cmd.orderType !== 'POST_ONLY' && !atTrigger)) return 'PRICE_MATCH_TYPE'
  if (cmd.priceTicks !== undefined) return 'PRICE_NOT_ALLOWED'
  if (cmd.side !== 'BUY' && cmd.side !== 'SELL') return 'SIDE_INVALID'
  if (atTrigger) return cmd
  const priceTicks = resolvePriceMatch(m, cmd.side, cmd.priceMatch)
  return typeof priceTicks === 'string' ? priceTicks : { ...cmd, priceTicks }
}

/**
 * The command a pegged LIMIT or POST_ONLY order is built from: at the price the book gives now
 * (core/peg.ts), after the price it was sent with, if any, passed the same checks. An OTO
 * list's pending order is priced as it is placed: until then it is checked at the price it was
 * sent with, or without price filters (the market's highest price stands in).
 */
function withPeggedPrice(m: Market, sub: SubAccount | undefined, cmd: PlaceOrder, peg: Peg, time: number,
  pending: boolean): PlaceOrder | Code {
  if (pending) return { ...cmd, priceTicks: cmd.priceTicks ?? m.maxPriceTicks }
  if (cmd.priceTicks !== undefined) {
    const sent = buildOrder(m, sub, sub?.dualSide ?? false, cmd, time)
    if (typeof sent === 'string') return sent
  }
  if (cmd.side !== 'BUY' && cmd.side !== 'SELL') return 'SIDE_INVALID'
  const priceTicks = peggedPrice(m, cmd.side, peg)
  return typeof priceTicks === 'string' ? priceTicks : { ...cmd, priceTicks }
}

/**
 * A spot MARKET order sized by quote (Binance's quoteOrderQty): the command with the quantity
 * the book gives now for at most `quoteQty` of quote, spent (BUY) or received (SELL), walked as
 * the sweep will meet the book (expired makers and self-trade prevention included), so the
 * fills that follow come to at most that much. The quantity's own checks (step, minimum,
 * notional) then run as for any order; an empty book gives none, refused as too small.
 * Under rules 5 (Binance's, as its market order FAQ says): a buy needs the whole `quoteQty`
 * free, and `short` says the book ran out (or its price range or the fills a command may make)
 * before the budget did, so the order expires once it has taken what there is.
 */
function withQuoteQty(state: State, m: Market, sub: SubAccount | undefined, cmd: PlaceOrder,
  time: number): { cmd: PlaceOrder; short: boolean } | Code {
  if (m.kind !== 'SPOT' || cmd.orderType !== 'MARKET' || cmd.qtyLots !== 0) return 'COMMAND_INVALID'
  const quoteQty = cmd.quoteQty
  if (!Number.isSafeInteger(quoteQty) || quoteQty! <= 0 || quoteQty! > LIMITS.ledgerAmountMax) return 'AMOUNT_INVALID'
  // A probe of the largest market quantity: the walk stops at the budget, not at the probe's size.
  const probe = buildOrder(m, sub, false, { ...cmd, qtyLots: m.marketMaxQtyLots }, time)
  if (typeof probe === 'string') return probe
  if (sub !== undefined) probe.owner = sub
  const budget = floorDiv(quoteQty!, m.quotePerTickLot)
  const { lots, notional } = simulate(m, probe, budget)
  if (rulesOf(state) < QUOTE_ORDERS_AS_BINANCE) return { cmd: { ...cmd, qtyLots: lots }, short: false }
  if (cmd.side === 'BUY' && spotBalance(sub, m.quote).free < quoteQty!) return 'BALANCE_INSUFFICIENT'
  // Short: the budget not spent, and no lot left that it could have taken.
  const short = notional < budget && simulate(m, probe).lots === lots
  return { cmd: { ...cmd, qtyLots: lots }, short }
}

/** Room for the order to rest, should it: per account, per market, per book, per side. */
function checkOrderLimits(m: Market, sub: SubAccount, o: Order): Code | null {
  if (o.timeInForce === 'IOC' || o.timeInForce === 'FOK') return null
  if (sub.orders.size >= LIMITS.openOrdersPerAccountMax) return 'TOO_MANY_ORDERS'
  if ((sub.openByMarket.get(m.marketId) ?? 0) >= LIMITS.openOrdersPerMarketMax) return 'TOO_MANY_ORDERS'
  if (m.book.orders.size >= LIMITS.ordersPerBookMax) return 'TOO_MANY_ORDERS'
  if (!m.book.side(o.side === 'BUY').canAddLevel(o.priceTicks)) return 'TOO_MANY_ORDERS'
  if (tooManyIcebergs(m, sub, o)) return 'TOO_MANY_ICEBERGS'
  return null
}

function wouldTake(m: Market, o: Order): boolean {
  const best = m.book.side(o.side !== 'BUY').best()
  return best !== undefined && crosses(o.side === 'BUY', o.priceTicks, best.priceTicks)
}

/** Reference price for a market order's notional: the mark, else the touch. */
function marketNotionalOk(m: Market, o: Order): boolean {
  if (o.reduceOnly) return true
  const ref = (m.kind === 'PERP' && m.markPriceTicks > 0) ? m.markPriceTicks
    : m.book.side(o.side !== 'BUY').best()?.priceTicks ?? 0
  return ref === 0 || o.origQtyLots * ref * m.quotePerTickLot >= m.minNotional
}

/** Checks shared by both kinds that depend on the book: post-only, FOK, market notional. */
function checkAgainstBook(m: Market, o: Order): Code | null {
  if (o.timeInForce === 'GTX' && wouldTake(m, o)) return 'POST_ONLY_WOULD_TAKE'
  if (o.orderType === 'MARKET' && !marketNotionalOk(m, o)) return 'NOTIONAL_TOO_SMALL'
  if (o.timeInForce === 'FOK' && simulate(m, o).lots < o.origQtyLots) return 'FOK_UNFILLED'
  return null
}

/**
 * Places a triggered conditional order (built, with its orderId) as placement would: the same
 * checks, the same sweep; its NEW record and fills go to `events`. Null, or why it was refused.
 */
export function placeTriggered(state: State, m: PerpMarket, o: Order, time: number, events: Event[]): Code | null {
  const limitCode = checkOrderLimits(m, o.owner, o)
  if (limitCode) return limitCode
  const r = placePerp(state, m, o.owner, o, time, events)
  return typeof r === 'string' ? r : null
}

/** placeTriggered for a spot stop (core/spot-stops.ts). */
export function placeTriggeredSpot(state: State, m: SpotMarket, o: Order, time: number, events: Event[]): Code | null {
  const limitCode = checkOrderLimits(m, o.owner, o)
  if (limitCode) return limitCode
  const r = placeSpot(state, m, o.owner, o, time, events)
  return typeof r === 'string' ? r : null
}

/** placePerp's checks: room to reduce, the price band, the book (post-only, FOK, market notional), margin. */
function perpCode(state: State, m: PerpMarket, sub: SubAccount, o: Order): Code | null {
  const closing = isClosing(o)
  if (closing) {
    const h = sub.perp.get(m.marketId)
    const q = h ? positionOf(h, o.positionSide).qtyLots : 0
    const reducible = o.side === 'SELL' ? q : -q
    if (o.origQtyLots > reducible) return 'REDUCE_ONLY_REJECTED'
  }
  // The band (core/price-band.ts), on placed and triggered orders alike: a refused trigger
  // expires with the code as its reason.
  const band = o.orderType === 'MARKET' ? marketBandCode(m, o.side) : bandCode(m, o.side, o.priceTicks)
  if (band) return band
  const bookCode = checkAgainstBook(m, o)
  if (bookCode) return bookCode
  if (closing) return null
  let lots = o.origQtyLots
  let notional = lots * o.priceTicks
  if (o.orderType === 'MARKET') {
    const sim = simulate(m, o)
    lots = sim.lots
    notional = sim.notional
  }
  return checkOrderMargin(state, sub, m, o.side, lots, notional)
}

/** What a spot order locks (quote ledger units for a buy, base for a sell), or why it cannot be placed. */
function spotLock(m: SpotMarket, sub: SubAccount, o: Order): number | Code {
  const bookCode = checkAgainstBook(m, o)
  if (bookCode) return bookCode
  const lock = o.orderType === 'MARKET' && o.side === 'BUY'
    ? simulate(m, o).notional * m.quotePerTickLot
    : lockFor(m, o, o.origQtyLots, o.priceTicks)
  const held = o.side === 'BUY' ? m.quote : m.base
  return spotBalance(sub, held).free < lock ? 'BALANCE_INSUFFICIENT' : lock
}

/**
 * Whether `cmd` would be accepted now, changing nothing (POST /fapi/v1/order/test,
 * /api/v3/order/test): every check of placement, margin and balances included; not how it
 * would fill. A conditional order is checked as placed, not as it would trigger.
 */
export function testOrder(state: State, cmd: PlaceOrder, time: number): Order | Code {
  const o = checkOrder(state, cmd, time)
  if (typeof o === 'string' || o.cond !== null) return o
  const m = o.market
  if (m.kind === 'PERP') return perpCode(state, m, o.owner, o) ?? o
  const lock = spotLock(m, o.owner, o)
  return typeof lock === 'string' ? lock : o
}

/**
 * Places on a perpetual book: the events, or why it was refused (nothing changed then).
 * `into`: a triggered order, which keeps its id and reports into the trigger's events.
 */
function placePerp(state: State, m: PerpMarket, sub: SubAccount, o: Order, time: number, into?: Event[]): Event[] | Code {
  const code = perpCode(state, m, sub, o)
  if (code) return code
  const closing = isClosing(o)
  ensureHolding(sub, m)
  o.marginCounted = !closing
  const events = opened(m, o, into)
  finish(o, sweep(state, m, o, time, events), time, events)
  return events
}

/**
 * Places on a spot book: the events, or why it was refused (nothing changed then).
 * `into`: a triggered stop, which keeps its id and reports into the trigger's events.
 * `beforeSweep`: runs between the order's NEW record and its sweep.
 */
export function placeSpot(state: State, m: SpotMarket, sub: SubAccount, o: Order, time: number, into?: Event[],
  beforeSweep?: (events: Event[]) => void): Event[] | Code {
  const lock = spotLock(m, sub, o)
  if (typeof lock === 'string') return lock
  ensureSpotBalance(sub, m.base)
  ensureSpotBalance(sub, m.quote)
  lockSpot(o, lock)
  const events = opened(m, o, into)
  pushSpotBalanceEvent(o, time, events)
  // An OTO list's pending orders (core/oto-lists.ts): after the working order's NEW record, open before it trades.
  if (beforeSweep !== undefined) beforeSweep(events)
  finish(o, sweep(state, m, o, time, events), time, events)
  return events
}

/** A placement's events so far: a new order's (open), or a triggered one's NEW record added to `into`. */
function opened(m: Market, o: Order, into: Event[] | undefined): Event[] {
  if (into === undefined) return open(m, o)
  into.push(orderEvent(o, 'NEW'))
  return into
}

/** Gives the accepted order its ids and reports it NEW. */
function open(m: Market, o: Order): Event[] {
  o.orderId = m.nextOrderId++
  if (o.clientOrderId === '') o.clientOrderId = generatedClientId(m, o)
  return [orderEvent(o, 'NEW')]
}

const NO_IDS: readonly string[] = []

/**
 * A deterministic id for orders sent without one, never equal to an open order's (nor to one
 * of `taken`: the ids the other orders of a list were given, not yet open).
 */
export function generatedClientId(m: Market, o: Order, orderId = o.orderId, taken = NO_IDS): string {
  let id = 'x-' + m.marketId + '-' + orderId
  for (let n = 1; o.owner.orders.has(id) || taken.includes(id); n++) id = 'x-' + m.marketId + '-' + orderId + '-' + n
  return id
}

/** Why a spot taker's rest expired (not by self-trade prevention): Binance spot's expiryReason. */
function expiryReasonOf(o: Order, end: SweepEnd): ExpiryReason {
  if (end === 'RANGE') return 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED'
  if (end === 'LIMIT') return 'EXCHANGE_CANCELED'
  if (o.orderType === 'MARKET') return 'INSUFFICIENT_LIQUIDITY'
  return o.timeInForce === 'FOK' ? 'UNFILLED_FOK_ORDER_EXPIRED' : 'UNFILLED_IOC_QUANTITY_EXPIRED'
}

/**
 * After the sweep: rest the remainder, or expire it and release what it held. A taker self-trade
 * prevention stopped expires, even with nothing left (DECREMENT took its last lots).
 */
function finish(o: Order, end: SweepEnd, time: number, events: Event[]): void {
  if (remaining(o) === 0 && end !== 'STP' && !o.quoteShort) {
    if (o.lockedRemaining > 0) {
      releaseSpotLock(o)
      pushSpotBalanceEvent(o, time, events)
    }
    return
  }
  const rests = end === 'DONE' && o.orderType !== 'MARKET' && o.timeInForce !== 'IOC' && o.timeInForce !== 'FOK'
  if (rests) {
    rest(o)
    return
  }
  o.status = end === 'STP' ? 'EXPIRED_IN_MATCH' : 'EXPIRED'
  o.updateTime = time
  const spotExpired = o.status === 'EXPIRED' && o.market.kind === 'SPOT'
  events.push(orderEvent(o, o.status === 'EXPIRED' ? 'EXPIRED' : 'EXPIRED_IN_MATCH', spotExpired ? expiryReasonOf(o, end) : undefined))
  if (o.lockedRemaining > 0) {
    releaseSpotLock(o)
    pushSpotBalanceEvent(o, time, events)
  }
  // An OTO list's working order that expired unfilled takes its pending orders with it.
  if (o.list !== null && !o.list.done) endList(o, 'EXPIRED', time, events)
}


export function cancelOrder(state: State, cmd: CancelOrder, time: number): Result {
  const m = state.markets[cmd.marketId]
  if (m === undefined || !Number.isInteger(cmd.marketId)) return reject('MARKET_UNKNOWN')
  const sub = findSub(state, cmd)
  if (sub === undefined && !validIssuer(cmd)) return reject('ACCOUNT_INVALID')
  if (cmd.orderId === undefined && cmd.clientOrderId === undefined) return reject('ORDER_ID_REQUIRED')
  const r = cmd.restriction
  if (r !== undefined && r !== 'ONLY_NEW' && r !== 'ONLY_PARTIALLY_FILLED') return reject('CANCEL_RESTRICTION_INVALID')
  const cancelId = cmd.cancelClientOrderId
  if (cancelId !== undefined && (typeof cancelId !== 'string' || !validClientId(cancelId))) return reject('CLIENT_ID_INVALID')
  const o = sub && openOrderNamed(m, sub, cmd)
  if (o === undefined) return reject('ORDER_UNKNOWN')
  if (r === 'ONLY_NEW' && o.status !== 'NEW') return reject('CANCEL_RESTRICTED')
  if (r === 'ONLY_PARTIALLY_FILLED' && o.status !== 'PARTIALLY_FILLED') return reject('CANCEL_RESTRICTED')
  const events = retireInto(o, 'CANCELED', 'CANCELED', time)
  if (cancelId !== undefined) (events[0] as OrderEvent).cancelClientOrderId = cancelId
  return accept(events)
}

export function cancelAll(state: State, cmd: CancelAll, time: number): Result {
  const m = state.markets[cmd.marketId]
  if (m === undefined || !Number.isInteger(cmd.marketId)) return reject('MARKET_UNKNOWN')
  const sub = findSub(state, cmd)
  if (sub === undefined && !validIssuer(cmd)) return reject('ACCOUNT_INVALID')
  const events: Event[] = []
  if (sub === undefined || !sub.openByMarket.has(m.marketId)) return accept(events)
  const mine: Order[] = []
  const only = cmd.conditionalOnly === true
  for (const o of sub.orders.values()) if (o.market === m && (!only || isConditionalType(o.orderType))) mine.push(o)
  // An OCO leg's list partner leaves with it (core/order-lists.ts), before its own turn here.
  for (const o of mine) if (!isTerminal(o.status)) retire(o, 'CANCELED', 'CANCELED', time, events)
  return accept(events)
}

/** Expires every GTD order whose goodTillDate has passed (run by Tick), market by market. */
export function expireGoodTillDate(state: State, time: number, events: Event[]): void {
  for (const m of state.markets) {
    if (m === undefined) continue
    const q = m.gtd
    for (let top = q.peek(); top !== undefined && top.goodTillDate <= time; top = q.peek()) {
      q.pop()
      const o = openOrderOf(m, top.orderId)
      if (o !== undefined && o.goodTillDate === top.goodTillDate) retire(o, 'EXPIRED', 'EXPIRED', time, events)
    }
  }
}
