// Self-trade prevention: the taker's mode decides what happens when it meets its own
// resting order. Book for every row: asks at 50000.0 of Bob 4 (id 1), Alice 10 (id 2),
// Carol 10 (id 3); Alice then buys 20 at 50000.0 (id 4).

import t from 'tap'
import type { StpMode } from '../../core/commands.js'
import { stateLeaves, stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { ALICE, BOB, BTCPERP, CAROL, TestExchange } from '../helpers/exchange.js'
import { fillTrail, limit, orderTrail, rejection } from '../helpers/commands.js'

function setup(): TestExchange {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB, CAROL]) ex.fund(a, 100_000)
  ex.ok(limit(BOB, 'SELL', 500_000, 4))
  ex.ok(limit(ALICE, 'SELL', 500_000, 10))
  ex.ok(limit(CAROL, 'SELL', 500_000, 10))
  return ex
}

const P = 500_000
const cases: {
  stp: StpMode | undefined
  kinds: string[]
  fills: [number, number, string, number, string][]
  orders: [string, number, string, string, number][]
  alicePosition: number
  asksLeft: number
  aliceOpen: number[]
}[] = [
  {
    stp: 'NONE',
    kinds: ['order', 'trade', 'trade', 'trade'],
    fills: [[P, 4, BOB, 1, ALICE], [P, 10, ALICE, 2, ALICE], [P, 6, CAROL, 3, ALICE]],
    orders: [[ALICE, 4, 'NEW', 'NEW', 0]],
    alicePosition: 10, // +4 from Bob, +10 −10 against herself, +6 from Carol
    asksLeft: 4,
    aliceOpen: [],
  },
  {
    stp: 'EXPIRE_TAKER',
    kinds: ['order', 'trade', 'preventedMatch', 'order'],
    fills: [[P, 4, BOB, 1, ALICE]],
    orders: [[ALICE, 4, 'NEW', 'NEW', 0], [ALICE, 4, 'EXPIRED_IN_MATCH', 'EXPIRED_IN_MATCH', 4]],
    alicePosition: 4,
    asksLeft: 20,
    aliceOpen: [2],
  },
  {
    stp: undefined, // EXPIRE_MAKER is the default
    kinds: ['order', 'trade', 'preventedMatch', 'order', 'trade'],
    fills: [[P, 4, BOB, 1, ALICE], [P, 10, CAROL, 3, ALICE]],
    orders: [[ALICE, 4, 'NEW', 'NEW', 0], [ALICE, 2, 'EXPIRED_IN_MATCH', 'EXPIRED_IN_MATCH', 0]],
    alicePosition: 14,
    asksLeft: 0,
    aliceOpen: [4], // the taker's last 6 lots rest as a bid
  },
  {
    stp: 'EXPIRE_BOTH',
    kinds: ['order', 'trade', 'preventedMatch', 'order', 'order'],
    fills: [[P, 4, BOB, 1, ALICE]],
    orders: [[ALICE, 4, 'NEW', 'NEW', 0], [ALICE, 2, 'EXPIRED_IN_MATCH', 'EXPIRED_IN_MATCH', 0],
      [ALICE, 4, 'EXPIRED_IN_MATCH', 'EXPIRED_IN_MATCH', 4]],
    alicePosition: 4,
    asksLeft: 10,
    aliceOpen: [],
  },
]

for (const c of cases) {
  t.test(`STP ${c.stp ?? 'default'}`, async (t) => {
    const ex = setup()
    const r = ex.ok(limit(ALICE, 'BUY', P, 20, c.stp ? { stp: c.stp } : {}))
    t.same(r.events.map((e) => e.type), c.kinds)
    t.same(fillTrail(r), c.fills)
    t.same(orderTrail(r), c.orders)
    t.equal(ex.position(ALICE).qtyLots, c.alicePosition)
    t.equal(ex.state.markets[BTCPERP]!.book.asks.best()?.qtyLots ?? 0, c.asksLeft)
    t.same([...ex.sub(ALICE).orders.values()].map((o) => o.orderId), c.aliceOpen)
    if (c.stp === undefined) {
      const rest = ex.sub(ALICE).orders.get('x-1-4')!
      t.same([rest.status, rest.executedQtyLots, rest.stp], ['PARTIALLY_FILLED', 14, 'EXPIRE_MAKER'])
      t.same([ex.holding(ALICE).buyLots, ex.holding(ALICE).sellLots], [6, 0], 'the expired ask no longer holds margin')
    }
  })
}

