// Builders of the events that carry order records.

import { conditionalFields } from './conditional.js'
import type { ExecType, OrderEvent } from './events.js'
import type { Order } from './state.js'

export function orderEvent(o: Order, execType: ExecType): OrderEvent {
  const e: OrderEvent = {
    type: 'order', execType,
    marketId: o.market.marketId, orderId: o.orderId,
    account: o.owner.address, sub: o.owner.sub,
    clientOrderId: o.clientOrderId, side: o.side, orderType: o.orderType,
    timeInForce: o.timeInForce, priceTicks: o.priceTicks,
    origQtyLots: o.origQtyLots, executedQtyLots: o.executedQtyLots,
    cumQuoteTicksLots: o.cumQuoteTicksLots, status: o.status,
    positionSide: o.positionSide, reduceOnly: o.reduceOnly, stp: o.stp,
    goodTillDate: o.goodTillDate, time: o.time, updateTime: o.updateTime,
  }
  // Only conditional orders carry the field, so plain order events keep their shape.
  if (o.cond) e.cond = conditionalFields(o)
  if (o.priceMatch !== undefined && o.priceMatch !== 'NONE') e.priceMatch = o.priceMatch
  return e
}

/** Whether an order can only shrink a position: reduce-only, or a hedge-mode close. */
export function isClosing(o: Order): boolean {
  return o.reduceOnly || (o.positionSide === 'LONG' ? o.side === 'SELL' : o.positionSide === 'SHORT' && o.side === 'BUY')
}
