// Order validation that needs no balances: parameter shapes and the market's filters
// (tick, step, min/max price and quantity, min notional, time in force, GTD window).
// It builds the order record the rest of placement works on, not yet linked into state.

import type { Code } from './codes.js'
import type { OrderType, PlaceOrder, PositionSide, Side, StpMode, TimeInForce } from './commands.js'
import { LIMITS } from './limits.js'
import type { Market, Order, SubAccount } from './state.js'

/** Binance's clientOrderId rule, ^[.A-Z:/a-z0-9_-]{1,36}$, as a loop (it runs per order). */
export function validClientId(id: string): boolean {
  const n = id.length
  if (n === 0 || n > LIMITS.clientOrderIdLengthMax) return false
  for (let i = 0; i < n; i++) {
    const c = id.charCodeAt(i)
    const ok = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 45 && c <= 58) || c === 95
    if (!ok) return false
  }
  return true
}

function isInt(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n)
}

function checkPrice(m: Market, price: number | undefined): Code | null {
  if (price === undefined) return 'PRICE_REQUIRED'
  if (typeof price !== 'number' || Number.isNaN(price)) return 'PRICE_REQUIRED'
  if (price <= 0) return 'PRICE_BELOW_ZERO'
  if (!isInt(price)) return price > m.maxPriceTicks ? 'PRICE_ABOVE_MAX' : 'PRICE_TICK'
  if (price < m.minPriceTicks) return 'PRICE_BELOW_MIN'
  if (price > m.maxPriceTicks) return 'PRICE_ABOVE_MAX'
  return null
}

export function checkQty(m: Market, qty: number, isMarket: boolean): Code | null {
  if (typeof qty !== 'number' || Number.isNaN(qty)) return 'QTY_BELOW_ZERO'
  if (qty <= 0) return 'QTY_BELOW_ZERO'
  const maxQty = isMarket ? m.marketMaxQtyLots : m.maxQtyLots
  if (!isInt(qty)) return qty > maxQty ? 'QTY_ABOVE_MAX' : 'QTY_STEP'
  if (qty < m.minQtyLots) return 'QTY_BELOW_MIN'
  if (qty > maxQty) return 'QTY_ABOVE_MAX'
  return null
}

// The order keeps the core's own literals for what a command names by a string (side, type,
// time in force...), never the command's strings: those may be any strings equal to them
// (parsed from a request, built from the log), and the order's fields are compared at every
// step of matching and margin. Literals compare as one object, and the code comparing them
// meets one kind of string whatever made the command.

function timeInForceOf(type: OrderType, cmd: PlaceOrder): TimeInForce | null {
  if (type === 'POST_ONLY') return 'GTX'
  if (type === 'MARKET') return 'IOC'
  switch (cmd.timeInForce ?? 'GTC') {
    case 'GTC': return 'GTC'
    case 'IOC': return 'IOC'
    case 'FOK': return 'FOK'
    case 'GTX': return 'GTX'
    case 'GTD': return 'GTD'
    default: return null
  }
}

/** A GTD order's goodTillDate: more than the minimum ahead of `time`, not past the maximum; null otherwise. */
export function goodTillDateOf(cmd: PlaceOrder, time: number): number | null {
  const gtd = cmd.goodTillDate
  return isInt(gtd) && gtd > time + LIMITS.goodTillDateMinAheadMs && gtd <= LIMITS.goodTillDateMax ? gtd : null
}

/** The order's mode (EXPIRE_MAKER by default); DECREMENT and TRANSFER on spot markets only. */
function stpOf(stp: StpMode | undefined, spot: boolean): StpMode | null {
  switch (stp ?? 'EXPIRE_MAKER') {
    case 'EXPIRE_MAKER': return 'EXPIRE_MAKER'
    case 'NONE': return 'NONE'
    case 'EXPIRE_TAKER': return 'EXPIRE_TAKER'
    case 'EXPIRE_BOTH': return 'EXPIRE_BOTH'
    case 'DECREMENT': return spot ? 'DECREMENT' : null
    case 'TRANSFER': return spot ? 'TRANSFER' : null
    default: return null
  }
}

/**
 * An iceberg's slice (Binance's icebergQty): spot GTC LIMIT and POST_ONLY (LIMIT_MAKER) orders
 * only, a whole number of lots from the minimum quantity up, in at most ICEBERG_PARTS slices.
 * A slice as large as the order is accepted, and shows all of it.
 */
function checkIceberg(m: Market, type: OrderType, tif: TimeInForce, qtyLots: number, icebergLots: number): number | Code {
  if (m.kind !== 'SPOT' || (type !== 'LIMIT' && type !== 'POST_ONLY') || (type === 'LIMIT' && tif !== 'GTC')) return 'ICEBERG_NOT_ALLOWED'
  if (!isInt(icebergLots) || icebergLots <= 0 || icebergLots < m.minQtyLots) return 'ICEBERG_QTY_INVALID'
  // ceil(qty / slice) > parts, in integers.
  if (qtyLots > LIMITS.icebergPartsMax * icebergLots) return 'ICEBERG_PARTS'
  return icebergLots
}

