// How long order history is kept, as Binance keeps it: on USDⓈ-M, an order that ended CANCELED
// or EXPIRED with nothing filled is found for 3 days after it was created, any other for 90; on
// spot, one that ended with nothing filled for 90 days, one that traded for good (as its trades
// are). Queries hide what the rules hide, as of the projections' time, so an answer never
// depends on when pruning last ran; pruning deletes it, walking the closed orders' index
// (stores.closedOrders: by market, traded or not, and when the order ended) from its oldest.

import { isTerminal } from '../../core/records.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import { numberCodec, orderCodec } from './codec.js'
import { key, readU64 } from './keys.js'
import type { BatchOp } from './batch.js'
import type { OrderRecord } from './records.js'
import { deleteKeys } from './prune.js'
import { clientOrderIdKey, closedOrderKey, closedOrdersPrefix, type Stores } from './stores.js'
import { fromBounds, scan } from './time-range.js'

/** A market whose orders pruning may delete, and which venue's rule it keeps. */
export interface RetainedMarket {
  marketId: number
  spot: boolean
}

/** How long an ended order stays: with nothing filled, and at all (null: for good). */
function retentionOf(spot: boolean): { unfilledMs: number; allMs: number | null } {
  return spot
    ? { unfilledMs: PROJECTION_LIMITS.spotUnfilledOrderRetentionMs, allMs: null }
    : { unfilledMs: PROJECTION_LIMITS.perpUnfilledOrderRetentionMs, allMs: PROJECTION_LIMITS.perpOrderRetentionMs }
}

/** Whether a query finds the order at `nowMs`: an open one always; an ended one by its age since creation. */
export function orderVisible(r: OrderRecord, spot: boolean, nowMs: number): boolean {
  if (!isTerminal(r.status)) return true
  const keep = retentionOf(spot)
  const age = nowMs - r.time
  if (keep.allMs !== null && age > keep.allMs) return false
  return r.executedQtyLots > 0 || age <= keep.unfilledMs
}

/** The closed orders' index row of an order written as ended, or null while it is open. */
export function closedOrderOp(stores: Stores, orderKey: Buffer, r: OrderRecord): BatchOp | null {
  if (!isTerminal(r.status)) return null
  return {
    type: 'put', sublevel: stores.closedOrders,
    key: closedOrderKey(r.marketId, r.executedQtyLots > 0, r.updateTime, r.orderId), value: orderKey,
  }
}

/**
 * Deletes the orders the rules no longer show, in the markets given, as of `nowMs`: each with
 * its client id's row (while it names this order) and its conditional row; at most `budget`
 * orders. An order is deleted once it ended longer ago than it may be shown since creation, so
 * never one a query still finds. Returns how many went.
 */
export async function pruneOrders(stores: Stores, markets: readonly RetainedMarket[], nowMs: number, budget: number,
  exclusive: Exclusive = (step) => step()): Promise<number> {
  let deleted = 0
  for (const m of markets) {
    const keep = retentionOf(m.spot)
    for (const [traded, keepMs] of [[false, keep.unfilledMs], [true, keep.allMs]] as const) {
      if (keepMs === null || deleted >= budget) continue
      const cutoff = nowMs - keepMs
      // Ended before the cutoff: a run at the start of the market's index, by end time.
      const old = await scan(stores.closedOrders, fromBounds(closedOrdersPrefix(m.marketId, traded), key().u64(0).build()),
        budget - deleted, (k, v) => (readU64(k, k.length - 16) < cutoff ? [k, v] as const : 'stop'))
      deleted += await deleteOrders(stores, old, exclusive)
    }
  }
  return deleted
}

/** Runs a step no write of the projections comes between (Projections.exclusive). */
export type Exclusive = (step: () => Promise<void>) => Promise<void>

async function deleteOrders(stores: Stores, rows: readonly (readonly [Buffer, Buffer])[], exclusive: Exclusive): Promise<number> {
  if (rows.length === 0) return 0
  const records = await stores.orders.getMany(rows.map(([, orderKey]) => orderKey))
  const orders: Buffer[] = []
  const conditional: Buffer[] = []
  const clientIds: { key: Buffer; orderId: number }[] = []
  for (let i = 0; i < rows.length; i++) {
    const stored = records[i]
    if (stored === undefined) continue
    const r = orderCodec.decode(stored)
    orders.push(rows[i]![1])
    if (r.cond !== undefined) conditional.push(rows[i]![1])
    clientIds.push({ key: clientOrderIdKey(r, r.marketId, r.clientOrderId), orderId: r.orderId })
  }
  // A client id names the latest order placed with it: its row goes only with that order, read
  // and deleted with no write between (one could give the id to a new order meanwhile).
  await exclusive(async () => {
    const named = await stores.clientOrderIds.getMany(clientIds.map((c) => c.key))
    await deleteKeys(stores.clientOrderIds, clientIds.filter((c, i) => named[i] !== undefined && numberCodec.decode(named[i]!) === c.orderId).map((c) => c.key))
  })
  // The index rows last: a crash before them leaves rows naming orders already gone, which the
  // next pass deletes; the other way round would leave orders no pass ever finds.
  await deleteKeys(stores.conditionalOrders, conditional)
  await deleteKeys(stores.orders, orders)
  await deleteKeys(stores.closedOrders, rows.map(([indexKey]) => indexKey))
  return rows.length
}

/**
 * Fills the closed orders' index from the orders a store written before it holds (once: every
 * write keeps it since). One pass over the orders, decoding each.
 */
export async function indexClosedOrders(stores: Stores): Promise<void> {
  let ops: { type: 'put'; key: Buffer; value: Buffer }[] = []
  for await (const [k, v] of stores.orders.iterator()) {
    const op = closedOrderOp(stores, k, orderCodec.decode(v))
    if (op !== null) ops.push({ type: 'put', key: op.key, value: op.value! })
    if (ops.length >= 10_000) {
      await stores.closedOrders.batch(ops)
      ops = []
    }
  }
  if (ops.length > 0) await stores.closedOrders.batch(ops)
}
