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
 * The rows of `store` older than `cutoff` (at most `budget`), where a key is a prefix, u64(time),
 * then `tail` bytes more: the rows under one prefix run by time, so the walk reads a prefix's
 * old end and seeks past the rest, a read per prefix rather than one per row kept. `skip`
 * passes over a whole prefix.
 */
async function oldRows(store: Store, tail: number, cutoff: number, budget: number,
  o: { values?: boolean; skip?: (prefix: Buffer) => boolean } = {}): Promise<[Buffer, Buffer | undefined][]> {
  const old: [Buffer, Buffer | undefined][] = []
  const it = store.iterator({ values: o.values ?? false })
  try {
    for (let row = await it.next(); row !== undefined && old.length < budget; row = await it.next()) {
      const [k, v] = row
      const prefix = k.subarray(0, k.length - 8 - tail)
      if (o.skip?.(prefix) !== true && readU64(k, prefix.length) < cutoff) old.push([k, v])
      else it.seek(prefixEnd(prefix))
    }
  } finally {
    await it.close()
  }
  return old
}

/**
 * Deletes rows whose key ends in u64(time) ‖ u64(id) with a time older than `cutoff` (until
 * session 50 it read every key of the store on every call).
 */
export async function pruneByTimeSuffix(store: Store, cutoff: number, budget: number): Promise<number> {
  return deleteKeys(store, (await oldRows(store, 8, cutoff, budget)).map(([k]) => k))
}

/**
 * Deletes the user trades of the markets in `marketIds` older than `cutoff`, with their rows
 * in the index by order: a seek per sub-account and market, not a read of every fill kept.
 */
export async function pruneUserTrades(stores: Stores, marketIds: ReadonlySet<number>, cutoff: number, budget: number): Promise<number> {
  if (marketIds.size === 0 || budget <= 0) return 0
  // owner ‖ marketId u32 ‖ time u64 ‖ tradeId u64 ‖ maker u8
  const old = await oldRows(stores.userTrades, 9, cutoff, budget,
    { values: true, skip: (prefix) => !marketIds.has(prefix.readUInt32BE(prefix.length - 4)) })
  const byOrder = old.map(([k, v]) => Buffer.concat([k.subarray(0, k.length - 17),
    key().u64(storedUserTradeCodec.decode(v!).orderId).raw(k.subarray(k.length - 9)).build()]))
  // The index rows first: a crash between leaves trades the next pass finds again.
  await deleteKeys(stores.userTradeOrders, byOrder)
  return deleteKeys(stores.userTrades, old.map(([k]) => k))
}

export async function deleteKeys(store: Store, keys: readonly Buffer[]): Promise<number> {
  if (keys.length > 0) await store.batch(keys.map((k) => ({ type: 'del' as const, key: k })))
  return keys.length
}
