// The sequencer: orders commands, stamps seq and time, applies them to the core, and
// group-commits them to the log. A submitter hears its result only once its batch is synced,
// so an acknowledged command survives kill -9. Ticks are injected at a fixed cadence.

import { apply } from '../core/apply.js'
import type { Command } from '../core/commands.js'
import type { Result } from '../core/events.js'
import { LIMITS } from '../core/limits.js'
import type { State } from '../core/state.js'
import type { Clock, Timer } from './clock.js'
import { makeEntry, type LogEntry } from './entry.js'
import type { LogStore } from './log-store.js'

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
}

interface Pending {
  command: Command
  resolve: (a: Acknowledged) => void
  reject: (e: Error) => void
}

export class Sequencer {
  /** Waiting commands are queue[head..]; taking a batch moves `head`, not the elements. */
  private queue: Pending[] = []
  private head = 0
  private pumpScheduled = false
  /** Batches applied whose write has not finished: one being written, one waiting. */
  private inflight = 0
  /** Hash of the last stamped entry, which runs ahead of the log by the batches in flight. */
  private prevHash: Uint8Array
  private lastWrite: Promise<void> = Promise.resolve()
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
    if (o.state.seq !== o.log.lastSeq) throw new Error(`state at ${o.state.seq} but log at ${o.log.lastSeq}`)
    this.prevHash = o.log.lastHash
  }

  get queued(): number { return this.queue.length - this.head }

  start(): void {
    const ms = this.o.tickIntervalMs ?? 0
    if (ms > 0) this.tickTimer = this.o.clock.every(ms, () => this.tick())
  }

  /** Stops taking commands; pending submitters are rejected. Waits for an in-flight write. */
  async stop(): Promise<void> {
    this.halt('shut down')
    await this.lastWrite
  }

  submit(command: Command): Promise<Acknowledged> {
    if (this.stopped !== null) return Promise.reject(new StoppedError(this.stopped))
    if (this.queued >= this.queueMax) return Promise.reject(new OverloadedError())
    return new Promise((resolve, reject) => {
      this.queue.push({ command, resolve, reject })
      // One pump per turn of the event loop takes everything submitted in it as one batch.
      if (!this.pumpScheduled && this.inflight < 2) {
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

  /** Stamps and applies batches while fewer than two await their write. */
  private readonly scheduledPump = (): void => {
    this.pumpScheduled = false
    this.pump()
  }

  private pump(): void {
    while (this.inflight < 2 && this.queued > 0 && this.stopped === null) this.prepare()
  }

  private take(n: number): Pending[] {
    const end = Math.min(this.queue.length, this.head + n)
    const batch = this.queue.slice(this.head, end)
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

  /**
   * Stamps, applies and queues the write of one batch. The next batch is applied while this
   * one is being written (CPU and fsync overlap); writes still happen strictly in order, and
   * nobody hears a result before its own batch is durable.
   */
  private prepare(): void {
    const batch = this.take(this.batchMax)
    const { state, log } = this.o
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
      this.fail(err as Error, batch)
      return
    }
    this.inflight += 1
    let started = 0
    const written = this.lastWrite.then(() => {
      if (this.stopped !== null) throw new StoppedError(this.stopped)
      started = performance.now()
      return log.append(entries)
    })
    this.lastWrite = written.then(() => {
      this.inflight -= 1
      this.lastCommitMs = performance.now() - started
      this.committedEntries += entries.length
      try {
        this.o.onCommit?.({ entries, results })
      } catch (err) {
        this.fail(err as Error, batch)
        return
      }
      for (let i = 0; i < batch.length; i++) {
        const e = entries[i]!
        batch[i]!.resolve({ seq: e.seq, time: e.time, result: results[i]! })
      }
      this.pump()
    }, (err: Error) => {
      this.inflight -= 1
      this.fail(err, batch)
    })
  }

  private halt(why: string): void {
    if (this.stopped !== null) return
    this.stopped = why
    this.tickTimer?.cancel()
    for (const p of this.take(this.queued)) p.reject(new StoppedError(why))
  }

  private fail(err: Error, batch: Pending[]): void {
    const e = new StoppedError(err.message)
    for (const p of batch) p.reject(e)
    this.halt(err.message)
    this.o.onFatal?.(err)
  }
}

function noop(): void {}
