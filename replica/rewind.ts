// Rejoining the elected leader's log. A node that led and was killed, or a standby cut off during
// an election, can hold entries at the end of its log that the new leader does not: written,
// never acknowledged (the election's quorum rule keeps every acknowledged entry in the winner's
// log: failover.ts). Such a node finds where its log and the leader's part by asking the leader
// for the hashes of its entries (the chain makes one equal hash vouch for everything before it),
// keeps what came before, hands the rest to `saveTail`, drops it and the snapshots taken after,
// and then restores and follows as any node does. Raft's followers do the same with a leader's
// conflicting entries; as there, only entries of older terms are ever dropped.

import { assert } from '../core/assert.js'
import type { Clock } from './clock.js'
import { hex, sameHash, type LogEntry } from './entry.js'
import type { Leader } from './leadership.js'
import type { LogStore } from './log-store.js'
import type { Connection, Network } from './network.js'
import type { Logger, SnapshotStoreLike } from './node.js'
import { decodeMessage, encodeMessage, HASHES_ASKED_MAX, REPLICATION_PATH } from './replication.js'

/** A follower's log does not continue its elected leader's: the node restarts, and rewinds as it does. */
export class DivergedError extends Error {
  override name = 'DivergedError'
}

/**
 * This log holds entries known to be committed that the leader lacks: an election never makes
 * such a leader, so it was started by hand on the wrong node. Not a DivergedError: restarting
 * does not mend it, and nothing is cut.
 */
export class CommittedTailError extends Error {
  override name = 'CommittedTailError'
}

/**
 * The leader's answers did not confirm the fork they pointed to: asked again, it holds this
 * node's entry past the fork, or not the one at it. Answers carry no chain of their own (a
 * batch's entries do), so a damaged frame could point anywhere: nothing is cut on one answer.
 */
export class ForkUnconfirmedError extends Error {
  override name = 'ForkUnconfirmedError'
}

/** The hashes of another node's log entries at `seqs`, null where it holds none. */
export type HashesOf = (seqs: number[]) => Promise<(Uint8Array | null)[]>

/**
 * The last seq at which `local` and `remote` hold the same entry, searching (`low`, `high`]: the
 * caller knows they agree at `low` (or that nothing below matters) and disagree at `high`. Each
 * round asks for up to HASHES_ASKED_MAX seqs spread over what is left, so a tail of n entries
 * takes about log₆₄(n) round trips.
 */
export async function findFork(local: (seq: number) => Promise<Uint8Array>, remote: HashesOf, low: number, high: number): Promise<number> {
  assert(Number.isSafeInteger(low) && Number.isSafeInteger(high) && low < high, `findFork(${low}, ${high})`)
  while (high - low > 1) {
    const gap = high - low - 1
    const n = Math.min(HASHES_ASKED_MAX, gap)
    const seqs = Array.from({ length: n }, (_, i) => low + 1 + Math.floor((i * gap) / n))
    const theirs = await remote(seqs)
    // Equal hashes up to some seq and none after (the chain): the last equal one and the first not.
    let i = 0
    while (i < n) {
      const h = theirs[i]
      if (!h || !sameHash(h, await local(seqs[i]!))) break
      i++
    }
    if (i > 0) low = seqs[i - 1]!
    if (i < n) high = seqs[i]!
  }
  return low
}

