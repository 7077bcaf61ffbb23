// A book's resting orders by orderId: an open-addressing hash table with linear probing.
//
// Why not a Map: a book churns (every resting order is added once and removed once) while
// its size hovers in a narrow band. V8's ordered hash tables keep removed entries as holes
// until the table fills, then rebuild it, and when the live count sits near a power of two
// that rebuild (and a fresh table allocation) comes every few hundred inserts. Here a remove
// shifts the probe run back instead of leaving a hole, so nothing is ever rebuilt except to
// grow. OrderIds of a market are assigned in sequence, so `id & mask` spreads them evenly.
//
// Iteration is in ascending orderId, which is the order a Map filled by placement would give.

import { assert } from './assert.js'
import type { Order } from './state.js'

const INITIAL_CAPACITY = 64

export class OrderIndex {
  /** orderId per slot; 0 marks an empty slot (orderIds start at 1). */
  private ids = new Float64Array(INITIAL_CAPACITY)
  private slots: (Order | null)[] = new Array<Order | null>(INITIAL_CAPACITY).fill(null)
  private mask = INITIAL_CAPACITY - 1
  private count = 0

  get size(): number {
    return this.count
  }

  /** The slot holding `id`, or -1. Ids that are not positive safe integers are never present. */
  private slotOf(id: number): number {
    if (!(id > 0) || !Number.isSafeInteger(id)) return -1
    const ids = this.ids
    const mask = this.mask
    for (let i = id & mask; ; i = (i + 1) & mask) {
      const k = ids[i]!
      if (k === id) return i
      if (k === 0) return -1
    }
  }

  get(id: number): Order | undefined {
    const i = this.slotOf(id)
    return i < 0 ? undefined : this.slots[i]!
  }

  has(id: number): boolean {
    return this.slotOf(id) >= 0
  }

  /** Adds or replaces; `id` must be a positive safe integer. */
  set(id: number, order: Order): void {
    if (!(id > 0) || !Number.isSafeInteger(id)) assert(false, `orderId ${id} is not a positive safe integer`)
    const ids = this.ids
    const mask = this.mask
    let i = id & mask
    for (; ; i = (i + 1) & mask) {
      const k = ids[i]!
      if (k === id) {
        this.slots[i] = order
        return
      }
      if (k === 0) break
    }
    ids[i] = id
    this.slots[i] = order
    this.count += 1
    // At most half full keeps probe runs short.
    if (this.count * 2 > ids.length) this.resize(ids.length * 2)
  }

  delete(id: number): boolean {
    let i = this.slotOf(id)
    if (i < 0) return false
    const ids = this.ids
    const slots = this.slots
    const mask = this.mask
    // Backward-shift deletion: pull later entries of the run into the gap when their home
    // slot does not lie (cyclically) between the gap and themselves, so no tombstones exist.
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const k = ids[j]!
      if (k === 0) break
      const home = k & mask
      const stays = i <= j ? (i < home && home <= j) : (i < home || home <= j)
      if (stays) continue
      ids[i] = k
      slots[i] = slots[j]!
      i = j
    }
    ids[i] = 0
    slots[i] = null
    this.count -= 1
    return true
  }

  /** Resting orders in ascending orderId. */
  values(): IterableIterator<Order> {
    const out: Order[] = []
    for (const o of this.slots) if (o !== null) out.push(o)
    out.sort((a, b) => a.orderId - b.orderId)
    return out.values()
  }

  private resize(capacity: number): void {
    const oldIds = this.ids
    const oldSlots = this.slots
    this.ids = new Float64Array(capacity)
    this.slots = new Array<Order | null>(capacity).fill(null)
    this.mask = capacity - 1
    this.count = 0
    for (let i = 0; i < oldIds.length; i++) if (oldIds[i] !== 0) this.set(oldIds[i]!, oldSlots[i]!)
  }
}
