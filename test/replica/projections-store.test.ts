// The projections as a store: idempotent by seq, a gap refused, one batch per flush, the
// same answers after a rebuild from the log (whatever the batching) and after reopening.

import { join } from 'node:path'
import { Level } from 'level'
import t from 'tap'
import type { Event } from '../../core/events.js'
import { createProjections, type Projections } from '../../replica/projections/index.js'
import { key, prefixEnd } from '../../replica/projections/keys.js'
import { timeRangeBounds } from '../../replica/projections/time-range.js'
import { ALICE, BOB, BTCPERP, CAROL } from '../helpers/exchange.js'
import { answers, M, replay, scenario } from '../helpers/projections-answers.js'
import { Fixture, limit, trade } from '../helpers/projections-fixture.js'

t.test('the scenario fills every read model', async (t) => {
  const f = await Fixture.open(t)
  await scenario(f)
  const a = (await answers(f.p)) as Record<string, unknown[]>
  for (const k of ['trades1', 'agg1', 'k11m', 'trades3', `fills3${BOB}`, `income${BOB}`, `withdrawals${BOB}`, `transfers${BOB}`, `orders1${CAROL}`]) {
    t.ok(Array.isArray(a[k]) && a[k]!.length > 0, `${k} has rows`)
  }
})

t.test('rebuilding from the log gives the same answers, however it is batched', async (t) => {
  const f = await Fixture.open(t)
  await scenario(f)
  const expected = await answers(f.p)

  for (const flushEvery of [1, 7, 1_000_000]) {
    const p = await createProjections(join(f.dir, `rebuild-${flushEvery}`))
    await replay(p, f, flushEvery)
    t.same(await answers(p), expected, `flushing every ${flushEvery} entries`)
    await p.close()
  }

  await f.p.clear()
  t.equal(f.p.lastSeq, 0, 'clear starts over')
  t.same(await f.p.recentTrades(BTCPERP, 10), [])
  await replay(f.p, f, 3)
  t.same(await answers(f.p), expected, 'cleared and replayed in place')
})

t.test('reopening from disk keeps the data and the rolling state', async (t) => {
  const f = await Fixture.open(t)
  await scenario(f)
  const expected = await answers(f.p)
  const seq = f.p.lastSeq
  await f.reopen()
  t.equal(f.p.lastSeq, seq)
  t.same(await answers(f.p), expected)

  // After the reopen, a fill of an order placed before it, merging into the open aggregate.
  const before = (await f.p.aggTrades(BTCPERP, { limit: 1 }))[0]!
  await f.ok(limit(ALICE, 'BUY', 31000, 0.01), 0)
  const after = (await f.p.aggTrades(BTCPERP, { limit: 1 }))[0]!
  t.equal(after.aggId, before.aggId + 1, 'a new price opens a new aggregate')
  const resting = (await f.p.allOrders({ account: BOB, sub: 0 }, BTCPERP, { limit: 1 }))[0]!
  t.same([resting.status, resting.executedQtyLots], ['FILLED', 10], 'the order from before the reopen is filled')
  t.equal((await f.p.klines(BTCPERP, '1M', { limit: 10 })).length, 1, 'the month\'s kline went on from where it was')
  t.equal((await f.p.klines(BTCPERP, '1M', { limit: 10 }))[0]!.count, 7)
})

