// Synchronous standbys over real WebSocket on loopback: a sequencer with `syncReplicas`
// acknowledges a command only once that many standbys hold it durably, streams to its other
// followers only what the standbys hold, bounds what waits when none is there, and says a
// command's outcome is unknown when it stops before a standby held it; restarted on a log whose
// tail no standby holds, it serves nothing of that tail until one does. A standby's listeners hear
// of entries only once they are committed, live or replayed at a restart.

import t from 'tap'
import { hex, makeEntry } from '../../replica/entry.js'
import { Follower } from '../../replica/follower.js'
import { ReplicaNode } from '../../replica/node.js'
import { encodeMessage, ReplicationRefusedError, REPLICATION_PATH } from '../../replica/replication.js'
import { MemoryLogStore } from '../../replica/memory-log.js'
import { createReplica } from '../../replica/replica.js'
import { freePort } from '../../replica/free-port.js'
import { DEFAULT_GENESIS, genesisCommands } from '../../core/genesis-spec.js'
import { OutcomeUnknownError, OverloadedError, type Acknowledged } from '../../replica/sequencer.js'
import { systemClock } from '../../replica/clock.js'
import { wsNetwork } from '../../replica/ws-network.js'
import { deposit, GatedLog, leader, until, type Teardown } from '../helpers/replication-rig.js'

async function follower(t: Teardown, url: string, standby: boolean) {
  const log = new GatedLog()
  await log.open()
  const node = new ReplicaNode({ log, checkpointInterval: 10 })
  const errors: Error[] = []
  const logger = { info() {}, warn() {}, error() {} }
  const f = new Follower({ node, network: wsNetwork, url, clock: systemClock, reconnectMs: 20, onFatal: (e) => errors.push(e), logger, standby })
  f.start()
  t.teardown(() => f.stop())
  return { log, node, f, errors }
}

/** A submission whose settling the test can look at without awaiting it. */
function watched(p: Promise<Acknowledged>) {
  const w: { ack?: Acknowledged; err?: Error; done: Promise<void> } = { done: Promise.resolve() }
  w.done = p.then((a) => { w.ack = a }, (e: Error) => { w.err = e })
  return w
}

/** Lets messages in flight on loopback arrive (a negative check: nothing more happens). */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 100))

/**
 * Submits a deposit while `held` cannot write, waits until `written(seq)` says the entry is
 * where the test looks, and lets everything in flight arrive.
 */
async function submitWhileHeld(L: { log: { lastSeq: number }; seq: { submit(c: ReturnType<typeof deposit>): Promise<Acknowledged> } },
  held: GatedLog, written: (seq: number) => boolean) {
  held.hold()
  const w = watched(L.seq.submit(deposit(1)))
  const seq = L.log.lastSeq + 1
  await until(() => written(seq))
  await settle()
  return { w, seq }
}

t.test('a command is acknowledged only once the standby holds it', async (t) => {
  const L = await leader(t, { syncReplicas: 1 })
  const S = await follower(t, L.url, true)
  await L.genesis()
  t.equal(L.server.replicated, L.log.lastSeq, 'the genesis went out to the standby and came back held')
  t.ok(S.log.lastSeq >= L.log.lastSeq, 'the standby holds the genesis')

  const { w, seq } = await submitWhileHeld(L, S.log, (seq) => L.log.lastSeq === seq)
  t.equal(w.ack, undefined, 'durable on the sequencer, written nowhere else: not acknowledged')
  t.ok(L.server.replicated < seq)
  S.log.release()
  await w.done
  t.equal(w.ack?.seq, seq, 'acknowledged once the standby wrote it')
  t.ok(S.log.lastSeq >= seq && L.server.replicated >= seq)
  t.equal(L.server.standbys, 1)
  t.same(S.errors, [])
})

t.test('the sequencer and its standby record with each write what they know is committed; other followers do not', async (t) => {
  const L = await leader(t, { syncReplicas: 1 })
  const S = await follower(t, L.url, true)
  const F = await follower(t, L.url, false)
  await L.genesis()
  const genesisEnd = L.log.lastSeq
  t.same([L.log.knownCommitted, S.log.knownCommitted], [0, 0], 'the genesis went out before anything was committed')
  const [first] = await L.submit([deposit(1)])
  t.same([L.log.knownCommitted, S.log.knownCommitted], [genesisEnd, genesisEnd],
    'the next write carries the genesis, held by the standby: a rewind never cuts it')
  await L.submit([deposit(2)])
  await until(() => F.log.lastSeq === L.log.lastSeq)
  t.same([L.log.knownCommitted, S.log.knownCommitted], [first!.seq, first!.seq])
  t.equal(F.log.knownCommitted, 0, 'a follower that is no standby is told no commit point, and records none')
})