/**
 * Checks a PlaceOrder against its market and builds the order (orderId 0, not linked).
 * `sub` may be undefined for an account that holds nothing yet.
 */
export function buildOrder(m: Market, sub: SubAccount | undefined, dualSide: boolean,
  cmd: PlaceOrder, time: number): Order | Code {
  const side: Side | null = cmd.side === 'BUY' ? 'BUY' : cmd.side === 'SELL' ? 'SELL' : null
  if (side === null) return 'SIDE_INVALID'
  const type: OrderType | null = cmd.orderType === 'LIMIT' ? 'LIMIT' : cmd.orderType === 'MARKET' ? 'MARKET'
    : cmd.orderType === 'POST_ONLY' ? 'POST_ONLY' : null
  if (type === null) return 'ORDER_TYPE_INVALID'
  const tif = timeInForceOf(type, cmd)
  if (tif === null) return 'TIF_INVALID'
  const isMarket = type === 'MARKET'
  if (isMarket) {
    if (cmd.priceTicks !== undefined) return 'PRICE_NOT_ALLOWED'
  } else {
    const code = checkPrice(m, cmd.priceTicks)
    if (code) return code
  }
  const qtyCode = checkQty(m, cmd.qtyLots, isMarket)
  if (qtyCode) return qtyCode
  const icebergLots = cmd.icebergLots === undefined ? 0 : checkIceberg(m, type, tif, cmd.qtyLots, cmd.icebergLots)
  if (typeof icebergLots === 'string') return icebergLots

  let positionSide: PositionSide = 'BOTH'
  const reduceOnly = cmd.reduceOnly === true
  if (cmd.reduceOnly !== undefined && typeof cmd.reduceOnly !== 'boolean') return 'REDUCE_ONLY_IMPROPER'
  if (m.kind === 'SPOT') {
    if (cmd.positionSide !== undefined || reduceOnly) return 'COMMAND_INVALID'
  } else if (dualSide) {
    if (cmd.positionSide !== 'LONG' && cmd.positionSide !== 'SHORT') return 'POSITION_SIDE_INVALID'
    if (reduceOnly) return 'REDUCE_ONLY_IMPROPER'
    positionSide = cmd.positionSide === 'LONG' ? 'LONG' : 'SHORT'
  } else if (cmd.positionSide !== undefined && cmd.positionSide !== 'BOTH') {
    return 'POSITION_SIDE_INVALID'
  }

  const stp = stpOf(cmd.stp, m.kind === 'SPOT')
  if (stp === null) return 'STP_INVALID'

  let goodTillDate = 0
  if (tif === 'GTD') {
    const gtd = goodTillDateOf(cmd, time)
    if (gtd === null) return 'GTD_INVALID'
    goodTillDate = gtd
  }

  const clientOrderId = cmd.clientOrderId ?? ''
  if (cmd.clientOrderId !== undefined) {
    if (typeof clientOrderId !== 'string' || !validClientId(clientOrderId)) return 'CLIENT_ID_INVALID'
    if (sub?.orders.has(clientOrderId)) return 'CLIENT_ID_DUPLICATE'
  }

  const priceTicks = isMarket ? 0 : cmd.priceTicks!
  if (!isMarket && !reduceOnly && priceTicks * cmd.qtyLots * m.quotePerTickLot < m.minNotional) {
    return 'NOTIONAL_TOO_SMALL'
  }

  return {
    orderId: 0, market: m, owner: sub!, clientOrderId,
    side, orderType: type, timeInForce: tif, priceTicks,
    origQtyLots: cmd.qtyLots, executedQtyLots: 0, cumQuoteTicksLots: 0,
    status: 'NEW', positionSide, reduceOnly, stp, goodTillDate,
    time, updateTime: time, marginCounted: false, lockedRemaining: 0,
    level: null, prev: null, next: null, cond: null, amendCount: 0, priceMatch: undefined, quoteQty: 0, quoteShort: false, list: null, icebergLots, visibleLots: 0, peg: null,
    preventedLots: 0, preventedMatchId: -1, strategyId: -1, strategyType: 0,
  }
}

/** Remaining lots of an order. */
export function remaining(o: Order): number {
  return o.origQtyLots - o.executedQtyLots
}

/** True when a limit price on `side` would trade against a resting price. */
export function crosses(isBuy: boolean, limitTicks: number, restingTicks: number): boolean {
  return isBuy ? limitTicks >= restingTicks : limitTicks <= restingTicks
}
