// Position margin history (Binance GET /fapi/v1/positionMargin/history): one row per margin
// added to or removed from an isolated position by its owner (core/isolated.ts).

import type { PositionSide } from '../../core/commands.js'
import type { PositionMarginEvent } from '../../core/events.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { PendingBatch } from './batch.js'
import { tupleCodec } from './codec.js'
import { ownerKey } from './keys.js'
import type { Owner } from './records.js'
import type { Stores } from './stores.js'
import { checkLimit, scan, timeRangeBounds, type TimeRange } from './time-range.js'

export interface PositionMarginRecord {
  id: number
  marketId: number
  /** Binance's type: 1 add, 2 reduce. */
  type: 1 | 2
  /** Quote ledger units, positive. */
  amount: number
  positionSide: PositionSide
  time: number
}

export const positionMarginCodec = tupleCodec<PositionMarginRecord>({
  id: true, marketId: true, type: true, amount: true, positionSide: true, time: true,
})

/** owner, marketId u32, time u64, id u64 → PositionMarginRecord. */
export function positionMarginKey(o: Owner, marketId: number, time: number, id: number): Buffer {
  return ownerKey(o.account, o.sub).u32(marketId).u64(time).u64(id).build()
}

export function onPositionMargin(stores: Stores, batch: PendingBatch, e: PositionMarginEvent, id: number): void {
  const r: PositionMarginRecord = { id, marketId: e.marketId, type: e.direction === 'ADD' ? 1 : 2, amount: e.amount,
    positionSide: e.positionSide, time: e.time }
  batch.put(stores.positionMargins, positionMarginKey(e, e.marketId, e.time, id), positionMarginCodec.encode(r))
}

export interface PositionMarginQuery extends TimeRange {
  type?: 1 | 2 | undefined
  limit: number
}

/** One market's margin changes by the time-range rule, ascending, 30 days back at most. */
export function positionMargins(stores: Stores, owner: Owner, marketId: number, q: PositionMarginQuery,
  nowMs: number): Promise<PositionMarginRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.positionMarginHistoryMax)
  const prefix = ownerKey(owner.account, owner.sub).u32(marketId).build()
  const floor = Math.max(0, nowMs - PROJECTION_LIMITS.positionMarginRetentionMs)
  return scan(stores.positionMargins, timeRangeBounds(prefix, q, floor), q.limit, (_k, v) => {
    const r = positionMarginCodec.decode(v)
    return q.type === undefined || r.type === q.type ? r : undefined
  })
}
