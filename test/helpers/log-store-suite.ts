// The behaviour every LogStore shares, written once and run against each implementation
// (level-log.test.ts, memory-log.test.ts): chain checks on append, ranges, restarts, drops.

import type { Test } from 'tap'
import { AppendRefusedError } from '../../replica/chain.js'
import { GENESIS_HASH, hex, makeEntry, type LogEntry } from '../../replica/entry.js'
import type { LogStore } from '../../replica/log-store.js'
import { REPLICA_LIMITS } from '../../core/limits.js'
import { appendBatches, chain, collect, command, view, views } from './log-fixtures.js'

export interface StoreFactory {
  /** A new, empty, open store; released by the factory at the end of the test. */
  create(t: Test): Promise<LogStore>
  /** Closes `store` and opens its contents again, as after a restart. */
  reopen(store: LogStore): Promise<LogStore>
}

// Batch starts 1, 4, 9, 10, 17; last seq 20.
const SIZES = [3, 5, 1, 7, 4]

async function refused(t: Test, store: LogStore, entries: LogEntry[], what: string): Promise<void> {
  const before = { lastSeq: store.lastSeq, lastHash: hex(store.lastHash), all: views(await store.read(store.firstSeq)) }
  await t.rejects(store.append(entries), AppendRefusedError, what)
  const after = { lastSeq: store.lastSeq, lastHash: hex(store.lastHash), all: views(await store.read(store.firstSeq)) }
  t.same(after, before, `${what}: nothing changed`)
}

