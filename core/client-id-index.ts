// A sub-account's open orders by clientOrderId, in placement order: the subset of the Map
// interface the core and its readers use, built for constant churn.
//
// Why not a Map: every resting order is added and removed once, and V8's ordered hash
// tables answer that churn with frequent rebuilds, while a lookup that misses compares the
// key against other strings scattered over the heap. Here each entry keeps its key's hash
// in a typed array, so a probe touches another string only when the hashes agree, and a
// remove shifts the probe run back instead of leaving a tombstone.
//
// Entries sit in placement order in dense arrays with holes where orders left; the holes
// are squeezed out when the arrays fill, so iteration order is placement order, as a Map's.
// Size is bounded by LIMITS.openOrdersPerAccountMax, which placement checks.

import type { Order } from './state.js'

const INITIAL_ENTRIES = 8

/**
 * FNV-1a over UTF-16 code units (clientOrderIds are at most 36 ASCII characters). Every bit
 * can be a home slot's: forcing one (as `| 1` once did) left half the table as overflow only.
 */
function hashOf(key: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  return h
}

export class ClientIdIndex {
  // Entries in placement order; a removed entry leaves key undefined until compaction.
  private cids: (string | undefined)[] = new Array<string | undefined>(INITIAL_ENTRIES).fill(undefined)
  private ords: (Order | undefined)[] = new Array<Order | undefined>(INITIAL_ENTRIES).fill(undefined)
  private hashes = new Int32Array(INITIAL_ENTRIES)
  /** Entries used, holes included. */
  private end = 0
  private count = 0
  /**
   * Open-addressing table, twice the entry capacity in slots; slot i is the pair
   * [2i] entry index + 1 (0: empty), [2i + 1] the entry's hash, so a probe reads one array.
   */
  private table = new Int32Array(4 * INITIAL_ENTRIES)
  /** Slots − 1. */
  private mask = 2 * INITIAL_ENTRIES - 1

  get size(): number {
    return this.count
  }

  /** Table slot of `key` (hash `h`), or -1. */
  private slotOf(key: string, h: number): number {
    const table = this.table
    const mask = this.mask
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const e = table[2 * i]!
      if (e === 0) return -1
      if (table[2 * i + 1] === h && this.cids[e - 1] === key) return i
    }
  }

  get(key: string): Order | undefined {
    if (typeof key !== 'string') return undefined
    const i = this.slotOf(key, hashOf(key))
    return i < 0 ? undefined : this.ords[this.table[2 * i]! - 1]
  }

  has(key: string): boolean {
    return typeof key === 'string' && this.slotOf(key, hashOf(key)) >= 0
  }

  set(key: string, order: Order): this {
    const h = hashOf(key)
    const i = this.slotOf(key, h)
    if (i >= 0) {
      this.ords[this.table[2 * i]! - 1] = order
      return this
    }
    if (this.end === this.cids.length) this.reshape()
    const e = this.end++
    this.cids[e] = key
    this.ords[e] = order
    this.hashes[e] = h
    this.count += 1
    this.place(h, e + 1)
    return this
  }

  delete(key: string): boolean {
    if (typeof key !== 'string') return false
    const i = this.slotOf(key, hashOf(key))
    if (i < 0) return false
    const e = this.table[2 * i]! - 1
    this.cids[e] = undefined
    this.ords[e] = undefined
    this.count -= 1
    this.unlink(i)
    if (this.count === 0) this.end = 0
    return true
  }

  /**
   * Gives the entry under `from` the key `to` (absent), keeping its place in placement order:
   * an order whose client id changes is not a new order.
   */
  rename(from: string, to: string): void {
    const i = this.slotOf(from, hashOf(from))
    if (i < 0) return
    const e = this.table[2 * i]! - 1
    this.unlink(i)
    const h = hashOf(to)
    this.cids[e] = to
    this.hashes[e] = h
    this.place(h, e + 1)
  }

  /** Empties table slot `i`. */
  private unlink(i: number): void {
    // Backward-shift deletion: move later entries of the probe run into the gap unless their
    // home slot lies cyclically in (gap, their slot].
    const table = this.table
    const mask = this.mask
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const f = table[2 * j]!
      if (f === 0) break
      const fh = table[2 * j + 1]!
      const home = fh & mask
      const stays = i <= j ? (i < home && home <= j) : (i < home || home <= j)
      if (stays) continue
      table[2 * i] = f
      table[2 * i + 1] = fh
      i = j
    }
    table[2 * i] = 0
  }

  /** Open orders in placement order (a copy: the index may change while the caller walks it). */
  values(): IterableIterator<Order> {
    const out: Order[] = []
    for (let e = 0; e < this.end; e++) if (this.cids[e] !== undefined) out.push(this.ords[e]!)
    return out.values()
  }

  keys(): IterableIterator<string> {
    const out: string[] = []
    for (let e = 0; e < this.end; e++) if (this.cids[e] !== undefined) out.push(this.cids[e]!)
    return out.values()
  }

  entries(): IterableIterator<[string, Order]> {
    const out: [string, Order][] = []
    for (let e = 0; e < this.end; e++) if (this.cids[e] !== undefined) out.push([this.cids[e]!, this.ords[e]!])
    return out.values()
  }

  [Symbol.iterator](): IterableIterator<[string, Order]> {
    return this.entries()
  }

  private place(h: number, entry: number): void {
    const table = this.table
    const mask = this.mask
    let i = h & mask
    while (table[2 * i] !== 0) i = (i + 1) & mask
    table[2 * i] = entry
    table[2 * i + 1] = h
  }

  /**
   * The entry arrays are full: squeeze out the holes, first doubling when over a third are
   * live, so that at least two thirds of the capacity fills between squeezes (a book's churn
   * keeps an account's count steady, and each squeeze re-places every live entry).
   */
  private reshape(): void {
    const capacity = this.cids.length
    if (this.count * 3 > capacity) {
      this.cids.length = 2 * capacity
      this.cids.fill(undefined, capacity)
      this.ords.length = 2 * capacity
      this.ords.fill(undefined, capacity)
      const hashes = new Int32Array(2 * capacity)
      hashes.set(this.hashes)
      this.hashes = hashes
      this.table = new Int32Array(8 * capacity)
      this.mask = 4 * capacity - 1
    } else {
      this.table.fill(0)
    }
    const keys = this.cids
    const vals = this.ords
    const hashes = this.hashes
    let n = 0
    for (let e = 0; e < this.end; e++) {
      const k = keys[e]
      if (k === undefined) continue
      keys[n] = k
      vals[n] = vals[e]
      hashes[n] = hashes[e]!
      this.place(hashes[n]!, n + 1)
      n += 1
    }
    keys.fill(undefined, n, this.end)
    vals.fill(undefined, n, this.end)
    this.end = n
  }
}