t.test('FOK sees what STP will do', async (t) => {
  // EXPIRE_MAKER skips Alice's 10: Bob 4 + Carol 10 = 14 can fill; 15 cannot.
  const rows: [StpMode, number, string][] = [
    ['EXPIRE_MAKER', 14, 'ACCEPTED'],
    ['EXPIRE_MAKER', 15, 'FOK_UNFILLED'],
    ['EXPIRE_TAKER', 4, 'ACCEPTED'],
    ['EXPIRE_TAKER', 5, 'FOK_UNFILLED'],
    ['EXPIRE_BOTH', 5, 'FOK_UNFILLED'],
    ['NONE', 24, 'ACCEPTED'],
    ['NONE', 25, 'FOK_UNFILLED'],
  ]
  for (const [stp, lots, code] of rows) {
    const ex = setup()
    t.equal(rejection(ex, limit(ALICE, 'BUY', P, lots, { stp, timeInForce: 'FOK' })).code, code, `${stp} ${lots}`)
  }
})

t.test('STP_INVALID', async (t) => {
  const ex = setup()
  t.same(rejection(ex, limit(ALICE, 'BUY', P, 20, { stp: 'EXPIRE_SOMETIMES' as StpMode })),
    { code: 'STP_INVALID', eventCount: 0, rootUnchanged: true })
})

t.test('prevented matches are numbered per market from 0, and the orders they expire name theirs', async (t) => {
  const ex = setup()
  // EXPIRE_BOTH: match 0 expires Alice's ask (id 2) and her bid (id 4), which had 16 left after Bob's 4.
  const r = ex.ok(limit(ALICE, 'BUY', P, 20, { stp: 'EXPIRE_BOTH' }))
  t.match(r.events.filter((e) => e.type === 'preventedMatch'),
    [{ preventedMatchId: 0, takerOrderId: 4, makerOrderId: 2, priceTicks: P, makerLots: 10, takerLots: 16, mode: 'EXPIRE_BOTH' }])
  const expired = r.events.filter((e) => e.type === 'order' && e.status === 'EXPIRED_IN_MATCH')
  t.same(expired.map((e) => e.type === 'order' && [e.orderId, e.preventedMatchId]), [[2, 0], [4, 0]])
  t.notOk(r.events.some((e) => e.type === 'order' && e.status !== 'EXPIRED_IN_MATCH' && e.preventedMatchId !== undefined),
    'no other record names one')
  // The next one is 1; the counter is in the root (a state without prevented matches hashes as before).
  const before = stateRoot(ex.state)
  // Carol's bid meets her own ask of 10, twice.
  const next = ex.ok(limit(CAROL, 'BUY', P, 5, { stp: 'EXPIRE_TAKER' })).events.find((e) => e.type === 'preventedMatch')
  t.match(next, { preventedMatchId: 1, takerLots: 5, makerLots: 10 })
  t.not(stateRoot(ex.state), before)
  ex.ok(limit(CAROL, 'BUY', P, 5, { stp: 'EXPIRE_TAKER' }))
  t.equal(decodeSnapshot(encodeSnapshot(ex.state)).markets[BTCPERP]!.nextPreventedMatchId, 3, 'a snapshot keeps the count')
  t.notOk(stateLeaves(setup().state).some((l) => l.startsWith('preventedMatches|')), 'no leaf before the first')
})
