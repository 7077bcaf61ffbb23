// A simulated disk per node: a log store and a snapshot store whose contents outlive the
// process. A write is durable only once its fsync completes (a delay on the loop); a crash
// loses every write not yet synced, and may leave the one in progress torn (a prefix of its
// entries, then one entry with garbage for a hash) for open() to find and cut off.

import { assert } from '../../core/assert.js'
import { REPLICA_LIMITS } from '../../core/limits.js'
import { checkContinues, checkLink } from '../../replica/chain.js'
import { bodyOf, chainHash, GENESIS_HASH, sameHash, type LogEntry } from '../../replica/entry.js'
import type { LogStore } from '../../replica/log-store.js'
import type { SnapshotMeta, SnapshotStoreLike } from '../../replica/node.js'
import type { Rng } from '../random.js'
import type { Scheduled } from './loop.js'

/** What survives a crash. */
export class SimDisk {
  batches: LogEntry[][] = []
  base: { seq: number, hash: Uint8Array } = { seq: 0, hash: GENESIS_HASH }
  /** knownCommitted (log-store.ts): raised as the append that carried it syncs. */
  committed = 0
  readonly snapshots = new Map<number, { meta: SnapshotMeta, bytes: Uint8Array }>()
  /** Torn tails open() has cut off, for the run's statistics. */
  tornTails = 0

  last(): { seq: number, hash: Uint8Array } {
    return this.batches.at(-1)?.at(-1) ?? this.base
  }
}

export interface DiskIo {
  /** How long the next fsync takes, ms. */
  syncMs(): number
  after(ms: number, fn: () => void): Scheduled
}

interface Write {
  entries: LogEntry[]
  timer: Scheduled
  reject: (e: Error) => void
}

/** One process's handle on a SimDisk's log. After crash() it is dead: nothing it started completes. */
export class SimLogStore implements LogStore {
  private writes: Write[] = []
  private isOpen = false
  private dead = false
  /** Called as each write starts (the simulator aims crashes at writes in progress). */
  onWrite: (() => void) | null = null

  constructor(private readonly disk: SimDisk, private readonly io: DiskIo) {}

  get lastSeq(): number { return this.disk.last().seq }
  get lastHash(): Uint8Array { return this.disk.last().hash }
  get firstSeq(): number { return this.disk.base.seq + 1 }
  get knownCommitted(): number { return this.disk.committed }

  /** Verifies the chain of the last stored batch and cuts it at the first entry that fails. */
  async open(): Promise<void> {
    this.alive()
    assert(!this.isOpen, 'log store already open')
    const { disk } = this
    const tail = disk.batches.at(-1)
    if (tail !== undefined) {
      let prev = disk.batches.at(-2)?.at(-1) ?? disk.base
      let good = 0
      for (const e of tail) {
        if (e.seq !== prev.seq + 1 || !sameHash(e.prevHash, prev.hash) || !sameHash(chainHash(prev.hash, bodyOf(e)), e.hash)) break
        prev = e
        good++
      }
      if (good < tail.length) {
        disk.tornTails++
        if (good === 0) disk.batches.pop()
        else disk.batches[disk.batches.length - 1] = tail.slice(0, good)
      }
    }
    this.isOpen = true
  }

  async close(): Promise<void> {
    this.isOpen = false
  }

  /** Written (durable or syncing) tail: where the next append must continue. */
  private writtenLast(): { seq: number, hash: Uint8Array } {
    return this.writes.at(-1)?.entries.at(-1) ?? this.disk.last()
  }

  append(entries: LogEntry[], committed = 0): Promise<void> {
    try {
      this.ready()
      const last = this.writtenLast()
      checkContinues(last.seq, last.hash, entries)
    } catch (err) {
      return Promise.reject(err as Error)
    }
    const batch = entries.slice()
    return new Promise((resolve, reject) => {
      const write: Write = {
        entries: batch, reject,
        timer: this.io.after(this.io.syncMs(), () => {
          // Syncs complete in order: this write is the oldest one waiting.
          if (this.dead) return
          assert(this.writes[0] === write, 'fsyncs complete in order')
          this.writes.shift()
          this.disk.batches.push(batch)
          this.disk.committed = Math.max(this.disk.committed, committed)
          resolve()
        }),
      }
      this.writes.push(write)
      this.onWrite?.()
    })
  }

  async read(fromSeq: number, toSeq = this.lastSeq, limit: number = REPLICA_LIMITS.readEntriesMax): Promise<LogEntry[]> {
    assert(Number.isSafeInteger(limit) && limit >= 1 && limit <= REPLICA_LIMITS.readEntriesMax, `read limit ${limit}`)
    const out: LogEntry[] = []
    for (const batch of this.batchesIn(fromSeq, Math.min(toSeq, this.lastSeq, fromSeq + limit - 1))) {
      for (const e of batch) out.push(e)
    }
    return out
  }

  async *readBatches(fromSeq = this.firstSeq): AsyncIterable<LogEntry[]> {
    yield* this.batchesIn(fromSeq, this.lastSeq)
  }

