// The log store in memory, with the LevelDB store's semantics (batches kept as appended, whole
// batches dropped). Its contents survive close()/open(), like a disk; the simulator extends it with faults.

import { assert } from '../core/assert.js'
import { checkContinues, checkLink } from './chain.js'
import { GENESIS_HASH, type LogEntry } from './entry.js'
import type { LogStore } from './log-store.js'
import { REPLICA_LIMITS } from '../core/limits.js'

export class MemoryLogStore implements LogStore {
  /** Appended batches, oldest first; protected so a fault-injecting subclass can tear them. */
  protected batches: LogEntry[][] = []
  /** The (seq, hash) just before firstSeq. */
  protected base: { seq: number, hash: Uint8Array } = { seq: 0, hash: GENESIS_HASH }
  protected isOpen = false
  protected committed = 0

  get lastSeq(): number { return this.#last().seq }
  get lastHash(): Uint8Array { return this.#last().hash }
  get firstSeq(): number { return this.base.seq + 1 }
  get knownCommitted(): number { return this.committed }

  async open(): Promise<void> {
    assert(!this.isOpen, 'log store already open')
    this.isOpen = true
  }

  async close(): Promise<void> {
    this.isOpen = false
  }

  async append(entries: LogEntry[], committed = 0): Promise<void> {
    this.#assertOpen()
    checkContinues(this.lastSeq, this.lastHash, entries)
    this.committed = Math.max(this.committed, committed)
    // Copies, so a caller changing its objects later cannot change the log.
    this.batches.push(entries.map((e) => ({ ...e, prevHash: Uint8Array.from(e.prevHash), hash: Uint8Array.from(e.hash) })))
  }

  async read(fromSeq: number, toSeq = this.lastSeq, limit: number = REPLICA_LIMITS.readEntriesMax): Promise<LogEntry[]> {
    assert(Number.isSafeInteger(limit) && limit >= 1 && limit <= REPLICA_LIMITS.readEntriesMax, `read limit ${limit}`)
    const out: LogEntry[] = []
    for (const batch of this.#batches(fromSeq, Math.min(toSeq, this.lastSeq, fromSeq + limit - 1))) {
      for (const e of batch) out.push(e)
    }
    return out
  }

  async *readBatches(fromSeq = this.firstSeq): AsyncIterable<LogEntry[]> {
    yield* this.#batches(fromSeq, this.lastSeq)
  }

  async dropBefore(seq: number): Promise<void> {
    this.#assertOpen()
    assert(Number.isSafeInteger(seq) && seq <= this.lastSeq + 1, `dropBefore(${seq}) past lastSeq ${this.lastSeq}`)
    if (seq <= this.firstSeq) return
    const kept = seq > this.lastSeq ? this.batches.length : this.#indexOf(seq)
    if (kept === 0) return
    const last = this.batches[kept - 1]!.at(-1)!
    this.base = { seq: last.seq, hash: last.hash }
    this.batches = this.batches.slice(kept)
  }

  async truncateAfter(seq: number): Promise<void> {
    this.#assertOpen()
    assert(Number.isSafeInteger(seq) && seq >= this.base.seq,
      `truncateAfter(${seq}) below firstSeq - 1 (${this.base.seq}); reset instead`)
    if (seq >= this.lastSeq) return
    if (seq === this.base.seq) {
      this.batches = []
      return
    }
    const i = this.#indexOf(seq)
    const batch = this.batches[i]!
    this.batches.length = i + 1
    this.batches[i] = batch.slice(0, seq - batch[0]!.seq + 1)
  }

  async reset(seq: number, hash: Uint8Array): Promise<void> {
    this.#assertOpen()
    assert(Number.isSafeInteger(seq) && seq >= 0 && hash.length === 32, `reset(${seq}) with a ${hash.length}-byte hash`)
    this.batches = []
    this.base = { seq, hash: Uint8Array.from(hash) }
  }

  // Hashes were verified on append; reading back checks that the batches still link up.
  *#batches(fromSeq: number, toSeq: number): Generator<LogEntry[]> {
    this.#assertOpen()
    if (fromSeq < this.firstSeq) throw new RangeError(`seq ${fromSeq} was dropped; the log starts at ${this.firstSeq}`)
    if (fromSeq > toSeq) return
    let prev = this.base
    for (let i = this.#indexOf(fromSeq); i < this.batches.length; i++) {
      const batch = this.batches[i]!
      const start = batch[0]!.seq
      if (start > toSeq) break
      if (i > 0) prev = this.batches[i - 1]!.at(-1)!
      for (const e of batch) {
        checkLink(prev.seq, prev.hash, e)
        prev = e
      }
      const lo = Math.max(0, fromSeq - start)
      const hi = Math.min(batch.length, toSeq - start + 1)
      if (lo < hi) yield batch.slice(lo, hi)
    }
  }

  /** Index of the batch holding `seq` (firstSeq ≤ seq ≤ lastSeq). */
  #indexOf(seq: number): number {
    let lo = 0
    let hi = this.batches.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (this.batches[mid]![0]!.seq <= seq) lo = mid
      else hi = mid - 1
    }
    return lo
  }

  #last(): { seq: number, hash: Uint8Array } {
    return this.batches.at(-1)?.at(-1) ?? this.base
  }

  #assertOpen(): void {
    assert(this.isOpen, 'log store is not open')
  }
}
