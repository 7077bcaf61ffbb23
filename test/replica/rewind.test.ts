// A node whose log ends in entries the elected leader does not hold (a killed leader's tail,
// never acknowledged) finds where the two logs part by asking the leader for hashes over real
// loopback WebSocket, keeps the dropped entries, cuts its LevelDB log and snapshots back, and
// then continues the leader's chain. A log that shares nothing with the leader's, or whose tail
// opens a term as new as the leader's, is refused and left as it was. Followers of an elected
// leader stop with DivergedError on a log the leader does not continue, so a restart rewinds them.

import t from 'tap'
import fc from 'fast-check'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { systemClock } from '../../replica/clock.js'
import { hex, makeEntry, type LogEntry } from '../../replica/entry.js'
import { Follower } from '../../replica/follower.js'
import { LevelLogStore } from '../../replica/level-log.js'
import { MemoryLogStore } from '../../replica/memory-log.js'
import { ReplicaNode } from '../../replica/node.js'
import { HASHES_ASKED_MAX, ReplicationServer } from '../../replica/replication.js'
import { CommittedTailError, DivergedError, findFork, ForkUnconfirmedError, leaderHashes, rejoinAtStart, rewindToLeader, type HashesOf } from '../../replica/rewind.js'
import { SnapshotStore } from '../../replica/snapshot-store.js'
import { wsNetwork } from '../../replica/ws-network.js'
import { chain, command } from '../helpers/log-fixtures.js'
import { runs } from '../helpers/property.js'
import { deposit, leader as sequencer, type Teardown } from '../helpers/replication-rig.js'

const EPOCH = 7

t.test('findFork finds the last agreeing seq of any tail in a few round trips', async () => {
  await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 200_000 }), fc.nat(), fc.nat(), async (high, a, b) => {
    const fork = a % high
    // The remote log may end before `high` (null there), but never before the fork.
    const remoteEnd = fork + (b % (high - fork + 1))
    const hash = (seq: number, side: string): Uint8Array => new TextEncoder().encode(seq <= fork ? `common ${seq}` : `${side} ${seq}`)
    let trips = 0
    const found = await findFork(async (seq) => hash(seq, 'local'), async (seqs) => {
      trips++
      if (seqs.length > HASHES_ASKED_MAX || seqs.some((s) => s <= 0 || s >= high)) throw new Error(`asked ${seqs.length} seqs out of range`)
      return seqs.map((s) => (s <= remoteEnd ? hash(s, 'remote') : null))
    }, 0, high)
    return found === fork && trips <= Math.ceil(Math.log(high) / Math.log(HASHES_ASKED_MAX)) + 1
  }), runs(300))
})

/** A leader's log on memory (a prefix of `common` entries, then its own), served over loopback. */
async function leaderOf(t: Teardown, common: LogEntry[], ownEntries: number, epoch: number | undefined = EPOCH) {
  const log = new MemoryLogStore()
  await log.open()
  await log.append(common)
  if (ownEntries > 0) await log.append(chain(log.lastSeq + 1, ownEntries, log.lastHash, 'leader-'))
  const server = new ReplicationServer({ log, epoch })
  const listener = await wsNetwork.listen('127.0.0.1', 0, (conn) => server.attach(conn))
  t.teardown(async () => { server.close(); await listener.close() })
  return { log, leader: { epoch: EPOCH, node: 'L', url: listener.url } }
}

/**
 * A node's LevelDB log and snapshot store in a temporary directory: `common`, then `tail`, the
 * last append recording `committed` as the newest seq it knew committed.
 */
async function nodeOf(t: Teardown, common: LogEntry[], tail: (prev: Uint8Array, from: number) => LogEntry[], committed = 0) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rewind-'))
  const log = new LevelLogStore(path.join(dir, 'log'))
  const snapshots = new SnapshotStore(path.join(dir, 'snapshots'))
  await log.open()
  await snapshots.open()
  t.teardown(async () => { await log.close(); await snapshots.close(); await rm(dir, { recursive: true, force: true }) })
  const own = tail(common.at(-1)!.hash, common.length + 1)
  await log.append(common, own.length > 0 ? 0 : committed)
  if (own.length > 0) await log.append(own, committed)
  return { log, snapshots }
}

