// OCO order lists (core/order-lists.ts) as Binance spot's GET /api/v3/orderList and
// allOrderList show them: one row per list, rewritten at each status (EXEC_STARTED, then
// ALL_DONE), and the newest list of each client id. List ids grow with time across markets,
// so a time range is walked in id order and stopped at its end.

import type { OrderListEvent } from '../../core/events.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { PendingBatch } from './batch.js'
import { numberCodec, tupleCodec } from './codec.js'
import { ownerKey, prefixEnd } from './keys.js'
import type { Owner } from './records.js'
import type { Stores } from './stores.js'
import { checkLimit, scan, type Bounds } from './time-range.js'

export interface OrderListRecord {
  orderListId: number
  marketId: number
  listClientOrderId: string
  listStatusType: OrderListEvent['listStatusType']
  listOrderStatus: OrderListEvent['listOrderStatus']
  /** Placement (transactionTime). */
  time: number
  updateTime: number
  orders: { orderId: number; clientOrderId: string }[]
  /** OTO for OTO and OTOCO lists; absent for OCO (and rows from before OTO lists). */
  contingencyType?: 'OTO'
}

const orderListCodec = tupleCodec<OrderListRecord>({
  orderListId: true, marketId: true, listClientOrderId: true, listStatusType: true, listOrderStatus: true, time: true,
  updateTime: true, orders: true, contingencyType: true,
}, 1)

/** owner, orderListId u64 → OrderListRecord. */
const listKey = (o: Owner, id: number): Buffer => ownerKey(o.account, o.sub).u64(id).build()
/** owner, listClientOrderId → the newest orderListId placed with it. */
const clientIdKey = (o: Owner, id: string): Buffer => ownerKey(o.account, o.sub).str(id).build()

export function onOrderList(stores: Stores, batch: PendingBatch, e: OrderListEvent): void {
  const owner = { account: e.account, sub: e.sub }
  // An UPDATED list (an order's new client id) is still executing: queries show it as the open lists do, EXEC_STARTED.
  const r: OrderListRecord = { orderListId: e.orderListId, marketId: e.marketId, listClientOrderId: e.listClientOrderId,
    listStatusType: e.listStatusType === 'UPDATED' ? 'EXEC_STARTED' : e.listStatusType, listOrderStatus: e.listOrderStatus, time: e.time,
    updateTime: e.updateTime, orders: e.orders }
  if (e.contingencyType === 'OTO') r.contingencyType = 'OTO'
  batch.put(stores.orderLists, listKey(owner, e.orderListId), orderListCodec.encode(r))
  if (e.listStatusType === 'EXEC_STARTED') batch.put(stores.orderListClientIds, clientIdKey(owner, e.listClientOrderId), numberCodec.encode(e.orderListId))
}

/** One list of the sub-account, by its id or (the newest placed with it) its client id. */
export async function orderList(stores: Stores, owner: Owner, ref: { orderListId?: number | undefined; listClientOrderId?: string | undefined }):
  Promise<OrderListRecord | undefined> {
  let id = ref.orderListId
  if (id === undefined) {
    const v = await stores.orderListClientIds.get(clientIdKey(owner, ref.listClientOrderId ?? ''))
    if (v === undefined) return undefined
    id = numberCodec.decode(v)
  }
  const v = await stores.orderLists.get(listKey(owner, id))
  const r = v === undefined ? undefined : orderListCodec.decode(v)
  return r !== undefined && (ref.listClientOrderId === undefined || r.listClientOrderId === ref.listClientOrderId) ? r : undefined
}

export interface OrderListQuery {
  /** Ascending from this list id (not with a time range). */
  fromId?: number | undefined
  startTime?: number | undefined
  endTime?: number | undefined
  limit: number
}

/**
 * Binance allOrderList: from fromId ascending; else the time-range rule on placement time
 * (startTime: the oldest from it; otherwise the newest up to endTime).
 */
export async function allOrderLists(stores: Stores, owner: Owner, q: OrderListQuery): Promise<OrderListRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.orderListsMax)
  const prefix = ownerKey(owner.account, owner.sub).build()
  const bounds: Bounds = { gte: Buffer.concat([prefix, Buffer.alloc(8)]), lt: prefixEnd(prefix),
    reverse: q.fromId === undefined && q.startTime === undefined }
  if (q.fromId !== undefined) bounds.gte = listKey(owner, q.fromId)
  const start = q.startTime ?? 0
  const end = q.endTime ?? Number.MAX_SAFE_INTEGER
  return scan(stores.orderLists, bounds, q.limit, (_k, v) => {
    const r = orderListCodec.decode(v)
    if (r.time < start) return bounds.reverse ? 'stop' : undefined
    if (r.time > end) return bounds.reverse ? undefined : 'stop'
    return r
  })
}
