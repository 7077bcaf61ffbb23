// A follower: connects to the sequencer's replication endpoint, asks from the end of its own
// log, verifies every entry against the hash chain, appends it durably, applies it, and
// compares its state root with the sequencer's at every checkpoint. A gap, a bad hash or a
// different root stops it with a clear error; a dropped connection reconnects.

import type { Clock, Timer } from './clock.js'
import type { Network, Connection } from './network.js'
import type { Checkpoint, Logger, ReplicaNode } from './node.js'
import { decodeMessage, encodeMessage, verifyWire, type Message } from './replication.js'

export class FollowerError extends Error {
  override name = 'FollowerError'
}

export interface FollowerOptions {
  node: ReplicaNode
  network: Network
  url: string
  clock: Clock
  logger?: Logger
  reconnectMs?: number
  onFatal?: (err: Error) => void
}

export class Follower {
  private conn: Connection | null = null
  private chain: Promise<void> = Promise.resolve()
  private stopped = false
  private retry: Timer | null = null
  /** Roots the sequencer announced that this node has not reached yet. */
  private readonly expected = new Map<number, string>()
  /** Receive time minus entry time of the newest applied entry, ms. */
  lastLagMs = 0
  readonly lagSamplesMs: number[] = []
  connected = false

  constructor(private readonly o: FollowerOptions) {
    o.node.onCheckpoint((cp) => this.compare(cp))
  }

  start(): void {
    this.stopped = false
    this.connect()
  }

  stop(): void {
    this.stopped = true
    this.retry?.cancel()
    this.conn?.close('follower stopping')
  }

  /** Resolves when everything received so far is applied. */
  idle(): Promise<void> { return this.chain }

  private connect(): void {
    if (this.stopped) return
    this.o.network.connect(this.o.url).then((conn) => {
      if (this.stopped) { conn.close(); return }
      this.conn = conn
      this.connected = true
      conn.onMessage((bytes) => {
        this.chain = this.chain.then(() => this.handle(bytes)).catch((err: Error) => this.fatal(err))
      })
      conn.onClose((reason) => {
        this.connected = false
        if (this.conn === conn) this.conn = null
        if (!this.stopped) {
          this.o.logger?.warn({ reason }, 'replication connection closed; reconnecting')
          this.scheduleReconnect()
        }
      })
      // Ask from the end of the log once everything in flight is applied.
      this.chain = this.chain.then(() => conn.send(encodeMessage(['hello', this.o.node.log.lastSeq + 1])))
    }, () => this.scheduleReconnect())
  }

  private scheduleReconnect(): void {
    if (this.stopped) return
    this.retry?.cancel()
    this.retry = this.o.clock.after(this.o.reconnectMs ?? 200, () => this.connect())
  }

  private async handle(bytes: Uint8Array): Promise<void> {
    if (this.stopped) return
    const m: Message = decodeMessage(bytes)
    const node = this.o.node
    switch (m[0]) {
      case 'snapshot':
        this.o.logger?.info({ seq: m[1].seq }, 'installing snapshot from the sequencer')
        await node.install(m[1], m[2])
        return
      case 'entries': {
        const log = node.log
        const entries = verifyWire(m[1], log.lastSeq, log.lastHash)
        if (entries.length === 0) return
        await log.append(entries)
        node.applyBatch(entries)
        await node.flushSnapshots()
        // Lag: from the sequencer stamping the newest entry to this node having applied it.
        this.lastLagMs = this.o.clock.now() - entries[entries.length - 1]!.time
        this.lagSamplesMs.push(this.lastLagMs)
        if (this.lagSamplesMs.length > 10_000) this.lagSamplesMs.splice(0, 5_000)
        return
      }
      case 'checkpoint': {
        const mine = node.roots.find((r) => r.seq === m[1])
        if (mine) this.check(m[1], mine.root, m[2])
        else if (m[1] > node.state.seq) this.expected.set(m[1], m[2])
        return
      }
      case 'error':
        this.o.logger?.warn({ reason: m[1] }, 'sequencer closed the stream')
        return
      default:
        throw new FollowerError(`unknown replication message ${String(m[0])}`)
    }
  }

  private compare(cp: Checkpoint): void {
    const theirs = this.expected.get(cp.seq)
    if (theirs === undefined) return
    this.expected.delete(cp.seq)
    this.check(cp.seq, cp.root, theirs)
  }

  private check(seq: number, mine: string, theirs: string): void {
    if (mine !== theirs) {
      throw new FollowerError(`state root differs from the sequencer's at checkpoint ${seq}: ${mine} != ${theirs}`)
    }
  }

  private fatal(err: Error): void {
    if (this.stopped) return
    this.o.logger?.error({ err: err.message }, 'follower stopped')
    this.stop()
    this.o.onFatal?.(err)
  }
}
