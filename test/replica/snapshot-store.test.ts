// The snapshot store: a core state saved and loaded back decodes to the same state root;
// latest, at, list and prune; a snapshot whose bytes changed on disk is refused.

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import t, { type Test } from 'tap'
import { InvariantError } from '../../core/assert.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { hex } from '../../replica/entry.js'
import { seqKey } from '../../replica/level-keys.js'
import { REPLICA_LIMITS } from '../../core/limits.js'
import { SnapshotStore, type SnapshotMeta } from '../../replica/snapshot-store.js'
import { ALICE, BOB, BTCPERP, btcLots, btcTicks, TestExchange } from '../helpers/exchange.js'

async function openStore(t: Test): Promise<SnapshotStore> {
  const dir = await mkdtemp(join(tmpdir(), 'snapshots-'))
  const store = new SnapshotStore(dir)
  await store.open()
  t.teardown(async () => {
    await store.close()
    await rm(dir, { recursive: true, force: true })
  })
  return store
}

const hashOf = (seq: number): string => hex(new Uint8Array(32).fill(seq % 256))
const metaAt = (seq: number): SnapshotMeta => ({ seq, time: 1000 + seq, root: '0x' + '0'.repeat(64), hash: hashOf(seq) })

t.test('a saved core snapshot loads back to the same state root', async (t) => {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB]) ex.fund(a, 100_000)
  const order = { account: ALICE, sub: 0, type: 'PlaceOrder', marketId: BTCPERP, side: 'BUY', orderType: 'LIMIT' } as const
  ex.ok({ ...order, timeInForce: 'GTC', priceTicks: btcTicks(50_000), qtyLots: btcLots(0.5) })
  ex.ok({ ...order, account: BOB, side: 'SELL', timeInForce: 'GTC', priceTicks: btcTicks(50_000), qtyLots: btcLots(0.2) })
  const root = stateRoot(ex.state)
  const meta: SnapshotMeta = { seq: ex.state.seq, time: ex.state.time, root, hash: hashOf(7) }
  const store = await openStore(t)
  await store.save(meta, encodeSnapshot(ex.state))
  for (const loaded of [await store.latest(), await store.at(meta.seq)]) {
    t.same(loaded?.meta, meta)
    const state = decodeSnapshot(loaded!.bytes)
    t.equal(stateRoot(state), root)
    t.equal(state.seq, meta.seq)
  }
  await store.close()
  await store.open()
  t.equal(stateRoot(decodeSnapshot((await store.latest())!.bytes)), root, 'after a restart too')
})

t.test('latest, at, list and prune', async (t) => {
  const store = await openStore(t)
  t.equal(await store.latest(), undefined)
  t.same(await store.list(), [])
  for (const seq of [300, 100, 200]) await store.save(metaAt(seq), new Uint8Array([seq % 256, 1, 2]))
  t.same((await store.latest())?.meta, metaAt(300), 'the highest seq, whatever the save order')
  t.same([...(await store.at(100))!.bytes], [100, 1, 2])
  t.equal(await store.at(150), undefined)
  t.same(await store.list(), [metaAt(100), metaAt(200), metaAt(300)], 'oldest first')
  await store.prune(2)
  t.same((await store.list()).map((m) => m.seq), [200, 300])
  t.equal(await store.at(100), undefined)
  await t.rejects(store.prune(0), InvariantError, 'the newest is always kept')
})

t.test('a pinned snapshot survives pruning until the pin moves', async (t) => {
  const store = await openStore(t)
  for (const seq of [100, 200, 300, 400]) await store.save(metaAt(seq), new Uint8Array([1]))
  store.pin('proofs', 200)
  await store.prune(1)
  t.same((await store.list()).map((m) => m.seq), [200, 400], 'the newest and the pinned one')
  await store.save(metaAt(500), new Uint8Array([1]))
  await store.prune(2)
  t.same((await store.list()).map((m) => m.seq), [200, 400, 500])
  store.pin('proofs', 400)
  await store.prune(1)
  t.same((await store.list()).map((m) => m.seq), [400, 500], 'the old pin goes with the next prune')
  store.pin('base', 400)
  store.pin('proofs', undefined)
  for (const seq of [600, 700]) await store.save(metaAt(seq), new Uint8Array([1]))
  await store.prune(1)
  t.same((await store.list()).map((m) => m.seq), [400, 700], 'each purpose keeps its own pin')
})

t.test('save refuses malformed metas and keeps at most the limit', async (t) => {
  const store = await openStore(t)
  await t.rejects(store.save({ ...metaAt(1), root: 'abc' }, new Uint8Array([1])), InvariantError)
  await t.rejects(store.save({ ...metaAt(1), hash: 'xyz' }, new Uint8Array([1])), InvariantError)
  await t.rejects(store.save(metaAt(1), new Uint8Array()), InvariantError)
  const n = REPLICA_LIMITS.snapshotsKeptMax + 3
  for (let seq = 1; seq <= n; seq++) await store.save(metaAt(seq), new Uint8Array([1]))
  const seqs = (await store.list()).map((m) => m.seq)
  t.same([seqs.length, seqs[0]], [REPLICA_LIMITS.snapshotsKeptMax, 4])
})

t.test('bytes changed on disk are refused at load', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'snapshots-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const store = new SnapshotStore(dir)
  await store.open()
  await store.save(metaAt(5), new Uint8Array([1, 2, 3]))
  await store.close()
  const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' })
  const data = db.sublevel<Uint8Array, Uint8Array>('data', { keyEncoding: 'view', valueEncoding: 'view' })
  await data.put(seqKey(5), new Uint8Array([1, 2, 4]))
  await db.close()
  await store.open()
  await t.rejects(store.latest(), { message: /does not match its digest/ })
  await store.close()
})
