// Replication over real WebSocket on loopback: catch-up from the log then live, snapshot
// install for a follower behind the retained log, and the follower stopping (never
// skipping) on a gap, a bad hash or a state root that differs from the sequencer's.

import t from 'tap'
import { stateRoot } from '../../core/root.js'
import { encodeBody, GENESIS_HASH, hex, makeEntry, packr, sealedBody, type LogEntry } from '../../replica/entry.js'
import { Follower } from '../../replica/follower.js'
import { ReplicaNode } from '../../replica/node.js'
import {
  decodeMessage, encodeBatchMessage, encodeMessage, REPLICATION_PATH, verifyWire, type BatchMessage,
} from '../../replica/replication.js'
import { RootHasher, type RootSource } from '../../replica/root-hasher.js'
import { deposit, GatedLog, leader, order, truncatedLeader, until, type Teardown } from '../helpers/replication-rig.js'
import { systemClock } from '../../replica/clock.js'
import { wsNetwork } from '../../replica/ws-network.js'

/** The batch message a sequencer sends for `entries`, as the follower decodes it. */
const batchMessage = (entries: LogEntry[]): BatchMessage => decodeMessage(encodeBatchMessage(entries)) as BatchMessage

async function follower(t: Teardown, url: string, checkpointInterval = 10, roots?: RootSource, inboxBytesMax?: number,
  onAnchored?: (seq: number, vault: string) => void) {
  const log = new GatedLog()
  await log.open()
  const node = new ReplicaNode({ log, checkpointInterval, roots })
  const errors: Error[] = []
  const warnings: string[] = []
  const logger = { info() {}, error() {}, warn: (_o: object, msg?: string) => { warnings.push(msg ?? '') } }
  const f = new Follower({ node, network: wsNetwork, url, clock: systemClock, reconnectMs: 20, onFatal: (e) => errors.push(e),
    logger, inboxBytesMax, onAnchored })
  f.start()
  t.teardown(() => f.stop())
  return { log, node, f, errors, warnings }
}

t.test('a follower catches up from the log, then follows live, with equal roots', async (t) => {
  const L = await leader(t)
  await L.submit(Array.from({ length: 50 }, (_, i) => deposit(i)))
  const F = await follower(t, L.url)
  await until(() => F.node.state.seq === L.node.state.seq)
  await L.submit(Array.from({ length: 30 }, (_, i) => order(i)))
  await until(() => F.node.state.seq === L.node.state.seq)
  t.equal(stateRoot(F.node.state), stateRoot(L.node.state), 'same state root')
  t.same(F.node.roots, L.node.roots, 'same checkpoint roots')
  t.ok(F.node.roots.length >= 8, `${F.node.roots.length} checkpoints`)
  await until(() => F.f.lastMatchedSeq === F.node.roots.at(-1)!.seq)
  t.equal(F.f.checkpointsMatched, F.node.roots.length, 'each compared with the sequencer\'s, those caught up from the log too')
  t.same(F.errors, [])
})

t.test('the newest anchored seq reaches followers that ask for it, and only them', async (t) => {
  const L = await leader(t)
  await L.submit(Array.from({ length: 25 }, (_, i) => deposit(i)))
  const VAULT = '0x' + '5a'.repeat(20)
  L.server.publishAnchored(20, VAULT)
  const heard: [number, string][] = []
  const F = await follower(t, L.url, 10, undefined, undefined, (seq, vault) => heard.push([seq, vault]))
  await until(() => heard.length === 1)
  t.same(heard, [[20, VAULT]], 'the anchor known before it connected, with its Vault, once it is live')
  L.server.publishAnchored(30, VAULT)
  L.server.publishAnchored(25, VAULT)
  L.server.publishAnchored(30, VAULT)
  await L.submit(Array.from({ length: 10 }, (_, i) => order(i)))
  await until(() => F.node.state.seq === L.node.state.seq && heard.length >= 2)
  t.same(heard.map(([seq]) => seq), [20, 30], 'a newer one as it comes; older or repeated ones are not sent')

  // A follower of an earlier build says no features in its hello: it gets no anchors (it would stop on an unknown message).
  const conn = await wsNetwork.connect(L.url)
  t.teardown(() => conn.close())
  const kinds: string[] = []
  conn.onMessage((bytes) => { kinds.push(decodeMessage(bytes)[0]) })
  conn.send(encodeMessage(['hello', 1]))
  await until(() => kinds.includes('checkpoint') && kinds.includes('batch'))
  L.server.publishAnchored(40, VAULT)
  await L.submit([deposit(100)])
  await until(() => kinds.filter((k) => k === 'batch').length >= 2)
  t.notOk(kinds.includes('anchored'), `it got ${[...new Set(kinds)].join(', ')}`)
  t.same(F.errors, [])
})

