// Log replication from the sequencer to followers. A follower says where its log ends; the
// sequencer sends a snapshot first if its log no longer reaches back that far, then catches
// the follower up from its log and streams every durable batch live, plus the state root of
// every checkpoint. Messages are msgpack arrays in binary frames:
//   follower → sequencer: ['hello', fromSeq, features] | ['durable', seq] | ['hashesOf', seqs, epoch]
//   sequencer → follower: ['snapshot', meta, bytes] | ['batch', firstSeq, hashes, bodies]
//                         | ['checkpoint', seq, root, interval] | ['anchored', seq, vault] | ['live', seq]
//                         | ['hashes', seqs, hashes] | ['committed', seq] | ['error', message]
// (`interval`: the sequencer's checkpoint interval, which its followers take; followers of
// builds before it read the first three elements only. `features`: what the follower takes
// beyond that; ['anchored'], the newest seq the Vault (at `vault`) holds an anchor for, which
// balance proofs default to and name, is sent only to a follower that names it, as older ones refuse unknown messages;
// ['live'], the seq its catch-up from the log ended at, for a reader that wants the log as it
// stood when it connected: `exchange export-log --follow`, log-download.ts. The chain deposits
// go to is not a message: the log declares it, core/chain-declaration.ts.)
// A synchronous standby names 'standby' and reports ['durable', seq] each time its log holds
// more; a sequencer with `syncReplicas` standbys acknowledges a command only once that many
// hold it, and streams to its other followers only what they hold (see ReplicationServer).
// A standby that also names 'committed' is told ['committed', seq], the newest seq the
// sequencer counts as committed, as that grows: it holds its entries from its own gateway's
// readers until then, since a fail-over may drop an entry a standby held that was never
// committed (rewind.ts).
// ['hashesOf', seqs, epoch] asks, on any connection and before or without a hello, for the hashes
// of the log's entries at up to HASHES_ASKED_MAX seqs (null where the log holds none): how a node
// whose log a new leader does not continue finds where the two part (rewind.ts). A node leading
// another epoch than the one named refuses it, as it refuses a hello.
// A batch carries entries as the log stores them: their 32-byte hashes end to end and the
// exact body bytes that were hashed, end to end. The follower hashes the bytes it received
// and decodes them once; nothing is encoded again on either side.

import { LIMITS } from '../core/limits.js'
import { decodeChain, HASH_MISMATCH, packWithBins } from './batch-codec.js'
import { bodyOf, HASH_BYTES, packr, type LogEntry } from './entry.js'
import type { LogStore } from './log-store.js'
import type { Connection } from './network.js'
import type { Checkpoint, Logger, SnapshotMeta, SnapshotStoreLike } from './node.js'
import type { Committed } from './sequencer.js'
import { rehashBodies, TEST_FAULTS } from './test-faults.js'

export const REPLICATION_PATH = '/replication'

/** ['batch', firstSeq, hashes, bodies]: entries as the log stores them. */
export type BatchMessage = ['batch', number, Uint8Array, Uint8Array]

export type Message =
  | ['hello', number, string[]?]
  | ['durable', number]
  | ['snapshot', SnapshotMeta, Uint8Array]
  | BatchMessage
  | ['checkpoint', number, string, number?]
  | ['anchored', number, string]
  | ['live', number]
  | ['hashesOf', number[], number?]
  | ['hashes', number[], (Uint8Array | null)[]]
  | ['committed', number]
  | ['error', string]

export function encodeMessage(m: Message): Uint8Array {
  if (m[0] === 'batch') return packWithBins(['batch', m[1]], [m[2], m[3]])
  return packr.pack(m)
}

export function decodeMessage(bytes: Uint8Array): Message {
  const m = packr.unpack(bytes) as Message
  if (!Array.isArray(m) || typeof m[0] !== 'string') throw new Error('malformed replication message')
  if (m[0] === 'batch' && (!Number.isSafeInteger(m[1]) || !(m[2] instanceof Uint8Array) || !(m[3] instanceof Uint8Array) ||
    m[2].length === 0 || m[2].length % HASH_BYTES !== 0)) {
    throw new Error('malformed replication batch')
  }
  return m
}

