// A follower: connects to the sequencer's replication endpoint, asks from the end of its own
// log, verifies every entry against the hash chain, appends it durably, applies it, and
// compares its state root with the sequencer's at every checkpoint. A gap, a bad hash or a
// different root stops it with a clear error; a dropped connection reconnects.
//
// Writing and applying overlap, as on the sequencer: a verified group's write is started and
// the group is applied while it syncs; groups that arrive meanwhile wait and go out together
// in the next write (group commit). Listeners (projections, streams) hear of a group only once
// it is durable here, so a restarted follower never serves less than it served before; the
// state runs ahead of this node's log by at most the write in progress, entries the sequencer
// already holds durably, which a restart fetches again. A standby gets entries before they are
// committed (so that the sequencer can count it toward committing them): its listeners hear of
// them only once the sequencer says they are (['committed', seq]), as a fail-over may drop them;
// restarted, it holds what it replays past what they had the same way.

import type { Result } from '../core/events.js'
import { LIMITS, REPLICA_LIMITS } from '../core/limits.js'
import type { Clock, Timer } from './clock.js'
import { sameHash, type LogEntry } from './entry.js'
import type { Committed } from './sequencer.js'
import type { Leader } from './leadership.js'
import type { Network, Connection } from './network.js'
import type { Checkpoint, Logger, ReplicaNode } from './node.js'
import {
  batchCount, COMMITTED_FEATURE, decodeMessage, encodeMessage, epochFeature, FOLLOWER_AHEAD, FOLLOWER_FEATURES, ReplicationRefusedError, REPLICATION_PATH, STANDBY_FEATURE,
  verifyWire, type BatchMessage, type Message,
} from './replication.js'
import { DivergedError } from './rewind.js'

export class FollowerError extends Error {
  override name = 'FollowerError'
}

/**
 * The longest wait between connects that fail in a row: each waits twice as long as the one
 * before, from `reconnectMs`, so a sequencer that keeps turning this follower away (a wrong path
 * in --follow, another master secret) is not asked several times a second for ever.
 */
export const RECONNECT_MAX_MS = 5_000

export interface FollowerOptions {
  node: ReplicaNode
  network: Network
  url: string
  clock: Clock
  logger?: Logger
  reconnectMs?: number
  onFatal?: (err: Error) => void
  /** Called as a verified group is applied (before it is durable here): the bench's lag probe. */
  onApplied?: (entries: readonly LogEntry[]) => void
  /** Bytes received and not yet handled past which it lets the connection go (LIMITS.followerBufferBytesMax). */
  inboxBytesMax?: number
  /** The newest seq the Vault (at `vault`) holds an anchor for, as the sequencer announces it. */
  onAnchored?: (seq: number, vault: string) => void
  /**
   * A synchronous standby (replication.ts): says so in its hello and reports what its log holds
   * after every write, so a sequencer with --sync-replicas acknowledges commands once it has them.
   */
  standby?: boolean
  /**
   * Where the sequencer is, asked before each connect (in place of `url`): the leader the
   * consensus service names (leadership.ts), undefined while none does. Its epoch goes in the
   * hello, and a node that does not lead that epoch refuses the connection: a deposed sequencer
   * gets nothing from this node. A log the elected leader does not continue (its last entry not
   * the leader's, or beyond the leader's end) then stops it with DivergedError: restarted, the
   * node cuts that tail off (rewind.ts).
   */
  leader?: () => Promise<Leader | undefined>
  /**
   * A standby's entries replayed at its start past what its listeners already had (ReplicaNode.restore):
   * written before it stopped, perhaps never committed, so held like any it receives.
   */
  held?: Committed[]
  /** Listeners need every entry: a snapshot sent in place of entries stops the follower, with this error (ReplicaOptions.everyEntry). */
  everyEntry?: (neededFrom: number, snapshotSeq: number) => string
}

