// A market's orders waiting for their goodTillDate, as a binary min-heap (core/heap.ts) ordered by
// (goodTillDate, marketId, orderId): a total order, so the expiry sequence never depends on
// heap layout. Entries of orders that left early are skipped when they surface, and the heap
// is compacted when they outnumber the live ones, so it stays bounded by the open orders.

import { Heap } from './heap.js'

export interface GtdItem {
  goodTillDate: number
  marketId: number
  orderId: number
}

function less(a: GtdItem, b: GtdItem): boolean {
  if (a.goodTillDate !== b.goodTillDate) return a.goodTillDate < b.goodTillDate
  if (a.marketId !== b.marketId) return a.marketId < b.marketId
  return a.orderId < b.orderId
}

/** The goodTillDate queue of one market. */
export class GtdQueue extends Heap<GtdItem> {
  constructor() {
    super(less)
  }

  /** Keeps only the items `live` accepts and restores the heap order. */
  compact(live: (item: GtdItem) => boolean): void {
    this.retain(live)
  }
}
