// Time in force: IOC expires its rest, FOK fills whole or is rejected, GTX / POST_ONLY never
// takes, GTD must lie more than 600 s ahead and expires on the first Tick at or after it.

import t from 'tap'
import { gtdSize } from '../helpers/commands.js'
import { LIMITS } from '../../core/limits.js'
import { ALICE, BOB, BTCPERP, TestExchange } from '../helpers/exchange.js'
import { cancel, fillTrail, limit, orderEvents, orderTrail, placedId, postOnly, rejection } from '../helpers/commands.js'

function setup(): TestExchange {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB]) ex.fund(a, 100_000)
  return ex
}

t.test('IOC', async (t) => {
  const cases = [
    // [name, limit ticks, lots, fills, final trail]
    { name: 'partial fill, rest EXPIRED', price: 500_000, lots: 10,
      fills: [[500_000, 4, BOB, 1, ALICE]], last: [ALICE, 2, 'EXPIRED', 'EXPIRED', 4] },
    { name: 'does not cross: EXPIRED with nothing filled', price: 499_900, lots: 10,
      fills: [], last: [ALICE, 2, 'EXPIRED', 'EXPIRED', 0] },
    { name: 'fills in full: no EXPIRED event', price: 500_000, lots: 4,
      fills: [[500_000, 4, BOB, 1, ALICE]], last: [ALICE, 2, 'NEW', 'NEW', 0] },
  ]
  for (const c of cases) {
    const ex = setup()
    ex.ok(limit(BOB, 'SELL', 500_000, 4))
    const r = ex.ok(limit(ALICE, 'BUY', c.price, c.lots, { timeInForce: 'IOC' }))
    t.same(fillTrail(r), c.fills, c.name)
    t.same(orderTrail(r).at(-1), c.last, c.name)
    t.equal(ex.sub(ALICE).orders.size, 0, `${c.name}: nothing rests`)
    t.equal(ex.holding(ALICE).buyLots, 0, `${c.name}: no order margin left behind`)
  }
})

t.test('FOK fills whole across levels or is rejected with FOK_UNFILLED', async (t) => {
  // Asks: 4 lots at 50000.0 and 4 at 50010.0.
  const cases = [
    { name: 'exactly the depth to its limit', price: 500_100, lots: 8, code: 'ACCEPTED', filled: 8 },
    { name: 'one lot more than the book', price: 500_100, lots: 9, code: 'FOK_UNFILLED', filled: 0 },
    { name: 'limit stops at the first level', price: 500_000, lots: 5, code: 'FOK_UNFILLED', filled: 0 },
    { name: 'fits in the first level', price: 500_000, lots: 4, code: 'ACCEPTED', filled: 4 },
  ]
  for (const c of cases) {
    const ex = setup()
    ex.ok(limit(BOB, 'SELL', 500_000, 4))
    ex.ok(limit(BOB, 'SELL', 500_100, 4))
    const rej = rejection(ex, limit(ALICE, 'BUY', c.price, c.lots, { timeInForce: 'FOK' }))
    t.equal(rej.code, c.code, c.name)
    if (c.code !== 'ACCEPTED') t.ok(rej.rootUnchanged && rej.eventCount === 0, `${c.name}: nothing changed`)
    t.equal(ex.position(BOB).qtyLots, -c.filled, c.name)
    t.equal(ex.state.markets[BTCPERP]!.nextOrderId, c.code === 'ACCEPTED' ? 4 : 3, `${c.name}: ids only for accepted orders`)
  }
})

t.test('FOK filled in full reports FILLED on its last trade', async (t) => {
  const ex = setup()
  ex.ok(limit(BOB, 'SELL', 500_000, 4))
  ex.ok(limit(BOB, 'SELL', 500_100, 4))
  const r = ex.ok(limit(ALICE, 'BUY', 500_100, 8, { timeInForce: 'FOK' }))
  t.same(fillTrail(r), [[500_000, 4, BOB, 1, ALICE], [500_100, 4, BOB, 2, ALICE]])
  const last = r.events.at(-1)
  t.match(last, { type: 'trade', taker: { status: 'FILLED', executedQtyLots: 8, cumQuoteTicksLots: 4_000_400 } })
})

t.test('GTX and POST_ONLY rest when they would not take and are rejected when they would', async (t) => {
  // Book: Bob asks 10 at 50000.0, Bob bids 10 at 49990.0.
  const cases = [
    { name: 'POST_ONLY buy at the ask', cmd: postOnly(ALICE, 'BUY', 500_000, 10), code: 'POST_ONLY_WOULD_TAKE' },
    { name: 'POST_ONLY buy through the ask', cmd: postOnly(ALICE, 'BUY', 510_000, 10), code: 'POST_ONLY_WOULD_TAKE' },
    { name: 'LIMIT GTX buy at the ask', cmd: limit(ALICE, 'BUY', 500_000, 10, { timeInForce: 'GTX' }), code: 'POST_ONLY_WOULD_TAKE' },
    { name: 'POST_ONLY sell at the bid', cmd: postOnly(ALICE, 'SELL', 499_900, 10), code: 'POST_ONLY_WOULD_TAKE' },
    { name: 'POST_ONLY buy one tick under the ask', cmd: postOnly(ALICE, 'BUY', 499_999, 10), code: 'ACCEPTED' },
    { name: 'LIMIT GTX sell one tick over the bid', cmd: limit(ALICE, 'SELL', 499_901, 10, { timeInForce: 'GTX' }), code: 'ACCEPTED' },
    { name: 'POST_ONLY joining the ask', cmd: postOnly(ALICE, 'SELL', 500_000, 10), code: 'ACCEPTED' },
  ]
  for (const c of cases) {
    const ex = setup()
    ex.ok(limit(BOB, 'SELL', 500_000, 10))
    ex.ok(limit(BOB, 'BUY', 499_900, 10))
    const rej = rejection(ex, c.cmd)
    t.equal(rej.code, c.code, c.name)
    if (c.code === 'ACCEPTED') {
      const o = ex.sub(ALICE).orders.values().next().value!
      t.same([o.timeInForce, o.status, o.executedQtyLots], ['GTX', 'NEW', 0], `${c.name}: rests as GTX`)
    } else {
      t.ok(rej.rootUnchanged, `${c.name}: nothing changed`)
    }
  }
})