const snapshotAt = (snapshots: SnapshotStore, seq: number) =>
  snapshots.save({ seq, time: seq, root: '0x' + 'ab'.repeat(32), hash: 'cd'.repeat(32) }, new Uint8Array([seq]))

async function rewind(t: Teardown, l: Awaited<ReturnType<typeof leaderOf>>, n: Awaited<ReturnType<typeof nodeOf>>) {
  const link = await leaderHashes(wsNetwork, systemClock, l.leader)
  t.teardown(() => link.close())
  const saved: LogEntry[][] = []
  const fork = await rewindToLeader({ log: n.log, snapshots: n.snapshots, leader: l.leader, hashesOf: link.ask, saveTail: async (tail) => { saved.push(tail) } })
  return { fork, saved }
}

t.test('a former leader\'s tail is cut back to where the leader\'s log continues, and kept', async (t) => {
  const common = chain(1, 50, new Uint8Array(32))
  const l = await leaderOf(t, common, 10)
  const n = await nodeOf(t, common, (prev, from) => chain(from, 30, prev, 'old-'))
  for (const seq of [40, 50, 60, 80]) await snapshotAt(n.snapshots, seq)
  const { fork, saved } = await rewind(t, l, n)
  t.equal(fork, 50, 'the logs part after seq 50')
  t.same(saved.map((tail) => tail.map((e) => e.seq)), [Array.from({ length: 30 }, (_, i) => 51 + i)], 'the 30 dropped entries were handed over first')
  t.same(saved[0]!.map((e) => e.command), Array.from({ length: 30 }, (_, i) => command(51 + i, 'old-')), 'as they were')
  t.equal(n.log.lastSeq, 50)
  t.equal(hex(n.log.lastHash), hex(common[49]!.hash), 'its last entry is the leader\'s seq 50')
  t.same((await n.snapshots.list()).map((m) => m.seq), [40, 50], 'snapshots past the fork are gone')
  const next = await l.log.read(51, 60)
  await n.log.append(next)
  t.equal(n.log.lastSeq, 60, 'the leader\'s entries continue its chain')
})

t.test('a damaged answer cuts nothing: the fork is confirmed by asking again', async (t) => {
  const common = chain(1, 50, new Uint8Array(32))
  const l = await leaderOf(t, common, 10)
  const n = await nodeOf(t, common, () => [])
  const link = await leaderHashes(wsNetwork, systemClock, l.leader)
  t.teardown(() => link.close())
  // The first answer arrives with a byte flipped in its one hash; the leader holds the node's whole log.
  let answers = 0
  const damaged: HashesOf = async (seqs) => {
    const hashes = await link.ask(seqs)
    if (answers++ === 0) hashes[0] = hashes[0]!.map((b, i) => (i === 0 ? b ^ 1 : b))
    return hashes
  }
  await t.rejects(rewindToLeader({ log: n.log, snapshots: n.snapshots, leader: l.leader, hashesOf: damaged }),
    new ForkUnconfirmedError('the leader\'s answers did not confirm that this log parts from its own after seq 49 (a damaged frame?)'))
  t.equal(n.log.lastSeq, 50, 'nothing cut')
  t.equal(await rewindToLeader({ log: n.log, snapshots: n.snapshots, leader: l.leader, hashesOf: link.ask }), undefined, 'asked again, nothing to cut')
})

t.test('a log the leader continues, or holds whole, is left alone', async (t) => {
  const common = chain(1, 50, new Uint8Array(32))
  const l = await leaderOf(t, common, 10)
  const behind = await nodeOf(t, common.slice(0, 40), () => [])
  t.equal((await rewind(t, l, behind)).fork, undefined, 'a prefix of the leader\'s: nothing to do')
  t.equal(behind.log.lastSeq, 40)
  const level = await nodeOf(t, common, (prev, from) => chain(from, 10, prev, 'leader-'))
  t.equal((await rewind(t, l, level)).fork, undefined, 'the leader\'s whole log: nothing to do')
  t.equal(level.log.lastSeq, 60)
})

