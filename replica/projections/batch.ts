// What the projections have applied but not yet written: one LevelDB batch per group of
// entries. Orders are kept apart because a fill carries only an order's fill state; when the
// order's full record is not in the same group, flush reads it back before writing.

import type { OrderStatus } from '../../core/events.js'
import type { OrderRecord } from './records.js'
import type { Store } from './stores.js'

export interface BatchOp {
  type: 'put' | 'del'
  sublevel: Store
  key: Buffer
  value?: Buffer
}

/** Fill state of an order after its latest fill. */
export interface FillState {
  executedQtyLots: number
  cumQuoteTicksLots: number
  status: OrderStatus
  updateTime: number
}

export interface PendingOrder {
  key: Buffer
  /** The full record, when an order event of this group carried it (fills since applied). */
  record: OrderRecord | null
  /** The latest fill when no full record is in this group: flush merges it into the stored one. */
  fill: FillState | null
}

export class PendingBatch {
  readonly ops: BatchOp[] = []
  /** By key (hex), in first-touched order. */
  readonly orders = new Map<string, PendingOrder>()

  put(sublevel: Store, key: Buffer, value: Buffer): void {
    this.ops.push({ type: 'put', sublevel, key, value })
  }

  del(sublevel: Store, key: Buffer): void {
    this.ops.push({ type: 'del', sublevel, key })
  }

  order(key: Buffer): PendingOrder {
    const id = key.toString('hex')
    let p = this.orders.get(id)
    if (p === undefined) {
      p = { key, record: null, fill: null }
      this.orders.set(id, p)
    }
    return p
  }

  /** Operations and orders pending: what the batch bound counts. */
  get size(): number {
    return this.ops.length + this.orders.size
  }

  get empty(): boolean {
    return this.ops.length === 0 && this.orders.size === 0
  }
}

export function applyFill(record: OrderRecord, fill: FillState): void {
  record.executedQtyLots = fill.executedQtyLots
  record.cumQuoteTicksLots = fill.cumQuoteTicksLots
  record.status = fill.status
  record.updateTime = fill.updateTime
}
