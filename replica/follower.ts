// A follower: connects to the sequencer's replication endpoint, asks from the end of its own
// log, verifies every entry against the hash chain, appends it durably, applies it, and
// compares its state root with the sequencer's at every checkpoint. A gap, a bad hash or a
// different root stops it with a clear error; a dropped connection reconnects. Batches that
// arrive while its previous write is syncing are appended together, one sync for all.

import { LIMITS, REPLICA_LIMITS } from '../core/limits.js'
import type { Clock, Timer } from './clock.js'
import type { LogEntry } from './entry.js'
import type { Network, Connection } from './network.js'
import type { Checkpoint, Logger, ReplicaNode } from './node.js'
import { batchCount, decodeMessage, encodeMessage, verifyWire, type BatchMessage, type Message } from './replication.js'

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
  /** Messages received and not yet handled, oldest first, and their size in bytes. */
  private inbox: Message[] = []
  private inboxBytes: number[] = []
  private inboxTotalBytes = 0
  private draining: Promise<void> | null = null
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

  /** Resolves when everything received so far is handled. */
  async idle(): Promise<void> {
    while (this.draining !== null) await this.draining
  }

  private connect(): void {
    if (this.stopped) return
    this.o.network.connect(this.o.url).then((conn) => {
      if (this.stopped) { conn.close(); return }
      this.conn = conn
      this.connected = true
      conn.onMessage((bytes) => this.receive(conn, bytes))
      conn.onClose((reason) => {
        this.connected = false
        if (this.conn === conn) this.conn = null
        if (!this.stopped) {
          this.o.logger?.warn({ reason }, 'replication connection closed; reconnecting')
          this.scheduleReconnect()
        }
      })
      // Ask from the end of the log once everything received before is handled.
      this.idle().then(() => { if (this.conn === conn) conn.send(encodeMessage(['hello', this.o.node.log.lastSeq + 1])) },
        (err: Error) => this.fatal(err))
    }, () => this.scheduleReconnect())
  }

  private scheduleReconnect(): void {
    if (this.stopped) return
    this.retry?.cancel()
    this.retry = this.o.clock.after(this.o.reconnectMs ?? 200, () => this.connect())
  }

  private receive(conn: Connection, bytes: Uint8Array): void {
    // Messages of a connection given up on are dropped whole: it catches up when it reconnects.
    if (this.stopped || conn !== this.conn) return
    if (this.inboxTotalBytes + bytes.length > LIMITS.followerBufferBytesMax) {
      this.o.logger?.warn({ inboxBytes: this.inboxTotalBytes }, 'follower inbox full; reconnecting to catch up')
      this.conn = null
      conn.close('follower inbox full')
      return
    }
    let m: Message
    try {
      m = decodeMessage(bytes)
    } catch (err) {
      this.fatal(err as Error)
      return
    }
    this.inbox.push(m)
    this.inboxBytes.push(bytes.length)
    this.inboxTotalBytes += bytes.length
    if (this.draining === null) this.draining = this.drain().finally(() => { this.draining = null })
  }

  private async drain(): Promise<void> {
    try {
      while (this.inbox.length > 0 && !this.stopped) {
        if (this.inbox[0]![0] === 'batch') await this.appendBatches()
        else await this.handle(this.take())
      }
    } catch (err) {
      this.fatal(err as Error)
    }
  }

  private take(): Message {
    this.inboxTotalBytes -= this.inboxBytes.shift()!
    return this.inbox.shift()!
  }

  /**
   * Verifies every batch waiting at the head of the inbox against the chain, appends them as
   * one durable write (up to the store's batch limit), then applies them.
   */
  private async appendBatches(): Promise<void> {
    const node = this.o.node
    const log = node.log
    const entries: LogEntry[] = []
    const newest: number[] = []
    let seq = log.lastSeq
    let hash = log.lastHash
    while (this.inbox.length > 0 && this.inbox[0]![0] === 'batch') {
      const m = this.inbox[0] as BatchMessage
      if (entries.length > 0 && entries.length + batchCount(m) > REPLICA_LIMITS.batchEntriesMax) break
      this.take()
      const batch = verifyWire(m, seq, hash)
      for (const e of batch) entries.push(e)
      const last = batch[batch.length - 1]!
      newest.push(last.time)
      seq = last.seq
      hash = last.hash
    }
    await log.append(entries)
    node.applyBatch(entries)
    await node.flushSnapshots()
    // Lag: from the sequencer stamping the newest entry of each batch to this node having applied it.
    const now = this.o.clock.now()
    for (const time of newest) this.lagSamplesMs.push(now - time)
    this.lastLagMs = now - newest[newest.length - 1]!
    if (this.lagSamplesMs.length > 10_000) this.lagSamplesMs.splice(0, this.lagSamplesMs.length - 5_000)
  }

  private async handle(m: Message): Promise<void> {
    const node = this.o.node
    switch (m[0]) {
      case 'snapshot':
        this.o.logger?.info({ seq: m[1].seq }, 'installing snapshot from the sequencer')
        await node.install(m[1], m[2])
        return
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
        throw new FollowerError(`unexpected replication message ${String(m[0])}`)
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
