// Binance spot's order and trade rows: an order's record or answer (query, open orders, order
// lists, placements, cancels, allOrders) and a fill of the caller's (myTrades). Integers in,
// decimal strings at the market's precision out; what they read of the state is only scales.

import type { Market } from '../core/state.js'
import type { UserTradeRecord } from '../replica/projections/index.js'
import { formatBalance, formatLedger, formatNotional, formatPrice, formatQty, type AssetScales, type MarketScales } from './decimal.js'
import { spotOrigQtyLots, spotPreventedQtyLots, spotTimeInForce, spotType, spotWaiting, spotWorkingTime, type OrderFields } from './format-order.js'

/** What of a spot market its rows print: symbol, quote asset, scales. */
export type SpotScales = MarketScales & Pick<Market, 'symbol' | 'quote'>

/** An order as Binance spot prints it: the query form (`record`) or a placement's or cancel's (`response`). */
export function spotOrderJson(state: AssetScales, m: SpotScales, o: OrderFields, form: 'record' | 'response'): Record<string, unknown> {
  const out: Record<string, unknown> = {
    symbol: m.symbol, orderId: o.orderId, orderListId: o.orderListId ?? -1, clientOrderId: o.clientOrderId,
  }
  if (form === 'response') out.transactTime = o.updateTime
  // A pegged order's price is the one it was sent with; the book's is its peggedPrice.
  out.price = formatPrice(m, o.peg !== undefined ? o.peg.sentPriceTicks : o.priceTicks)
  if (o.peg !== undefined) Object.assign(out, pegJson(m, o))
  Object.assign(out, {
    origQty: formatQty(m, spotOrigQtyLots(o)), executedQty: formatQty(m, o.executedQtyLots),
    cummulativeQuoteQty: formatNotional(m, o.cumQuoteTicksLots), status: o.status,
    timeInForce: spotTimeInForce(o), type: spotType(o), side: o.side,
  })
  if (o.cond !== undefined) out.stopPrice = formatPrice(m, o.cond.stopPriceTicks)
  // An iceberg's slice: in every record (zero for other orders), in a response only on icebergs, as Binance's.
  if (form === 'record') Object.assign(out, { stopPrice: formatPrice(m, o.cond?.stopPriceTicks ?? 0), icebergQty: formatQty(m, o.icebergLots ?? 0),
    time: o.time, updateTime: o.updateTime, isWorking: !spotWaiting(o) })
  else if (o.icebergLots !== undefined) out.icebergQty = formatQty(m, o.icebergLots)
  // The quote a MARKET order was sized by (quoteOrderQty), zero otherwise: in both forms, as Binance's.
  out.origQuoteOrderQty = formatBalance(o.quoteQty ?? 0, state.assets.get(m.quote)!.scale)
  out.workingTime = spotWorkingTime(o)
  // The strategy tags it was sent with, only then, before selfTradePreventionMode as Binance's.
  if (o.strategyId !== undefined) out.strategyId = o.strategyId
  if (o.strategyType !== undefined) out.strategyType = o.strategyType
  out.selfTradePreventionMode = o.stp
  // An OPO list's pending order has no quantity until its working order has filled: Binance shows none.
  if (o.status === 'PENDING_NEW' && o.origQtyLots === 0) delete out.origQty
  // A trailing stop's delta, and when it began to trail (-1 until then): Binance's fields of trailing orders only.
  const trailing = o.cond?.trailingDeltaBips
  if (trailing !== undefined) Object.assign(out, { trailingDelta: trailing, trailingTime: o.cond!.trailingTime || -1 })
  // Why it expired, where the core says: a taker the Price Range execution rule stopped.
  if (o.expiryReason !== undefined) out.expiryReason = o.expiryReason
  // Self-trade prevention expired or cut it: its last match, and what it kept from trading.
  if (o.preventedMatchId !== undefined) {
    Object.assign(out, { preventedMatchId: o.preventedMatchId, preventedQuantity: formatQty(m, spotPreventedQtyLots(o)) })
  }
  return out
}

/**
 * A pegged order's fields in its records and answers, after its price (the price it was sent
 * with): the peg, its offset when it has one, and the price the book gave it (0 until then).
 */
export function pegJson(m: MarketScales, o: OrderFields): Record<string, unknown> {
  const peg = o.peg!
  const out: Record<string, unknown> = { pegPriceType: peg.type }
  if (peg.offsetLevels !== 0) Object.assign(out, { pegOffsetType: 'PRICE_LEVEL', pegOffsetValue: peg.offsetLevels })
  out.peggedPrice = formatPrice(m, o.priceTicks)
  return out
}

/** A fill as Binance spot's myTrades prints it; `orderListId` is its order's list's (-1: none), which a fill does not carry. */
export function spotUserTradeJson(state: AssetScales, m: SpotScales, r: UserTradeRecord, orderListId: number): object {
  const feeAsset = r.commissionAsset ?? m.quote
  return {
    symbol: m.symbol, id: r.tradeId, orderId: r.orderId, orderListId, price: formatPrice(m, r.priceTicks),
    qty: formatQty(m, r.qtyLots), quoteQty: formatNotional(m, r.quoteQtyTicksLots),
    commission: formatLedger(r.commission, state.assets.get(feeAsset)!.scale), commissionAsset: feeAsset, time: r.time,
    isBuyer: r.buyer, isMaker: r.maker, isBestMatch: true,
  }
}