t.test('with roots computed off-thread on both sides, every checkpoint is still compared', async (t) => {
  const roots = new RootHasher()
  t.teardown(() => roots.close())
  const L = await leader(t, { roots })
  const F = await follower(t, L.url, 10, roots)
  await L.submit(Array.from({ length: 50 }, (_, i) => deposit(i)))
  await L.submit(Array.from({ length: 30 }, (_, i) => order(i)))
  await until(() => F.node.state.seq === L.node.state.seq)
  await Promise.all([L.node.rootsDelivered(), F.node.rootsDelivered()])
  t.same(F.node.roots, L.node.roots, 'same checkpoint roots')
  t.ok(F.node.roots.length >= 8, `${F.node.roots.length} checkpoints`)
  await until(() => F.f.lastMatchedSeq === F.node.roots.at(-1)!.seq)
  t.equal(F.f.checkpointsMatched, F.node.roots.length, 'each one compared with the sequencer\'s')
  t.same(F.errors, [])
})

// A follower started with another interval (or none) than its sequencer's checked only their
// common multiples, and kept every other announced root forever (found running one by hand).
// It now takes the interval the sequencer announces with each root, and roots an announced
// checkpoint still ahead of it.
for (const offThread of [false, true]) {
  t.test(`a follower checks every checkpoint its sequencer announces, whatever its own interval${offThread ? ' (roots off-thread)' : ''}`, async (t) => {
    const roots = offThread ? new RootHasher() : undefined
    if (roots) t.teardown(() => roots.close())
    const L = await leader(t, { roots })
    await L.submit(Array.from({ length: 25 }, (_, i) => deposit(i)))
    // Rooted before the follower connects, so each root goes out with its catch-up batch.
    await L.node.rootsDelivered()
    for (const interval of [0, 25]) {
      const F = await follower(t, L.url, interval)
      await until(() => F.node.state.seq === L.node.state.seq)
      await L.node.rootsDelivered()
      // The catch-up's checkpoints too: the roots come before their batch, with the interval
      // (before, one caught up on its own interval rooted none of the first batch's).
      const caughtUp = L.node.roots.map((r) => r.seq)
      await until(() => F.f.lastMatchedSeq === caughtUp.at(-1))
      t.same(F.node.roots.map((r) => r.seq), caughtUp, `interval ${interval}: each checkpoint caught up from the log rooted`)
      t.equal(F.f.checkpointsMatched, caughtUp.length, 'and compared')
      const before = F.node.roots.length
      await L.submit(Array.from({ length: 40 }, (_, i) => order(interval * 100 + i)))
      await until(() => F.node.state.seq === L.node.state.seq)
      await L.node.rootsDelivered()
      const announced = L.node.roots.filter((r) => r.seq > L.node.state.seq - 40).map((r) => r.seq)
      t.ok(announced.length >= 4, `interval ${interval}: the sequencer announced ${announced.join(', ')}`)
      await until(() => F.f.lastMatchedSeq === announced.at(-1))
      t.equal(F.node.checkpointInterval, 10, 'it took the sequencer\'s interval')
      t.same(F.node.roots.slice(before).map((r) => r.seq), announced, 'and rooted each of its checkpoints')
      t.ok(F.f.checkpointsMatched >= announced.length, `${F.f.checkpointsMatched} matched`)
      t.same(F.errors, [])
      t.equal((F.f as unknown as { expected: Map<number, string> }).expected.size, 0, 'no announcement left waiting')
    }
  })
}

t.test('a follower whose apply gate is held takes nothing new; released, it catches up', async (t) => {
  const L = await leader(t)
  const F = await follower(t, L.url)
  await until(() => F.node.state.seq === L.node.state.seq)
  const before = F.node.state.seq
  F.node.gate.hold()
  await L.submit(Array.from({ length: 30 }, (_, i) => order(i)))
  await new Promise((r) => setTimeout(r, 100))
  t.equal(F.node.state.seq, before, 'nothing applied while held')
  F.node.gate.release()
  await until(() => F.node.state.seq === L.node.state.seq)
  t.equal(stateRoot(F.node.state), stateRoot(L.node.state), 'same state root')
  t.same(F.errors, [])
})

