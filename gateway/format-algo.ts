// Conditional orders in Binance's algo forms (/fapi/v1/algoOrder, ALGO_UPDATE), built from the
// same order records as every other order answer.
//
// algoId: the core gives a conditional order an orderId from its market's sequence, and
// triggering keeps it (the LIMIT or MARKET order it becomes is that orderId, Binance's
// actualOrderId). OrderIds repeat across markets while Binance's algo routes take an algoId
// without a symbol, so algoId = orderId × 256 + marketId (LIMITS.marketsMax is 256): unique
// over the exchange, and the order it names is found without a search.

import { LIMITS } from '../core/limits.js'
import type { Market, PerpMarket, State } from '../core/state.js'
import { formatAvgPrice, formatPrice, formatQty, type MarketScales } from './decimal.js'
import { formatCallbackRate, shownTimeInForce, type OrderFields } from './format-order.js'

const MARKETS = LIMITS.marketsMax

export function algoIdOf(marketId: number, orderId: number): number {
  return orderId * MARKETS + marketId
}

/** The market and orderId an algoId names (undefined for one no market could have given). */
export function parseAlgoId(state: State, algoId: number): { m: PerpMarket; orderId: number } | undefined {
  const m = state.markets[algoId % MARKETS]
  if (m?.kind !== 'PERP') return undefined
  return { m, orderId: Math.floor(algoId / MARKETS) }
}

/** Whether the record is (or was) a conditional order's. */
export function isAlgo(o: OrderFields): boolean {
  return o.cond !== undefined
}

/**
 * Binance's algoStatus: NEW while waiting, CANCELED or EXPIRED if it ended waiting, REJECTED
 * when the order could not be placed at trigger, TRIGGERED once placed, FINISHED when that
 * order is done.
 */
export function algoStatusOf(o: OrderFields): string {
  const c = o.cond!
  if (c.triggerTime === 0) return o.status === 'NEW' ? 'NEW' : o.status === 'CANCELED' ? 'CANCELED' : 'EXPIRED'
  if (c.reason !== '') return 'REJECTED'
  return o.status === 'NEW' || o.status === 'PARTIALLY_FILLED' ? 'TRIGGERED' : 'FINISHED'
}

/** What of a market an algo row reads (a page's copy of it will do: page-format.ts). */
export type AlgoMarket = MarketScales & Pick<Market, 'marketId' | 'symbol'>

/** The algo order record (New/Query/Open/All Algo Orders). */
export function algoJson(m: AlgoMarket, o: OrderFields): Record<string, unknown> {
  const c = o.cond!
  const trailing = c.origType === 'TRAILING_STOP_MARKET'
  const triggered = c.triggerTime > 0 && c.reason === ''
  return {
    algoId: algoIdOf(m.marketId, o.orderId), clientAlgoId: o.clientOrderId, algoType: 'CONDITIONAL',
    orderType: c.origType, symbol: m.symbol, side: o.side, positionSide: o.positionSide, timeInForce: shownTimeInForce(o),
    quantity: formatQty(m, o.origQtyLots), algoStatus: algoStatusOf(o),
    actualOrderId: triggered ? String(o.orderId) : '',
    actualPrice: triggered ? formatAvgPrice(m, o.cumQuoteTicksLots, o.executedQtyLots) : '',
    triggerPrice: formatPrice(m, c.stopPriceTicks), price: formatPrice(m, o.priceTicks),
    selfTradePreventionMode: o.stp, workingType: c.workingType, priceMatch: o.priceMatch ?? 'NONE', closePosition: c.closePosition,
    priceProtect: c.priceProtect, reduceOnly: o.reduceOnly,
    activatePrice: trailing ? formatPrice(m, c.activationPriceTicks) : '',
    callbackRate: trailing ? formatCallbackRate(c.callbackPermille) : '',
    createTime: o.time, updateTime: o.updateTime, triggerTime: c.triggerTime, goodTillDate: o.goodTillDate,
  }
}

/** The user data stream's ALGO_UPDATE for a conditional order's record. */
export function algoUpdate(m: Market, o: OrderFields, time: number): Record<string, unknown> {
  const c = o.cond!
  const triggered = c.triggerTime > 0 && c.reason === ''
  return {
    e: 'ALGO_UPDATE', T: time, E: time,
    o: {
      caid: o.clientOrderId, aid: algoIdOf(m.marketId, o.orderId), at: 'CONDITIONAL', o: c.origType, s: m.symbol,
      S: o.side, ps: o.positionSide, f: shownTimeInForce(o), q: formatQty(m, o.origQtyLots), X: algoStatusOf(o),
      ai: triggered ? String(o.orderId) : '', ap: formatAvgPrice(m, o.cumQuoteTicksLots, o.executedQtyLots),
      aq: formatQty(m, o.executedQtyLots), act: triggered ? o.orderType : '', tp: formatPrice(m, c.stopPriceTicks),
      p: formatPrice(m, o.priceTicks), V: o.stp, wt: c.workingType, pm: o.priceMatch ?? 'NONE', cp: c.closePosition, pP: c.priceProtect,
      R: o.reduceOnly, tt: c.triggerTime, gtd: o.goodTillDate, rm: c.reason === '' ? '' : reasonText(c.reason),
    },
  }
}

/** Why placement at trigger failed, in words a trader reads (ALGO_UPDATE `rm`). */
function reasonText(reason: string): string {
  switch (reason) {
    case 'MARGIN_INSUFFICIENT': return 'Margin is insufficient.'
    case 'REDUCE_ONLY_REJECTED': return 'ReduceOnly Order is rejected.'
    case 'CLOSE_POSITION_NOTHING': return 'No position to close.'
    case 'POSITION_LIMIT': return 'Exceeded the maximum allowable position at current leverage.'
    case 'NOTIONAL_TOO_SMALL': return 'Order notional too small.'
    case 'TOO_MANY_ORDERS': return 'Reach max open order limit.'
    case 'POST_ONLY_WOULD_TAKE': return 'Post Only order will be rejected.'
    case 'FOK_UNFILLED': return 'FOK order could not be filled.'
    default: return reason
  }
}
