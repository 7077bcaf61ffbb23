// The exported log file (chain/log-file.ts): records written straight into one buffer read as
// msgpack reads them, whatever the body's length; a gzipped file reads the same as a plain one;
// a directory reads its segments in seq order and nothing else in it, and names a bad one; a
// file cut short is said so, with where it ends.

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { Packr } from 'msgpackr'
import t, { type Test } from 'tap'
import { packRecords, readLogFile, segmentName, writeLogFile } from '../../chain/log-file.js'
import { bodyOf, GENESIS_HASH, makeEntry, type LogEntry } from '../../replica/entry.js'
import { chain, collect, views } from '../helpers/log-fixtures.js'

const packr = new Packr({ useRecords: false })

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'log-file-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

async function* batchesOf(entries: LogEntry[], size: number): AsyncGenerator<LogEntry[]> {
  for (let i = 0; i < entries.length; i += size) yield entries.slice(i, i + size)
}

t.test('packed records are the bytes msgpack gives, for bodies of every header size', async (t) => {
  // Bodies under 256 bytes, under 65,536 and above: bin 8, 16 and 32 headers.
  const sizes = [10, 300, 70_000]
  let prev = GENESIS_HASH
  const entries = sizes.map((n, i) => {
    const e = makeEntry(i + 1, 1000 + i, { type: 'Deposit', account: '0x' + 'ab'.repeat(20), sub: 0, asset: 'USDT', amount: 1, wallet: 'PERP', ref: 'r'.repeat(n) }, prev)
    prev = e.hash
    return e
  })
  const expected = Buffer.concat(entries.map((e) => packr.pack([e.prevHash, e.hash, bodyOf(e)])))
  t.same(Buffer.from(packRecords(entries)), expected)
})

t.test('a file written plain or gzipped reads back the same entries', async (t) => {
  const dir = await tempDir(t)
  const entries = chain(1, 250, GENESIS_HASH)
  const plain = join(dir, 'plain.log')
  t.equal(await writeLogFile(plain, batchesOf(entries, 7)), 250)
  const zipped = join(dir, 'zipped.log.gz')
  t.equal(await writeLogFile(zipped, batchesOf(entries, 50), { gzip: true }), 250)
  for (const file of [plain, zipped]) {
    const r = await readLogFile(file)
    t.same(views((await collect(r.batches)).entries), views(entries), file)
    t.equal(r.bytesRead, r.size, 'progress ends at the file size')
  }
  // An operator's own gzip of an export reads too.
  const { readFile } = await import('node:fs/promises')
  await writeFile(join(dir, 'by-hand.gz'), gzipSync(await readFile(plain)))
  t.same(views((await collect((await readLogFile(join(dir, 'by-hand.gz'))).batches)).entries), views(entries))
})

t.test('a directory: its segments in seq order as one log; other files ignored; a bad one named', async (t) => {
  const dir = await tempDir(t)
  const entries = chain(1, 30, GENESIS_HASH)
  // Written out of order, with a file that is no segment beside them.
  await writeLogFile(join(dir, segmentName(21, 30)), batchesOf(entries.slice(20), 4), { gzip: true })
  await writeLogFile(join(dir, segmentName(1, 20)), batchesOf(entries.slice(0, 20), 4), { gzip: true })
  await writeFile(join(dir, 'README'), 'not a segment')
  await writeFile(join(dir, '000000000031.partial'), 'cut short')
  t.same(views((await collect((await readLogFile(dir)).batches)).entries), views(entries))
  await writeFile(join(dir, segmentName(31, 40)), gzipSync(Buffer.from('garbage')))
  await t.rejects(collect((await readLogFile(dir)).batches), new RegExp(`^${segmentName(31, 40).replace(/\./g, '\\.')}: `), 'the bad segment is named')
  const empty = await tempDir(t)
  await t.rejects(readLogFile(empty), /holds no log segments \(named like 000000000001-000000001000\.log\.gz\)/)
})

t.test('a file cut short: where it ends is said when read, however long after opening', async (t) => {
  const dir = await tempDir(t)
  const whole = join(dir, 'whole.log')
  await writeLogFile(whole, batchesOf(chain(1, 10, GENESIS_HASH), 5))
  const { readFile } = await import('node:fs/promises')
  const bytes = await readFile(whole)
  const header = packr.pack({ format: 'perp-exchange-log', version: 1 }).length
  for (const [size, where] of [[5, 'its header'], [header + 3, 'record 1'], [bytes.length - 1, 'record 10']] as const) {
    const file = join(dir, `cut-${size}.log`)
    await writeFile(file, bytes.subarray(0, size))
    const r = await readLogFile(file)
    // Read only later, as restore does once its staging log is open: the stream's end must wait for the reader.
    await new Promise((resolve) => setTimeout(resolve, 50))
    await t.rejects(collect(r.batches), { message: `${file} is not a whole exported log: it ends inside ${where}, at byte ${size} (truncated or damaged there)` })
  }
  // Gzipped whole, what it holds cut short: no byte of the file to name.
  const zipped = join(dir, 'cut.log.gz')
  await writeFile(zipped, gzipSync(bytes.subarray(0, header + 3)))
  await t.rejects(collect((await readLogFile(zipped)).batches),
    { message: `${zipped} is not a whole exported log: it ends inside record 1 (truncated or damaged there)` })
})