export function logStoreSuite(t: Test, factory: StoreFactory): void {
  t.test('a new store is empty at genesis', async (t) => {
    const store = await factory.create(t)
    t.same([store.firstSeq, store.lastSeq, hex(store.lastHash)], [1, 0, hex(GENESIS_HASH)])
    t.same(await store.read(1), [])
    t.same((await collect(store.readBatches())).entries, [])
  })

  t.test('append refuses what does not continue the chain and changes nothing', async (t) => {
    let store = await factory.create(t)
    await appendBatches(store, [2])
    const next = chain(3, 3, store.lastHash)
    await refused(t, store, [], 'an empty batch')
    await refused(t, store, chain(4, 2, store.lastHash), 'a gap in seq')
    await refused(t, store, chain(2, 2, store.lastHash), 'a repeated seq')
    await refused(t, store, chain(3, 2, GENESIS_HASH), 'a wrong prevHash')
    await refused(t, store, [next[0]!, { ...next[1]!, command: command(99) }], 'a hash that does not match the command')
    await refused(t, store, [next[0]!, { ...next[1]!, time: next[1]!.time + 1 }], 'a hash that does not match the time')
    await refused(t, store, [next[0]!, next[2]!], 'a gap inside the batch')
    await refused(t, store, [next[0]!, makeEntry(4, next[1]!.time, next[1]!.command, GENESIS_HASH)], 'a break inside the batch')
    await refused(t, store, chain(3, REPLICA_LIMITS.batchEntriesMax + 1, store.lastHash), 'a batch past the limit')
    store = await factory.reopen(store)
    t.equal(store.lastSeq, 2, 'refusals left nothing on disk')
    await store.append(next)
    t.same(views(await store.read(3)), views(next), 'the right batch still appends')
  })

  t.test('read returns exact ranges across batch boundaries, with limits', async (t) => {
    const store = await factory.create(t)
    const all = await appendBatches(store, SIZES)
    t.equal(store.lastSeq, 20)
    t.same(hex(store.lastHash), hex(all[19]!.hash))
    t.same(views(await store.read(1)), views(all), 'everything, every field')
    const wrong: string[] = []
    for (let from = 1; from <= 21; from++) {
      for (let to = from - 1; to <= 22; to++) {
        for (const limit of [1, 2, 5, 100]) {
          const got = (await store.read(from, to, limit)).map((e) => e.seq)
          const want = all.slice(from - 1, Math.min(to, 20, from + limit - 1)).map((e) => e.seq)
          if (got.join() !== want.join()) wrong.push(`read(${from}, ${to}, ${limit}) = [${got}]`)
        }
      }
    }
    t.same(wrong, [], 'every range')
    t.same(views(await store.read(9, 10)), views(all.slice(8, 10)), 'a one-entry batch and its neighbour')
    await t.rejects(store.read(1, 20, 0), 'a zero limit is refused')
    await t.rejects(store.read(1, 20, REPLICA_LIMITS.readEntriesMax + 1), 'a limit past the maximum is refused')
  })

  t.test('readBatches streams everything from a seq, in stored batches', async (t) => {
    const store = await factory.create(t)
    const all = await appendBatches(store, SIZES)
    const whole = await collect(store.readBatches())
    t.same(views(whole.entries), views(all))
    t.equal(whole.batches, SIZES.length, 'one array per appended batch')
    const fromMiddle = await collect(store.readBatches(6))
    t.same(fromMiddle.entries.map((e) => e.seq), all.slice(5).map((e) => e.seq))
    t.equal(fromMiddle.batches, 4)
    t.same((await collect(store.readBatches(21))).entries, [], 'past the end')
  })

  t.test('a restart keeps every entry and the chain continues', async (t) => {
    let store = await factory.create(t)
    const all = await appendBatches(store, SIZES)
    store = await factory.reopen(store)
    t.same([store.firstSeq, store.lastSeq, hex(store.lastHash)], [1, 20, hex(all[19]!.hash)])
    t.same(views(await store.read(1)), views(all))
    all.push(...await appendBatches(store, [2, 3]))
    store = await factory.reopen(store)
    t.same(views(await store.read(1)), views(all))
  })

  t.test('knownCommitted rises with the append that carries it, survives a restart, and never falls', async (t) => {
    let store = await factory.create(t)
    t.equal(store.knownCommitted, 0, 'none recorded in a new store')
    await store.append(chain(1, 5, store.lastHash))
    await store.append(chain(6, 5, store.lastHash), 4)
    t.equal(store.knownCommitted, 4)
    await refused(t, store, chain(12, 2, store.lastHash), 'a gap in seq, carrying a commit point')
    await t.rejects(store.append(chain(12, 1, store.lastHash), 9), AppendRefusedError)
    t.equal(store.knownCommitted, 4, 'a refused append records nothing')
    await store.append(chain(11, 2, store.lastHash), 2)
    t.equal(store.knownCommitted, 4, 'a lower one leaves it')
    await store.append(chain(13, 1, store.lastHash))
    store = await factory.reopen(store)
    t.equal(store.knownCommitted, 4, 'after a restart')
    await store.append(chain(14, 1, store.lastHash), 12)
    store = await factory.reopen(store)
    t.same([store.knownCommitted, store.lastSeq], [12, 14])
  })

  t.test('dropBefore drops whole batches below seq and the base moves with them', async (t) => {
    let store = await factory.create(t)
    const all = await appendBatches(store, SIZES)
    await store.dropBefore(1)
    t.equal(store.firstSeq, 1, 'nothing below 1')
    await store.dropBefore(6)
    t.equal(store.firstSeq, 4, 'the batch holding 6 starts at 4 and is kept')
    t.same(views(await store.read(4)), views(all.slice(3)))
    await t.rejects(store.read(3), RangeError, 'dropped entries are not served')
    store = await factory.reopen(store)
    t.same([store.firstSeq, store.lastSeq], [4, 20], 'the drop survives a restart')
    t.same(views(await store.read(4)), views(all.slice(3)))
    await store.dropBefore(10)
    t.equal(store.firstSeq, 10)
    t.same(views((await collect(store.readBatches())).entries), views(all.slice(9)))
    await store.dropBefore(21)
    t.same([store.firstSeq, store.lastSeq, hex(store.lastHash)], [21, 20, hex(all[19]!.hash)], 'everything dropped')
    t.same(await store.read(21), [])
    await t.rejects(store.dropBefore(22), 'cannot drop past lastSeq + 1')
    const more = await appendBatches(store, [2])
    store = await factory.reopen(store)
    t.same([store.firstSeq, store.lastSeq], [21, 22])
    t.same(views(await store.read(21)), views(more))
  })

  t.test('truncateAfter drops later entries, rewriting a batch it cuts', async (t) => {
    let store = await factory.create(t)
    const all = await appendBatches(store, SIZES)
    await store.truncateAfter(25)
    t.equal(store.lastSeq, 20, 'nothing after 25')
    await store.truncateAfter(12)
    t.same([store.lastSeq, hex(store.lastHash)], [12, hex(all[11]!.hash)], 'cut inside the batch 10..16')
    t.same(views(await store.read(1)), views(all.slice(0, 12)))
    const fork = await appendBatches(store, [3], 'fork')
    store = await factory.reopen(store)
    t.same(views(await store.read(1)), views([...all.slice(0, 12), ...fork]), 'a different chain continues after the cut')
    await store.truncateAfter(9)
    t.same([store.lastSeq, hex(store.lastHash)], [9, hex(all[8]!.hash)], 'cut at a batch boundary')
    await store.truncateAfter(0)
    t.same([store.firstSeq, store.lastSeq, hex(store.lastHash)], [1, 0, hex(GENESIS_HASH)], 'cut to nothing')
    store = await factory.reopen(store)
    t.equal(store.lastSeq, 0)
    await appendBatches(store, [2])
    t.equal(store.lastSeq, 2)
  })

  t.test('truncateAfter cannot go below the base', async (t) => {
    const store = await factory.create(t)
    const all = await appendBatches(store, SIZES)
    await store.dropBefore(9)
    await t.rejects(store.truncateAfter(7), 'below firstSeq - 1')
    await store.truncateAfter(8)
    t.same([store.firstSeq, store.lastSeq, hex(store.lastHash)], [9, 8, hex(all[7]!.hash)])
    await appendBatches(store, [1])
    t.equal(store.lastSeq, 9)
  })

  t.test('reset continues the chain from a snapshot seq and hash', async (t) => {
    let store = await factory.create(t)
    await appendBatches(store, SIZES)
    const anchor = chain(100, 1, GENESIS_HASH, 'other')[0]!
    await store.reset(100, anchor.hash)
    t.same([store.firstSeq, store.lastSeq, hex(store.lastHash)], [101, 100, hex(anchor.hash)])
    t.same(await store.read(101), [])
    await t.rejects(store.read(20), RangeError, 'the old entries are gone')
    store = await factory.reopen(store)
    t.same([store.firstSeq, store.lastSeq, hex(store.lastHash)], [101, 100, hex(anchor.hash)], 'the reset survives a restart')
    await refused(t, store, chain(101, 1, GENESIS_HASH), 'an entry not linked to the reset hash')
    const next = chain(101, 4, anchor.hash)
    await store.append(next)
    t.same(views(await store.read(101)), views(next))
    await store.reset(5, next[0]!.hash)
    t.same([store.firstSeq, store.lastSeq], [6, 5], 'a reset may go back')
    store = await factory.reopen(store)
    t.same([store.firstSeq, store.lastSeq, hex(store.lastHash)], [6, 5, hex(next[0]!.hash)])
  })

  t.test('a 1,000-entry batch and many batches read back in full', async (t) => {
    const store = await factory.create(t)
    const all = await appendBatches(store, Array.from({ length: 20 }, () => 1000))
    t.equal(store.lastSeq, 20_000)
    const { entries, batches } = await collect(store.readBatches())
    t.equal(batches, 20)
    t.same(entries.map((e) => e.seq), all.map((e) => e.seq))
    t.same(view(entries[12_345]!), view(all[12_345]!))
    t.equal((await store.read(999, 20_000, 5000)).length, 5000)
  })
}