t.test('idempotent by seq; a gap or time going back is refused', async (t) => {
  const f = await Fixture.open(t)
  await scenario(f)
  const expected = await answers(f.p)
  const last = f.log[f.log.length - 1]!
  const bogus: Event[] = [{ type: 'deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 1, wallet: 'SPOT', ref: 'x', time: last.time }]
  f.p.apply(last.seq, last.time, last.events)
  f.p.apply(last.seq, last.time, bogus)
  f.p.apply(1, 0, bogus)
  await f.p.flush()
  t.same(await answers(f.p), expected, 'entries at or below lastSeq change nothing')

  t.throws(() => f.p.apply(last.seq + 2, last.time, []), /gap/)
  t.throws(() => f.p.apply(last.seq + 1, last.time - 1, []), /backwards/)
  t.equal(f.p.lastSeq, last.seq)
  f.p.apply(last.seq + 1, last.time, [])
  await f.p.flush()
  t.equal(f.p.flushedSeq, last.seq + 1, 'an entry with no events still moves lastSeq')
})

t.test('a broken invariant stops the projections', async (t) => {
  // The store's own apply throws; the worker's is tested in projections-worker.test.ts.
  const f = await Fixture.open(t, { worker: false })
  await scenario(f)
  const last = f.log[f.log.length - 1]!
  const replayed = f.log.find((e) => e.events.some((x) => x.type === 'trade'))!.events
  t.throws(() => f.p.apply(last.seq + 1, last.time, replayed), /trade 1 of market 1 after/)
  t.throws(() => f.p.apply(last.seq + 1, last.time, []), /stopped/)
  await t.rejects(f.p.flush(), /stopped/)
})

t.test('applying is synchronous; queries see what is flushed', async (t) => {
  // The store in this thread (the worker writes what a query finds pending first: projections-worker.test.ts).
  const f = await Fixture.open(t, { worker: false })
  for (const a of [ALICE, BOB]) await f.fund(a, 1_000_000)
  f.autoFlush = false
  await trade(f, ALICE, BOB, 30000, 0.01, M)
  t.equal(f.p.lastSeq, f.ex.state.seq)
  t.ok(f.p.flushedSeq < f.p.lastSeq)
  t.same(await f.p.recentTrades(BTCPERP, 10), [], 'not flushed yet')
  const flushing = f.p.flush()
  await trade(f, ALICE, BOB, 30010, 0.01, M + 1) // applied while the flush is under way
  await flushing
  t.same((await f.p.recentTrades(BTCPERP, 10)).map((x) => x.tradeId), [1])
  await f.p.flush()
  t.same((await f.p.recentTrades(BTCPERP, 10)).map((x) => x.tradeId), [1, 2])
  t.equal(f.p.flushedSeq, f.ex.state.seq)
  t.notOk(f.p.flushDue)
})

t.test('flushes asked while a write is in flight share the next write', async (t) => {
  const f = await Fixture.open(t, { worker: false })
  await f.fund(ALICE, 1000)
  f.autoFlush = false
  const from = f.p.lastSeq
  f.p.apply(from + 1, f.ex.time, [])
  const first = f.p.flush()
  f.p.apply(from + 2, f.ex.time, [])
  const second = f.p.flush()
  f.p.apply(from + 3, f.ex.time, [])
  const third = f.p.flush()
  t.equal(third, second, 'one write for both')
  t.not(second, first)
  await first
  t.equal(f.p.flushedSeq, from + 1, 'the first wrote what was applied when it was asked')
  await third
  t.equal(f.p.flushedSeq, from + 3, 'the shared one, everything applied before it started')
  await f.p.flush()
  t.equal(f.p.flushedSeq, from + 3, 'nothing left to write')
})

t.test('keys sort numerically; the time-range rule picks its end', async (t) => {
  const nums = [0, 1, 255, 256, 65_535, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER]
  const keys = nums.map((n) => key().u64(n).build())
  for (let i = 1; i < keys.length; i++) t.ok(Buffer.compare(keys[i - 1]!, keys[i]!) < 0, `${nums[i - 1]} < ${nums[i]}`)
  t.same(prefixEnd(Buffer.from([1, 2, 0xff])), Buffer.from([1, 3]))
  t.ok(Buffer.compare(key().str('ab').build(), key().str('a').u8(0xff).build()) !== 0, 'length-prefixed strings')
  t.throws(() => key().u64(-1))
  t.throws(() => key().u64(2 ** 53))

  const p = Buffer.from([9])
  t.equal(timeRangeBounds(p, {})!.reverse, true, 'neither: from the newest')
  t.equal(timeRangeBounds(p, { startTime: 5 })!.reverse, false, 'startTime: from the oldest')
  t.equal(timeRangeBounds(p, { endTime: 5 })!.reverse, true, 'endTime: from the newest')
  t.equal(timeRangeBounds(p, { startTime: 1, endTime: 5 })!.reverse, false, 'both: from startTime')
  t.equal(timeRangeBounds(p, { startTime: 6, endTime: 5 }), null)
  t.equal(timeRangeBounds(p, { endTime: 5 }, 6), null, 'all of it past the retention window')
  t.same(timeRangeBounds(p, { endTime: 5 }, 3)!.gte, Buffer.concat([p, key().u64(3).build()]), 'retention raises the floor')
  t.throws(() => timeRangeBounds(p, { startTime: -1 }))
})

t.test('in a database the caller owns, under its own sublevel', async (t) => {
  const f = await Fixture.open(t)
  await scenario(f)
  const expected = (await answers(f.p)) as Record<string, unknown>
  const db = new Level<string, string>(join(f.dir, 'shared'))
  await db.put('other', 'data')
  const p = await createProjections(db.sublevel('replica'), { flushOpsHint: 10, pendingOpsMax: 1000 })
  for (const e of f.log) {
    p.apply(e.seq, e.time, e.events)
    if (p.flushDue) await p.flush()
  }
  await p.flush()
  t.same(await answers(p), expected)
  await p.close()
  t.equal(await db.get('other'), 'data', 'the caller\'s data is untouched and the database still open')
  const reopened = await createProjections(db.sublevel('replica'))
  t.equal(reopened.lastSeq, f.p.lastSeq)
  await reopened.close()
  await db.close()
})

t.test('a store written before the conditional orders\' index is indexed when it opens', async (t) => {
  const f = await Fixture.open(t)
  await scenario(f)
  await f.ok({ type: 'PlaceOrder', account: CAROL, sub: 0, marketId: BTCPERP, side: 'SELL', orderType: 'STOP_MARKET', qtyLots: 10,
    stopPriceTicks: 250_000 })
  await f.ok(limit(CAROL, 'BUY', 28000, 0.01))
  const owner = { account: CAROL, sub: 0 }
  const algo = (p: Projections) => p.allOrders(owner, BTCPERP, { limit: 1000, conditionalOnly: true })
  const want = await algo(f.p)
  t.same(want.map((o) => o.orderType), ['STOP_MARKET'], 'the index holds the stop, not the limit orders')
  const db = new Level<string, string>(join(f.dir, 'shared'))
  t.teardown(() => db.close())
  const p = await createProjections(db.sublevel('replica'))
  for (const e of f.log) p.apply(e.seq, e.time, e.events)
  await p.close()
  // As a build before the index left it: no index rows, no mark that it was built.
  const buffers = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const
  const base = db.sublevel('replica').sublevel<Buffer, Buffer>('projections', buffers)
  const index = base.sublevel<Buffer, Buffer>('conditionalOrders', buffers)
  await index.clear()
  await base.sublevel<Buffer, Buffer>('meta', buffers).del(Buffer.from('c'))
  const reopened = await createProjections(db.sublevel('replica'))
  t.same(await algo(reopened), want, 'indexed on opening')
  t.equal((await index.keys().all()).length, 1, 'one row')
  await reopened.close()
})

t.test('the pending batch is bounded', async (t) => {
  const f = await Fixture.open(t)
  await f.fund(ALICE, 1000)
  const p = await createProjections(join(f.dir, 'bounded'), { flushOpsHint: 1, pendingOpsMax: 3 })
  t.teardown(() => p.close())
  for (const e of f.log) p.apply(e.seq, e.time, e.events)
  t.ok(p.flushDue)
  // The funding deposit wrote a deposit row and two income rows: the batch is full.
  t.throws(() => p.apply(p.lastSeq + 1, f.ex.time, []), /flush more often/)
  t.equal(p.lastSeq, f.log.length, 'the refused entry changed nothing')
  await p.flush()
  p.apply(p.lastSeq + 1, f.ex.time, [])
  t.equal(p.lastSeq, f.log.length + 1, 'after a flush it goes on')
})
