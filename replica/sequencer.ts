// The sequencer: orders commands, stamps seq and time, applies them to the core, and
// group-commits them to the log. A submitter hears its result only once its batch is synced,
// so an acknowledged command survives kill -9; with synchronous standbys, only once they hold
// it too, so it survives the loss of this machine. Ticks are injected at a fixed cadence.

import { apply } from '../core/apply.js'
import type { Command } from '../core/commands.js'
import type { Result } from '../core/events.js'
import { assert } from '../core/assert.js'
import { LIMITS, REPLICA_LIMITS } from '../core/limits.js'
import { declarable, RULES_VERSION } from '../core/rules.js'
import type { State } from '../core/state.js'
import type { ApplyGate } from './apply-gate.js'
import type { Clock, Timer } from './clock.js'
import { makeEntry, type LogEntry } from './entry.js'
import type { LogStore } from './log-store.js'
import { TEST_FAULTS } from './test-faults.js'

export class OverloadedError extends Error {
  override name = 'OverloadedError'
  readonly code = 'OVERLOADED'
  constructor() { super('the sequencer is overloaded; retry later') }
}

export class StoppedError extends Error {
  override name = 'StoppedError'
  readonly code = 'STOPPED'
  constructor(why: string) { super(`the sequencer is stopped: ${why}`) }
}

/**
 * The sequencer stopped with the command durable in its own log but not yet held by the standbys:
 * it may or may not be in the log that goes on (a standby promoted in its place lacks it).
 */
export class OutcomeUnknownError extends Error {
  override name = 'OutcomeUnknownError'
  readonly code = 'OUTCOME_UNKNOWN'
  constructor(why: string) { super(`the sequencer stopped before a standby held the command (${why}); its outcome is unknown`) }
}

/** A rules declaration this build may not write (core/rules.ts): only its own version. */
export class RulesDeclarationError extends Error {
  override name = 'RulesDeclarationError'
  readonly code = 'RULES_NOT_DECLARABLE'
  constructor(version: unknown) { super(`this sequencer declares only its own rules ${RULES_VERSION}, not ${String(version)}`) }
}

export interface Acknowledged {
  seq: number
  time: number
  result: Result
}

/** A durable batch: what followers, projections and streams consume, in order. */
export interface Committed {
  entries: LogEntry[]
  results: Result[]
}

export interface SequencerOptions {
  log: LogStore
  /** State at log.lastSeq. */
  state: State
  clock: Clock
  /** 0 disables ticks. */
  tickIntervalMs?: number
  ingressQueueMax?: number
  batchMax?: number
  /** Applies one stamped entry; defaults to the core's apply (a node adds checkpoints). */
  applyEntry?: (entry: LogEntry) => Result
  /**
   * Called once per committed batch, in log order, before submitters are resolved: durable, and
   * with `replicated` also held by the standbys.
   */
  onCommit?: (c: Committed) => void
  /**
   * Synchronous replication: a durable batch goes to `onDurable` (the standbys), and is
   * committed only once `replicatedTo` reaches its last seq.
   */
  replicated?: { onDurable(c: Committed): void }
  /** Called when the sequencer stops on a fault it cannot continue past. */
  onFatal?: (err: Error) => void
  /** While held, no new batch is taken (apply-gate.ts); submissions queue up to the ingress bound. */
  gate?: ApplyGate
}

interface Pending {
  command: Command
  resolve: (a: Acknowledged) => void
  reject: (e: Error) => void
}

/** Commands stamped and applied together, waiting for their write. */
interface Prepared {
  batch: Pending[]
  entries: LogEntry[]
  results: Result[]
}

/** One durable write waiting for the standbys to hold it. */
interface Replicating {
  parts: Prepared[]
  committed: Committed
  last: number
  started: number
}

export class Sequencer {
  /** Waiting commands are queue[head..]; taking a batch moves `head`, not the elements. */
  private queue: (Pending | undefined)[] = []
  private head = 0
  private pumpScheduled = false
  /** Applied batches whose write has not started, oldest first; the next write takes them all. */
  private unwritten: Prepared[] = []
  /** Entries applied whose write has not finished (being written or waiting): at most 2 × batchMax. */
  private notDurable = 0
  /** The write in progress, if any. */
  private writing: Promise<void> | null = null
  /** Durable writes the standbys do not all hold yet, oldest first (synchronous replication). */
  private replicating: Replicating[] = []
  /** Entries in `replicating`. */
  private notReplicated = 0
  /** The newest seq the standbys hold. */
  private replicatedSeq = 0
  /** Hash of the last stamped entry, which runs ahead of the log by the entries not yet durable. */
  private prevHash: Uint8Array
  private stopped: string | null = null
  private tickTimer: Timer | null = null
  private readonly queueMax: number
  private readonly batchMax: number
  /** Commit latencies (ms) of recent batches, for metrics. */
  lastCommitMs = 0
  committedEntries = 0