t.test('other followers get only what the standby holds, live or catching up', async (t) => {
  const L = await leader(t, { syncReplicas: 1 })
  const S = await follower(t, L.url, true)
  const A = await follower(t, L.url, false)
  await L.genesis()
  await until(() => A.log.lastSeq === L.log.lastSeq)
  const base = L.log.lastSeq

  S.log.hold()
  const ws = Array.from({ length: 5 }, (_, i) => watched(L.seq.submit(deposit(i))))
  await until(() => L.log.lastSeq === base + 5)
  const B = await follower(t, L.url, false) // connects now: catches up to what the standby holds
  await until(() => B.log.lastSeq === base)
  await settle()
  t.equal(A.log.lastSeq, base, 'a live follower was sent none of what the standby lacks')
  t.equal(B.log.lastSeq, base, 'nor was one catching up from the log')
  t.ok(ws.every((w) => w.ack === undefined), 'and none of it is acknowledged')

  S.log.release()
  await Promise.all(ws.map((w) => w.done))
  await until(() => A.log.lastSeq === base + 5 && B.log.lastSeq === base + 5)
  t.equal(hex(A.log.lastHash), hex(L.log.lastHash), 'once held, everyone has it, hash for hash')
  t.equal(hex(B.log.lastHash), hex(L.log.lastHash))
  t.same([...A.errors, ...B.errors, ...S.errors], [])
})

t.test('with two required, one standby holding a command is not enough', async (t) => {
  const L = await leader(t, { syncReplicas: 2 })
  const S1 = await follower(t, L.url, true)
  const S2 = await follower(t, L.url, true)
  await L.genesis()
  const { w, seq } = await submitWhileHeld(L, S2.log, (seq) => S1.log.lastSeq === seq)
  t.equal(w.ack, undefined, 'the first standby holds it, the second does not yet')
  S2.log.release()
  await w.done
  t.equal(w.ack?.seq, seq)
})

t.test('a standby that goes away is said at once: commands wait for it', async (t) => {
  const warnings: string[] = []
  const L = await leader(t, { syncReplicas: 1, logger: { info() {}, error() {}, warn: (_o: object, msg?: string) => { warnings.push(msg ?? '') } } })
  const S = await follower(t, L.url, true)
  await L.genesis()
  S.f.stop()
  await until(() => warnings.length > 0)
  t.same(warnings, ['standby disconnected: commands wait until enough standbys hold them'])
  t.equal(L.server.standbys, 0)
})

t.test('with no standby nothing is acknowledged, and what waits is bounded', async (t) => {
  // Windows of 8 batches of 4 entries, then a queue of 10: the rest are told the sequencer is overloaded.
  const L = await leader(t, { syncReplicas: 1, batchMax: 4, ingressQueueMax: 10 })
  const ws: ReturnType<typeof watched>[] = []
  for (let i = 0; i < 100; i++) {
    ws.push(watched(L.seq.submit(deposit(i))))
    await new Promise((r) => setImmediate(r)) // one at a time, as clients' requests arrive
  }
  await settle()
  t.equal(L.log.lastSeq, 32, 'the replication window\'s worth written and waiting')
  t.equal(L.seq.queued, 10, 'then the ingress queue')
  const overloaded = ws.filter((w) => w.err instanceof OverloadedError).length
  t.equal(overloaded, 58, 'the rest refused at once')
  t.ok(ws.every((w) => w.ack === undefined), 'nothing acknowledged')

  const S = await follower(t, L.url, true)
  await Promise.all(ws.map((w) => w.done))
  t.equal(ws.filter((w) => w.ack !== undefined).length, 42, 'a standby connects: everything that waited is acknowledged')
  t.equal(S.log.lastSeq, 42)
})

t.test('stopped before the standby held them, commands are answered with an unknown outcome', async (t) => {
  const L = await leader(t, { syncReplicas: 1 })
  const S = await follower(t, L.url, true)
  await L.genesis()
  S.log.hold()
  const w = watched(L.seq.submit(deposit(1)))
  await until(() => L.log.lastSeq === L.node.state.seq)
  await L.seq.stop()
  await w.done
  t.ok(w.err instanceof OutcomeUnknownError, 'in the sequencer\'s log, perhaps not in the one that goes on')
  t.equal((w.err as OutcomeUnknownError).code, 'OUTCOME_UNKNOWN')
  S.log.release()
})

t.test('a standby of a sequencer without --sync-replicas follows like any follower', async (t) => {
  const L = await leader(t)
  const S = await follower(t, L.url, true)
  await L.submit(Array.from({ length: 30 }, (_, i) => deposit(i)))
  await until(() => S.log.lastSeq === L.log.lastSeq)
  t.equal(L.server.replicated, 0, 'its reports are taken and count for nothing')
  t.equal(L.server.standbys, 1)
  t.same(S.errors, [])
})

