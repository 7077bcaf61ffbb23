// How long order history is kept, as Binance keeps it: on USDⓈ-M, an order that ended CANCELED
// or EXPIRED with nothing filled is found for 3 days after it was created, any other for 90; on
// spot, one that ended with nothing filled for 90 days, one that traded for good (as its trades
// are). Queries hide what the rules hide, as of the projections' time, so an answer never
// depends on when pruning last ran; pruning deletes it, walking the closed orders' index
// (stores.closedOrders: by market, traded or not, and when the orders ended) from its oldest.

import { isTerminal } from '../../core/records.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import { numberCodec, orderCodec } from './codec.js'
import { key, readU64 } from './keys.js'
import type { BatchOp } from './batch.js'
import type { OrderRecord } from './records.js'
import { deleteKeys } from './prune.js'
import { clientOrderIdKey, closedOrdersKey, closedOrdersPrefix, type Stores } from './stores.js'
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

/**
 * The closed orders' index rows of one write: the orders it writes ended, grouped by market and
 * by whether they traded, each group one row under the latest end time in it (`group`: the
 * write's last seq, unique among writes). One row per group, not per order: a row per order
 * cost the projections' writes a fifth more time under the core workload.
 */
export class ClosedOrders {
  private readonly groups = new Map<number, { marketId: number; traded: boolean; endTime: number; keys: Buffer[] }>()

  /** Takes the order if its record ends it; returns whether it did. */
  add(orderKey: Buffer, r: OrderRecord): boolean {
    if (!isTerminal(r.status)) return false
    const traded = r.executedQtyLots > 0
    const id = r.marketId * 2 + (traded ? 1 : 0)
    let g = this.groups.get(id)
    if (g === undefined) this.groups.set(id, g = { marketId: r.marketId, traded, endTime: 0, keys: [] })
    g.endTime = Math.max(g.endTime, r.updateTime)
    g.keys.push(orderKey)
    return true
  }

  ops(stores: Stores, group: number): BatchOp[] {
    return [...this.groups.values()].map((g) => ({
      type: 'put', sublevel: stores.closedOrders, key: closedOrdersKey(g.marketId, g.traded, g.endTime, group), value: packKeys(g.keys),
    }))
  }
}

/** Keys one after another, each after its length (u16). */
function packKeys(keys: readonly Buffer[]): Buffer {
  const out = Buffer.allocUnsafe(keys.reduce((n, k) => n + 2 + k.length, 0))
  let at = 0
  for (const k of keys) {
    out.writeUInt16BE(k.length, at)
    k.copy(out, at + 2)
    at += 2 + k.length
  }
  return out
}

function unpackKeys(b: Buffer): Buffer[] {
  const keys: Buffer[] = []
  for (let at = 0; at < b.length; at += 2 + b.readUInt16BE(at)) keys.push(b.subarray(at + 2, at + 2 + b.readUInt16BE(at)))
  return keys
}

/**
 * Deletes the orders the rules no longer show, in the markets given, as of `nowMs`: each with
 * its client id's row (while it names this order) and its conditional row; rows of the index
 * whole, until they hold `budget` orders or more. An order is deleted once every order of its
 * row ended longer ago than it may be shown since creation, so never one a query still finds.
 * Returns how many went.
 */
export async function pruneOrders(stores: Stores, markets: readonly RetainedMarket[], nowMs: number, budget: number,
  exclusive: Exclusive): Promise<number> {
  let deleted = 0
  for (const m of markets) {
    const keep = retentionOf(m.spot)
    for (const [traded, keepMs] of [[false, keep.unfilledMs], [true, keep.allMs]] as const) {
      if (keepMs === null || deleted >= budget) continue
      const cutoff = nowMs - keepMs
      // Ended before the cutoff: a run at the start of the market's index, by end time.
      let held = deleted
      const old = await scan(stores.closedOrders, fromBounds(closedOrdersPrefix(m.marketId, traded), key().u64(0).build()),
        budget, (k, v) => {
          if (held >= budget || readU64(k, k.length - 16) >= cutoff) return 'stop'
          const keys = unpackKeys(v)
          held += keys.length
          return { row: k, keys }
        })
      for (const { row, keys } of old) deleted += await deleteOrders(stores, row, keys, exclusive)
    }
  }
  return deleted
}

/** Runs a step no write of the projections comes between (Projections.exclusive). */
export type Exclusive = (step: () => Promise<void>) => Promise<void>

/** One index row's orders, then the row. */
async function deleteOrders(stores: Stores, row: Buffer, keys: readonly Buffer[], exclusive: Exclusive): Promise<number> {
  const records = await stores.orders.getMany([...keys])
  const orders: Buffer[] = []
  const conditional: Buffer[] = []
  const clientIds: { key: Buffer; orderId: number }[] = []
  for (let i = 0; i < keys.length; i++) {
    const stored = records[i]
    if (stored === undefined) continue
    const r = orderCodec.decode(stored)
    orders.push(keys[i]!)
    if (r.cond !== undefined) conditional.push(keys[i]!)
    clientIds.push({ key: clientOrderIdKey(r, r.marketId, r.clientOrderId), orderId: r.orderId })
  }
  // A client id names the latest order placed with it: its row goes only with that order, read
  // and deleted with no write between (one could give the id to a new order meanwhile).
  await exclusive(async () => {
    const named = await stores.clientOrderIds.getMany(clientIds.map((c) => c.key))
    await deleteKeys(stores.clientOrderIds, clientIds.filter((c, i) => named[i] !== undefined && numberCodec.decode(named[i]!) === c.orderId).map((c) => c.key))
  })
  // The index row last: a crash before it leaves a row naming orders already gone, which the
  // next pass deletes; the other way round would leave orders no pass ever finds.
  await deleteKeys(stores.conditionalOrders, conditional)
  await deleteKeys(stores.orders, orders)
  await deleteKeys(stores.closedOrders, [row])
  return orders.length
}

/**
 * Fills the closed orders' index from the orders a store written before it holds (once: every
 * write keeps it since). One pass over the orders, decoding each, a row per 10,000 ended ones in
 * the store's order: each row goes once its latest order is past the rule, so what ended long
 * before this runs goes at most one window after it.
 */
export async function indexClosedOrders(stores: Stores): Promise<void> {
  let group = new ClosedOrders()
  let n = 0
  // Groups no write's takes (a write's is its last seq).
  let id = Number.MAX_SAFE_INTEGER
  for await (const [k, v] of stores.orders.iterator()) {
    if (group.add(k, orderCodec.decode(v))) n++
    if (n === 10_000) {
      await writeOps(stores, group.ops(stores, id--))
      group = new ClosedOrders()
      n = 0
    }
  }
  await writeOps(stores, group.ops(stores, id))
}

async function writeOps(stores: Stores, ops: readonly BatchOp[]): Promise<void> {
  if (ops.length > 0) await stores.closedOrders.batch(ops.map((o) => ({ type: 'put' as const, key: o.key, value: o.value! })))
}