t.test('held past its inbox bound, a follower lets the connection go and catches up from the log once released', async (t) => {
  const L = await leader(t)
  // A few batches' worth: what arrives while held overflows it. (Catching up, one message of
  // them all is larger, and is taken: it comes into an empty inbox.)
  const F = await follower(t, L.url, 10, undefined, 4096)
  await until(() => F.node.state.seq === L.node.state.seq)
  F.node.gate.hold()
  for (let i = 0; i < 20; i++) await L.submit(Array.from({ length: 10 }, (_, j) => order(i * 10 + j)))
  await until(() => F.warnings.includes('follower inbox full; reconnecting to catch up'))
  const dropped = F.warnings.length
  F.node.gate.release()
  await until(() => F.node.state.seq === L.node.state.seq)
  t.equal(stateRoot(F.node.state), stateRoot(L.node.state), 'same state root after catching up')
  t.same(F.node.roots, L.node.roots, 'same checkpoint roots')
  t.ok(F.warnings.length <= dropped + 1, `no drop after catching up (${F.warnings.slice(dropped).join('; ')})`)
  t.same(F.errors, [])
})

t.test('a follower behind the retained log installs a snapshot first', async (t) => {
  const { L, snapshotSeq } = await truncatedLeader(t)
  t.ok(L.log.firstSeq > 1, `sequencer log now starts at ${L.log.firstSeq}`)
  const F = await follower(t, L.url)
  await until(() => F.node.state.seq === L.node.state.seq)
  t.equal(F.log.firstSeq, snapshotSeq + 1, 'the follower log continues from the snapshot')
  await L.submit([order(1), order(2)])
  await until(() => F.node.state.seq === L.node.state.seq)
  t.equal(stateRoot(F.node.state), stateRoot(L.node.state))
})

t.test('a gap or a bad hash is refused with a clear error, never skipped', async (t) => {
  const e1 = makeEntry(1, 1, deposit(1), GENESIS_HASH)
  const e2 = makeEntry(2, 2, deposit(2), e1.hash)
  const e3 = makeEntry(3, 3, deposit(3), e2.hash)
  const ok = verifyWire(batchMessage([e1, e2]), 0, GENESIS_HASH)
  t.same(ok.map((e) => [e.seq, hex(e.prevHash), hex(e.hash), e.command]),
    [e1, e2].map((e) => [e.seq, hex(e.prevHash), hex(e.hash), e.command]), 'decoded once, hashes as sent')
  t.same(sealedBody(ok[1]!), encodeBody(2, 2, deposit(2)), 'sealed with the bytes received')
  t.throws(() => verifyWire(batchMessage([e3]), 1, e1.hash), /refused at seq 2: gap: expected seq 2, got 3/)
  const [, first, hashes] = batchMessage([e1, e2])
  const forged: BatchMessage = ['batch', first, hashes, Buffer.concat([encodeBody(1, 1, deposit(1)), encodeBody(2, 2, deposit(99))])]
  t.throws(() => verifyWire(forged, 0, GENESIS_HASH), /refused at seq 2: hash does not match its body$/, 'a body that does not match its hash')
  const skipped: BatchMessage = ['batch', 1, Buffer.concat([e1.hash, e3.hash]), Buffer.concat([encodeBody(1, 1, deposit(1)), encodeBody(3, 3, deposit(3))])]
  t.throws(() => verifyWire(skipped, 0, GENESIS_HASH), /refused at seq 2: hash does not match its body/, 'a gap inside the batch')
  t.throws(() => verifyWire(batchMessage([e2]), 1, GENESIS_HASH),
    /refused at seq 2: hash does not match its body, or does not continue this node's log: .*this log's entry 1 is not the sequencer's .*start this node on a new data directory$/,
    'wrong previous hash: this log may hold another entry 1 than the sequencer (a former sequencer\'s), and the message says what to do')
  const short: BatchMessage = ['batch', 1, Buffer.concat([e1.hash, e2.hash]), encodeBody(1, 1, deposit(1))]
  t.throws(() => verifyWire(short, 0, GENESIS_HASH), /refused at seq 2: fewer bodies than hashes/)
  const long: BatchMessage = ['batch', 1, e1.hash, Buffer.concat([encodeBody(1, 1, deposit(1)), encodeBody(2, 2, deposit(2))])]
  t.throws(() => verifyWire(long, 0, GENESIS_HASH), /refused at seq 2: more bodies than hashes/)
  const garbage: BatchMessage = ['batch', 1, e1.hash, new Uint8Array([0xc1, 0x00])]
  t.throws(() => verifyWire(garbage, 0, GENESIS_HASH), /refused at seq 1: /, 'bytes that are not msgpack')
  t.throws(() => decodeMessage(packr.pack(['batch', 1, new Uint8Array(31), new Uint8Array(1)])), /malformed replication batch/)
})