t.test('a durable report from a follower that is no standby, or of what it was not sent, closes its connection', async (t) => {
  const L = await leader(t, { syncReplicas: 1 })
  const S = await follower(t, L.url, true)
  await L.genesis()
  const last = L.log.lastSeq
  const cases: [['hello', number, string[]], number][] = [[['hello', 1, ['anchored']], last], [['hello', 1, ['standby']], last + 5]]
  for (const [hello, report] of cases) {
    const conn = await wsNetwork.connect(L.url)
    const closed = new Promise<string>((r) => conn.onClose((why) => r(why)))
    conn.onMessage(() => {})
    conn.send(encodeMessage(hello))
    await until(() => L.server.followers === 2)
    conn.send(encodeMessage(['durable', report]))
    t.match(await closed, /durable/, `${hello[2][0]}, reporting ${report}: closed`)
  }
  t.equal(L.server.replicated, last, 'neither moved what counts as held')
  t.same(S.errors, [])
})

t.test('restarted on a log whose tail no standby holds, a sequencer streams that tail to other followers only once one does', async (t) => {
  const log = new MemoryLogStore()
  await log.open()
  const port = await freePort()
  const url = `ws://127.0.0.1:${port}${REPLICATION_PATH}`
  const role = { kind: 'sequencer' as const, host: '127.0.0.1', port, genesis: genesisCommands(DEFAULT_GENESIS), syncReplicas: 1 }
  const S = await follower(t, url, true)
  const A = await follower(t, url, false)
  const first = await createReplica({ log, network: wsNetwork, clock: systemClock, role, checkpointInterval: 10 })
  await until(() => A.log.lastSeq === log.lastSeq)
  const held = log.lastSeq

  // Written here, never held by the standby, never acknowledged: the sequencer stops.
  S.log.hold()
  const ws = Array.from({ length: 3 }, (_, i) => watched(first.sequencer!.submit(deposit(i))))
  await until(() => log.lastSeq === held + 3)
  await first.stop()
  await Promise.all(ws.map((w) => w.done))
  t.ok(ws.every((w) => w.err instanceof OutcomeUnknownError), 'their outcome unknown')

  // Restarted on that log: it waits for the standby, and so do the other followers.
  const restarted = createReplica({ log, network: wsNetwork, clock: systemClock, role, checkpointInterval: 10 })
  let up = false
  void restarted.then(() => { up = true })
  await settle()
  await settle()
  t.equal(up, false, 'not serving while no standby holds its tail')
  t.equal(A.log.lastSeq, held, 'a follower got none of the tail')
  S.log.release()
  const second = await restarted
  t.teardown(() => second.stop())
  t.ok(S.log.lastSeq > held + 3, 'the standby holds the tail and the entry written after it')
  await until(() => A.log.lastSeq >= held + 3)
  t.same([...A.errors, ...S.errors], [])
})

t.test('a standby\'s listeners hear of entries only once the sequencer says they are committed', async (t) => {
  const L = await leader(t, { syncReplicas: 2 })
  const S1 = await follower(t, L.url, true)
  const S2 = await follower(t, L.url, true)
  const heard = (n: ReplicaNode): number[] => {
    const seqs: number[] = []
    n.onCommitted((c) => { for (const e of c.entries) seqs.push(e.seq) })
    return seqs
  }
  const [heard1, heard2] = [heard(S1.node), heard(S2.node)]
  await L.genesis()
  await until(() => heard1.length === L.log.lastSeq && heard2.length === L.log.lastSeq)
  const genesisEnd = L.log.lastSeq

  // S2 cannot write: S1 holds the next entry durably, but with two standbys needed it is not committed.
  const { w, seq } = await submitWhileHeld(L, S2.log, (seq) => S1.log.lastSeq === seq)
  t.equal(S1.f.heldEntries, 1, 'S1 holds the entry back')
  t.equal(heard1.at(-1), genesisEnd, 'its listeners (projections, streams, its gateway) have not heard of it')
  t.equal(S1.node.state.seq, seq, 'though it applied it (its roots are checked)')
  t.equal(w.ack, undefined, 'nor is it acknowledged')
  S2.log.release()
  await w.done
  t.equal(w.ack?.seq, seq, 'once S2 holds it too, it is committed and acknowledged')
  await until(() => heard1.at(-1) === seq && heard2.at(-1) === seq)
  t.same(heard1, Array.from({ length: seq }, (_, i) => i + 1), 'and S1\'s listeners hear of it, in order, once')
  t.equal(S1.f.heldEntries, 0)
  t.same([...S1.errors, ...S2.errors], [])
})