export class Follower {
  private conn: Connection | null = null
  /** Messages received and not yet handled, oldest first, and their size in bytes. */
  private inbox: Message[] = []
  private inboxBytes: number[] = []
  private inboxTotalBytes = 0
  private inboxBatches = 0
  /**
   * Whether drain() is running, set and cleared by drain() itself: it can finish without
   * yielding, and a message received before a `finally` callback cleared a promise field
   * would be left in the inbox with no drain to take it (found by the cluster simulator).
   */
  private drainRunning = false
  private drained: Promise<void> = Promise.resolve()
  /** The write in progress and its group (applied, not yet durable here), if any. */
  private writing: Promise<void> | null = null
  /** Snapshots captured at checkpoints are saved in order, off the write path. */
  private snapshotting: Promise<void> = Promise.resolve()
  private stopped = false
  private retry: Timer | null = null
  /** The last failed connect's reason, so each new one is logged once. */
  private lastConnectError: string | undefined
  /** Connects in a row the sequencer turned away (backed off); reset once one hears from it. */
  private turnedAway = 0
  /**
   * A standby's durable groups its listeners have not heard of: the sequencer has not said they
   * are committed. Held while `holding` (its sequencer says where the commit point is).
   */
  private readonly held: Committed[] = []
  /**
   * The newest seq this log is known to hold committed: a sequencer said so on a connection whose
   * batches continued this log (a committed entry stays so under any leader).
   */
  private commitPoint = 0
  private holding = false
  /** The connection said where the commit point is (a sequencer of an older build does not). */
  private toldCommitted = false
  /** The newest commit point the connection said. */
  private connPoint = 0
  /**
   * Whether the connection's batches continued this log, which then is the sequencer's up to its
   * end: only then does its commit point speak for entries this node held before it connected (a
   * tail it wrote as leader, or took from a former one, which the sequencer may not hold).
   */
  private continues = false
  /** The seq and hash of this log's end, asked of the sequencer while entries are held. */
  private asked: { seq: number; hash: Uint8Array } | undefined
  /** The epoch the connection was made to (a leader the consensus service named), if any. */
  private connEpoch: number | undefined
  /** Roots the sequencer announced that this node has not reached yet. */
  private readonly expected = new Map<number, string>()
  /** Checkpoints whose roots matched the sequencer's, and the newest of them. */
  checkpointsMatched = 0
  lastMatchedSeq = 0
  /** Apply time minus sequencer time of the newest applied entry, ms. */
  lastLagMs = 0
  /** Per batch received: the time it was applied here minus its newest entry's sequencer time, ms. */
  readonly lagSamplesMs: number[] = []
  /** Per batch received: the time it was durable here minus its newest entry's sequencer time, ms. */
  readonly durableLagSamplesMs: number[] = []
  connected = false

  constructor(private readonly o: FollowerOptions) {
    if (o.held) this.held.push(...o.held)
    o.node.onCheckpoint((cp) => {
      try {
        this.compare(cp)
      } catch (err) {
        // Stops here too: a root computed off-thread arrives where a throw reaches no one.
        this.fatal(err as Error)
        throw err
      }
    })
  }

  start(): void {
    this.stopped = false
    // Started anew (a new leader named): connects at once, not after the last one's back-off.
    this.turnedAway = 0
    // What a connection given up on left unhandled is fetched again.
    this.inbox = []
    this.inboxBytes = []
    this.inboxTotalBytes = 0
    this.inboxBatches = 0
    this.connect()
  }

  stop(): void {
    this.stopped = true
    this.retry?.cancel()
    this.conn?.close('follower stopping')
  }

  /** Resolves when everything received so far is handled, written and its snapshots saved. */
  async idle(): Promise<void> {
    while (this.drainRunning || this.writing !== null) {
      if (this.drainRunning) await this.drained
      if (this.writing !== null) await this.writing
    }
    await this.snapshotting
  }

  private connect(): void {
    if (this.stopped) return
    if (this.o.leader) {
      this.o.leader().then((leader) => {
        if (leader) return this.connectTo(leader.url + REPLICATION_PATH, leader.epoch)
        this.connectFailed(new Error('no sequencer leads'))
      }, (err: Error) => this.connectFailed(err))
    } else {
      this.connectTo(this.o.url, undefined)
    }
  }