t.test('a log that goes past the leader\'s end is cut back to it', async (t) => {
  const common = chain(1, 50, new Uint8Array(32))
  const l = await leaderOf(t, common, 0)
  const n = await nodeOf(t, common, (prev, from) => chain(from, 20, prev, 'old-'))
  const { fork, saved } = await rewind(t, l, n)
  t.equal(fork, 50)
  t.equal(saved[0]!.length, 20)
  t.equal(n.log.lastSeq, 50)
})

t.test('a log that shares nothing with the leader\'s, or whose tail opens a term as new as the leader\'s, is refused and kept', async (t) => {
  const l = await leaderOf(t, chain(1, 50, new Uint8Array(32)), 0)
  const stranger = await nodeOf(t, chain(1, 30, new Uint8Array(32), 'other-'), () => [])
  await t.rejects(rewind(t, l, stranger), new DivergedError(
    `this log (seqs 1-30) shares no entry with the leader's (node L leads epoch ${EPOCH} at ${l.leader.url}): not this cluster's log? Start this node on a new data directory`))
  t.equal(stranger.log.lastSeq, 30, 'its log is unchanged')

  const common = chain(1, 50, new Uint8Array(32))
  const l2 = await leaderOf(t, common, 5)
  const usurper = await nodeOf(t, common, (prev, from) => {
    const lead = makeEntry(from, from, { type: 'Lead', epoch: EPOCH, node: 'X' }, prev)
    return [lead, ...chain(from + 1, 5, lead.hash, 'x-')]
  })
  await t.rejects(rewind(t, l2, usurper), { name: 'DivergedError', message: /entry 51 of this log opens a term \(epoch 7\) no older than the leader's/ })
  t.equal(usurper.log.lastSeq, 56, 'its log is unchanged')
})

t.test('a tail known to be committed is refused and kept: such a leader was started by hand on the wrong node', async (t) => {
  const common = chain(1, 50, new Uint8Array(32))
  const l = await leaderOf(t, common, 10)
  // It followed a leader whose standbys held its entries up to 55, which this leader lacks.
  const n = await nodeOf(t, common, (prev, from) => chain(from, 30, prev, 'old-'), 55)
  await snapshotAt(n.snapshots, 60)
  const saved: LogEntry[][] = []
  const link = await leaderHashes(wsNetwork, systemClock, l.leader)
  t.teardown(() => link.close())
  await t.rejects(rewindToLeader({ log: n.log, snapshots: n.snapshots, leader: l.leader, hashesOf: link.ask, saveTail: async (tail) => { saved.push(tail) } }),
    new CommittedTailError(`entries 51-55 of this log were committed (held by the standbys its leader waited for), and the leader ` +
      `(node L leads epoch ${EPOCH} at ${l.leader.url}) does not hold them: refusing to drop them. Stop that leader; start as ` +
      'sequencer the node whose log is longest in the newest term (docs/REPLICA.md)'))
  t.same([n.log.lastSeq, saved.length, (await n.snapshots.list()).map((m) => m.seq)], [80, 0, [60]], 'nothing cut, handed over or dropped')
  t.notOk(new CommittedTailError('') instanceof DivergedError, 'not a DivergedError: a restart would not mend it')

  // Committed up to where the two logs part: the tail past it was never committed, and goes.
  const upToFork = await nodeOf(t, common, (prev, from) => chain(from, 30, prev, 'old-'), 50)
  t.equal((await rewind(t, l, upToFork)).fork, 50)
  t.equal(upToFork.log.lastSeq, 50)
})

t.test('a leader that stops answering while the log is checked leaves it as it was: the node follows, and checks again', async (t) => {
  const common = chain(1, 50, new Uint8Array(32))
  const l = await leaderOf(t, common, 10)
  const n = await nodeOf(t, common, (prev, from) => chain(from, 30, prev, 'old-'))
  // It names another epoch than the one this server leads: the server closes the link at the first question.
  const fork = await rejoinAtStart({ log: n.log, snapshots: n.snapshots, network: wsNetwork, clock: systemClock, self: 'N',
    leader: async () => ({ ...l.leader, epoch: 6 }) })
  t.equal(fork, undefined)
  t.equal(n.log.lastSeq, 80, 'nothing cut')
  t.equal(await rejoinAtStart({ log: n.log, snapshots: n.snapshots, network: wsNetwork, clock: systemClock, self: 'N', leader: async () => l.leader }), 50,
    'and once the leader answers, it rewinds')
  t.equal(await rejoinAtStart({ log: n.log, network: wsNetwork, clock: systemClock, self: 'L', leader: async () => ({ ...l.leader, node: 'L' }) }), undefined,
    'a leader record naming the node itself (a run before its restart) is not followed')
  // The consensus service does not answer: as when no one leads, the node starts and checks as it follows.
  const said: string[] = []
  const logger = { info() {}, error() {}, warn: (_: object, msg: string) => { said.push(msg) } }
  t.equal(await rejoinAtStart({ log: n.log, network: wsNetwork, clock: systemClock, self: 'N', logger,
    leader: () => Promise.reject(new Error('etcd at http://127.0.0.1:1 unreachable')) }), undefined, 'etcd unreachable: nothing cut, no throw')
  t.same(said, ['cannot read who leads to check this log against the leader\'s; checking once following'])
})

t.test('hashes are answered only for the epoch the node leads', async (t) => {
  const l = await leaderOf(t, chain(1, 5, new Uint8Array(32)), 0)
  const link = await leaderHashes(wsNetwork, systemClock, { ...l.leader, epoch: 6 })
  t.teardown(() => link.close())
  await t.rejects(link.ask([1]), { message: /this node does not lead epoch 6 \(it leads epoch 7\)/ })
  const ok = await leaderHashes(wsNetwork, systemClock, l.leader)
  t.teardown(() => ok.close())
  const [one, none] = await ok.ask([1, 9])
  t.equal(hex(one!), hex((await l.log.read(1, 1))[0]!.hash))
  t.equal(none, null, 'null past its end')
})

/** `n` deposits of a sequencer's own after `last`, later in time: a tail no one else holds. */
function tailAfter(last: LogEntry, n: number): LogEntry[] {
  const out: LogEntry[] = []
  let prev = last
  for (let i = 1; i <= n; i++) out.push(prev = makeEntry(last.seq + i, last.time + i, deposit(900 + i), prev.hash))
  return out
}

t.test('a follower of an elected leader stops with DivergedError on a log the leader does not continue', async (t) => {
  const L = await sequencer(t, { epoch: EPOCH })
  await L.submit([deposit(1), deposit(2), deposit(3)])
  const leader = { epoch: EPOCH, node: 'L', url: L.base }
  const follow = async (extra: number): Promise<Error> => {
    const log = new MemoryLogStore()
    await log.open()
    const mine = await L.log.read(1, L.log.lastSeq - 2)
    await log.append(mine)
    await log.append(tailAfter(mine[mine.length - 1]!, extra))
    const node = new ReplicaNode({ log })
    await node.restore()
    return new Promise<Error>((resolve) => {
      const f = new Follower({ node, network: wsNetwork, url: 'ws://unused', clock: systemClock, reconnectMs: 20, leader: async () => leader, onFatal: resolve })
      t.teardown(() => f.stop())
      f.start()
    })
  }
  const mismatch = await follow(1)
  t.type(mismatch, DivergedError, 'its last entry is not the leader\'s')
  t.match(mismatch.message, /the leader's entry \d+ does not follow this log's \d+ .*: restart to check this log against the leader's and rewind it/)
  const ahead = await follow(5)
  t.type(ahead, DivergedError, 'its log goes past the leader\'s end')
  t.match(ahead.message, /goes past the leader's end/)
})

t.test('a plain follower (no election) still stops as before, naming a new data directory', async (t) => {
  const L = await sequencer(t)
  await L.submit([deposit(1)])
  const log = new MemoryLogStore()
  await log.open()
  const mine = await L.log.read(1, L.log.lastSeq - 1)
  await log.append(mine)
  await log.append(tailAfter(mine[mine.length - 1]!, 1))
  const node = new ReplicaNode({ log })
  await node.restore()
  const stopped = new Promise<Error>((resolve) => {
    const f = new Follower({ node, network: wsNetwork, url: L.url, clock: systemClock, reconnectMs: 20, onFatal: resolve })
    t.teardown(() => f.stop())
    f.start()
  })
  await L.submit([deposit(2)])
  const err = await stopped
  t.notOk(err instanceof DivergedError)
  t.match(err.message, /start this node on a new data directory/)
})
