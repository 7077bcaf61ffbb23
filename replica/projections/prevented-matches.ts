// Prevented matches (Binance spot's GET /api/v3/myPreventedMatches): one row per match that
// self-trade prevention stopped (core/match.ts), kept three months, under the taker's
// sub-account (the maker is the same sub-account), by the id the core numbered it with.

import type { PreventedMatchEvent } from '../../core/events.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { PendingBatch } from './batch.js'
import { tupleCodec } from './codec.js'
import { ownerKey } from './keys.js'
import type { Owner } from './records.js'
import type { Stores } from './stores.js'
import { checkLimit, scan, timeRangeBounds } from './time-range.js'

/** The event's figures. */
export interface PreventedMatchRecord extends Pick<PreventedMatchEvent, 'preventedMatchId' | 'takerOrderId' | 'makerOrderId' | 'priceTicks'
  | 'makerLots' | 'mode' | 'time'> {
  /** Absent from rows written before the event carried it. */
  takerLots?: number
}

const preventedMatchCodec = tupleCodec<PreventedMatchRecord>({
  preventedMatchId: true, takerOrderId: true, makerOrderId: true, priceTicks: true, makerLots: true, mode: true, time: true, takerLots: true,
}, 1)

/** owner, marketId u32, time u64, id u64 → PreventedMatchRecord. */
function prefixOf(o: Owner, marketId: number): Buffer {
  return ownerKey(o.account, o.sub).u32(marketId).build()
}

export function onPreventedMatch(stores: Stores, batch: PendingBatch, e: PreventedMatchEvent): void {
  const r: PreventedMatchRecord = { preventedMatchId: e.preventedMatchId, takerOrderId: e.takerOrderId, makerOrderId: e.makerOrderId,
    priceTicks: e.priceTicks, makerLots: e.makerLots, mode: e.mode, time: e.time, takerLots: e.takerLots }
  batch.put(stores.preventedMatches, ownerKey(e.account, e.sub).u32(e.marketId).u64(e.time).u64(e.preventedMatchId).build(),
    preventedMatchCodec.encode(r))
}

export interface PreventedMatchQuery {
  /** This one match only. */
  preventedMatchId?: number | undefined
  /** The matches this order took part in, as taker or maker. */
  orderId?: number | undefined
  /** From this id on. */
  fromPreventedMatchId?: number | undefined
  limit: number
}

/** The sub-account's prevented matches in one market, oldest first, three months back. */
export async function preventedMatches(stores: Stores, owner: Owner, marketId: number, q: PreventedMatchQuery,
  nowMs: number): Promise<PreventedMatchRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.preventedMatchesMax)
  const floor = Math.max(0, nowMs - PROJECTION_LIMITS.preventedMatchRetentionMs)
  const bounds = timeRangeBounds(prefixOf(owner, marketId), { startTime: floor }, floor)
  return scan(stores.preventedMatches, bounds, q.limit, (_k, v) => {
    const r = preventedMatchCodec.decode(v)
    if (q.preventedMatchId !== undefined && r.preventedMatchId !== q.preventedMatchId) return undefined
    if (q.orderId !== undefined && r.takerOrderId !== q.orderId && r.makerOrderId !== q.orderId) return undefined
    if (q.fromPreventedMatchId !== undefined && r.preventedMatchId < q.fromPreventedMatchId) return undefined
    return r
  })
}