  constructor(private readonly o: SequencerOptions) {
    this.queueMax = o.ingressQueueMax ?? LIMITS.ingressQueueMax
    this.batchMax = o.batchMax ?? LIMITS.batchMax
    assert(Number.isSafeInteger(this.batchMax) && this.batchMax >= 1 && 2 * this.batchMax <= REPLICA_LIMITS.batchEntriesMax,
      `batchMax ${this.batchMax}: two batches must fit one log append`)
    if (o.state.seq !== o.log.lastSeq) throw new Error(`state at ${o.state.seq} but log at ${o.log.lastSeq}`)
    this.prevHash = o.log.lastHash
    o.gate?.onRelease(() => this.pump())
  }

  get queued(): number { return this.queue.length - this.head }

  start(): void {
    const ms = this.o.tickIntervalMs ?? 0
    if (ms > 0) this.tickTimer = this.o.clock.every(ms, () => this.tick())
  }

  /** Stops taking commands; pending submitters are rejected. Waits for an in-flight write. */
  async stop(): Promise<void> {
    this.halt('shut down')
    while (this.writing !== null) await this.writing
  }

  submit(command: Command): Promise<Acknowledged> {
    if (this.stopped !== null) return Promise.reject(new StoppedError(this.stopped))
    if (this.queued >= this.queueMax) return Promise.reject(new OverloadedError())
    // Written, a declaration of other rules would bind every later replay to rules this build
    // does not apply (newer) or take back (older); refused here, it is not in the log at all.
    if (command.type === 'SetRules' && !declarable(command)) return Promise.reject(new RulesDeclarationError(command.version))
    return new Promise((resolve, reject) => {
      this.queue.push({ command, resolve, reject })
      // One pump per turn of the event loop takes everything submitted in it as one batch.
      if (!this.pumpScheduled && this.notDurable < 2 * this.batchMax) {
        this.pumpScheduled = true
        queueMicrotask(this.scheduledPump)
      }
    })
  }

  private tick(): void {
    // A tick is dropped rather than queued behind a full ingress: the next one does its work.
    if (this.stopped === null && this.queued < this.queueMax) {
      this.queue.push({ command: { type: 'Tick' }, resolve: noop, reject: noop })
      this.pump()
    }
  }

  private readonly scheduledPump = (): void => {
    this.pumpScheduled = false
    this.pump()
  }

  /**
   * Stamps and applies waiting commands while fewer than two batches' worth of entries await
   * durability (and, replicating, fewer than REPLICATION_WINDOW batches' worth await the
   * standbys) and the gate is open, starting a write whenever none is in progress. Without a
   * standby nothing commits: the window fills, then the ingress queue, and then submitters are
   * told the sequencer is overloaded.
   */
  private pump(): void {
    const cap = 2 * this.batchMax
    const gate = this.o.gate
    const window = REPLICATION_WINDOW * this.batchMax
    while (this.queued > 0 && this.notDurable < cap && this.notReplicated < window && this.stopped === null &&
      (gate === undefined || gate.open)) {
      this.prepare(Math.min(this.batchMax, cap - this.notDurable))
      this.write()
    }
  }

  private take(n: number): Pending[] {
    const end = Math.min(this.queue.length, this.head + n)
    const batch = this.queue.slice(this.head, end) as Pending[]
    // Taken slots let go of their submitters at once: kept until the queue is compacted, tens of
    // thousands of answered promises (and their results) outlived the young generation.
    this.queue.fill(undefined, this.head, end)
    this.head = end
    if (this.head === this.queue.length) {
      this.queue = []
      this.head = 0
    } else if (this.head > 65_536) {
      this.queue = this.queue.slice(this.head)
      this.head = 0
    }
    return batch
  }

  /** Stamps and applies up to `n` waiting commands; their write comes later (write()). */
  private prepare(n: number): void {
    const batch = this.take(n)
    const { state } = this.o
    const entries: LogEntry[] = []
    const results: Result[] = []
    const applyEntry = this.o.applyEntry ?? ((e: LogEntry) => apply(state, e))
    try {
      for (const p of batch) {
        const time = Math.max(this.o.clock.now(), state.time)
        const entry = makeEntry(state.seq + 1, time, p.command, this.prevHash)
        results.push(applyEntry(entry))
        entries.push(entry)
        this.prevHash = entry.hash
      }
    } catch (err) {
      // An exception from apply is a broken invariant: the state can no longer be trusted.
      this.fail(err as Error, [{ batch, entries, results }])
      return
    }
    this.unwritten.push({ batch, entries, results })
    this.notDurable += entries.length
  }

