// Replication over real WebSocket on loopback: catch-up from the log then live, snapshot
// install for a follower behind the retained log, and the follower stopping (never
// skipping) on a gap, a bad hash or a state root that differs from the sequencer's.

import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { Command } from '../../core/commands.js'
import { genesisCommands, DEFAULT_GENESIS } from '../../core/genesis-spec.js'
import { stateRoot } from '../../core/root.js'
import { makeEntry } from '../../replica/entry.js'
import { Follower } from '../../replica/follower.js'
import { MemoryLogStore } from '../../replica/memory-log.js'
import { ReplicaNode } from '../../replica/node.js'
import { REPLICATION_PATH, ReplicationServer, verifyWire } from '../../replica/replication.js'
import { Sequencer } from '../../replica/sequencer.js'
import { SnapshotStore } from '../../replica/snapshot-store.js'
import { systemClock } from '../../replica/clock.js'
import { wsNetwork } from '../../replica/ws-network.js'

interface Teardown { teardown(fn: () => unknown): void }

const A = '0x' + 'a'.repeat(40)
const deposit = (n: number): Command => ({ type: 'Deposit', account: A, sub: 0, asset: 'USDT', amount: 1000 + n, wallet: 'PERP', ref: `d${n}` })
const order = (n: number): Command => ({ type: 'PlaceOrder', account: A, sub: 0, marketId: 1, side: n % 2 ? 'BUY' : 'SELL',
  orderType: 'LIMIT', priceTicks: n % 2 ? 400_000 : 700_000, qtyLots: 1, clientOrderId: `c${n}` })

async function leader(t: Teardown, o: { snapshots?: SnapshotStore; checkpointInterval?: number } = {}) {
  const log = new MemoryLogStore()
  await log.open()
  const node = new ReplicaNode({ log, snapshots: o.snapshots, checkpointInterval: o.checkpointInterval ?? 10 })
  const server = new ReplicationServer({ log, snapshots: o.snapshots })
  node.onCommitted((c) => server.publish(c))
  node.onCheckpoint((cp) => server.publishCheckpoint(cp))
  const seq = new Sequencer({ log, state: node.state, clock: systemClock, applyEntry: (e) => node.applyEntry(e),
    onCommit: (c) => { node.committed(c); void node.flushSnapshots() } })
  const listener = await wsNetwork.listen('127.0.0.1', 0, (conn) => server.attach(conn))
  t.teardown(async () => { server.close(); await listener.close(); await seq.stop() })
  const submit = (cs: Command[]) => Promise.all(cs.map((c) => seq.submit(c)))
  await submit(genesisCommands(DEFAULT_GENESIS))
  return { log, node, server, seq, submit, url: listener.url + REPLICATION_PATH }
}

async function follower(t: Teardown, url: string, checkpointInterval = 10) {
  const log = new MemoryLogStore()
  await log.open()
  const node = new ReplicaNode({ log, checkpointInterval })
  const errors: Error[] = []
  const f = new Follower({ node, network: wsNetwork, url, clock: systemClock, reconnectMs: 20, onFatal: (e) => errors.push(e) })
  f.start()
  t.teardown(() => f.stop())
  return { log, node, f, errors }
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached')
    await new Promise((r) => setTimeout(r, 5))
  }
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
  t.ok(F.node.roots.length >= 8, `${F.node.roots.length} checkpoints compared`)
  t.same(F.errors, [])
})

t.test('a follower behind the retained log installs a snapshot first', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'snap-'))
  const snapshots = new SnapshotStore(dir)
  await snapshots.open()
  t.teardown(async () => { await snapshots.close(); await rm(dir, { recursive: true, force: true }) })
  const L = await leader(t, { snapshots })
  await L.submit(Array.from({ length: 40 }, (_, i) => deposit(i)))
  await until(() => L.node.state.seq >= 40)
  await L.node.flushSnapshots()
  const latest = (await snapshots.latest())!
  await L.log.dropBefore(latest.meta.seq + 1)
  t.ok(L.log.firstSeq > 1, `sequencer log now starts at ${L.log.firstSeq}`)
  const F = await follower(t, L.url)
  await until(() => F.node.state.seq === L.node.state.seq)
  t.equal(F.log.firstSeq, latest.meta.seq + 1, 'the follower log continues from the snapshot')
  await L.submit([order(1), order(2)])
  await until(() => F.node.state.seq === L.node.state.seq)
  t.equal(stateRoot(F.node.state), stateRoot(L.node.state))
})

t.test('a gap or a bad hash is refused with a clear error, never skipped', async (t) => {
  const e1 = makeEntry(1, 1, deposit(1), new Uint8Array(32))
  const e2 = makeEntry(2, 2, deposit(2), e1.hash)
  const e3 = makeEntry(3, 3, deposit(3), e2.hash)
  const wire = (e: typeof e1) => [e.seq, e.time, e.command, e.hash] as [number, number, Command, Uint8Array]
  t.equal(verifyWire([wire(e1), wire(e2)], 0, new Uint8Array(32)).length, 2)
  t.throws(() => verifyWire([wire(e1), wire(e3)], 0, new Uint8Array(32)), /gap: expected seq 2, got 3/)
  const forged = wire(e2)
  forged[2] = deposit(99)
  t.throws(() => verifyWire([wire(e1), forged], 0, new Uint8Array(32)), /hash mismatch at seq 2/)
  t.throws(() => verifyWire([wire(e2)], 1, new Uint8Array(32)), /hash mismatch at seq 2/, 'wrong previous hash')
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