  async dropBefore(seq: number): Promise<void> {
    this.ready()
    const { disk } = this
    assert(Number.isSafeInteger(seq) && seq <= this.lastSeq + 1, `dropBefore(${seq}) past lastSeq ${this.lastSeq}`)
    if (seq <= this.firstSeq) return
    let kept = 0
    while (kept < disk.batches.length && disk.batches[kept]!.at(-1)!.seq < seq) kept++
    if (kept === 0) return
    const last = disk.batches[kept - 1]!.at(-1)!
    disk.base = { seq: last.seq, hash: last.hash }
    disk.batches = disk.batches.slice(kept)
  }

  async truncateAfter(seq: number): Promise<void> {
    this.ready()
    const { disk } = this
    assert(this.writes.length === 0, 'truncateAfter while a write syncs')
    assert(Number.isSafeInteger(seq) && seq >= disk.base.seq, `truncateAfter(${seq}) below firstSeq - 1 (${disk.base.seq}); reset instead`)
    if (seq >= this.lastSeq) return
    const kept: LogEntry[][] = []
    for (const b of disk.batches) {
      if (b[0]!.seq > seq) break
      kept.push(b.at(-1)!.seq <= seq ? b : b.slice(0, seq - b[0]!.seq + 1))
    }
    disk.batches = kept
  }

  async reset(seq: number, hash: Uint8Array): Promise<void> {
    this.ready()
    assert(this.writes.length === 0, 'reset while a write syncs')
    assert(Number.isSafeInteger(seq) && seq >= 0 && hash.length === 32, `reset(${seq}) with a ${hash.length}-byte hash`)
    this.disk.batches = []
    this.disk.base = { seq, hash: Uint8Array.from(hash) }
  }

  /**
   * The process dies: writes not yet synced are lost, except that the oldest (the one the
   * disk was busy with) may leave a prefix of its entries and one torn entry behind.
   */
  crash(rng: Rng, tornChance: number): void {
    if (this.dead) return
    this.dead = true
    const inProgress = this.writes[0]
    for (const w of this.writes) w.timer.cancel()
    this.writes = []
    if (inProgress !== undefined && rng.chance(tornChance)) {
      const kept = rng.below(inProgress.entries.length)
      const survivors: LogEntry[] = inProgress.entries.slice(0, kept)
      const torn = inProgress.entries[kept]!
      const garbage = Uint8Array.from(torn.hash)
      garbage[rng.below(garbage.length)] ^= 1 + rng.below(255)
      survivors.push({ seq: torn.seq, time: torn.time, command: torn.command, prevHash: torn.prevHash, hash: garbage })
      this.disk.batches.push(survivors)
    }
  }

  private *batchesIn(fromSeq: number, toSeq: number): Generator<LogEntry[]> {
    this.ready()
    const { disk } = this
    if (fromSeq < this.firstSeq) throw new RangeError(`seq ${fromSeq} was dropped; the log starts at ${this.firstSeq}`)
    if (fromSeq > toSeq) return
    let prev = disk.base as { seq: number, hash: Uint8Array }
    for (const batch of disk.batches) {
      const start = batch[0]!.seq
      if (start > toSeq) break
      if (batch.at(-1)!.seq < fromSeq) { prev = batch.at(-1)!; continue }
      for (const e of batch) {
        checkLink(prev.seq, prev.hash, e)
        prev = e
      }
      const lo = Math.max(0, fromSeq - start)
      const hi = Math.min(batch.length, toSeq - start + 1)
      if (lo < hi) yield batch.slice(lo, hi)
    }
  }

  private alive(): void {
    if (this.dead) throw new Error('log store of a crashed process')
  }

  private ready(): void {
    this.alive()
    assert(this.isOpen, 'log store is not open')
  }
}

/** Snapshots on the simulated disk: a save is atomic and durable when it resolves. */
export class SimSnapshotStore implements SnapshotStoreLike {
  constructor(private readonly disk: SimDisk) {}

  async save(meta: SnapshotMeta, bytes: Uint8Array): Promise<void> {
    this.disk.snapshots.set(meta.seq, { meta: { ...meta }, bytes: Uint8Array.from(bytes) })
  }

  async latest(): Promise<{ meta: SnapshotMeta, bytes: Uint8Array } | undefined> {
    let best: { meta: SnapshotMeta, bytes: Uint8Array } | undefined
    for (const s of this.disk.snapshots.values()) if (best === undefined || s.meta.seq > best.meta.seq) best = s
    return best
  }

  async prune(keep: number): Promise<void> {
    const seqs = [...this.disk.snapshots.keys()].sort((a, b) => b - a)
    for (const seq of seqs.slice(keep)) this.disk.snapshots.delete(seq)
  }

  async list(): Promise<SnapshotMeta[]> {
    return [...this.disk.snapshots.values()].map((s) => ({ ...s.meta })).sort((a, b) => a.seq - b.seq)
  }

  async dropAfter(seq: number): Promise<void> {
    for (const s of [...this.disk.snapshots.keys()]) if (s > seq) this.disk.snapshots.delete(s)
  }
}
