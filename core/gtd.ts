// A market's orders waiting for their goodTillDate, as a binary min-heap ordered by
// (goodTillDate, marketId, orderId): a total order, so the expiry sequence never depends on
// heap layout. Entries of orders that left early are skipped when they surface, and the heap
// is compacted when they outnumber the live ones, so it stays bounded by the open orders.

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

export class GtdQueue {
  readonly items: GtdItem[] = []

  get size(): number { return this.items.length }

  peek(): GtdItem | undefined { return this.items[0] }

  /** Keeps only the items `live` accepts and restores the heap order. */
  compact(live: (item: GtdItem) => boolean): void {
    const kept = this.items.filter(live)
    this.items.length = 0
    for (const item of kept) this.push(item)
  }

  push(item: GtdItem): void {
    const a = this.items
    a.push(item)
    let i = a.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!less(a[i]!, a[parent]!)) break
      const t = a[i]!; a[i] = a[parent]!; a[parent] = t
      i = parent
    }
  }

  pop(): GtdItem | undefined {
    const a = this.items
    const top = a[0]
    const last = a.pop()
    if (a.length > 0 && last !== undefined) {
      a[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < a.length && less(a[l]!, a[m]!)) m = l
        if (r < a.length && less(a[r]!, a[m]!)) m = r
        if (m === i) break
        const t = a[i]!; a[i] = a[m]!; a[m] = t
        i = m
      }
    }
    return top
  }
}