/** The batch message for durable entries, written straight from their hashes and bodies. */
export function encodeBatchMessage(entries: readonly LogEntry[]): Uint8Array {
  return packWithBins(['batch', entries[0]!.seq], [entries.map((e) => e.hash), entries.map(bodyOf)])
}

/** Entries in a batch message: how a follower knows their number before decoding them. */
export function batchCount(m: BatchMessage): number {
  return m[2].length / HASH_BYTES
}

/** A batch from the wire that does not continue the follower's chain. Never skipped. */
export class ReplicationRefusedError extends Error {
  override name = 'ReplicationRefusedError'
  /**
   * The first entry sent does not follow this log's last one: that entry is not the
   * sequencer's (a former sequencer's tail), unless the frame was damaged on the way.
   */
  readonly divergent: boolean
  constructor(readonly seq: number, reason: string, divergent = false) {
    super(`replication refused at seq ${seq}: ${reason}`)
    this.divergent = divergent
  }
}

const refused = (seq: number, reason: string): Error => new ReplicationRefusedError(seq, reason)

/** Why a sequencer drops a follower whose log is longer than its own (the follower's tail is not its). */
export const FOLLOWER_AHEAD = 'follower is ahead of the sequencer'
/** Seqs one hashesOf message may ask for. */
export const HASHES_ASKED_MAX = 64

/**
 * Verifies a batch from the wire against the chain so far and decodes it once: its first seq
 * follows `lastSeq`, and every hash is recomputed from the previous one (`lastHash` first)
 * and the received body bytes. The entries come back sealed with those bytes, so the log
 * store writes them as received. Throws on a gap or a mismatch; nothing is ever skipped.
 */
export function verifyWire(m: BatchMessage, lastSeq: number, lastHash: Uint8Array): LogEntry[] {
  const [, firstSeq, hashes, bodies] = m
  if (firstSeq !== lastSeq + 1) throw new ReplicationRefusedError(lastSeq + 1, `gap: expected seq ${lastSeq + 1}, got ${firstSeq}`)
  // TEST_FAULTS.skipWireHashCheck is an injected bug (the simulator's tests): it trusts the bodies.
  const sent = TEST_FAULTS.skipWireHashCheck ? rehashBodies(lastHash, hashes, bodies) : hashes
  // The first entry also fails when this log's own last entry is not the sequencer's: said, with what to do.
  const refusedHere = (seq: number, reason: string): Error => seq === lastSeq + 1 && reason === HASH_MISMATCH
    ? new ReplicationRefusedError(seq, `${reason}, or does not continue this node's log: if every connection says so, this log's entry ${lastSeq} is not ` +
      'the sequencer\'s (a former sequencer\'s tail, never acknowledged?); start this node on a new data directory', true)
    : refused(seq, reason)
  return decodeChain(firstSeq, lastHash, sent, bodies, refusedHere).entries
}


interface Session {
  conn: Connection
  /** Next seq this follower needs. */
  next: number
  live: boolean
  /** What it named in its hello beyond the log: 'anchored', 'live' (the messages it takes), 'standby'. */
  features: ReadonlySet<string>
  /** A synchronous standby: it reports what its log holds durably. */
  standby: boolean
  /** Where its hello said it needed the log from: its first report is of an entry from there on. */
  from: number
  /**
   * The newest seq its log holds durably, as it last said (a standby), 0 before it said. Only
   * reports count, not its hello: a report follows a batch it took, so its chain continues ours.
   */
  durable: number
}

/** What a follower of this build asks for in its hello. */
export const FOLLOWER_FEATURES = ['anchored']
/** What a synchronous standby adds to its hello: it then reports ['durable', seq]. */
export const STANDBY_FEATURE = 'standby'
/** What a standby of this build adds: it is told ['committed', seq] as the committed seq grows. */
export const COMMITTED_FEATURE = 'committed'
/**
 * What a follower that found its sequencer through the consensus service adds to its hello: the
 * leader's epoch (leadership.ts). A node that does not lead that epoch refuses it, so a deposed
 * sequencer still running gets no standby's report and streams to no one who moved on.
 */
export function epochFeature(epoch: number): string {
  return `epoch:${epoch}`
}