/** hashesOf over a connection of its own to the leader's replication endpoint; `close` when done. */
export async function leaderHashes(network: Network, clock: Clock, leader: Leader, timeoutMs = 10_000): Promise<{ ask: HashesOf; close(): void }> {
  const conn: Connection = await network.connect(leader.url + REPLICATION_PATH)
  let pending: { resolve(h: (Uint8Array | null)[]): void; reject(e: Error): void; seqs: number[] } | undefined
  const fail = (err: Error): void => { pending?.reject(err); pending = undefined }
  conn.onClose((reason) => fail(new Error(`the leader closed the connection: ${reason}`)))
  conn.onMessage((bytes) => {
    let m
    try { m = decodeMessage(bytes) } catch (err) { fail(err as Error); return }
    const p = pending
    if (p === undefined || m[0] !== 'hashes') return
    pending = undefined
    const hashes = m[2]
    if (!Array.isArray(m[1]) || !Array.isArray(hashes) || hashes.length !== p.seqs.length || m[1].some((s, i) => s !== p.seqs[i])) {
      p.reject(new Error('the leader answered hashes of other seqs'))
    } else {
      p.resolve(hashes.map((h) => (h instanceof Uint8Array ? h : null)))
    }
  })
  const ask: HashesOf = (seqs) => new Promise((resolve, reject) => {
    const timer = clock.after(timeoutMs, () => fail(new Error(`the leader did not answer within ${timeoutMs} ms`)))
    pending = {
      seqs,
      resolve: (h) => { timer.cancel(); resolve(h) },
      reject: (e) => { timer.cancel(); reject(e) },
    }
    conn.send(encodeMessage(['hashesOf', seqs, leader.epoch]))
  })
  return { ask, close: () => conn.close('hashes read') }
}

export interface RewindOptions {
  log: LogStore
  snapshots?: SnapshotStoreLike
  leader: Leader
  /** The leader's hashes (leaderHashes). */
  hashesOf: HashesOf
  /** Keeps the entries about to be dropped (the CLI writes them to a file), before anything changes. */
  saveTail?: (entries: LogEntry[]) => Promise<void>
  logger?: Logger
}

/**
 * Cuts this node's log back to where it last agrees with the leader's, and drops the snapshots
 * taken after that: the seq it was cut to, or undefined when its log is a prefix of the
 * leader's already (nothing changes). Throws, changing nothing, when the two share no retained
 * entry or no snapshot covers what a cut log would need, when a dropped entry was known to be
 * committed (LogStore.knownCommitted), and when a dropped entry would open a term as new as the
 * leader's: that tail is no former leader's.
 */
export async function rewindToLeader(o: RewindOptions): Promise<number | undefined> {
  const { log, leader } = o
  if (log.lastSeq === 0) return undefined
  const [last] = await o.hashesOf([log.lastSeq])
  if (last && sameHash(last, log.lastHash)) return undefined
  const local = async (seq: number): Promise<Uint8Array> => (await log.read(seq, seq, 1))[0]!.hash
  const fork = await findFork(local, o.hashesOf, log.firstSeq - 1, log.lastSeq)
  // Asked again: the leader holds this node's entry at the fork (when the log holds one) and not the one after it.
  const asked = fork >= log.firstSeq ? [fork, fork + 1] : [fork + 1]
  const again = await o.hashesOf(asked)
  const same = await Promise.all(asked.map(async (seq, i) => again[i] != null && sameHash(again[i]!, await local(seq))))
  if (same.at(-1) || (asked.length === 2 && !same[0])) {
    throw new ForkUnconfirmedError(`the leader's answers did not confirm that this log parts from its own after seq ${fork} (a damaged frame?)`)
  }
  const to = `node ${leader.node} leads epoch ${leader.epoch} at ${leader.url}`
  if (fork < log.firstSeq || fork < 1) {
    throw new DivergedError(`this log (seqs ${log.firstSeq}-${log.lastSeq}) shares no entry with the leader's (${to}): ` +
      'not this cluster\'s log? Start this node on a new data directory')
  }
  if (log.firstSeq > 1 && await coveringSnapshot(o.snapshots, log, fork) === undefined) {
    throw new DivergedError(`this log starts at ${log.firstSeq} and no snapshot covers it up to ${fork}, where it parts from the ` +
      `leader's (${to}): start this node on a new data directory`)
  }
  // Held by the standbys a leader waited for, so in any elected leader's log: a leader without
  // them was started by hand on the wrong node (after the consensus service lost its data).
  const committed = Math.min(log.knownCommitted, log.lastSeq)
  if (committed > fork) {
    throw new CommittedTailError(`entries ${fork + 1}-${committed} of this log were committed (held by the standbys its leader waited for), ` +
      `and the leader (${to}) does not hold them: refusing to drop them. Stop that leader; start as sequencer the node whose ` +
      'log is longest in the newest term (docs/REPLICA.md)')
  }
  const tail: LogEntry[] = []
  for await (const batch of log.readBatches(fork + 1)) for (const e of batch) tail.push(e)
  const newer = tail.find((e) => e.command.type === 'Lead' && e.command.epoch >= leader.epoch)
  if (newer !== undefined) {
    throw new DivergedError(`entry ${newer.seq} of this log opens a term (epoch ${newer.command.type === 'Lead' ? newer.command.epoch : ''}) ` +
      `no older than the leader's (${to}), which does not hold it: refusing to drop it`)
  }
  await o.saveTail?.(tail)
  // Snapshots first: a crash between the two leaves the tail to be found and cut again, never a
  // snapshot of the dropped tail that a restart could take for the state at its seq.
  await o.snapshots?.dropAfter?.(fork)
  await log.truncateAfter(fork)
  o.logger?.warn({ fork, dropped: tail.length, from: fork + 1, to: tail[tail.length - 1]?.seq, lastHash: hex(log.lastHash), leader: leader.node,
    epoch: leader.epoch }, 'log rewound to where the leader\'s continues: entries never acknowledged dropped')
  return fork
}

