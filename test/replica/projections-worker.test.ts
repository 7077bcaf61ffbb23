// The projections in a worker thread, as a node runs them: the same answers as the store in
// this thread, read-your-writes as soon as an entry is applied, the same checks on apply, a restart that
// goes on from the stored seq, and a failure in the worker that stops them.

import { join } from 'node:path'
import t from 'tap'
import type { Event } from '../../core/events.js'
import { startProjectionsWorker } from '../../replica/projections/index.js'
import { ALICE, BOB, BTCPERP } from '../helpers/exchange.js'
import { answers, M, replay, scenario } from '../helpers/projections-answers.js'
import { Fixture, limit, trade } from '../helpers/projections-fixture.js'

t.test('a worker rebuilt from the log answers as the store in this thread does', async (t) => {
  const f = await Fixture.open(t)
  await scenario(f)
  const expected = await answers(f.p)
  for (const flushEvery of [1, 7, 1_000_000]) {
    const p = await startProjectionsWorker(join(f.dir, `worker-${flushEvery}`))
    await replay(p, f, flushEvery)
    t.same(await answers(p), expected, `flushing every ${flushEvery} entries`)
    await p.close()
  }
})

t.test('what a flush has covered, the next query reads', async (t) => {
  const f = await Fixture.open(t, { worker: true })
  for (const a of [ALICE, BOB]) await f.fund(a, 1_000_000)
  f.autoFlush = false
  await trade(f, ALICE, BOB, 30000, 0.01, M)
  t.equal(f.p.lastSeq, f.ex.state.seq, 'applied at once, here')
  t.ok(f.p.flushedSeq < f.p.lastSeq, 'not yet written')
  await f.p.flush()
  t.equal(f.p.flushedSeq, f.ex.state.seq)
  t.equal(f.p.flushedTime, f.ex.time)
  t.same((await f.p.recentTrades(BTCPERP, 10)).map((x) => x.tradeId), [1])
  const orders = await f.p.allOrders({ account: BOB, sub: 0 }, BTCPERP, { limit: 10 })
  t.same(orders.map((o) => [o.orderId, o.status, o.executedQtyLots]), [[2, 'FILLED', 10]], 'the taker\'s order, filled')
  const maker = await f.p.order({ account: ALICE, sub: 0 }, BTCPERP, 1)
  t.same([maker?.status, maker?.executedQtyLots], ['FILLED', 10], 'the maker\'s, its fill merged in the worker')
  t.same(await f.p.order({ account: BOB, sub: 0 }, BTCPERP, 99), undefined, 'an order never placed')
})

t.test('every entry applied is readable at once: a query takes it along and the worker writes it first', async (t) => {
  const f = await Fixture.open(t, { worker: true })
  for (const a of [ALICE, BOB]) await f.fund(a, 1_000_000)
  f.autoFlush = false
  // Enough rows that their write is still in flight when the query is read.
  const TRADES = 300
  for (let i = 0; i < TRADES; i++) await trade(f, ALICE, BOB, 30000, 0.01, M + i)
  t.equal(f.p.readableSeq, f.ex.state.seq, 'readable as applied, with no flush asked for')
  t.ok(f.p.flushedSeq < f.ex.state.seq, 'though not yet written')
  const [trades, orders] = await Promise.all([
    f.p.recentTrades(BTCPERP, 1000),
    f.p.allOrders({ account: BOB, sub: 0 }, BTCPERP, { limit: 1000 }),
  ])
  t.equal(trades.length, TRADES, 'every trade')
  t.equal(orders.filter((o) => o.status === 'FILLED').length, TRADES, 'every taker order, filled')
  t.equal(f.p.flushedSeq, f.ex.state.seq, 'written for the query')
})

t.test('flushes asked close together share one message and one write', async (t) => {
  const f = await Fixture.open(t, { worker: true })
  for (const a of [ALICE, BOB]) await f.fund(a, 1_000_000)
  f.autoFlush = false
  await f.p.flush()
  const flushes: Promise<void>[] = []
  for (let i = 0; i < 5; i++) {
    await trade(f, ALICE, BOB, 30000, 0.01, M + i)
    flushes.push(f.p.flush())
  }
  t.equal(new Set(flushes).size, 1, 'one flush for all five')
  t.ok(f.p.flushedSeq < f.ex.state.seq, 'not written yet')
  await flushes[0]
  t.equal(f.p.flushedSeq, f.ex.state.seq, 'all of them written by it')
  t.equal((await f.p.recentTrades(BTCPERP, 10)).length, 5)
})

