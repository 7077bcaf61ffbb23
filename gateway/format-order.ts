// Order records as Binance USD-M shows them (query, open orders, cancel, RESULT), built from
// the core's order events and fills: integers in, decimal strings at the market's precision out.

import type { StpMode } from '../core/commands.js'
import type { Event, OrderEvent, OrderRecordFields, OrderStatus } from '../core/events.js'
import { orderEvent, recordOf } from '../core/records.js'
import type { Market, Order } from '../core/state.js'
import { formatAvgPrice, formatNotional, formatPrice, formatQty, type MarketScales } from './decimal.js'

/** The record fields an order has, wherever it comes from (state, events, projections). */
export type OrderFields = OrderRecordFields

/** A live order's record, as its events carry it (the core builds it once; nothing lists its fields again here). */
export function fieldsOfOrder(o: Order): OrderFields {
  return recordOf(orderEvent(o, 'NEW'))
}

const SPOT_STOP_NAMES: Record<string, string> = { STOP_MARKET: 'STOP_LOSS', STOP: 'STOP_LOSS_LIMIT', TAKE_PROFIT_MARKET: 'TAKE_PROFIT',
  TAKE_PROFIT: 'TAKE_PROFIT_LIMIT' }

/** A spot order's type as Binance spot names it: a stop keeps its stop type after it triggers. */
export function spotType(o: Pick<OrderFields, 'orderType' | 'cond'>): string {
  if (o.cond !== undefined) return SPOT_STOP_NAMES[o.cond.origType] ?? o.orderType
  return o.orderType === 'POST_ONLY' ? 'LIMIT_MAKER' : o.orderType
}

/**
 * The time in force a spot order shows: GTC for MARKET (IOC in the core, as it behaves) and for
 * LIMIT_MAKER (GTX in the core), as Binance spot's records and reports show them.
 */
export function spotTimeInForce(o: Pick<OrderFields, 'orderType' | 'timeInForce'>): string {
  return o.orderType === 'POST_ONLY' ? 'GTC' : shownTimeInForce(o)
}

/**
 * A spot cancel's own client id (a cancel answer's clientOrderId, the stream's `c` on its report):
 * the one the request named (newClientOrderId), or one made for it as Binance generates one:
 * `x-<marketId>-<orderId>-cancel`, from the event alone, so answers and streams agree on every replica.
 */
export function spotCancelId(e: Pick<OrderEvent, 'cancelClientOrderId' | 'marketId' | 'orderId'>): string {
  return e.cancelClientOrderId ?? `x-${e.marketId}-${e.orderId}-cancel`
}

/** A spot order's quantity as sent (Binance's origQty): what it may trade and what DECREMENT prevention took off (core/prevention.ts). */
export function spotOrigQtyLots(o: Pick<OrderFields, 'origQtyLots' | 'preventedLots'>): number {
  return o.origQtyLots + (o.preventedLots ?? 0)
}

/**
 * What self-trade prevention kept the order from trading (Binance's preventedQuantity): the lots
 * DECREMENT took off, and all it had left when a match expired it.
 */
export function spotPreventedQtyLots(o: Pick<OrderFields, 'origQtyLots' | 'executedQtyLots' | 'preventedLots' | 'status'>): number {
  return (o.preventedLots ?? 0) + (o.status === 'EXPIRED_IN_MATCH' ? o.origQtyLots - o.executedQtyLots : 0)
}

/**
 * A prevented match's quantities as Binance shows them (a placement's preventedMatches,
 * myPreventedMatches): each side's where the mode took its lots (all it had left, or in DECREMENT
 * mode the smaller's). `takerLots` undefined: a row from before the taker's were kept (the maker's only).
 */
export function preventedQuantities(m: Market, mode: StpMode, takerLots: number | undefined, makerLots: number): Record<string, string> {
  const out: Record<string, string> = {}
  if (mode !== 'EXPIRE_MAKER' && takerLots !== undefined) out.takerPreventedQuantity = formatQty(m, takerLots)
  if (mode !== 'EXPIRE_TAKER' || takerLots === undefined) out.makerPreventedQuantity = formatQty(m, makerLots)
  return out
}

