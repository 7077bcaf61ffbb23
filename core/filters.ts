// Order validation that needs no balances: parameter shapes and the market's filters
// (tick, step, min/max price and quantity, min notional, time in force, GTD window).
// It builds the order record the rest of placement works on, not yet linked into state.

import type { Code } from './codes.js'
import type { PlaceOrder, PositionSide, StpMode, TimeInForce } from './commands.js'
import { LIMITS } from './limits.js'
import type { Market, Order, SubAccount } from './state.js'

/** Binance's clientOrderId rule, ^[.A-Z:/a-z0-9_-]{1,36}$, as a loop (it runs per order). */
function validClientId(id: string): boolean {
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

function checkQty(m: Market, qty: number, isMarket: boolean): Code | null {
  if (typeof qty !== 'number' || Number.isNaN(qty)) return 'QTY_BELOW_ZERO'
  if (qty <= 0) return 'QTY_BELOW_ZERO'
  const maxQty = isMarket ? m.marketMaxQtyLots : m.maxQtyLots
  if (!isInt(qty)) return qty > maxQty ? 'QTY_ABOVE_MAX' : 'QTY_STEP'
  if (qty < m.minQtyLots) return 'QTY_BELOW_MIN'
  if (qty > maxQty) return 'QTY_ABOVE_MAX'
  return null
}

function timeInForceOf(cmd: PlaceOrder): TimeInForce | null {
  if (cmd.orderType === 'POST_ONLY') return 'GTX'
  if (cmd.orderType === 'MARKET') return 'IOC'
  const tif = cmd.timeInForce ?? 'GTC'
  return tif === 'GTC' || tif === 'IOC' || tif === 'FOK' || tif === 'GTX' || tif === 'GTD' ? tif : null
}

/**
 * Checks a PlaceOrder against its market and builds the order (orderId 0, not linked).
 * `sub` may be undefined for an account that holds nothing yet.
 */
export function buildOrder(m: Market, sub: SubAccount | undefined, dualSide: boolean,
  cmd: PlaceOrder, time: number): Order | Code {
  if (cmd.side !== 'BUY' && cmd.side !== 'SELL') return 'SIDE_INVALID'
  const type = cmd.orderType
  if (type !== 'LIMIT' && type !== 'MARKET' && type !== 'POST_ONLY') return 'ORDER_TYPE_INVALID'
  const tif = timeInForceOf(cmd)
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

  let positionSide: PositionSide = 'BOTH'
  const reduceOnly = cmd.reduceOnly === true
  if (cmd.reduceOnly !== undefined && typeof cmd.reduceOnly !== 'boolean') return 'REDUCE_ONLY_IMPROPER'
  if (m.kind === 'SPOT') {
    if (cmd.positionSide !== undefined || reduceOnly) return 'COMMAND_INVALID'
  } else if (dualSide) {
    if (cmd.positionSide !== 'LONG' && cmd.positionSide !== 'SHORT') return 'POSITION_SIDE_INVALID'
    if (reduceOnly) return 'REDUCE_ONLY_IMPROPER'
    positionSide = cmd.positionSide
  } else if (cmd.positionSide !== undefined && cmd.positionSide !== 'BOTH') {
    return 'POSITION_SIDE_INVALID'
  }

  const stp: StpMode = cmd.stp ?? 'EXPIRE_MAKER'
  if (stp !== 'EXPIRE_MAKER' && stp !== 'NONE' && stp !== 'EXPIRE_TAKER' && stp !== 'EXPIRE_BOTH') return 'STP_INVALID'

  let goodTillDate = 0
  if (tif === 'GTD') {
    const gtd = cmd.goodTillDate
    if (!isInt(gtd) || gtd <= time + LIMITS.goodTillDateMinAheadMs || gtd > LIMITS.goodTillDateMax) {
      return 'GTD_INVALID'
    }
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
    side: cmd.side, orderType: type, timeInForce: tif, priceTicks,
    origQtyLots: cmd.qtyLots, executedQtyLots: 0, cumQuoteTicksLots: 0,
    status: 'NEW', positionSide, reduceOnly, stp, goodTillDate,
    time, updateTime: time, marginCounted: false, lockedRemaining: 0,
    level: null, prev: null, next: null, cond: null, amendCount: 0, priceMatch: undefined,
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