  private connectTo(url: string, epoch: number | undefined): void {
    if (this.stopped) return
    this.o.network.connect(url).then((conn) => {
      if (this.stopped) { conn.close(); return }
      this.conn = conn
      this.connected = true
      let heard = false
      let closed = false
      conn.onMessage((bytes) => {
        if (!heard) {
          heard = true
          this.lastConnectError = undefined
          this.turnedAway = 0
        }
        this.receive(conn, bytes)
      })
      // Once per connection: a socket error is followed by its close.
      conn.onClose((reason) => {
        if (closed) return
        closed = true
        this.connected = false
        if (this.conn === conn) this.conn = null
        if (this.stopped) return
        // Closed before a word from the sequencer (a path it does not serve, a node that does
        // not lead yet): a connect that failed, said once and backed off as one.
        if (!heard) return this.connectFailed(new Error(reason))
        this.o.logger?.warn({ reason }, 'replication connection closed; reconnecting')
        this.scheduleReconnect()
      })
      // Ask from the end of the log once everything received before is handled.
      const features = this.o.standby ? [...FOLLOWER_FEATURES, STANDBY_FEATURE, COMMITTED_FEATURE] : [...FOLLOWER_FEATURES]
      if (epoch !== undefined) features.push(epochFeature(epoch))
      this.idle().then(() => {
        if (this.conn !== conn) return
        // From here on the inbox holds this connection's messages only.
        this.toldCommitted = false
        this.connPoint = 0
        const log = this.o.node.log
        this.continues = log.lastSeq === 0
        this.asked = undefined
        this.connEpoch = epoch
        conn.send(encodeMessage(['hello', log.lastSeq + 1, features]))
      }, (err: Error) => this.fatal(err))
    }, (err: Error) => this.connectFailed(err))
  }

  private connectFailed(err: Error & { code?: string }): void {
    // Said once per reason, not at every retry: a sequencer that is down, or one that refuses
    // this follower's master secret, which no retry will change.
    if (err.message !== this.lastConnectError) this.o.logger?.warn({ reason: err.message }, 'cannot connect to the sequencer; retrying')
    this.lastConnectError = err.message
    // Nothing listening (a sequencer restarting) costs it nothing and is tried at the same pace,
    // to be back as soon as it is; one that answers and turns this follower away, less and less often.
    if (err.code !== 'ECONNREFUSED') this.turnedAway++
    this.scheduleReconnect()
  }

  private scheduleReconnect(): void {
    if (this.stopped) return
    this.retry?.cancel()
    const base = this.o.reconnectMs ?? 200
    const waitMs = Math.min(base * 2 ** Math.max(0, this.turnedAway - 1), Math.max(base, RECONNECT_MAX_MS))
    this.retry = this.o.clock.after(waitMs, () => this.connect())
  }

  private receive(conn: Connection, bytes: Uint8Array): void {
    // Messages of a connection given up on are dropped whole: it catches up when it reconnects.
    if (this.stopped || conn !== this.conn) return
    let m: Message
    try {
      m = decodeMessage(bytes)
    } catch (err) {
      this.fatal(err as Error)
      return
    }
    // One message is always taken into an empty inbox, however large, and a batch into one
    // holding no batch (only the checkpoint roots sent ahead of it): a catch-up batch (up to
    // replicationBatchMax entries) refused there would be asked for again, and refused, forever.
    const batch = m[0] === 'batch'
    const exempt = this.inboxTotalBytes === 0 || (batch && this.inboxBatches === 0)
    if (!exempt && this.inboxTotalBytes + bytes.length > (this.o.inboxBytesMax ?? LIMITS.followerBufferBytesMax)) {
      this.o.logger?.warn({ inboxBytes: this.inboxTotalBytes }, 'follower inbox full; reconnecting to catch up')
      this.conn = null
      conn.close('follower inbox full')
      return
    }
    this.inbox.push(m)
    this.inboxBytes.push(bytes.length)
    this.inboxTotalBytes += bytes.length
    if (batch) this.inboxBatches++
    if (!this.drainRunning) this.drained = this.drain()
  }

  private async drain(): Promise<void> {
    this.drainRunning = true
    try {
      while (this.inbox.length > 0 && !this.stopped) {
        // Held (apply-gate.ts): the inbox fills meanwhile, and past its bound the follower
        // lets the connection go and catches up from the log once it reconnects.
        if (!this.o.node.gate.open) await this.o.node.gate.whenOpen()
        if (this.writing !== null) await this.writing
        if (this.stopped) break
        if (this.inbox[0]![0] === 'batch') {
          // A batch before any word of the commit point: a sequencer of an older build, which never says.
          if (!this.toldCommitted) this.holding = false
          this.writeAndApply()
        }
        else await this.handle(this.take())
      }
    } catch (err) {
      this.fatal(err instanceof ReplicationRefusedError && err.divergent && this.o.leader
        ? new DivergedError(`the leader's entry ${err.seq} does not follow this log's ${err.seq - 1} (a tail the leader does not hold, or a damaged frame): ` +
          'restart to check this log against the leader\'s and rewind it') : err as Error)
    } finally {
      this.drainRunning = false
    }
  }