/**
 * A spot order not working yet (Binance's isWorking false): a stop waiting for its price, or an
 * OTO list's pending order waiting for its working order (PENDING_NEW).
 */
export function spotWaiting(o: Pick<OrderFields, 'cond' | 'status'>): boolean {
  return o.status === 'PENDING_NEW' || (o.cond !== undefined && o.cond.triggerTime === 0)
}

/** When a spot order began to work: placed, or a stop's trigger (-1 while it waits, as Binance's). */
export function spotWorkingTime(o: Pick<OrderFields, 'cond' | 'time' | 'status'>): number {
  if (o.status === 'PENDING_NEW') return -1
  return o.cond === undefined ? o.time : o.cond.triggerTime === 0 ? -1 : o.cond.triggerTime
}

/** callbackRate as Binance prints it: percent with one decimal ("1.5"). */
export function formatCallbackRate(permille: number): string {
  return `${Math.floor(permille / 10)}.${permille % 10}`
}

/**
 * The order as it stands after a command's events: its NEW (or other) record, then every
 * fill it took part in, then any later record (EXPIRED...).
 */
export function orderAfter(events: readonly Event[], marketId: number, orderId: number): OrderFields | undefined {
  let rec: OrderFields | undefined
  for (const e of events) {
    if (e.type === 'order' && e.marketId === marketId && e.orderId === orderId) {
      rec = recordOf(e)
    } else if ((e.type === 'trade' || e.type === 'spotTrade') && e.marketId === marketId && rec) {
      const side = e.taker.orderId === orderId ? e.taker : e.maker.orderId === orderId ? e.maker : undefined
      if (side) {
        rec.executedQtyLots = side.executedQtyLots
        rec.cumQuoteTicksLots = side.cumQuoteTicksLots
        rec.status = side.status as OrderStatus
        rec.updateTime = e.time
      }
    }
  }
  return rec
}

/**
 * The time in force a futures order shows: a MARKET order (a triggered stop's too) is IOC in the
 * core, as it behaves, and GTC in Binance's records and streams.
 */
export function shownTimeInForce(o: { orderType: string; timeInForce: string }): string {
  return o.orderType === 'MARKET' ? 'GTC' : o.timeInForce
}

/** Binance's order record; `responseOnly` adds cumQty (responses), records carry `time`. */
export function orderJson(m: MarketScales & Pick<Market, 'symbol'>, o: OrderFields, form: 'record' | 'response'): Record<string, unknown> {
  const type = o.orderType
  const c = o.cond
  const out: Record<string, unknown> = {
    orderId: o.orderId, symbol: m.symbol, status: o.status, clientOrderId: o.clientOrderId,
    price: formatPrice(m, o.priceTicks), avgPrice: formatAvgPrice(m, o.cumQuoteTicksLots, o.executedQtyLots),
    origQty: formatQty(m, o.origQtyLots), executedQty: formatQty(m, o.executedQtyLots),
  }
  if (form === 'response') out.cumQty = formatQty(m, o.executedQtyLots)
  Object.assign(out, {
    cumQuote: formatNotional(m, o.cumQuoteTicksLots), timeInForce: shownTimeInForce(o), type, origType: c?.origType ?? type,
    side: o.side, positionSide: o.positionSide, reduceOnly: o.reduceOnly, closePosition: c?.closePosition ?? false,
    stopPrice: formatPrice(m, c?.stopPriceTicks ?? 0), workingType: c?.workingType ?? 'CONTRACT_PRICE',
    priceProtect: c?.priceProtect ?? false,
  })
  // Binance shows the trailing fields on trailing stops only.
  if (c?.origType === 'TRAILING_STOP_MARKET') {
    out.activatePrice = formatPrice(m, c.activationPriceTicks)
    out.priceRate = formatCallbackRate(c.callbackPermille)
  }
  Object.assign(out, { selfTradePreventionMode: o.stp, goodTillDate: o.goodTillDate, priceMatch: o.priceMatch ?? 'NONE' })
  if (form === 'record') out.time = o.time
  out.updateTime = o.updateTime
  return out
}