export interface ReplicationServerOptions {
  log: LogStore
  snapshots?: SnapshotStoreLike
  logger?: Logger
  /**
   * The checkpoint roots this node has computed (node.roots), so a follower catching up from the
   * log gets the roots of the checkpoints it passes, not only of those it reaches live.
   */
  roots?: () => readonly Checkpoint[]
  /** This node's checkpoint interval, announced with each root for followers to take. */
  checkpointInterval?: number
  /**
   * Standbys that must hold an entry before it counts as replicated (0: none, the default). With
   * some, durable batches go to the standbys first (publishDurable) and to the other followers
   * only once replicated (publish), so no follower ever holds an entry a standby lacks; a standby
   * promoted to sequencer is then ahead of or level with every other follower.
   */
  syncReplicas?: number
  /** The newest seq that `syncReplicas` standbys hold, each time it grows. */
  onReplicated?: (seq: number) => void
  /** The epoch this node leads, when a consensus service elected it: a hello naming another is refused. */
  epoch?: number
}

/** The sequencer's side: serves catch-up from the log and live batches. */
export class ReplicationServer {
  private readonly sessions = new Set<Session>()
  /** The newest seq the Vault holds an anchor for, once the chain services said. */
  private anchored: { seq: number; vault: string } | undefined
  private readonly syncReplicas: number
  /**
   * With standbys: the last seq streamed to the other followers (publish), past which they are
   * not caught up. It starts at the end of the log as this node found it.
   */
  private committed: number
  /**
   * The end of the log as this node found it. With standbys, other followers wait until the
   * standbys hold it: a sequencer restarted on its own log may hold entries that no standby has,
   * and that a standby promoted meanwhile would not have (replica.ts writes an entry after them,
   * so the standbys' next report covers them).
   */
  private readonly startTail: number
  /** Followers that are no standbys, waiting for the standbys to hold `startTail`. */
  private readonly waiting = new Set<Session>()
  /** The newest seq `syncReplicas` standbys have said they hold. */
  replicated = 0
  /** The committed seq last told to the standbys that take it. */
  private announced = 0

  constructor(private readonly o: ReplicationServerOptions) {
    this.syncReplicas = o.syncReplicas ?? 0
    this.committed = o.log.lastSeq
    this.startTail = o.log.lastSeq
  }

  /** Whether the standbys hold the log as this node found it (always, without standbys). */
  private get tailHeld(): boolean {
    return this.syncReplicas === 0 || this.replicated >= this.startTail
  }

  get followers(): number { return this.sessions.size }

  /** The last seq streamed to followers as committed (publish). */
  get committedSeq(): number { return this.committed }

  /**
   * What standbys are told is committed: what the other followers are streamed, and before the
   * standbys hold the log as this node found it, what they hold of it (replicated).
   */
  private get commitPoint(): number {
    return this.tailHeld ? this.committed : Math.min(this.committed, this.replicated)
  }

  /** Tells the standbys that take it where the commit point is, when it moved. */
  private announceCommitted(): void {
    const seq = this.commitPoint
    if (seq <= this.announced) return
    this.announced = seq
    let bytes: Uint8Array | null = null
    for (const s of this.sessions) {
      if (!s.features.has(COMMITTED_FEATURE)) continue
      bytes ??= encodeMessage(['committed', seq])
      this.sendBytes(s, bytes)
    }
  }

  /** Standbys connected now. */
  get standbys(): number {
    let n = 0
    for (const s of this.sessions) if (s.standby) n++
    return n
  }

  attach(conn: Connection): void {
    let session: Session | null = null
    conn.onMessage((bytes) => {
      let m: Message
      try { m = decodeMessage(bytes) } catch { conn.close('malformed message'); return }
      if (m[0] === 'durable' && session !== null) {
        this.durable(session, m[1])
        return
      }
      if (m[0] === 'hashesOf') {
        this.answerHashes(conn, m[1], m[2]).catch((err: Error) => conn.close(`hashes not read: ${err.message}`))
        return
      }
      if (m[0] !== 'hello' || session !== null || !Number.isSafeInteger(m[1]) || m[1] < 1) {
        conn.close('protocol error')
        return
      }
      const features = new Set(Array.isArray(m[2]) ? m[2] : [])
      const asked = [...features].find((f) => typeof f === 'string' && f.startsWith('epoch:'))
      if (asked !== undefined && asked !== epochFeature(this.o.epoch ?? 0)) {
        conn.close(this.notLeading(asked.slice('epoch:'.length)))
        return
      }
      const standby = features.has(STANDBY_FEATURE)
      const s: Session = { conn, next: m[1], live: false, features, standby, from: m[1], durable: 0 }
      session = s
      this.sessions.add(s)
      if (standby) this.o.logger?.info({ fromSeq: m[1] }, 'standby connected')
      if (standby || this.tailHeld) this.startCatchUp(s)
      else this.waiting.add(s)
    })
    conn.onClose((reason) => {
      if (session === null) return
      this.sessions.delete(session)
      this.waiting.delete(session)
      // Commands now wait (and past the window, are refused) until enough standbys are back: said at once.
      if (session.standby && this.syncReplicas > this.standbys) {
        this.o.logger?.warn({ reason, standbys: this.standbys, syncReplicas: this.syncReplicas },
          'standby disconnected: commands wait until enough standbys hold them')
      }
    })
  }