  private take(): Message {
    this.inboxTotalBytes -= this.inboxBytes.shift()!
    const m = this.inbox.shift()!
    if (m[0] === 'batch') this.inboxBatches--
    return m
  }

  /**
   * Verifies every batch waiting at the head of the inbox against the chain, starts their
   * write as one durable append (up to the store's batch limit), and applies them while it
   * syncs. The write's completion tells listeners.
   */
  private writeAndApply(): void {
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
      if (!this.continues) this.continued()
      for (const e of batch) entries.push(e)
      const last = batch[batch.length - 1]!
      newest.push(last.time)
      seq = last.seq
      hash = last.hash
    }
    // The store checks the chain and starts the write before append() first yields.
    // What this log holds of the commit point is recorded with the write: a rewind never cuts it (rewind.ts).
    const written = log.append(entries, Math.min(this.commitPoint, seq))
    const from = this.conn
    let results: Result[]
    try {
      results = entries.map((e) => node.applyEntry(e))
    } finally {
      // Even when applying failed (a different root): the write is the sequencer's log.
      this.writing = written.then(() => this.durable(entries, results, newest, from))
        .catch((err: Error) => this.fatal(err))
        .finally(() => { this.writing = null })
    }
    this.o.onApplied?.(entries)
    // Lag: from the sequencer stamping the newest entry of each batch to this node having applied it.
    const now = this.o.clock.now()
    for (const time of newest) this.lagSamplesMs.push(now - time)
    this.lastLagMs = now - newest[newest.length - 1]!
    trim(this.lagSamplesMs)
  }

  /**
   * A group's write is synced: a standby tells the sequencer (on the connection that sent it,
   * which had its hello; a newer one's hello says as much), listeners hear of it, and snapshots
   * up to it are saved.
   */
  private durable(entries: LogEntry[], results: Result[] | undefined, newest: number[], from: Connection | null): void {
    if (this.o.standby && from !== null && from === this.conn) {
      try { from.send(encodeMessage(['durable', entries[entries.length - 1]!.seq])) } catch { /* closing: the next hello says it */ }
    }
    if (results === undefined) return
    const node = this.o.node
    if (this.holding) {
      this.held.push({ entries, results })
      this.release()
    } else {
      this.releaseHeld()
      node.committed({ entries, results })
    }
    this.snapshotting = this.snapshotting.then(() => node.flushSnapshots()).catch((err: Error) => this.fatal(err))
    const now = this.o.clock.now()
    for (const time of newest) this.durableLagSamplesMs.push(now - time)
    trim(this.durableLagSamplesMs)
  }

  /** Asks the sequencer for its hash of this log's last entry (answered with ['hashes', …]). */
  private askHash(): void {
    const log = this.o.node.log
    const epoch = this.connEpoch
    this.asked = { seq: log.lastSeq, hash: log.lastHash }
    try {
      this.conn?.send(encodeMessage(epoch === undefined ? ['hashesOf', [log.lastSeq]] : ['hashesOf', [log.lastSeq], epoch]))
    } catch { /* closing: the next connection asks again */ }
  }

  /** The connection's first batch continued this log: its commit point now speaks for what is held. */
  private continued(): void {
    this.continues = true
    this.commitPoint = Math.max(this.commitPoint, this.connPoint)
    this.release()
  }

  /** Tells listeners of the held entries up to the commit point, in order (splitting a group at it). */
  private release(): void {
    while (this.held.length > 0) {
      const g = this.held[0]!
      const n = this.commitPoint - g.entries[0]!.seq + 1
      if (n <= 0) return
      if (n >= g.entries.length) {
        this.held.shift()
        this.o.node.committed(g)
      } else {
        this.held[0] = { entries: g.entries.slice(n), results: g.results.slice(n) }
        this.o.node.committed({ entries: g.entries.slice(0, n), results: g.results.slice(0, n) })
        return
      }
    }
  }

  /**
   * Tells listeners of every held entry: this node now leads (elected, its log is the one that
   * goes on), or its sequencer says nothing of commits.
   */
  releaseHeld(): void {
    for (const g of this.held.splice(0)) this.o.node.committed(g)
  }

  /** Entries durable here that listeners have not heard of yet (a standby's, not yet committed). */
  get heldEntries(): number {
    let n = 0
    for (const g of this.held) n += g.entries.length
    return n
  }

  private async handle(m: Message): Promise<void> {
    const node = this.o.node
    switch (m[0]) {
      case 'committed':
        if (!Number.isSafeInteger(m[1]) || m[1] < 0) throw new FollowerError(`malformed committed message: ${String(m[1])}`)
        this.toldCommitted = true
        this.holding = true
        this.connPoint = Math.max(this.connPoint, m[1])
        if (!this.continues) {
          // Held entries are told once this log is known to be the sequencer's: its first batch
          // shows that, or at once, its hash of this log's last entry (a standby caught up gets
          // no batch). Asked only of a sequencer that speaks of commits: one of a build before
          // `hashesOf` would close the connection at it.
          if (this.held.length > 0 && this.asked === undefined) this.askHash()
          return
        }
        this.commitPoint = Math.max(this.commitPoint, this.connPoint)
        this.release()
        return
      case 'hashes': {
        // A different hash or none is left to the first batch, which says so with a clear error.
        const hash = m[2]?.[0]
        if (this.asked !== undefined && m[1]?.[0] === this.asked.seq && hash instanceof Uint8Array && sameHash(hash, this.asked.hash)) {
          this.asked = undefined
          if (!this.continues) this.continued()
        }
        return
      }
      case 'snapshot':
        if (this.o.everyEntry !== undefined) throw new FollowerError(this.o.everyEntry(node.log.lastSeq + 1, m[1].seq))
        this.o.logger?.info({ seq: m[1].seq }, 'installing snapshot from the sequencer')
        await this.snapshotting
        // What it held lies before the snapshot, unchecked against the sequencer's log: never told.
        if (this.held.length > 0) {
          this.o.logger?.warn({ heldEntries: this.heldEntries, seq: m[1].seq }, 'held entries dropped: the sequencer sent a snapshot past them')
          this.held.length = 0
        }
        await node.install(m[1], m[2])
        // Roots announced for what the snapshot skipped are never reached here.
        for (const seq of this.expected.keys()) if (seq <= m[1].seq) this.expected.delete(seq)
        return
      case 'checkpoint': {
        // A sequencer roots only multiples of the interval it announces: anything else is a frame
        // damaged on the way, which would otherwise set this node's interval wrong and leave its
        // roots unchecked (found by the cluster simulator: 25 arrived as 24).
        if (!Number.isSafeInteger(m[1]) || m[1] < 1 || (m[3] !== undefined && (!Number.isSafeInteger(m[3]) || m[3] < 1 || m[1] % m[3] !== 0))) {
          throw new FollowerError(`malformed checkpoint message: seq ${String(m[1])}, interval ${String(m[3])}`)
        }
        if (m[3] !== undefined && node.followInterval(m[3])) {
          this.o.logger?.info({ checkpointInterval: m[3] }, 'checkpoint interval taken from the sequencer')
        }
        const mine = node.roots.find((r) => r.seq === m[1])
        const n = node.checkpointInterval
        if (mine) this.check(m[1], mine.root, m[2])
        // Kept only for a checkpoint this node will root (a sequencer of an older build sends no
        // interval: then only the common multiples are compared), so nothing waits forever.
        else if ((m[1] > node.state.seq && n > 0 && m[1] % n === 0) || node.rootPending(m[1])) this.expected.set(m[1], m[2])
        return
      }
      case 'anchored':
        if (Number.isSafeInteger(m[1]) && m[1] > 0 && typeof m[2] === 'string') this.o.onAnchored?.(m[1], m[2])
        return
      case 'error':
        if (this.o.leader && typeof m[1] === 'string' && m[1].startsWith(FOLLOWER_AHEAD)) {
          throw new DivergedError(`this log goes past the leader's end (${m[1]}): restart to rewind it`)
        }
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
    this.checkpointsMatched++
    this.lastMatchedSeq = Math.max(this.lastMatchedSeq, seq)
  }

  private fatal(err: Error): void {
    if (this.stopped) return
    this.o.logger?.error({ err: err.message }, 'follower stopped')
    this.stop()
    this.o.onFatal?.(err)
  }
}

/** Keeps the newest few thousand samples. */
function trim(samples: number[]): void {
  if (samples.length > 10_000) samples.splice(0, samples.length - 5_000)
}
