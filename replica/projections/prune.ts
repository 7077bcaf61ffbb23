// Reclaims space past the retention windows. Queries already filter by the windows, so
// pruning changes no answer; it is a background chore (a running node's upkeep calls it every
// --prune-interval-ms, bin/history-upkeep.ts), never on the apply path. Ended orders are
// order-retention.ts's.

import { storedUserTradeCodec, tradeCodec } from './codec.js'
import { key, prefixEnd, readU64 } from './keys.js'
import { klinePrefix, marketPrefix, type Store, type Stores } from './stores.js'
import { fromBounds, scan } from './time-range.js'

/** Deletes trades older than `cutoff` in each market; returns how many keys went. */
export async function pruneTrades(stores: Stores, marketIds: number[], cutoff: number, budget: number): Promise<number> {
  let deleted = 0
  for (const marketId of marketIds) {
    if (deleted >= budget) break
    // Trade time grows with the id, so the old trades are a run at the start of the market.
    const old = await scan(stores.trades, fromBounds(marketPrefix(marketId), key().u64(0).build()), budget - deleted,
      (k, v) => (tradeCodec.decode(v).time < cutoff ? k : 'stop'))
    deleted += await deleteKeys(stores.trades, old)
  }
  return deleted
}

/** Deletes the klines of the interval at `index` opening before `cutoff`, in each market (the spot 1s klines' window). */
export async function pruneKlines(stores: Stores, marketIds: number[], index: number, cutoff: number, budget: number): Promise<number> {
  let deleted = 0
  for (const marketId of marketIds) {
    if (deleted >= budget) break
    // Keys are market ‖ interval ‖ u64(open time): the old ones are a run at the start.
    const old = await scan(stores.klines, fromBounds(klinePrefix(marketId, index), key().u64(0).build()), budget - deleted,
      (k) => (readU64(k, k.length - 8) < cutoff ? k : 'stop'))
    deleted += await deleteKeys(stores.klines, old)
  }
  return deleted
}

/**
 * Deletes rows whose key ends in u64(time) ‖ u64(id) with a time older than `cutoff`. The rows
 * under one prefix (what comes before the time) run by time: the walk reads a prefix's old end
 * and seeks past the rest, so a pass costs a read per prefix, not one per row kept (until
 * session 50 it read every key of the store on every call).
 */
export async function pruneByTimeSuffix(store: Store, cutoff: number, budget: number): Promise<number> {
  const old: Buffer[] = []
  const it = store.keys()
  try {
    for (let k = await it.next(); k !== undefined && old.length < budget; k = await it.next()) {
      if (readU64(k, k.length - 16) < cutoff) old.push(k)
      else it.seek(prefixEnd(k.subarray(0, k.length - 16)))
    }
  } finally {
    await it.close()
  }
  return deleteKeys(store, old)
}

/**
 * Deletes the user trades of the markets in `marketIds` older than `cutoff`, with their rows
 * in the index by order. Each sub-account's fills in a market are a run by time under their
 * prefix: the walk reads that run's old end and seeks past the rest, so a pass costs a seek
 * per sub-account and market, not a read of every fill kept.
 */
export async function pruneUserTrades(stores: Stores, marketIds: ReadonlySet<number>, cutoff: number, budget: number): Promise<number> {
  if (marketIds.size === 0 || budget <= 0) return 0
  const trades: Buffer[] = []
  const byOrder: Buffer[] = []
  const it = stores.userTrades.iterator()
  try {
    for (let row = await it.next(); row !== undefined && trades.length < budget; row = await it.next()) {
      const [k, v] = row
      // owner ‖ marketId u32 ‖ time u64 ‖ tradeId u64 ‖ maker u8
      const prefixLength = k.length - 17
      if (!marketIds.has(k.readUInt32BE(prefixLength - 4)) || readU64(k, prefixLength) >= cutoff) {
        it.seek(prefixEnd(k.subarray(0, prefixLength)))
        continue
      }
      trades.push(k)
      const orderId = storedUserTradeCodec.decode(v).orderId
      byOrder.push(Buffer.concat([k.subarray(0, prefixLength), key().u64(orderId).raw(k.subarray(prefixLength + 8)).build()]))
    }
  } finally {
    await it.close()
  }
  // The index rows first: a crash between leaves trades the next pass finds again.
  await deleteKeys(stores.userTradeOrders, byOrder)
  return deleteKeys(stores.userTrades, trades)
}

export async function deleteKeys(store: Store, keys: readonly Buffer[]): Promise<number> {
  if (keys.length > 0) await store.batch(keys.map((k) => ({ type: 'del' as const, key: k })))
  return keys.length
}
