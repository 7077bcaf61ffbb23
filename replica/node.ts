// A replica node's state machine side: restores state from the newest snapshot and the log,
// applies entries (its own as sequencer, or streamed ones as follower), takes a snapshot and
// state root at every checkpoint, and tells listeners about every durable batch in order.

import { apply } from '../core/apply.js'
import { REPLICA_LIMITS } from '../core/limits.js'
import type { Result } from '../core/events.js'
import { decodeSnapshot, encodeSnapshot } from '../core/snapshot.js'
import { stateRoot } from '../core/root.js'
import { createState, type State } from '../core/state.js'
import { ApplyGate } from './apply-gate.js'
import { hex, type LogEntry } from './entry.js'
import type { LogStore } from './log-store.js'
import type { RootSource } from './root-hasher.js'
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
  at?(seq: number): Promise<{ meta: SnapshotMeta; bytes: Uint8Array } | undefined>
  prune?(keep: number): Promise<void>
  /** Metas of every stored snapshot, oldest first. */
  list?(): Promise<SnapshotMeta[]>
  /** Deletes the snapshots taken after `seq` (a log cut back there: rewind.ts). */
  dropAfter?(seq: number): Promise<void>
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
  /**
   * Computes checkpoint roots from their snapshot bytes elsewhere (root-hasher.ts), so applying
   * never waits for one; roots then reach `roots` and the checkpoint listeners a little after
   * their entry, still in order. Without it (the simulator) they are computed on the spot.
   */
  roots?: RootSource
}

/** A checkpoint's snapshot, waiting for its entry to be durable (and, off-thread, for its root). */
interface PendingSnapshot {
  meta: Omit<SnapshotMeta, 'root'>
  root: string | Promise<string>
  bytes: Uint8Array
}

export class ReplicaNode {
  state: State = createState()
  /** Entries between checkpoints (0: none); a follower takes its sequencer's (followInterval). */
  checkpointInterval: number
  /** Roots this node computed, newest last (bounded). */
  readonly roots: Checkpoint[] = []
  /** Held while a consumer of applied batches (the projections) catches up; see apply-gate.ts. */
  readonly gate = new ApplyGate()
  private pendingSnapshots: PendingSnapshot[] = []
  /** Checkpoints whose roots are being computed elsewhere, oldest first. */
  private readonly rooting: number[] = []
  /** Resolves once every root asked for so far is delivered. */
  private rooted: Promise<void> = Promise.resolve()
  /** A root that could not be computed (the node cannot go on without it). */
  private rootFailure: Error | undefined
  /** The snapshot flush last begun (flushSnapshots): each waits for the one before. */
  private flushing: Promise<void> = Promise.resolve()
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
   * Replayed entries past `holdAfter` are applied but not told to listeners: they are returned,
   * for a standby to hold until its sequencer says they are committed (follower.ts).
   */
  async restore(snapshotSeqMax = Number.MAX_SAFE_INTEGER, holdAfter = Number.MAX_SAFE_INTEGER): Promise<Committed[]> {
    const { log, logger } = this.o
    const snap = await this.newestWhole(snapshotSeqMax)
    if (snap) {
      this.state = snap.state
      logger?.info({ seq: snap.seq }, 'restored snapshot')
    } else if (log.firstSeq > 1) {
      // A log its archiver cut, whose history read models were lost (or are behind every snapshot).
      const behind = snapshotSeqMax < log.firstSeq - 1 ? `; the history read models, at ${snapshotSeqMax}, need every entry after it: ` +
        'they are rebuilt only from the whole log (its archive, then this log)' : ''
      throw new Error(`log starts at ${log.firstSeq} and no snapshot covers what came before${behind}`)
    }
    return this.replay(holdAfter)
  }

  /**
   * The newest snapshot the log can go on from, not past `seqMax`, that reads whole: its bytes
   * match their digest and decode to the root recorded with them. One that does not (the disk
   * damaged it) is passed over for the one before, and failing all, the log replays from its
   * start: a snapshot only saves replaying what the log holds. Past the newest, an older one
   * also serves a log its archiver cut (bin/log-archive.ts), restored from the snapshot kept at
   * its base when the projections are behind the newer ones.
   */
  private async newestWhole(seqMax: number): Promise<{ seq: number; state: State } | undefined> {
    const { log, snapshots, logger } = this.o
    if (snapshots === undefined) return undefined
    const usable = (seq: number): boolean => seq <= log.lastSeq && seq >= log.firstSeq - 1 && seq <= seqMax
    // Newest first; a store that cannot list offers its latest alone.
    let seqs: (number | undefined)[] = [undefined]
    if (snapshots.list !== undefined && snapshots.at !== undefined) {
      try {
        seqs = (await snapshots.list()).map((m) => m.seq).filter(usable).reverse()
      } catch (err) {
        logger?.error({ err: (err as Error).message }, 'snapshots unreadable: the log replays from its start')
        seqs = []
      }
    }
    for (const seq of seqs) {
      try {
        const snap = seq === undefined ? await snapshots.latest() : await snapshots.at!(seq)
        if (snap === undefined || !usable(snap.meta.seq)) continue
        const state = decodeSnapshot(snap.bytes)
        const root = stateRoot(state)
        if (root !== snap.meta.root) throw new Error(`snapshot at ${snap.meta.seq} has root ${root}, expected ${snap.meta.root}`)
        return { seq: snap.meta.seq, state }
      } catch (err) {
        logger?.error({ seq, err: (err as Error).message }, 'snapshot damaged: passed over for an older one, or the log from its start')
      }
    }
    return undefined
  }