  private notLeading(epoch: string): string {
    return `this node does not lead epoch ${epoch}${this.o.epoch ? ` (it leads epoch ${this.o.epoch})` : ''}`
  }

  /** Answers a hashesOf: the hashes of this log's entries at `seqs`, null where it holds none. */
  private async answerHashes(conn: Connection, seqs: unknown, epoch: unknown): Promise<void> {
    if (!Array.isArray(seqs) || seqs.length > HASHES_ASKED_MAX || !seqs.every((s) => Number.isSafeInteger(s))) {
      conn.close('protocol error: hashesOf')
      return
    }
    if (epoch !== undefined && epoch !== (this.o.epoch ?? 0)) {
      conn.close(this.notLeading(String(epoch)))
      return
    }
    const { log } = this.o
    const hashes: (Uint8Array | null)[] = []
    for (const seq of seqs as number[]) {
      hashes.push(seq >= log.firstSeq && seq <= log.lastSeq ? (await log.read(seq, seq, 1))[0]!.hash : null)
    }
    conn.send(encodeMessage(['hashes', seqs as number[], hashes]))
  }

  private startCatchUp(s: Session): void {
    this.catchUp(s).catch((err: Error) => {
      this.o.logger?.warn({ err: err.message }, 'follower catch-up failed')
      this.drop(s, err.message)
    })
  }

  /** A standby holds everything up to `seq`: it counts toward `replicated` (never backwards). */
  private durable(s: Session, seq: number): void {
    // Only a standby reports, and only entries it was sent on this connection.
    if (!s.standby || !Number.isSafeInteger(seq) || seq < Math.max(s.durable, s.from) || seq >= s.next) {
      this.drop(s, 'protocol error: durable')
      return
    }
    s.durable = seq
    const k = this.syncReplicas
    if (k === 0) return
    const held = [...this.sessions].filter((x) => x.standby).map((x) => x.durable).sort((a, b) => b - a)
    const seqHeld = held.length >= k ? held[k - 1]! : 0
    if (seqHeld <= this.replicated) return
    this.replicated = seqHeld
    if (this.tailHeld && this.waiting.size > 0) {
      for (const w of this.waiting) if (this.sessions.has(w)) this.startCatchUp(w)
      this.waiting.clear()
    }
    this.o.onReplicated?.(seqHeld)
    this.announceCommitted()
  }

  /** How far a session is caught up from the log: a standby all of it; others, with standbys, what is replicated. */
  private catchUpEnd(s: Session): number {
    return this.syncReplicas > 0 && !s.standby ? this.committed : this.o.log.lastSeq
  }

