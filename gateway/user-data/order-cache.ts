// The orders of one kind of market (perpetual or spot) that can still trade, with their
// records: a fill event carries an order's new quantities but not its static fields (type,
// price, time in force...), so the user data streams read those here rather than wait on a
// history read. Seeded from the state, kept current from order and fill events.

import type { OrderEvent, OrderRecordFields, OrderStatus } from '../../core/events.js'
import { isTerminal, recordOf } from '../../core/records.js'
import type { State } from '../../core/state.js'
import { fieldsOfOrder } from '../format-order.js'

const orderKey = (marketId: number, orderId: number): string => marketId + ':' + orderId

/** A fill's side as both kinds of trade event carry it. */
interface FillSide {
  orderId: number
  executedQtyLots: number
  cumQuoteTicksLots: number
  status: OrderStatus
}

export class OrderCache {
  private readonly orders = new Map<string, OrderRecordFields>()

  constructor(private readonly kind: 'PERP' | 'SPOT') {}

  /** Caches every order of this kind resting in `state` (once, before the first entry). */
  seed(state: State): void {
    for (const m of state.markets) {
      if (m?.kind !== this.kind) continue
      for (const o of m.book.orders.values()) this.orders.set(orderKey(m.marketId, o.orderId), fieldsOfOrder(o))
    }
  }

  /** The record an order event carries (cached while the order can trade). */
  record(e: OrderEvent): OrderRecordFields {
    const fields = recordOf(e)
    const key = orderKey(e.marketId, e.orderId)
    if (isTerminal(e.status)) this.orders.delete(key)
    else this.orders.set(key, fields)
    return fields
  }

  /** The order's record after a fill (cache updated; dropped once it is done); undefined if unknown. */
  fill(marketId: number, time: number, side: FillSide): OrderRecordFields | undefined {
    const key = orderKey(marketId, side.orderId)
    const cached = this.orders.get(key)
    if (cached === undefined) return undefined
    cached.executedQtyLots = side.executedQtyLots
    cached.cumQuoteTicksLots = side.cumQuoteTicksLots
    cached.status = side.status
    cached.updateTime = time
    if (isTerminal(side.status)) this.orders.delete(key)
    return cached
  }
}