export interface RejoinOptions extends Omit<RewindOptions, 'leader' | 'hashesOf'> {
  network: Network
  clock: Clock
  /** Who leads now, as the consensus service says (Leadership.leader). */
  leader(): Promise<Leader | undefined>
  /** This node's name: a leader record naming it is a run of its own, not one to follow. */
  self: string
}

/**
 * Before a follower of an elected leader restores: if a leader is named and answers, cuts the
 * log back to where the leader's continues it (rewindToLeader). The seq it was cut to, or
 * undefined when nothing was cut. A leader that does not answer is not waited for: the
 * follower checks its log against the leader's as it follows, and stops on DivergedError.
 */
export async function rejoinAtStart(o: RejoinOptions): Promise<number | undefined> {
  if (o.log.lastSeq === 0) return undefined
  let leader: Leader | undefined
  try {
    leader = await o.leader()
  } catch (err) {
    // As when no one leads: the node joins once the consensus service answers, and a log the
    // leader does not continue then stops its follower (DivergedError), which restarts it here.
    o.logger?.warn({ err: (err as Error).message }, 'cannot read who leads to check this log against the leader\'s; checking once following')
    return undefined
  }
  if (leader === undefined || leader.node === o.self) return undefined
  let link: Awaited<ReturnType<typeof leaderHashes>>
  try {
    link = await leaderHashes(o.network, o.clock, leader)
  } catch (err) {
    o.logger?.warn({ leader: leader.node, err: (err as Error).message }, 'cannot reach the leader to check this log against it; following')
    return undefined
  }
  // The leader lost while it answers is as one that does not answer: nothing has changed yet.
  let lost: Error | undefined
  const ask: HashesOf = (seqs) => link.ask(seqs).catch((err: Error) => { throw (lost = err) })
  try {
    return await rewindToLeader({ ...o, leader, hashesOf: ask })
  } catch (err) {
    if (err instanceof ForkUnconfirmedError) {
      o.logger?.warn({ leader: leader.node, err: err.message }, 'this log not cut: following, and checking again if it parts from the leader\'s')
      return undefined
    }
    if (err !== lost) throw err
    o.logger?.warn({ leader: leader.node, err: (err as Error).message }, 'the leader stopped answering while this log was checked against it; following')
    return undefined
  } finally {
    link.close()
  }
}

/** Whether a stored snapshot restores a log cut at `fork`: one at or below it, within what the log holds. */
async function coveringSnapshot(snapshots: SnapshotStoreLike | undefined, log: LogStore, fork: number): Promise<number | undefined> {
  const seqs = (await snapshots?.list?.())?.map((m) => m.seq) ?? []
  return seqs.filter((s) => s <= fork && s >= log.firstSeq - 1).pop()
}