  /**
   * Writes everything applied and not yet written as one durable append (group commit), unless
   * a write is in progress. Batches applied while one write syncs go out together in the next,
   * so a command waits for at most the write in progress and its own. Writes happen strictly
   * in order, and nobody hears a result before its own entry is durable.
   */
  private write(): void {
    if (this.writing !== null || this.unwritten.length === 0 || this.stopped !== null) return
    const parts = this.unwritten
    this.unwritten = []
    const entries = parts.length === 1 ? parts[0]!.entries : parts.flatMap((p) => p.entries)
    const results = parts.length === 1 ? parts[0]!.results : parts.flatMap((p) => p.results)
    const started = performance.now()
    // With standbys, what they hold is committed: recorded with the write, a rewind never cuts it (rewind.ts).
    this.writing = this.o.log.append(entries, this.o.replicated ? this.replicatedSeq : 0).then(() => {
      this.writing = null
      this.notDurable -= entries.length
      if (this.o.replicated) {
        this.durable(parts, { entries, results }, started)
        return
      }
      if (!this.commit(parts, { entries, results }, started)) return
      // The next write starts before anyone is answered or anything new is applied: the disk
      // never waits for the CPU.
      this.write()
      resolveAll(parts)
      this.pump()
    }, (err: Error) => {
      this.writing = null
      this.fail(err, parts)
    })
    // Injected bug for the simulator's tests: answering here breaks "acknowledged means durable".
    if (TEST_FAULTS.ackBeforeSync) resolveAll(parts)
  }

  /**
   * A write is committed (durable, and held by the standbys when there are): counted, and told
   * to onCommit before anyone is answered. False when that failed: the sequencer has stopped.
   */
  private commit(parts: Prepared[], c: Committed, started: number): boolean {
    this.lastCommitMs = performance.now() - started
    this.committedEntries += c.entries.length
    try {
      this.o.onCommit?.(c)
      return true
    } catch (err) {
      this.fail(err as Error, parts)
      return false
    }
  }

  /** A write is durable here: the standbys get it, and its submitters wait for them to hold it. */
  private durable(parts: Prepared[], committed: Committed, started: number): void {
    if (this.stopped !== null) {
      // The write was in flight when the sequencer stopped: no standby will be sent it now.
      const unknown = new OutcomeUnknownError(this.stopped)
      for (const { batch } of parts) for (const p of batch) p.reject(unknown)
      return
    }
    try {
      this.o.replicated!.onDurable(committed)
    } catch (err) {
      this.fail(err as Error, parts)
      return
    }
    // Injected bug for the simulator's tests: answering here loses acknowledged commands in a fail-over.
    if (TEST_FAULTS.ackBeforeReplicated) resolveAll(parts)
    this.replicating.push({ parts, committed, last: committed.entries[committed.entries.length - 1]!.seq, started })
    this.notReplicated += committed.entries.length
    this.write()
    this.commitReplicated()
  }

  /** The standbys hold everything up to `seq` (the replication server's count). */
  replicatedTo(seq: number): void {
    if (seq <= this.replicatedSeq) return
    this.replicatedSeq = seq
    this.commitReplicated()
  }

  /** Commits, in order, every durable write the standbys hold, and answers its submitters. */
  private commitReplicated(): void {
    while (this.replicating.length > 0 && this.replicating[0]!.last <= this.replicatedSeq && this.stopped === null) {
      const r = this.replicating.shift()!
      this.notReplicated -= r.committed.entries.length
      if (!this.commit(r.parts, r.committed, r.started)) return
      resolveAll(r.parts)
    }
    this.pump()
  }

  private halt(why: string): void {
    if (this.stopped !== null) return
    this.stopped = why
    this.tickTimer?.cancel()
    const e = new StoppedError(why)
    // Applied but never to be written: their state is lost with the process, so are they.
    for (const { batch } of this.unwritten) for (const p of batch) p.reject(e)
    this.unwritten = []
    // Written here but not held by the standbys: in this log, perhaps not in the one that goes on.
    const unknown = new OutcomeUnknownError(why)
    for (const { parts } of this.replicating) for (const { batch } of parts) for (const p of batch) p.reject(unknown)
    this.replicating = []
    this.notReplicated = 0
    for (const p of this.take(this.queued)) p.reject(e)
  }

  private fail(err: Error, parts: Prepared[]): void {
    const e = new StoppedError(err.message)
    for (const { batch } of parts) for (const p of batch) p.reject(e)
    this.halt(err.message)
    this.o.onFatal?.(err)
  }
}

/** Writes in flight waiting for the standbys, in batches (batchMax entries each) at most. */
const REPLICATION_WINDOW = 8

function resolveAll(parts: Prepared[]): void {
  for (const { batch, entries, results } of parts) {
    for (let i = 0; i < batch.length; i++) {
      const e = entries[i]!
      batch[i]!.resolve({ seq: e.seq, time: e.time, result: results[i]! })
    }
  }
}

function noop(): void {}
