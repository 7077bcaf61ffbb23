// A replica node's state machine side: restores state from the newest snapshot and the log,
// applies entries (its own as sequencer, or streamed ones as follower), takes a snapshot and
// state root at every checkpoint, and tells listeners about every durable batch in order.

import { apply } from '../core/apply.js'
import { REPLICA_LIMITS } from '../core/limits.js'
import type { Result } from '../core/events.js'
import { decodeSnapshot, encodeSnapshot } from '../core/snapshot.js'
import { stateRoot } from '../core/root.js'
import { createState, type State } from '../core/state.js'
import { hex, type LogEntry } from './entry.js'
import type { LogStore } from './log-store.js'
import type { Committed } from './sequencer.js'

export interface SnapshotMeta {
  seq: number
  time: number
  /** State root at seq, 0x-hex. */
  root: string
  /** Hash of the log entry at seq, hex. */
  hash: string
}

export interface SnapshotStoreLike {
  save(meta: SnapshotMeta, bytes: Uint8Array): Promise<void>
  latest(): Promise<{ meta: SnapshotMeta; bytes: Uint8Array } | undefined>
  prune?(keep: number): Promise<void>
}

export interface Checkpoint {
  seq: number
  root: string
}

export interface Logger {
  info(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
  error(obj: object, msg?: string): void
}

export interface NodeOptions {
  log: LogStore
  snapshots?: SnapshotStoreLike
  /** Entries between checkpoints (state root + snapshot); 0 disables. */
  checkpointInterval?: number
  logger?: Logger
  /** Called with each replayed or newly applied batch (for projections). */
  onApplied?: (c: Committed) => void
}

export class ReplicaNode {
  state: State = createState()
  readonly checkpointInterval: number
  /** Roots this node computed, newest last (bounded). */
  readonly roots: Checkpoint[] = []
  private pendingSnapshots: { meta: SnapshotMeta; bytes: Uint8Array }[] = []
  private readonly listeners: ((c: Committed) => void)[] = []
  private readonly checkpointListeners: ((c: Checkpoint) => void)[] = []

  constructor(readonly o: NodeOptions) {
    this.checkpointInterval = o.checkpointInterval ?? 0
    if (o.onApplied) this.listeners.push(o.onApplied)
  }

  get log(): LogStore { return this.o.log }

  onCommitted(fn: (c: Committed) => void): void { this.listeners.push(fn) }
  onCheckpoint(fn: (c: Checkpoint) => void): void { this.checkpointListeners.push(fn) }

  /**
   * Restores the newest usable snapshot, then replays the log tail. `snapshotSeqMax` keeps a
   * snapshot newer than a consumer that must see every entry (projections behind it) unused.
   */
  async restore(snapshotSeqMax = Number.MAX_SAFE_INTEGER): Promise<void> {
    const { log, snapshots, logger } = this.o
    const snap = await snapshots?.latest()
    if (snap && snap.meta.seq <= log.lastSeq && snap.meta.seq >= log.firstSeq - 1 && snap.meta.seq <= snapshotSeqMax) {
      this.state = decodeSnapshot(snap.bytes)
      const root = stateRoot(this.state)
      if (root !== snap.meta.root) throw new Error(`snapshot at ${snap.meta.seq} has root ${root}, expected ${snap.meta.root}`)
      logger?.info({ seq: snap.meta.seq }, 'restored snapshot')
    } else if (log.firstSeq > 1) {
      throw new Error(`log starts at ${log.firstSeq} and no snapshot covers what came before`)
    }
    await this.replay()
  }

  /** Applies every log entry after the state's seq, streaming the stored batches. */
  async replay(): Promise<void> {
    const { log } = this.o
    const lastSeq = log.lastSeq
    if (this.state.seq < lastSeq) {
      for await (const entries of log.readBatches(this.state.seq + 1)) this.applyBatch(entries)
      if (this.state.seq !== lastSeq) throw new Error(`replay ended at ${this.state.seq}, the log at ${lastSeq}`)
    }
    await this.flushSnapshots()
  }

  /** Installs a snapshot received from the sequencer (a follower too far behind). */
  async install(meta: SnapshotMeta, bytes: Uint8Array): Promise<void> {
    const state = decodeSnapshot(bytes)
    const root = stateRoot(state)
    if (root !== meta.root || state.seq !== meta.seq) throw new Error(`received snapshot at ${meta.seq} does not match its root`)
    await this.o.log.reset(meta.seq, Buffer.from(meta.hash, 'hex'))
    this.state = state
    await this.o.snapshots?.save(meta, bytes)
  }

  /** Applies one entry, capturing a checkpoint when its seq is one. */
  applyEntry(entry: LogEntry): Result {
    const result = apply(this.state, entry)
    const n = this.checkpointInterval
    if (n > 0 && entry.seq % n === 0) this.captureCheckpoint(entry)
    return result
  }

  /** Applies durable entries (replay or follower) and notifies listeners. */
  applyBatch(entries: LogEntry[]): Result[] {
    const results = entries.map((e) => this.applyEntry(e))
    this.committed({ entries, results })
    return results
  }

  /** Tells listeners about a durable batch (the sequencer calls this from onCommit). */
  committed(c: Committed): void {
    for (const fn of this.listeners) fn(c)
  }

  private captureCheckpoint(entry: LogEntry): void {
    const root = stateRoot(this.state)
    const cp = { seq: entry.seq, root }
    this.roots.push(cp)
    if (this.roots.length > 1000) this.roots.shift()
    if (this.o.snapshots) {
      this.pendingSnapshots.push({
        meta: { seq: entry.seq, time: entry.time, root, hash: hex(entry.hash) },
        bytes: encodeSnapshot(this.state),
      })
    }
    for (const fn of this.checkpointListeners) fn(cp)
  }

  /** Writes snapshots captured at checkpoints whose entries are now durable. */
  async flushSnapshots(): Promise<void> {
    const store = this.o.snapshots
    if (!store) return
    while (this.pendingSnapshots.length > 0 && this.pendingSnapshots[0]!.meta.seq <= this.o.log.lastSeq) {
      const s = this.pendingSnapshots.shift()!
      await store.save(s.meta, s.bytes)
      await store.prune?.(REPLICA_LIMITS.snapshotsKept)
    }
  }
}