t.test('a standby whose sequencer says nothing of commits (an older build) tells its listeners at once', async (t) => {
  const L = await leader(t, { syncReplicas: 2 })
  // An older sequencer: this build's, minus the commit point.
  const send = (L.server as unknown as { sendBytes(s: { features: Set<string> }, b: Uint8Array): void }).sendBytes.bind(L.server)
  Object.assign(L.server, { sendBytes: (s: { features: Set<string> }, b: Uint8Array) => {
    if (b.length < 20 && Buffer.from(b).includes(Buffer.from('committed'))) return
    send(s, b)
  } })
  const S1 = await follower(t, L.url, true)
  await follower(t, L.url, true)
  const heard: number[] = []
  S1.node.onCommitted((c) => { for (const e of c.entries) heard.push(e.seq) })
  await L.genesis()
  await until(() => heard.length === L.log.lastSeq)
  t.equal(S1.f.heldEntries, 0, 'nothing held')
})

/**
 * Restarts standby `S` on its own log: its listeners (recorded in the returned `heard`) already
 * had every entry up to `listenersSeq`, as projections kept on disk would.
 */
async function restartStandby(t: Teardown, S: Awaited<ReturnType<typeof follower>>, url: string, listenersSeq: number) {
  S.f.stop()
  await S.f.idle()
  const heard: number[] = []
  const errors: Error[] = []
  const replica = await createReplica({ log: S.log, network: wsNetwork, clock: systemClock, checkpointInterval: 10,
    role: { kind: 'follower', url, reconnectMs: 20, standby: true }, listenersSeq, onFatal: (e) => errors.push(e),
    beforeRestore: (node) => node.onCommitted((c) => { for (const e of c.entries) heard.push(e.seq) }) })
  t.teardown(() => replica.stop())
  return { replica, heard, errors }
}

t.test('restarted, a standby holds what it replays past its listeners until the sequencer says it is committed', async (t) => {
  const L = await leader(t, { syncReplicas: 2 })
  const S1 = await follower(t, L.url, true)
  const S2 = await follower(t, L.url, true)
  const S3 = await follower(t, L.url, true)
  await L.genesis()
  await until(() => S1.log.lastSeq === L.log.lastSeq)
  const genesisEnd = L.log.lastSeq
  S3.log.hold()
  const { w, seq } = await submitWhileHeld(L, S2.log, (seq) => S1.log.lastSeq === seq)

  // S1 stops holding that entry, uncommitted; its listeners had everything before it.
  const R = await restartStandby(t, S1, L.url, genesisEnd)
  t.equal(R.replica.node.state.seq, seq, 'the restarted standby applied its whole log')
  t.same(R.heard, Array.from({ length: genesisEnd }, (_, i) => i + 1), 'its listeners heard the replay up to what they had')
  t.equal(R.replica.follower!.heldEntries, 1, 'the entry past it is held')
  await settle()
  t.equal(R.heard.at(-1), genesisEnd, 'and stays held while it is not committed')

  // S2 and S3 commit it. S1, caught up, gets no batch: the sequencer's hash of its last entry vouches for its log.
  S2.log.release()
  S3.log.release()
  await w.done
  t.equal(w.ack?.seq, seq)
  await until(() => R.heard.at(-1) === seq)
  t.equal(L.log.lastSeq, seq, 'told with no entry written after it')
  t.equal(R.replica.follower!.heldEntries, 0)
  t.same([...R.errors, ...S2.errors, ...S3.errors], [])
})

t.test('a tail a restarted standby holds that the sequencer does not is never told, whatever its commit point', async (t) => {
  const L = await leader(t, { syncReplicas: 1 })
  const S1 = await follower(t, L.url, true)
  const S2 = await follower(t, L.url, true)
  await L.genesis()
  await until(() => S1.log.lastSeq === L.log.lastSeq)
  const genesisEnd = L.log.lastSeq
  S1.f.stop()
  await S1.f.idle()

  // S1's log gains an entry the sequencer never wrote (as a former leader's would), while the
  // sequencer commits two of its own there and past it.
  await S1.log.append([makeEntry(genesisEnd + 1, Date.now(), deposit(99), S1.log.lastHash)])
  await L.submit([deposit(1), deposit(2)])
  t.equal(L.server.committedSeq, genesisEnd + 2)

  const R = await restartStandby(t, S1, L.url, genesisEnd)
  t.equal(R.replica.follower!.heldEntries, 1, 'its own entry is held at the restart')
  await until(() => R.errors.length > 0)
  t.ok(R.errors[0] instanceof ReplicationRefusedError && R.errors[0].divergent, `it stops: ${R.errors[0]?.message}`)
  t.equal(R.heard.at(-1), genesisEnd, 'its listeners never heard of the entry, though the commit point passed its seq')
  t.same(S2.errors, [])
})
