// The log's archiver (bin/log-archive.ts) over a real LevelDB log and snapshot store: what it
// cuts (whole batches, at a held snapshot, within the keep and the bound), the segments it
// writes (read back as one log, file to file chained), a crash between a segment and its drop,
// and the snapshot a cut log restarts from kept through pruning.

import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { readLogFile } from '../../chain/log-file.js'
import { hex, type LogEntry } from '../../replica/entry.js'
import { LevelLogStore } from '../../replica/level-log.js'
import { SnapshotStore, type SnapshotMeta } from '../../replica/snapshot-store.js'
import { LogArchiver, PACE_MAX, PACE_MIN, type LogArchiverOptions } from '../../bin/log-archive.js'
import { appendBatches, collect, views } from '../helpers/log-fixtures.js'

interface Rig {
  dir: string
  log: LevelLogStore
  snapshots: SnapshotStore
  all: LogEntry[]
  archiver(o?: Partial<LogArchiverOptions>): LogArchiver
}

// Batches of 10 entries, 1..200; snapshots at every 50th seq.
async function rig(t: Test): Promise<Rig> {
  const dir = await mkdtemp(join(tmpdir(), 'log-archive-'))
  const log = new LevelLogStore(join(dir, 'log'))
  const snapshots = new SnapshotStore(join(dir, 'snapshots'))
  await log.open()
  await snapshots.open()
  t.teardown(async () => {
    await log.close()
    await snapshots.close()
    await rm(dir, { recursive: true, force: true })
  })
  const all = await appendBatches(log, Array.from({ length: 20 }, () => 10))
  for (const seq of [50, 100, 150, 200]) await snapshots.save(metaAt(seq, all), new Uint8Array([1]))
  return {
    dir, log, snapshots, all,
    archiver: (o = {}) => new LogArchiver({ log, snapshots, dir: join(dir, 'archive'), keep: 60, bound: () => Number.MAX_SAFE_INTEGER, ...o }),
  }
}

const metaAt = (seq: number, all: LogEntry[]): SnapshotMeta =>
  ({ seq, time: all[seq - 1]!.time, root: '0x' + '0'.repeat(64), hash: hex(all[seq - 1]!.hash) })