t.test('POST_ONLY keeps its order type and reports GTX', async (t) => {
  const ex = setup()
  const r = ex.ok(postOnly(ALICE, 'BUY', 499_000, 10, { timeInForce: 'GTC' }))
  t.match(orderEvents(r)[0], { orderType: 'POST_ONLY', timeInForce: 'GTX', status: 'NEW' })
})

t.test('GTD window: more than 600 s ahead, at most 253402300799000', async (t) => {
  const ex = setup()
  const now = () => ex.time + 1 // the time the next command is stamped with
  const cases: [string, () => number | undefined, string][] = [
    ['exactly 600 s ahead', () => now() + 600_000, 'GTD_INVALID'],
    ['600 s and 1 ms ahead', () => now() + 600_001, 'ACCEPTED'],
    ['in the past', () => now() - 1, 'GTD_INVALID'],
    ['missing', () => undefined, 'GTD_INVALID'],
    ['not an integer', () => now() + 600_000.5, 'GTD_INVALID'],
    ['the maximum', () => LIMITS.goodTillDateMax, 'ACCEPTED'],
    ['one past the maximum', () => LIMITS.goodTillDateMax + 1, 'GTD_INVALID'],
  ]
  for (const [name, gtd, code] of cases) {
    const cmd = limit(ALICE, 'BUY', 490_000, 10, { timeInForce: 'GTD' })
    const g = gtd()
    if (g !== undefined) cmd.goodTillDate = g
    const rej = rejection(ex, cmd)
    t.equal(rej.code, code, name)
    if (code !== 'ACCEPTED') t.ok(rej.rootUnchanged, `${name}: nothing changed`)
  }
  const gtds = [...ex.sub(ALICE).orders.values()].map((o) => [o.timeInForce, o.goodTillDate > 0])
  t.same(gtds, [['GTD', true], ['GTD', true]])
})

t.test('GTD expires on the first Tick at or after goodTillDate, releasing its margin', async (t) => {
  const ex = setup()
  ex.ok(limit(BOB, 'SELL', 500_000, 4))
  const placedAt = ex.time + 1
  const gtd = placedAt + 600_001
  const r = ex.ok(limit(ALICE, 'BUY', 500_000, 10, { timeInForce: 'GTD', goodTillDate: gtd }))
  t.match(orderEvents(r)[0], { timeInForce: 'GTD', goodTillDate: gtd })
  // 4 filled, 6 rest: order margin is 6 lots × 500,000 ticks.
  t.same([ex.holding(ALICE).buyLots, ex.holding(ALICE).buyNotional], [6, 3_000_000])

  const early = ex.ok({ type: 'Tick' }, 600_000) // time = gtd - 1
  t.equal(ex.time, gtd - 1)
  t.same(early.events, [], 'one ms early: nothing expires')
  t.equal(ex.sub(ALICE).orders.size, 1)

  const due = ex.ok({ type: 'Tick' }, 1) // time = gtd
  t.same(orderTrail(due), [[ALICE, 2, 'EXPIRED', 'EXPIRED', 4]])
  t.match(orderEvents(due)[0], { updateTime: gtd, time: placedAt })
  t.equal(ex.sub(ALICE).orders.size, 0)
  t.same([ex.holding(ALICE).buyLots, ex.holding(ALICE).buyNotional], [0, 0])
  t.equal(ex.state.markets[BTCPERP]!.book.orders.size, 0)

  t.same(ex.ok({ type: 'Tick' }, 1_000_000).events, [], 'expires once')
})

t.test('GTD orders expire in goodTillDate order; canceled or filled ones are skipped', async (t) => {
  const ex = setup()
  const base = ex.time + 1
  const g1 = base + 700_000
  const g2 = base + 800_000
  const a = placedId(ex.ok(limit(ALICE, 'BUY', 490_000, 10, { timeInForce: 'GTD', goodTillDate: g2 })))
  const b = placedId(ex.ok(limit(ALICE, 'BUY', 491_000, 10, { timeInForce: 'GTD', goodTillDate: g1 })))
  const c = placedId(ex.ok(limit(ALICE, 'BUY', 492_000, 10, { timeInForce: 'GTD', goodTillDate: g1 })))
  const d = placedId(ex.ok(limit(ALICE, 'BUY', 489_000, 10, { timeInForce: 'GTD', goodTillDate: g1 })))
  ex.ok(cancel(ALICE, { orderId: b }))
  ex.ok(limit(BOB, 'SELL', 492_000, 10)) // fills c in full
  const r = ex.ok({ type: 'Tick' }, 1_000_000)
  t.same(orderTrail(r), [[ALICE, d, 'EXPIRED', 'EXPIRED', 0], [ALICE, a, 'EXPIRED', 'EXPIRED', 0]])
  t.equal(c, 3)
  t.equal(gtdSize(ex.state), 0)
})
