// The history upkeep (bin/history-upkeep.ts) on a real projections store: its first pass soon
// after start deletes, call after call, more ended orders than one call's budget, and a later
// pass finds nothing more.

import t from 'tap'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import { retainedMarkets, HistoryUpkeep } from '../../bin/history-upkeep.js'
import { ALICE, BOB, BTCPERP, BTCSPOT } from '../helpers/exchange.js'
import { Fixture, limit } from '../helpers/projections-fixture.js'

const DAY = 86_400_000

async function until(check: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

t.test('a pass deletes past the budget of one call, in several; the next finds nothing', async (t) => {
  const f = await Fixture.open(t)
  f.autoFlush = false
  await f.fund(ALICE, 10_000_000)
  // IOC bids into an empty book: each expires unfilled, one ended order apiece.
  const n = PROJECTION_LIMITS.pruneKeysMax + 500
  for (let i = 0; i < n; i++) {
    await f.ok(limit(ALICE, 'BUY', 20000, 0.01, { timeInForce: 'IOC' }), 0)
    if (f.p.flushDue) await f.p.flush()
  }
  const open = await f.ok(limit(ALICE, 'SELL', 40000, 0.01), 1)
  await f.ok({ type: 'Deposit', account: BOB, sub: 0, asset: 'USDT', amount: 1, wallet: 'PERP', ref: 'later' }, 3 * DAY + 1000)
  await f.p.flush()
  t.same(retainedMarkets(f.ex.state).filter((m) => m.marketId === BTCPERP || m.marketId === BTCSPOT),
    [{ marketId: BTCPERP, spot: false }, { marketId: BTCSPOT, spot: true }], 'each market with its venue\'s rule')

  const logged: unknown[] = []
  const logger = { info: (o: unknown) => logged.push(o), warn: (o: unknown) => logged.push(o), error: () => {} }
  const upkeep = new HistoryUpkeep({ projections: f.p, markets: () => retainedMarkets(f.ex.state), intervalMs: 3_600_000, firstMs: 10, pauseMs: 10, logger })
  t.teardown(() => upkeep.close())
  await until(() => logged.length > 0)
  t.equal(upkeep.rowsPruned, n, 'every expired order, in one pass')
  t.same(logged, [{ rows: n }], 'logged once for the pass')
  const left = await f.p.allOrders({ account: ALICE, sub: 0 }, BTCPERP, { limit: 1000 })
  const openEvent = open.events.find((e) => e.type === 'order')
  t.same(left.map((o) => [o.orderId, o.status]), [[openEvent?.type === 'order' ? openEvent.orderId : -1, 'NEW']], 'the open order alone is left')
  await upkeep.pass()
  t.equal(upkeep.rowsPruned, n, 'a pass after it deletes nothing')
})