/** The log whose first drop fails, as if the process died once the segment was durable. */
function dropFailingOnce(log: LevelLogStore): LevelLogStore {
  let fail = true
  return new Proxy(log, {
    get(target, key) {
      if (key === 'dropBefore' && fail) return async () => { fail = false; throw new Error('killed') }
      const v = Reflect.get(target, key, target) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
}

const archived = async (r: Rig): Promise<string[]> => (await readdir(join(r.dir, 'archive'))).sort()

t.test('cuts at the newest snapshot the keep allows, archiving exactly what it drops', async (t) => {
  const r = await rig(t)
  const archiver = r.archiver()
  await archiver.open()
  const segments = await archiver.step()
  // Keep 60 of 200: a cut at most at 140, so at the snapshot at 100; the batch 91-100 ends there.
  t.same(segments.map((s) => [s.first, s.last]), [[1, 100]])
  t.same(await archived(r), ['000000000001-000000000100.log.gz'])
  t.same([r.log.firstSeq, r.log.lastSeq], [101, 200], 'the log holds what is left')
  const file = await readLogFile(join(r.dir, 'archive'))
  t.same(views((await collect(file.batches)).entries), views(r.all.slice(0, 100)), 'the segment holds every dropped entry, bytes and hashes')
  t.same(views(await r.log.read(101)), views(r.all.slice(100)))
  t.same(await archiver.step(), [], 'nothing more until the log grows')
  t.equal(archiver.segmentsWritten, 1)

  // 60 more entries: the cut may reach 200, where a snapshot is.
  const more = await appendBatches(r.log, [30, 30])
  const next = await archiver.step()
  t.same(next.map((s) => [s.first, s.last]), [[101, 200]])
  t.same(await archived(r), ['000000000001-000000000100.log.gz', '000000000101-000000000200.log.gz'])
  const both = await readLogFile(join(r.dir, 'archive'))
  t.same(views((await collect(both.batches)).entries), views(r.all), 'the directory reads as one log, chained file to file')
  t.same(views(await r.log.read(201)), views(more))
})

t.test('a snapshot inside a batch: the cut stops at the batch before it, and the next segment starts there', async (t) => {
  const r = await rig(t)
  await r.snapshots.save(metaAt(125, r.all), new Uint8Array([1]))
  const archiver = r.archiver({ keep: 70 })
  await archiver.open()
  // At most 130: the snapshot at 125 sits in the batch 121-130, so whole batches up to 120.
  t.same((await archiver.step()).map((s) => [s.first, s.last]), [[1, 120]])
  t.equal(r.log.firstSeq, 121)
  await appendBatches(r.log, [50])
  // At most 180: the snapshot at 150 ends its batch.
  t.same((await archiver.step()).map((s) => [s.first, s.last]), [[121, 150]])
  const file = await readLogFile(join(r.dir, 'archive'))
  t.same(views((await collect(file.batches)).entries), views(r.all.slice(0, 150)), 'no entry twice, none missing')
})

t.test('never past the bound, and nothing without a snapshot to restart from', async (t) => {
  const r = await rig(t)
  let bound = 40
  const archiver = r.archiver({ keep: 1, bound: () => bound })
  await archiver.open()
  t.same(await archiver.step(), [], 'no snapshot at or below 40')
  t.equal(r.log.firstSeq, 1)
  bound = 160
  t.same((await archiver.step()).map((s) => s.last), [150], 'the newest snapshot within the bound')
  const none = r.archiver({ keep: 1000 })
  t.same(await none.step(), [], 'a keep longer than the log cuts nothing')
})

t.test('a first cut of a long log goes into several segments', async (t) => {
  const r = await rig(t)
  const archiver = r.archiver({ keep: 0, segmentEntriesMax: 35 })
  await archiver.open()
  const segments = await archiver.step()
  t.same(segments.map((s) => [s.first, s.last]), [[1, 30], [31, 60], [61, 90], [91, 120], [121, 150], [151, 180], [181, 200]],
    'whole batches, at most 35 entries a segment')
  t.equal(r.log.firstSeq, 201)
  const file = await readLogFile(join(r.dir, 'archive'))
  t.same(views((await collect(file.batches)).entries), views(r.all))
})

t.test('a crash between a segment and its drop: the next step writes the same segment again', async (t) => {
  const r = await rig(t)
  const log = dropFailingOnce(r.log)
  const archiver = r.archiver({ log })
  await archiver.open()
  await t.rejects(archiver.step(), /killed/)
  t.same(await archived(r), ['000000000001-000000000100.log.gz'], 'the segment is whole')
  t.equal(r.log.firstSeq, 1, 'the log still holds it')
  t.same((await archiver.step()).map((s) => [s.first, s.last]), [[1, 100]])
  t.same(await archived(r), ['000000000001-000000000100.log.gz'], 'written again under the same name, no partial left')
  t.equal(r.log.firstSeq, 101)
})

t.test('a crash between a segment and its drop, then a later cut: the longer segment replaces the one left', async (t) => {
  const r = await rig(t)
  const log = dropFailingOnce(r.log)
  await t.rejects(r.archiver({ log }).step(), /killed/)
  t.same(await archived(r), ['000000000001-000000000100.log.gz'])
  // The log grew meanwhile: the next cut reaches the snapshot at 200.
  const all = [...r.all, ...await appendBatches(r.log, [60])]
  await r.snapshots.save(metaAt(260, all), new Uint8Array([1]))
  t.same((await r.archiver().step()).map((s) => [s.first, s.last]), [[1, 200]])
  t.same(await archived(r), ['000000000001-000000000200.log.gz'], 'one segment from 1')
  const file = await readLogFile(join(r.dir, 'archive'))
  t.same(views((await collect(file.batches)).entries), views(all.slice(0, 200)), 'the directory reads as one log')
})

t.test('the snapshot a cut log restarts from is kept through pruning, after a restart too', async (t) => {
  const r = await rig(t)
  const archiver = r.archiver()
  await archiver.open()
  await archiver.step()
  await r.snapshots.prune(1)
  t.same((await r.snapshots.list()).map((m) => m.seq), [100, 200], 'the newest and the base')
  // As after a restart: a new store object, pins gone, the archiver opened again.
  const dir = r.snapshots.dir
  await r.snapshots.close()
  const again = new SnapshotStore(dir)
  await again.open()
  t.teardown(() => again.close())
  const reopened = new LogArchiver({ log: r.log, snapshots: again, dir: join(r.dir, 'archive'), keep: 60, bound: () => 0 })
  await reopened.open()
  await again.save(metaAt(250, [...r.all, ...await appendBatches(r.log, [50])]), new Uint8Array([1]))
  await again.prune(1)
  t.same((await again.list()).map((m) => m.seq), [100, 250], 'the base pinned again at open')
})

t.test('the snapshot for the next cut is kept while the log grows past it by the keep', async (t) => {
  const r = await rig(t)
  const archiver = r.archiver({ keep: 100 })
  await archiver.open()
  t.same((await archiver.step()).map((s) => s.last), [100])
  // The node keeps only its newest snapshot here: every checkpoint prunes the rest.
  const all = [...r.all]
  for (const seq of [250, 300]) {
    all.push(...await appendBatches(r.log, [50]))
    await r.snapshots.save(metaAt(seq, all), new Uint8Array([1]))
    await r.snapshots.prune(1)
    await archiver.step()
  }
  await r.snapshots.prune(1)
  t.same((await r.snapshots.list()).map((m) => m.seq), [200, 300], 'the base at 200 and the newest, pinned for the next cut')
  t.equal(r.log.firstSeq, 201, 'cut at 200 once 100 entries followed it')
  all.push(...await appendBatches(r.log, [100]))
  await r.snapshots.save(metaAt(400, all), new Uint8Array([1]))
  await r.snapshots.prune(1)
  t.same((await archiver.step()).map((s) => [s.first, s.last]), [[201, 300]], 'then at 300, pinned when taken')
})

t.test('the pace: twice the rate the log grew at since the last step, within its bounds', async (t) => {
  const r = await rig(t)
  let now = 0
  const archiver = r.archiver({ keep: 1_000_000, now: () => now })
  await archiver.open()
  await archiver.step()
  t.equal(archiver.pace, PACE_MIN, 'the first step has no rate to go by')
  now += 1_000
  await appendBatches(r.log, Array.from({ length: 30 }, () => 100))
  await archiver.step()
  t.equal(archiver.pace, 6_000, '3,000 entries in a second, archived at twice that')
  now += 1_000
  await appendBatches(r.log, Array.from({ length: 50 }, () => 1000))
  await archiver.step()
  t.equal(archiver.pace, PACE_MAX, 'a burst of 50,000 in a second: at most the bound')
  now += 60_000
  await archiver.step()
  t.equal(archiver.pace, PACE_MIN, 'an idle log: at least the bound')
  const fixed = r.archiver({ entriesPerSecond: 123 })
  await fixed.step()
  t.equal(fixed.pace, 123, 'or as told')
})