t.test('readable(): in the worker, at once, not after the flush that waits for company; here, once written', async (t) => {
  for (const worker of [true, false]) {
    const f = await Fixture.open(t, { worker })
    for (const a of [ALICE, BOB]) await f.fund(a, 1_000_000)
    f.autoFlush = false
    await trade(f, ALICE, BOB, 30000, 0.01, M)
    // A flush per committed batch is always due under load (the runtime asks one); a read of the
    // caller's own history asks readable() instead.
    const flushed = f.p.flush()
    const seen: string[] = []
    const timer = new Promise<void>((resolve) => setTimeout(() => { seen.push('a timer of 0 ms'); resolve() }, 0))
    await f.p.readable().then(() => seen.push('readable'))
    await timer
    const where = worker ? 'worker' : 'here'
    // The worker's flush waits on a timer (FLUSH_SHARE_MS); readable() resolves before any timer runs.
    if (worker) t.same(seen, ['readable', 'a timer of 0 ms'], `${where}: resolved before any timer ran`)
    t.equal((await f.p.allOrders({ account: BOB, sub: 0 }, BTCPERP, { limit: 10 })).length, 1, `${where}: the query after it reads the order`)
    await flushed
  }
})

t.test('the store in this thread counts only what is written as readable', async (t) => {
  const f = await Fixture.open(t, { worker: false })
  for (const a of [ALICE, BOB]) await f.fund(a, 1_000_000)
  f.autoFlush = false
  await trade(f, ALICE, BOB, 30000, 0.01, M)
  const flushed = f.p.flush()
  t.ok(f.p.readableSeq < f.ex.state.seq, 'not while the write is in flight')
  await flushed
  t.equal(f.p.readableSeq, f.ex.state.seq)
})

t.test('a restarted worker goes on from its stored seq', async (t) => {
  const f = await Fixture.open(t, { worker: true })
  await scenario(f)
  const expected = await answers(f.p)
  const seq = f.p.lastSeq
  await f.reopen({ worker: true })
  t.equal(f.p.lastSeq, seq, 'lastSeq from disk')
  t.equal(f.p.flushedSeq, seq)
  t.same(await answers(f.p), expected)
  // Entries it has are skipped; the next one is taken.
  const last = f.log[f.log.length - 1]!
  f.p.apply(last.seq, last.time, last.events)
  await f.ok(limit(ALICE, 'BUY', 31000, 0.01), 0)
  const resting = (await f.p.allOrders({ account: BOB, sub: 0 }, BTCPERP, { limit: 1 }))[0]!
  t.same([resting.status, resting.executedQtyLots], ['FILLED', 10], 'the order from before the restart is filled')
})

t.test('apply checks seq and time here; a failure in the worker stops the projections', async (t) => {
  const f = await Fixture.open(t, { worker: true })
  await scenario(f)
  const last = f.log[f.log.length - 1]!
  t.throws(() => f.p.apply(last.seq + 2, last.time, []), /gap/)
  t.throws(() => f.p.apply(last.seq + 1, last.time - 1, []), /backwards/)
  const deposits = (await f.p.deposits({ account: ALICE, sub: 0 }, { limit: 10 })).length
  const bogus: Event[] = [{ type: 'deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 1, wallet: 'SPOT', ref: 'x', time: last.time }]
  f.p.apply(last.seq, last.time, bogus)
  await f.p.flush()
  t.equal((await f.p.deposits({ account: ALICE, sub: 0 }, { limit: 10 })).length, deposits, 'an entry at or below lastSeq changes nothing')

  const replayed = f.log.find((e) => e.events.some((x) => x.type === 'trade'))!.events
  f.p.apply(last.seq + 1, last.time, replayed)
  await t.rejects(f.p.flush(), /trade 1 of market 1 after/)
  t.throws(() => f.p.apply(last.seq + 2, last.time, []), /stopped/)
  await t.rejects(f.p.recentTrades(BTCPERP, 1), /stopped/)
})

t.test('a long run of entries between flushes goes over in bounded messages', async (t) => {
  const f = await Fixture.open(t, { worker: true })
  await f.fund(ALICE, 1000)
  const from = f.p.lastSeq
  for (let i = 1; i <= 25_000; i++) f.p.apply(from + i, f.ex.time, [])
  t.equal(f.p.flushedSeq, from, 'nothing written before the flush')
  await f.p.flush()
  t.equal(f.p.flushedSeq, from + 25_000)
  t.equal((await f.p.deposits({ account: ALICE, sub: 0 }, { limit: 10 })).length, 1)
})
