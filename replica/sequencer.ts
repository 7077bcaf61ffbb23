// The sequencer: orders commands, stamps seq and time, applies them to the core, and
// group-commits them to the log. A submitter hears its result only once its batch is synced,
// so an acknowledged command survives kill -9. Ticks are injected at a fixed cadence.

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
  /** Called once per durable batch, in log order, before submitters are resolved. */
  onCommit?: (c: Committed) => void
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
   * durability and the gate is open, starting a write whenever none is in progress.
   */
  private pump(): void {
    const cap = 2 * this.batchMax
    const gate = this.o.gate
    while (this.queued > 0 && this.notDurable < cap && this.stopped === null && (gate === undefined || gate.open)) {
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
    this.writing = this.o.log.append(entries).then(() => {
      this.writing = null
      this.notDurable -= entries.length
      this.lastCommitMs = performance.now() - started
      this.committedEntries += entries.length
      try {
        this.o.onCommit?.({ entries, results })
      } catch (err) {
        this.fail(err as Error, parts)
        return
      }
      // The next write starts before anyone is answered or anything new is applied: the disk
      // never waits for the CPU.
      this.write()
      for (const { batch, entries, results } of parts) {
        for (let i = 0; i < batch.length; i++) {
          const e = entries[i]!
          batch[i]!.resolve({ seq: e.seq, time: e.time, result: results[i]! })
        }
      }
      this.pump()
    }, (err: Error) => {
      this.writing = null
      this.fail(err, parts)
    })
    // Injected bug for the simulator's tests: answering here breaks "acknowledged means durable".
    if (TEST_FAULTS.ackBeforeSync) {
      for (const { batch, entries, results } of parts) {
        for (let i = 0; i < batch.length; i++) batch[i]!.resolve({ seq: entries[i]!.seq, time: entries[i]!.time, result: results[i]! })
      }
    }
  }

  private halt(why: string): void {
    if (this.stopped !== null) return
    this.stopped = why
    this.tickTimer?.cancel()
    const e = new StoppedError(why)
    // Applied but never to be written: their state is lost with the process, so are they.
    for (const { batch } of this.unwritten) for (const p of batch) p.reject(e)
    this.unwritten = []
    for (const p of this.take(this.queued)) p.reject(e)
  }

  private fail(err: Error, parts: Prepared[]): void {
    const e = new StoppedError(err.message)
    for (const { batch } of parts) for (const p of batch) p.reject(e)
    this.halt(err.message)
    this.o.onFatal?.(err)
  }
}

function noop(): void {}