t.test('a follower stops on a forged batch from the wire and applies nothing of it', async (t) => {
  const e1 = makeEntry(1, 1, deposit(1), GENESIS_HASH)
  const e2 = makeEntry(2, 2, deposit(2), e1.hash)
  const [, first, hashes] = batchMessage([e1, e2])
  const forged: BatchMessage = ['batch', first, hashes, Buffer.concat([encodeBody(1, 1, deposit(1)), encodeBody(2, 2, deposit(99))])]
  const listener = await wsNetwork.listen('127.0.0.1', 0, (conn) => {
    conn.onMessage(() => conn.send(encodeMessage(forged)))
  })
  t.teardown(() => listener.close())
  const F = await follower(t, listener.url + REPLICATION_PATH)
  await until(() => F.errors.length > 0)
  t.match(F.errors[0]!.message, /replication refused at seq 2: hash does not match its body/)
  t.equal(F.log.lastSeq, 0, 'nothing of the batch was appended')
  t.equal(F.node.state.seq, 0, 'nothing of it was applied')
})

t.test('a follower whose root differs from the sequencer stops and says so', async (t) => {
  // This sequencer computes no checkpoints of its own; the test announces a wrong root.
  const L = await leader(t, { checkpointInterval: 0 })
  await L.submit(Array.from({ length: 12 }, (_, i) => deposit(i)))
  const F = await follower(t, L.url)
  await until(() => F.node.state.seq === L.node.state.seq)
  L.server.publishCheckpoint({ seq: 30, root: '0x' + '0'.repeat(64) })
  await L.submit(Array.from({ length: 20 }, (_, i) => deposit(100 + i)))
  await until(() => F.errors.length > 0)
  t.match(F.errors[0]!.message, /state root differs from the sequencer's at checkpoint 30/)
  t.ok(F.node.state.seq >= 30 && F.node.state.seq < L.node.state.seq, 'it stopped at the checkpoint, short of the sequencer')
})

t.test('a follower whose root, computed off-thread, differs from the sequencer\'s stops too', async (t) => {
  const roots = new RootHasher()
  t.teardown(() => roots.close())
  const L = await leader(t, { checkpointInterval: 0 })
  await L.submit(Array.from({ length: 12 }, (_, i) => deposit(i)))
  const F = await follower(t, L.url, 10, roots)
  await until(() => F.node.state.seq === L.node.state.seq)
  L.server.publishCheckpoint({ seq: 30, root: '0x' + '0'.repeat(64) })
  await L.submit(Array.from({ length: 20 }, (_, i) => deposit(100 + i)))
  await until(() => F.errors.length > 0)
  t.match(F.errors[0]!.message, /state root differs from the sequencer's at checkpoint 30/)
  t.equal(F.f.checkpointsMatched, 0)
})

t.test('batches that arrive while the follower syncs are appended together', async (t) => {
  const entries = Array.from({ length: 9 }, (_, i) => deposit(i))
  let prev = GENESIS_HASH
  const chain = entries.map((c, i) => {
    const e = makeEntry(i + 1, i + 1, c, prev)
    prev = e.hash
    return e
  })
  let send: (m: Uint8Array) => void = () => {}
  const listener = await wsNetwork.listen('127.0.0.1', 0, (conn) => {
    conn.onMessage(() => { send = (m) => conn.send(m) })
  })
  t.teardown(() => listener.close())
  const F = await follower(t, listener.url + REPLICATION_PATH)
  F.log.hold()
  await until(() => F.f.connected)
  await new Promise((r) => setTimeout(r, 20)) // the hello has arrived
  send(encodeBatchMessage(chain.slice(0, 2))) // its append waits at the gate...
  await new Promise((r) => setTimeout(r, 20))
  for (const part of [chain.slice(2, 4), chain.slice(4, 7), chain.slice(7)]) send(encodeBatchMessage(part)) // ...while these arrive
  await new Promise((r) => setTimeout(r, 20))
  F.log.release()
  await until(() => F.node.state.seq === 9)
  t.same(F.log.appends, [2, 7], 'the first batch, then the three behind it in one write')
  t.equal(F.f.lagSamplesMs.length, 4, 'a lag sample per batch received')
  t.same(F.errors, [])
})

t.test('a checkpoint message at a seq its own interval does not divide stops the follower, its interval unchanged', async (t) => {
  // A sequencer of our own making, answering the hello with one damaged root announcement.
  const listener = await wsNetwork.listen('127.0.0.1', 0, (conn) => {
    conn.onMessage(() => { conn.send(encodeMessage(['checkpoint', 425, '0x' + '00'.repeat(32), 24])) })
  })
  t.teardown(() => listener.close())
  const F = await follower(t, listener.url + REPLICATION_PATH, 25)
  await until(() => F.errors.length > 0)
  t.equal(F.errors[0]!.message, 'malformed checkpoint message: seq 425, interval 24')
  t.equal(F.node.checkpointInterval, 25, 'the interval stays its own')
})