  private async catchUp(s: Session): Promise<void> {
    const { log, snapshots } = this.o
    if (s.next > log.lastSeq + 1) {
      this.drop(s, `${FOLLOWER_AHEAD} (${s.next - 1} > ${log.lastSeq})`)
      return
    }
    if (s.next < log.firstSeq) {
      const snap = await snapshots?.latest()
      if (!snap || snap.meta.seq < log.firstSeq - 1) {
        this.drop(s, 'no snapshot reaches the retained log')
        return
      }
      this.send(s, ['snapshot', snap.meta, snap.bytes])
      s.next = snap.meta.seq + 1
    }
    // First, so a standby of this build holds what it takes from here until it is committed.
    if (s.features.has(COMMITTED_FEATURE)) this.send(s, ['committed', this.commitPoint])
    while (this.sessions.has(s) && s.next <= this.catchUpEnd(s)) {
      const entries = await log.read(s.next, this.catchUpEnd(s), LIMITS.replicationBatchMax)
      if (entries.length === 0) break
      // The roots first: with them comes the interval, which a follower (re)started on its own
      // default needs before it applies the batch, or it roots none of the batch's checkpoints.
      this.sendRootsWithin(s, entries[0]!.seq, entries[entries.length - 1]!.seq)
      this.sendBytes(s, encodeBatchMessage(entries))
      s.next = entries[entries.length - 1]!.seq + 1
      // Let the socket drain before reading more.
      while (this.sessions.has(s) && s.conn.bufferedBytes > LIMITS.followerBufferBytesMax / 4) {
        await new Promise((r) => setTimeout(r, 5))
      }
    }
    // No await between the last check and going live: every later batch is published.
    s.live = true
    if (s.features.has('live')) this.send(s, ['live', s.next - 1])
    if (s.features.has('anchored') && this.anchored !== undefined) this.send(s, ['anchored', this.anchored.seq, this.anchored.vault])
  }

  /** The newest anchored seq and its Vault, for followers that take them (live ones now, others as they go live). */
  publishAnchored(seq: number, vault: string): void {
    if (this.anchored !== undefined && seq <= this.anchored.seq) return
    this.anchored = { seq, vault }
    for (const s of this.sessions) if (s.live && s.features.has('anchored')) this.send(s, ['anchored', seq, vault])
  }

  /**
   * Streams a committed batch (durable here, and replicated when there are standbys) to every
   * live follower; with standbys, to the others: the standbys had it from publishDurable.
   */
  publish(c: Committed): void {
    this.committed = c.entries[c.entries.length - 1]!.seq
    this.stream(c, this.syncReplicas > 0 ? (s) => !s.standby : () => true)
    this.announceCommitted()
  }

  /** With standbys: streams a batch durable here to them, before it is replicated. */
  publishDurable(c: Committed): void {
    if (this.syncReplicas > 0) this.stream(c, (s) => s.standby)
  }

  private stream(c: Committed, to: (s: Session) => boolean): void {
    if (this.sessions.size === 0) return
    const first = c.entries[0]!.seq
    let bytes: Uint8Array | null = null
    for (const s of this.sessions) {
      if (!s.live || !to(s)) continue
      if (s.next !== first) { this.drop(s, `stream position ${s.next} != batch ${first}`); continue }
      bytes ??= encodeBatchMessage(c.entries)
      this.sendBytes(s, bytes)
      s.next = c.entries[c.entries.length - 1]!.seq + 1
    }
  }

  /** The known roots of checkpoints from `from` to `to`, before the catch-up batch that holds them. */
  private sendRootsWithin(s: Session, from: number, to: number): void {
    for (const cp of this.o.roots?.() ?? []) {
      if (cp.seq >= from && cp.seq <= to && this.sessions.has(s)) this.send(s, this.checkpointMessage(cp))
    }
  }

  publishCheckpoint(cp: Checkpoint): void {
    for (const s of this.sessions) if (s.live || s.next > cp.seq) this.send(s, this.checkpointMessage(cp))
  }

  private checkpointMessage(cp: Checkpoint): Message {
    const n = this.o.checkpointInterval
    return n !== undefined && n > 0 ? ['checkpoint', cp.seq, cp.root, n] : ['checkpoint', cp.seq, cp.root]
  }

  private send(s: Session, m: Message): void {
    this.sendBytes(s, encodeMessage(m))
  }

  private sendBytes(s: Session, bytes: Uint8Array): void {
    if (s.conn.bufferedBytes > LIMITS.followerBufferBytesMax) {
      // A follower that cannot keep up is cut off; it reconnects and catches up from the log.
      this.drop(s, 'follower too slow')
      return
    }
    s.conn.send(bytes)
  }

  private drop(s: Session, why: string): void {
    if (!this.sessions.delete(s)) return
    try { s.conn.send(encodeMessage(['error', why])) } catch { /* closing anyway */ }
    s.conn.close(why)
  }

  close(): void {
    for (const s of [...this.sessions]) this.drop(s, 'sequencer shutting down')
  }
}
