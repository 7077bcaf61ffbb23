// The LevelDB log store: the shared LogStore suite, then what only a disk has: the key
// layout, torn and corrupt tails repaired at open, corruption in the middle refused on read.

import { readdirSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import t, { type Test } from 'tap'
import { decodeBatch, encodeEntries } from '../../replica/batch-codec.js'
import { LogCorruptError } from '../../replica/chain.js'
import { encodeBody, GENESIS_HASH, hex, packr, type LogEntry } from '../../replica/entry.js'
import { keySeq, keySpaces, seqKey } from '../../replica/level-keys.js'
import { LevelLogStore, type LevelLogOptions } from '../../replica/level-log.js'
import { ChainVerifier } from '../../replica/chain-verifier.js'
import type { Logger } from '../../replica/log-store.js'
import { REPLICA_LIMITS } from '../../core/limits.js'
import { appendBatches, chain, collect, views } from '../helpers/log-fixtures.js'
import { logStoreSuite } from '../helpers/log-store-suite.js'
import { EXCHANGE_BIN, NODE, NODE_ARGS } from '../helpers/paths.js'
import { spawnSync } from 'node:child_process'

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'level-log-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

const stores = new Set<LevelLogStore>()
t.teardown(async () => { for (const s of stores) await s.close() })

async function openStore(dir: string, logger?: Logger, options: LevelLogOptions = {}): Promise<LevelLogStore> {
  const store = new LevelLogStore(dir, { ...options, ...(logger ? { logger } : {}) })
  await store.open()
  stores.add(store)
  return store
}

async function closeStore(store: LevelLogStore): Promise<void> {
  await store.close()
  stores.delete(store)
}

logStoreSuite(t, {
  async create(t) {
    return openStore(await tempDir(t))
  },
  async reopen(store) {
    const level = store as LevelLogStore
    await closeStore(level)
    return openStore(level.dir)
  },
})

t.test('with every read checked on the verifier thread', async (t) => {
  const always: LevelLogOptions = { verifyInWorker: 'always' }
  logStoreSuite(t, {
    async create(t) {
      return openStore(await tempDir(t), undefined, always)
    },
    async reopen(store) {
      const level = store as LevelLogStore
      await closeStore(level)
      return openStore(level.dir, undefined, always)
    },
  })
})

/** Runs `fn` on the raw key spaces of a closed store's directory, through a second handle. */
async function raw(dir: string, fn: (spaces: ReturnType<typeof keySpaces>) => Promise<void>): Promise<void> {
  const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' })
  await db.open()
  try {
    await fn(keySpaces(db))
  } finally {
    await db.close()
  }
}

function warnings(): { logger: Logger, seen: { obj: Record<string, unknown>, msg: string }[] } {
  const seen: { obj: Record<string, unknown>, msg: string }[] = []
  return { seen, logger: { warn: (obj, msg) => seen.push({ obj: obj as Record<string, unknown>, msg }) } }
}

/** A store at `dir` holding batches of `sizes`, closed; returns its entries. */
async function build(dir: string, sizes: number[]): Promise<LogEntry[]> {
  const store = await openStore(dir)
  const all = await appendBatches(store, sizes)
  await closeStore(store)
  return all
}

/** A batch value whose entries are internally sound but whose body `i` was altered. */
function alteredBatch(entries: LogEntry[], i: number): Uint8Array {
  const bodies = entries.map((e) => encodeBody(e.seq, e.time, e.command))
  bodies[i] = encodeBody(entries[i]!.seq, entries[i]!.time + 1, entries[i]!.command)
  return encodeEntries(entries, bodies)
}

t.test('one value per batch, keyed by the big-endian seq of its first entry', async (t) => {
  const dir = await tempDir(t)
  await build(dir, [3, 5, 4])
  await raw(dir, async ({ log }) => {
    const keys = await log.keys().all()
    t.same(keys.map(keySeq), [1, 4, 9])
    t.same([...keys[2]!], [0, 0, 0, 0, 0, 0, 0, 9])
  })
  t.same([...seqKey(2 ** 40 + 258)], [0, 0, 1, 0, 0, 0, 1, 2], 'big-endian past 32 bits')
  t.equal(keySeq(seqKey(2 ** 53 - 1)), 2 ** 53 - 1)
  // keySeq reads seqs below 2^32 from the low word alone: both sides of that edge round-trip.
  for (const seq of [0, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 40 + 258]) t.equal(keySeq(seqKey(seq)), seq, `seq ${seq}`)
})

t.test('open creates a missing directory', async (t) => {
  const dir = join(await tempDir(t), 'a', 'b')
  const store = await openStore(dir)
  await appendBatches(store, [1])
  t.equal(store.lastSeq, 1)
})

t.test('a log another process holds is refused with a message saying so', async (t) => {
  const dir = await tempDir(t)
  const store = await openStore(join(dir, 'log'))
  await appendBatches(store, [3])
  // What an operator auditing, replaying or exporting a running node's data sees.
  for (const args of [['audit', '--data', dir], ['replay', dir], ['export-log', '--data', dir, '--out', join(dir, 'x')]]) {
    const r = spawnSync(NODE, [...NODE_ARGS, EXCHANGE_BIN, ...args], { encoding: 'utf8' })
    t.equal(r.status, 1, args[0])
    t.equal(r.stderr, `exchange: ${join(dir, 'log')} is in use (by a node running on this data directory?): stop it first\n`)
  }
  await closeStore(store)
  const r = spawnSync(NODE, [...NODE_ARGS, EXCHANGE_BIN, 'audit', '--data', dir], { encoding: 'utf8' })
  t.equal(r.status, 0, 'once it is let go the audit runs')
  t.match(r.stdout, /entries +3 replayed/)
})

t.test('the tools that read a log refuse a --data that holds none, and create nothing there', async (t) => {
  const tools = (dir: string): string[][] => [['audit', '--data', dir], ['replay', dir], ['export-log', '--data', dir, '--out', join(dir, 'x')]]
  // A mistyped --data: before, the audit made a LevelDB there and passed it, empty.
  const empty = await tempDir(t)
  for (const args of tools(empty)) {
    const r = spawnSync(NODE, [...NODE_ARGS, EXCHANGE_BIN, ...args], { encoding: 'utf8' })
    t.same([r.status, r.stderr], [1, `exchange: no log in ${join(empty, 'log')}: is --data the data directory of a node that has run?\n`], args[0])
  }
  t.same(readdirSync(empty), [], 'nothing created')
  // A node that made its log and stopped before writing to it.
  const unused = await tempDir(t)
  await closeStore(await openStore(join(unused, 'log')))
  for (const args of tools(unused)) {
    const r = spawnSync(NODE, [...NODE_ARGS, EXCHANGE_BIN, ...args], { encoding: 'utf8' })
    t.same([r.status, r.stderr], [1, `exchange: a log with no entries in ${join(unused, 'log')}: is --data the data directory of a node that has run?\n`], args[0])
  }
})

t.test('garbage in the last batch is truncated at open and appending continues', async (t) => {
  const dir = await tempDir(t)
  const all = await build(dir, [3, 5, 4])
  await raw(dir, ({ log }) => log.put(seqKey(9), new Uint8Array([0xc1, 0xff, 0x00, 0x13])))
  const { logger, seen } = warnings()
  let store = await openStore(dir, logger)
  t.same([store.lastSeq, hex(store.lastHash)], [8, hex(all[7]!.hash)], 'the tail is the last sound entry')
  t.equal(seen.length, 1)
  t.match(seen[0]!.obj, { batchesDropped: 1, firstDroppedSeq: 9, lastSeq: 8, entriesDropped: 1, entriesDroppedExact: false })
  const next = await appendBatches(store, [2], 'after')
  await closeStore(store)
  store = await openStore(dir, logger)
  t.equal(seen.length, 1, 'a sound log opens without warnings')
  t.same(views(await store.read(1)), views([...all.slice(0, 8), ...next]))
})

t.test('a last batch that breaks the chain is truncated, counting its entries', async (t) => {
  for (const kind of ['altered body', 'foreign prevHash'] as const) {
    const dir = await tempDir(t)
    const all = await build(dir, [3, 5, 4])
    const bad = kind === 'altered body'
      ? alteredBatch(all.slice(8), 2)
      : (() => {
          const foreign = chain(9, 4, GENESIS_HASH, 'foreign')
          return encodeEntries(foreign, foreign.map((e) => encodeBody(e.seq, e.time, e.command)))
        })()
    await raw(dir, ({ log }) => log.put(seqKey(9), bad))
    const { logger, seen } = warnings()
    const store = await openStore(dir, logger)
    t.equal(store.lastSeq, 8, kind)
    t.match(seen[0]?.obj, { batchesDropped: 1, entriesDropped: 4, entriesDroppedExact: true }, kind)
    await appendBatches(store, [1])
    t.equal(store.lastSeq, 9)
  }
})

t.test('several torn batches at the tail all go, up to the repair limit', async (t) => {
  const dir = await tempDir(t)
  const all = await build(dir, [2, 2, 2, 2, 2, 2])
  await raw(dir, async ({ log }) => {
    await log.put(seqKey(9), new Uint8Array([1, 2, 3]))
    await log.put(seqKey(11), new Uint8Array([4, 5, 6]))
  })
  const { logger, seen } = warnings()
  const store = await openStore(dir, logger)
  t.same([store.lastSeq, hex(store.lastHash)], [8, hex(all[7]!.hash)])
  t.match(seen[0]!.obj, { batchesDropped: 2, entriesDropped: 3, entriesDroppedExact: false })
  t.same((await collect(store.readBatches())).entries.map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7, 8])
})

