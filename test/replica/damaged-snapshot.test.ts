// A snapshot the disk damaged does not keep a node from starting: a snapshot only saves
// replaying what the log holds. Restore passes over one whose bytes no longer match their
// digest (logging it) for the one before, and failing all replays the log from its start: the
// state is the same either way. A cut log with no whole snapshot left still cannot start.

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import t, { type Test } from 'tap'
import { stateRoot } from '../../core/root.js'
import { seqKey } from '../../replica/level-keys.js'
import { MemoryLogStore } from '../../replica/memory-log.js'
import { ReplicaNode } from '../../replica/node.js'
import { SnapshotStore } from '../../replica/snapshot-store.js'
import { appendBatches } from '../helpers/log-fixtures.js'

const INTERVAL = 10
const ENTRIES = 35

interface Said { level: string; obj: Record<string, unknown>; msg?: string }

function recorder(): { said: Said[]; logger: ConstructorParameters<typeof ReplicaNode>[0]['logger'] } {
  const said: Said[] = []
  const at = (level: string) => (obj: object, msg?: string): void => { said.push({ level, obj: obj as Record<string, unknown>, msg }) }
  return { said, logger: { info: at('info'), warn: at('warn'), error: at('error') } }
}

/** A log of 35 deposits, and a snapshot store that a first node filled at 10, 20 and 30. */
async function fixture(t: Test): Promise<{ log: MemoryLogStore; dir: string; store: SnapshotStore; root: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'damaged-snapshot-'))
  const store = new SnapshotStore(dir)
  t.teardown(async () => {
    await store.close()
    await rm(dir, { recursive: true, force: true })
  })
  await store.open()
  const log = new MemoryLogStore()
  await log.open()
  await appendBatches(log, Array<number>(ENTRIES / 5).fill(5))
  const first = new ReplicaNode({ log, snapshots: store, checkpointInterval: INTERVAL })
  await first.restore()
  t.same((await store.list()).map((m) => m.seq), [10, 20, 30], 'snapshots at each checkpoint')
  return { log, dir, store, root: stateRoot(first.state) }
}

/** Changes the stored bytes of the snapshots at `seqs` behind the store's back, as a failing disk would. */
async function damage(dir: string, store: SnapshotStore, seqs: number[]): Promise<void> {
  await store.close()
  const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' })
  const data = db.sublevel<Uint8Array, Uint8Array>('data', { keyEncoding: 'view', valueEncoding: 'view' })
  for (const seq of seqs) {
    const bytes = (await data.get(seqKey(seq)))!
    bytes[bytes.length >> 1]! ^= 0x10
    await data.put(seqKey(seq), bytes)
  }
  await db.close()
  await store.open()
}

t.test('the newest snapshot damaged: restored from the one before, the same state', async (t) => {
  const f = await fixture(t)
  await damage(f.dir, f.store, [30])
  const { said, logger } = recorder()
  const node = new ReplicaNode({ log: f.log, snapshots: f.store, checkpointInterval: INTERVAL, logger })
  await node.restore()
  t.equal(stateRoot(node.state), f.root, 'the same root as the node that wrote them')
  t.equal(node.state.seq, ENTRIES)
  t.match(said.filter((s) => s.level === 'error'), [{ obj: { seq: 30, err: /snapshot at seq 30 does not match its digest/ },
    msg: 'snapshot damaged: passed over for an older one, or the log from its start' }], 'the damaged one is logged')
  t.match(said.find((s) => s.msg === 'restored snapshot'), { obj: { seq: 20 } }, 'the one before it restored')
})

t.test('every snapshot damaged: the log replays from its start', async (t) => {
  const f = await fixture(t)
  await damage(f.dir, f.store, [10, 20, 30])
  const { said, logger } = recorder()
  const node = new ReplicaNode({ log: f.log, snapshots: f.store, checkpointInterval: INTERVAL, logger })
  await node.restore()
  t.equal(stateRoot(node.state), f.root, 'the same root')
  t.same(said.filter((s) => s.level === 'error').map((s) => s.obj.seq), [30, 20, 10], 'each logged, newest first')
  t.notOk(said.some((s) => s.msg === 'restored snapshot'), 'none restored')
})

t.test('a log cut past its start with no whole snapshot left is refused, as before', async (t) => {
  const f = await fixture(t)
  await f.log.dropBefore(21)
  await damage(f.dir, f.store, [20, 30])
  const { said, logger } = recorder()
  const node = new ReplicaNode({ log: f.log, snapshots: f.store, checkpointInterval: INTERVAL, logger })
  await t.rejects(node.restore(), { message: 'log starts at 21 and no snapshot covers what came before' })
  t.same(said.filter((s) => s.level === 'error').map((s) => s.obj.seq), [30, 20], 'the usable ones were tried; 10 is before the log\'s base')
})
