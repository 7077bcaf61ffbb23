// Order amendment history: one row per accepted amendment, with its price and quantity before
// and after. Perpetual orders' modifications (core/modify.ts) as Binance's GET
// /fapi/v1/orderAmendment shows them; spot orders' quantity amendments keeping priority
// (core/amend-quantity.ts) as GET /api/v3/order/amendments does, with the client id before.

import type { OrderEvent } from '../../core/events.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { PendingBatch } from './batch.js'
import { tupleCodec } from './codec.js'
import { ownerKey } from './keys.js'
import type { Owner } from './records.js'
import type { Stores } from './stores.js'
import { checkLimit, scan, timeRangeBounds, type TimeRange } from './time-range.js'

export interface AmendmentRecord {
  amendmentId: number
  orderId: number
  clientOrderId: string
  time: number
  priceBeforeTicks: number
  priceAfterTicks: number
  origQtyBeforeLots: number
  origQtyAfterLots: number
  /** The order's amendment number: 1 for its first. */
  count: number
  /** Spot amendments only: the client id the order had before (clientOrderId: after). */
  clientOrderIdBefore?: string
}

export const amendmentCodec = tupleCodec<AmendmentRecord>({
  amendmentId: true, orderId: true, clientOrderId: true, time: true, priceBeforeTicks: true, priceAfterTicks: true,
  origQtyBeforeLots: true, origQtyAfterLots: true, count: true, clientOrderIdBefore: true,
}, 1)

/** owner, marketId u32, orderId u64, time u64, amendmentId u64 → AmendmentRecord. */
function amendmentPrefix(o: Owner, marketId: number, orderId: number): Buffer {
  return ownerKey(o.account, o.sub).u32(marketId).u64(orderId).build()
}

/** An AMENDMENT order event: its row, under the id the entry gives it. */
export function onAmendment(stores: Stores, batch: PendingBatch, e: OrderEvent, id: number): void {
  const a = e.amendment!
  const r: AmendmentRecord = {
    amendmentId: id, orderId: e.orderId, clientOrderId: e.clientOrderId, time: e.updateTime,
    priceBeforeTicks: a.priceBeforeTicks, priceAfterTicks: e.priceTicks,
    // The quantity as sent: a spot order's includes what DECREMENT prevention took off (core/prevention.ts).
    origQtyBeforeLots: a.origQtyBeforeLots, origQtyAfterLots: e.origQtyLots + (e.preventedLots ?? 0), count: a.count,
  }
  if (a.clientOrderIdBefore !== undefined) r.clientOrderIdBefore = a.clientOrderIdBefore
  const key = ownerKey(e.account, e.sub).u32(e.marketId).u64(e.orderId).u64(r.time).u64(id).build()
  batch.put(stores.orderAmendments, key, amendmentCodec.encode(r))
}

export interface AmendmentQuery extends TimeRange {
  limit: number
}

/** One order's amendments by the time-range rule, newest first (Binance's order), three months back. */
export async function orderAmendments(stores: Stores, owner: Owner, marketId: number, orderId: number,
  q: AmendmentQuery, nowMs: number): Promise<AmendmentRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.orderAmendmentsMax)
  const floor = Math.max(0, nowMs - PROJECTION_LIMITS.orderAmendmentRetentionMs)
  const rows = await scan(stores.orderAmendments, timeRangeBounds(amendmentPrefix(owner, marketId, orderId), q, floor), q.limit,
    (_k, v) => amendmentCodec.decode(v))
  return rows.reverse()
}

/** The log entry an amendment row came from (its spot executionId): one amendment per entry. */
export function entryOfAmendment(amendmentId: number): number {
  return Math.floor(amendmentId / PROJECTION_LIMITS.rowsPerEntryMax)
}

/**
 * One order's amendments oldest first, from the entry `fromEntry` on (Binance spot's
 * fromExecutionId), three months back.
 */
export async function orderAmendmentsFrom(stores: Stores, owner: Owner, marketId: number, orderId: number,
  fromEntry: number, limit: number, nowMs: number): Promise<AmendmentRecord[]> {
  checkLimit(limit, PROJECTION_LIMITS.spotOrderAmendmentsMax)
  const floor = Math.max(0, nowMs - PROJECTION_LIMITS.orderAmendmentRetentionMs)
  const bounds = timeRangeBounds(amendmentPrefix(owner, marketId, orderId), { startTime: floor }, floor)
  return scan(stores.orderAmendments, bounds, limit, (_k, v) => {
    const r = amendmentCodec.decode(v)
    return entryOfAmendment(r.amendmentId) >= fromEntry ? r : undefined
  })
}