t.test('a reader (the tools\' `existing`) repairs nothing: it reads what holds, then fails with the damaged tail', async (t) => {
  const dir = await tempDir(t)
  const all = await build(dir, [3, 5, 4])
  await raw(dir, ({ log }) => log.put(seqKey(9), alteredBatch(all.slice(8), 1)))
  const { logger, seen } = warnings()
  const reader = await openStore(dir, logger, { existing: true })
  t.equal(reader.lastSeq, 8, 'what holds')
  const read: number[] = []
  await t.rejects((async () => { for await (const b of reader.readBatches(1)) read.push(...b.map((e) => e.seq)) })(),
    { name: 'LogCorruptError', seq: 9, message: /^log corrupt at seq 9: the log's tail from here \(1 batch, 4 entries\) does not hold: .*\(left as found/ })
  t.same(read, [1, 2, 3, 4, 5, 6, 7, 8], 'every sound entry first')
  t.same(seen, [], 'nothing dropped, so nothing warned')
  await closeStore(reader)
  await raw(dir, async ({ log }) => { t.same((await log.keys().all()).map(keySeq), [1, 4, 9], 'the damaged batch is still there') })
  // A node opening it drops the torn tail, as before.
  const node = await openStore(dir, logger)
  t.equal(node.lastSeq, 8)
  t.equal(seen.length, 1)
})

t.test('a log none of whose batches holds is refused, not started afresh', async (t) => {
  const dir = await tempDir(t)
  await build(dir, [6])
  await raw(dir, ({ log }) => log.put(seqKey(1), new Uint8Array([1, 2, 3])))
  await t.rejects(new LevelLogStore(dir).open(), { name: 'LogCorruptError', message: /no batch of the log continues the chain; refusing to start/ })
  await t.rejects(new LevelLogStore(dir, { existing: true }).open(), { name: 'LogCorruptError', seq: 1, message: /tail from here/ },
    'a reader names the damage, not "a log with no entries"')
  await raw(dir, async ({ log }) => { t.equal((await log.keys().all()).length, 1, 'still there') })
})

t.test('a tail too long to be a torn write makes open refuse', async (t) => {
  const dir = await tempDir(t)
  const n = REPLICA_LIMITS.tailRepairBatchesMax + REPLICA_LIMITS.tailCheckBatches + 2
  await build(dir, Array.from({ length: n }, () => 1))
  await raw(dir, async ({ log }) => {
    for (let seq = 3; seq <= n; seq++) await log.put(seqKey(seq), new Uint8Array([seq]))
  })
  await t.rejects(new LevelLogStore(dir).open(), LogCorruptError)
  await raw(dir, async () => {}) // the failed open released the directory's lock
})

t.test('a corrupt entry in the middle makes reads through it throw', async (t) => {
  const dir = await tempDir(t)
  const sizes = [3, 3, 3, 3, 3, 3, 3, 3]
  const all = await build(dir, sizes)
  // Seq 8 sits in the batch 7..9, well below the tail open() checks.
  await raw(dir, ({ log }) => log.put(seqKey(7), alteredBatch(all.slice(6, 9), 1)))
  const store = await openStore(dir)
  t.equal(store.lastSeq, 24, 'open verifies the tail only')
  await t.rejects(store.read(1), { name: 'LogCorruptError', message: 'log corrupt at seq 8: hash does not match its body' })
  await t.rejects(store.read(8, 8), LogCorruptError, 'even a read of that entry alone')
  await t.rejects(collect(store.readBatches()), LogCorruptError, 'replay stops at it')
  t.same(views(await store.read(10)), views(all.slice(9)), 'reads after it are served')
  t.same(views(await store.read(1, 6)), views(all.slice(0, 6)), 'reads before it are served')
})

t.test('a missing batch in the middle is a gap, never skipped', async (t) => {
  const dir = await tempDir(t)
  const all = await build(dir, [3, 3, 3, 3, 3, 3, 3, 3])
  await raw(dir, ({ log }) => log.del(seqKey(7)))
  const store = await openStore(dir)
  await t.rejects(store.read(1), { name: 'LogCorruptError', message: /gap/ })
  await t.rejects(store.read(8), { name: 'LogCorruptError', message: /gap/ }, 'reading from inside the hole')
  t.same(views(await store.read(10)), views(all.slice(9)))
})

t.test('open finishes a dropBefore cut short after its base record was written', async (t) => {
  const dir = await tempDir(t)
  const all = await build(dir, [3, 5, 4])
  // dropBefore(4) commits by writing the base record, then deletes the batches below it.
  await raw(dir, ({ meta }) => meta.put('base', packr.pack([1, 3, all[2]!.hash])))
  const store = await openStore(dir)
  t.same([store.firstSeq, store.lastSeq], [4, 12])
  t.same(views((await collect(store.readBatches())).entries), views(all.slice(3)))
  await closeStore(store)
  await raw(dir, async ({ log }) => {
    t.same((await log.keys().all()).map(keySeq), [4, 9], 'the leftover batch is gone')
  })
})

t.test('dropBefore runs beside an append; a truncation or reset waits for it', async (t) => {
  const dir = await tempDir(t)
  const store = await openStore(dir)
  const all = await appendBatches(store, [10, 10, 10])
  const next = chain(31, 5, store.lastHash)
  // The archiver cuts while the sequencer appends (bin/log-archive.ts).
  await Promise.all([store.dropBefore(21), store.append(next)])
  t.same([store.firstSeq, store.lastSeq], [21, 35])
  t.same(views(await store.read(21)), views([...all.slice(20), ...next]))
  // A follower installing a snapshot (reset) or a rewind (truncateAfter) during a cut: not refused.
  await Promise.all([store.dropBefore(31), store.truncateAfter(33)])
  t.same([store.firstSeq, store.lastSeq], [31, 33])
  await Promise.all([store.dropBefore(33), store.reset(40, all[0]!.hash)])
  t.same([store.firstSeq, store.lastSeq], [41, 40], 'the reset came after the drop')
  await closeStore(store)
  const again = await openStore(dir)
  t.same([again.firstSeq, again.lastSeq], [41, 40])
})

t.test('readStored: the stored batches checked, never decoded; a corrupt one or a start inside a batch refused', async (t) => {
  const dir = await tempDir(t)
  // Eight batches: the one altered below lies under the tail open() checks and repairs.
  const all = await build(dir, [3, 3, 3, 3, 3, 3, 3, 3])
  let store = await openStore(dir)
  const stored = await drain(store.readStored(4))
  t.same(stored.slice(0, 3).map((b) => [b.seq, b.count, Array.from(b.ends)]), [[4, 3, [...b3(all, 3)]], [7, 3, [...b3(all, 6)]], [10, 3, [...b3(all, 9)]]])
  t.equal(stored.length, 7, 'to the last')
  t.same(hex(stored[0]!.prevHash), hex(all[2]!.hash), 'each batch names the hash before it')
  await t.rejects(drain(store.readStored(5)), { name: 'LogCorruptError', message: /no batch starts at 5/ })
  await closeStore(store)
  await raw(dir, ({ log }) => log.put(seqKey(7), alteredBatch(all.slice(6, 9), 1)))
  store = await openStore(dir)
  await t.rejects(drain(store.readStored(1)), { name: 'LogCorruptError', message: 'log corrupt at seq 8: hash does not match its body' })
  await store.dropBefore(4)
  await t.rejects(drain(store.readStored(1)), RangeError, 'dropped')
})

async function drain<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

/** Where each body of the batch of three from `from` ends, its bodies end to end. */
function b3(all: LogEntry[], from: number): number[] {
  let at = 0
  return all.slice(from, from + 3).map((e) => (at += encodeBody(e.seq, e.time, e.command).length))
}

t.test('a read racing a drop gets every entry it asked for or RangeError, never a shorter run', async (t) => {
  const dir = await tempDir(t)
  const store = await openStore(dir)
  const all = await appendBatches(store, Array.from({ length: 200 }, () => 5))
  const outcomes = { whole: 0, dropped: 0 }
  for (let cut = 6; cut <= 996; cut += 10) {
    const from = cut - 3
    // Started a few turns of the event loop apart, so the drop lands at every point of the read.
    const later = async (turns: number): Promise<void> => { for (let i = 0; i < turns; i++) await new Promise(setImmediate) }
    const [read] = await Promise.allSettled([later(((cut - 6) / 10) % 50).then(() => collect(store.readBatches(from))), store.dropBefore(cut)])
    if (read.status === 'fulfilled') {
      t.same(read.value.entries[0]?.seq, from, `read from ${from} began there`)
      t.equal(read.value.entries.length, all.length - from + 1)
      outcomes.whole++
    } else {
      t.type(read.reason, RangeError, `read from ${from}: ${(read.reason as Error).message}`)
      outcomes.dropped++
    }
  }
  t.equal(outcomes.whole + outcomes.dropped, 100, JSON.stringify(outcomes))
})

t.test('the verifier thread refuses corruption in the middle as the inline check does', async (t) => {
  const dir = await tempDir(t)
  const all = await build(dir, [3, 3, 3, 3, 3, 3, 3, 3])
  await raw(dir, ({ log }) => log.put(seqKey(7), alteredBatch(all.slice(6, 9), 1)))
  const store = await openStore(dir, undefined, { verifyInWorker: 'always' })
  await t.rejects(store.read(1), { name: 'LogCorruptError', message: 'log corrupt at seq 8: hash does not match its body' })
  await t.rejects(collect(store.readBatches()), { name: 'LogCorruptError', message: 'log corrupt at seq 8: hash does not match its body' })
  t.same(views(await store.read(10)), views(all.slice(9)), 'reads after it are served')
})

t.test('a body whose extent differs from the one hashed is refused', async (t) => {
  const dir = await tempDir(t)
  const all = await build(dir, [4])
  const verifier = new ChainVerifier()
  t.teardown(() => verifier.close())
  await raw(dir, async ({ log }) => {
    const bytes = (await log.get(seqKey(1)))!
    const { ends, tape } = await verifier.verifyBatch(1, bytes)
    t.same([...ends], all.map((_, i) => all.slice(0, i + 1).reduce((n, x) => n + encodeBody(x.seq, x.time, x.command).length, 0)))
    const wrong = Uint32Array.from(ends)
    wrong[1]! -= 1
    t.throws(() => decodeBatch(1, bytes, { ends: wrong }), { name: 'LogCorruptError', message: /seq 2: body does not end where its hash was checked/ })
    t.same(views(decodeBatch(1, bytes, { ends })), views(all), 'with the verifier\'s own answer it decodes')
    t.same(views(decodeBatch(1, bytes, { ends, tape })), views(all), 'and builds from its tape')
  })
})

t.test('reads check inline when the verifier thread cannot start, and say so once', async (t) => {
  const dir = await tempDir(t)
  const all = await build(dir, [3, 3, 3, 3, 3, 3, 3, 3])
  const verifier = new ChainVerifier(new URL('./no-such-verifier.js', import.meta.url))
  t.teardown(() => verifier.close())
  await t.rejects(verifier.verifyBatch(1, new Uint8Array([0x90])), { name: 'VerifierUnavailableError' })
  const { logger, seen } = warnings()
  const store = await openStore(dir, logger, { verifyInWorker: 'always', verifier })
  t.same(views(await store.read(1)), views(all))
  t.same(seen.map((w) => w.msg), ['chain verifier thread unavailable; checking hashes inline'])
  await closeStore(store)
  await raw(dir, ({ log }) => log.put(seqKey(7), alteredBatch(all.slice(6, 9), 2)))
  const reopened = await openStore(dir, logger, { verifyInWorker: 'always', verifier })
  await t.rejects(reopened.read(1), { name: 'LogCorruptError', message: 'log corrupt at seq 9: hash does not match its body' }, 'and still refuse corruption')
})