  /**
   * Applies every log entry after the state's seq, streaming the stored batches; listeners hear
   * of those up to `holdAfter`, and the rest are returned (restore).
   */
  async replay(holdAfter = Number.MAX_SAFE_INTEGER): Promise<Committed[]> {
    const { log } = this.o
    const lastSeq = log.lastSeq
    const held: Committed[] = []
    if (this.state.seq < lastSeq) {
      for await (const entries of log.readBatches(this.state.seq + 1)) {
        if (!this.gate.open) await this.gate.whenOpen()
        const results = entries.map((e) => this.applyEntry(e))
        const told = Math.max(0, Math.min(entries.length, holdAfter - entries[0]!.seq + 1))
        if (told === entries.length) this.committed({ entries, results })
        else if (told === 0) held.push({ entries, results })
        else {
          this.committed({ entries: entries.slice(0, told), results: results.slice(0, told) })
          held.push({ entries: entries.slice(told), results: results.slice(told) })
        }
      }
      if (this.state.seq !== lastSeq) throw new Error(`replay ended at ${this.state.seq}, the log at ${lastSeq}`)
    }
    await this.flushSnapshots()
    return held
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

  /**
   * Takes the sequencer's checkpoint interval (a follower, as the sequencer announces it): every
   * replica then roots the same checkpoints, and a follower checks each root the sequencer
   * may anchor. True when it changed.
   */
  followInterval(n: number): boolean {
    if (!Number.isSafeInteger(n) || n < 1 || n === this.checkpointInterval) return false
    this.checkpointInterval = n
    return true
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

  /** Whether the root of the checkpoint at `seq` is still being computed (it will be delivered). */
  rootPending(seq: number): boolean {
    return this.rooting.includes(seq)
  }

  /** Resolves once every checkpoint reached so far has its root delivered. */
  async rootsDelivered(): Promise<void> {
    await this.rooted
    if (this.rootFailure) throw this.rootFailure
  }

  private captureCheckpoint(entry: LogEntry): void {
    const meta = { seq: entry.seq, time: entry.time, hash: hex(entry.hash) }
    const source = this.o.roots
    if (source === undefined) {
      const root = stateRoot(this.state)
      if (this.o.snapshots) this.pendingSnapshots.push({ meta, root, bytes: encodeSnapshot(this.state) })
      this.deliver({ seq: entry.seq, root })
      return
    }
    // The snapshot's bytes are the state as of this entry: the root is theirs, computed while
    // the state moves on.
    const bytes = encodeSnapshot(this.state)
    const root = source.rootOf(bytes)
    root.catch(() => {}) // (its failure is reported through `rooted`)
    if (this.o.snapshots) this.pendingSnapshots.push({ meta, root, bytes })
    this.rooting.push(entry.seq)
    this.rooted = this.rooted.then(() => root).then((r) => {
      this.rooting.shift()
      try {
        this.deliver({ seq: entry.seq, root: r })
      } catch (err) {
        // A listener's failure (a follower's differing root) is its own to report.
        this.o.logger?.warn({ seq: entry.seq, err: (err as Error).message }, 'checkpoint listener failed')
      }
    }, (err: Error) => {
      this.rooting.shift()
      this.rootFailure ??= err
      this.o.logger?.error({ seq: entry.seq, err: err.message }, 'checkpoint root failed')
    })
  }

  private deliver(cp: Checkpoint): void {
    this.roots.push(cp)
    if (this.roots.length > 1000) this.roots.shift()
    for (const fn of this.checkpointListeners) fn(cp)
  }

  /**
   * Writes snapshots captured at checkpoints whose entries are now durable; resolves once they
   * are saved, those a flush already under way took included. Flushes run one after another: a
   * flush that found the queue emptied by one still saving returned before that save ended, so
   * a node stopping could close its store under it, and a reader could miss the newest snapshot.
   */
  flushSnapshots(): Promise<void> {
    const prior = this.flushing
    const run = (async () => {
      // The one before's failure is its caller's to handle; this one tries what is left.
      await prior.catch(() => {})
      await this.saveDueSnapshots()
    })()
    this.flushing = run
    return run
  }

  private async saveDueSnapshots(): Promise<void> {
    const store = this.o.snapshots
    if (!store) return
    while (this.pendingSnapshots.length > 0 && this.pendingSnapshots[0]!.meta.seq <= this.o.log.lastSeq) {
      const s = this.pendingSnapshots[0]!
      const root = await s.root
      this.pendingSnapshots.shift()
      await store.save({ ...s.meta, root }, s.bytes)
      await store.prune?.(REPLICA_LIMITS.snapshotsKept)
    }
  }
}
