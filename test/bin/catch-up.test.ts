// `replica --catch-up-from` (bin/catch-up.ts): what a log lacks appended from an archive's
// segments, those wholly before its end not read; an archive of another log, or with a hole,
// refused where it stops continuing this one.

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { segmentName, writeLogFile } from '../../chain/log-file.js'
import { GENESIS_HASH, type LogEntry } from '../../replica/entry.js'
import { LevelLogStore } from '../../replica/level-log.js'
import { catchUpFromArchive } from '../../bin/catch-up.js'
import { OperatorError } from '../../bin/operator-error.js'
import { chain, views } from '../helpers/log-fixtures.js'

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'catch-up-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

async function openLog(t: Test, dir: string, entries: LogEntry[]): Promise<LevelLogStore> {
  const log = new LevelLogStore(join(dir, 'log'))
  await log.open()
  t.teardown(() => log.close())
  if (entries.length > 0) await log.append(entries)
  return log
}

async function segment(dir: string, entries: LogEntry[]): Promise<void> {
  await writeLogFile(join(dir, segmentName(entries[0]!.seq, entries[entries.length - 1]!.seq)), (async function* () { yield entries })(), { gzip: true })
}

const all = chain(1, 300, GENESIS_HASH)

t.test('appends what the log lacks, from the segment holding its next entry on', async (t) => {
  const dir = await tempDir(t)
  const archive = join(dir, 'archive')
  const { mkdir } = await import('node:fs/promises')
  await mkdir(archive)
  await segment(archive, all.slice(0, 100))
  await segment(archive, all.slice(100, 200))
  await segment(archive, all.slice(200, 300))
  // A segment wholly before the log's end is not even read: this one is garbage.
  await writeFile(join(archive, segmentName(1, 100)), 'not a segment')
  const log = await openLog(t, dir, all.slice(0, 150))
  t.equal(await catchUpFromArchive(log, archive), 150)
  t.same([log.firstSeq, log.lastSeq], [1, 300])
  t.same(views(await log.read(1)), views(all))
  t.equal(await catchUpFromArchive(log, archive), 0, 'nothing more')
})

t.test('an archive of another log, or with a hole, is refused where it stops continuing this one', async (t) => {
  const dir = await tempDir(t)
  const { mkdir } = await import('node:fs/promises')
  const other = join(dir, 'other')
  await mkdir(other)
  await segment(other, chain(1, 100, GENESIS_HASH, 'x'))
  const log = await openLog(t, dir, all.slice(0, 50))
  const err = await catchUpFromArchive(log, other).catch((e: unknown) => e)
  t.type(err, OperatorError, 'the operator\'s to mend')
  t.match((err as Error).message, /^--catch-up-from .*other: append refused at seq 51: .* \(this log ends at 50\)$/)
  t.equal(log.lastSeq, 50, 'nothing appended')

  const holed = join(dir, 'holed')
  await mkdir(holed)
  await segment(holed, all.slice(0, 100))
  await segment(holed, all.slice(200, 300))
  await t.rejects(catchUpFromArchive(log, holed), /append refused at seq 201: expected seq 101 \(this log ends at 50\)$/)
  t.equal(log.lastSeq, 50, 'the write holding the hole refused whole')
  await t.rejects(catchUpFromArchive(log, join(dir, 'missing')), /^--catch-up-from .*missing: ENOENT/)
})
