// Spot order amend keep priority (core/amend-quantity.ts): a resting spot order's quantity cut
// in place. BTCUSDT: price × 100 = ticks, qty × 10,000 = lots, 1 USDT unit per tick·lot,
// 10,000 BTC units per lot; minQty 1 lot, minNotional 5 USDT.

import t from 'tap'
import type { AmendKeepPriority } from '../../core/commands.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { apply } from '../../core/apply.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, CAROL, COIN, TestExchange } from '../helpers/exchange.js'
import { balanceEvents, limit, orderEvents, rejection, spotTradeEvents } from '../helpers/commands.js'

const spot = { marketId: BTCSPOT }
const P = 3_000_000 // 30000.00

function amend(account: string, ref: Partial<Omit<AmendKeepPriority, 'type' | 'account'>>): AmendKeepPriority {
  return { type: 'AmendKeepPriority', account, sub: 0, marketId: BTCSPOT, qtyLots: 0, ...ref }
}

/** Alice and Carol bid 0.1 BTC each at 30000 (Alice first, with client id "mine"); Bob holds 1 BTC. */
function setup(): TestExchange {
  const ex = new TestExchange()
  ex.fund(ALICE, 10_000, 0, 'SPOT')
  ex.fund(CAROL, 10_000, 0, 'SPOT')
  ex.deposit(BOB, 'BTC', COIN)
  ex.ok(limit(ALICE, 'BUY', P, 1_000, { ...spot, clientOrderId: 'mine' })) // order 1
  ex.ok(limit(CAROL, 'BUY', P, 1_000, spot)) // order 2
  return ex
}

t.test('a cut keeps the order first in its queue and frees what the lots held', async (t) => {
  const ex = setup()
  // 1000 lots locked 3,000,000,000; cut to 400 frees 600 × 3,000,000 = 1,800,000,000.
  const r = ex.ok(amend(ALICE, { orderId: 1, qtyLots: 400 }))
  t.equal(r.orderId, 1)
  const [e] = orderEvents(r)
  t.match(e, { execType: 'REPLACED', status: 'NEW', orderId: 1, origQtyLots: 400, executedQtyLots: 0, priceTicks: P,
    clientOrderId: 'x-3-1', amendment: { origQtyBeforeLots: 1_000, priceBeforeTicks: P, count: 1, clientOrderIdBefore: 'mine' } })
  t.match(balanceEvents(r), [{ asset: 'USDT', free: 8_800_000_000, locked: 1_200_000_000, reason: 'ORDER' }])
  const level = ex.state.markets[BTCSPOT]!.book.bids.best()!
  t.same([level.qtyLots, level.count, level.head!.orderId], [1_400, 2, 1], 'the level holds 1400 lots, Alice still first')
  t.equal(ex.sub(ALICE).orders.get('x-3-1')?.orderId, 1, 'found by its new client id')
  t.equal(ex.sub(ALICE).orders.has('mine'), false, 'and no longer by the old one')

  // Bob sells 0.05 BTC: Alice's 400 lots fill first, then 100 of Carol's.
  const fill = ex.ok(limit(BOB, 'SELL', P, 500, spot))
  t.same(spotTradeEvents(fill).map((x) => [x.maker.orderId, x.qtyLots, x.maker.status]), [[1, 400, 'FILLED'], [2, 100, 'PARTIALLY_FILLED']])
  t.same([ex.sub(ALICE).spot.get('USDT')!.locked, ex.sub(ALICE).spot.get('USDT')!.free], [0, 8_800_000_000],
    'Alice paid exactly her 400 lots')
})

t.test('a partially filled order is cut to above its fills; a client id sent again is kept', async (t) => {
  const ex = setup()
  ex.ok(limit(BOB, 'SELL', P, 300, spot)) // Alice: 300 of 1000 filled
  const r = ex.ok(amend(ALICE, { clientOrderId: 'mine', qtyLots: 500, newClientOrderId: 'mine' }))
  t.match(orderEvents(r)[0], { execType: 'REPLACED', status: 'PARTIALLY_FILLED', origQtyLots: 500, executedQtyLots: 300,
    clientOrderId: 'mine', amendment: { count: 1, clientOrderIdBefore: 'mine' } })
  // 500 lots cut at 3,000,000 each; the 200 left still held.
  t.match(balanceEvents(r), [{ asset: 'USDT', locked: 600_000_000 }])
  t.equal(ex.state.markets[BTCSPOT]!.book.bids.best()!.qtyLots, 1_200, 'Carol 1000 + Alice 200')

  // A later order, then a new client id for the first: it keeps its place among the open orders.
  ex.ok(limit(ALICE, 'BUY', 2_900_000, 100, { ...spot, clientOrderId: 'later' }))
  ex.ok(amend(ALICE, { orderId: 1, qtyLots: 400, newClientOrderId: 'renamed' }))
  t.same([...ex.sub(ALICE).orders.keys()], ['renamed', 'later'], 'placement order, as before the new id')
  const all = ex.ok({ type: 'CancelAll', account: ALICE, sub: 0, marketId: BTCSPOT })
  t.same(orderEvents(all).map((e) => e.clientOrderId), ['renamed', 'later'], 'cancel-all in that order')
  t.same(ex.sub(ALICE).spot.get('USDT')!.locked, 0, 'nothing left held')
})

t.test('a sell order gives back base', async (t) => {
  const ex = setup()
  ex.ok(limit(BOB, 'SELL', 3_100_000, 2_000, spot)) // order 3 rests: 2000 lots × 10,000 = 20,000,000 BTC units locked
  const r = ex.ok(amend(BOB, { orderId: 3, qtyLots: 500 }))
  t.match(balanceEvents(r), [{ asset: 'BTC', free: 95_000_000, locked: 5_000_000 }])
  t.equal(ex.state.markets[BTCSPOT]!.book.asks.best()!.qtyLots, 500)
})

t.test('refusals change nothing', async (t) => {
  const ex = setup()
  ex.ok(limit(BOB, 'SELL', P, 300, spot)) // Alice: 300 of 1000 filled
  ex.ok(limit(ALICE, 'BUY', 2_000_000, 100, { ...spot, clientOrderId: 'other' })) // order 4
  const cases: [string, AmendKeepPriority, string][] = [
    ['more than the order', amend(ALICE, { orderId: 1, qtyLots: 1_001 }), 'AMEND_QTY_INCREASE'],
    ['beyond maxQty', amend(ALICE, { orderId: 1, qtyLots: 100_000_000 }), 'AMEND_QTY_INCREASE'],
    ['the same quantity', amend(ALICE, { orderId: 1, qtyLots: 1_000 }), 'MODIFY_UNCHANGED'],
    ['down to the fills', amend(ALICE, { orderId: 1, qtyLots: 300 }), 'AMEND_QTY_FILLED'],
    ['below the fills', amend(ALICE, { orderId: 1, qtyLots: 299 }), 'AMEND_QTY_FILLED'],
    ['zero', amend(ALICE, { orderId: 1, qtyLots: 0 }), 'QTY_BELOW_ZERO'],
    ['a fraction of a lot', amend(ALICE, { orderId: 1, qtyLots: 400.5 }), 'QTY_STEP'],
    ['under min notional (1 lot at 20000 is 2 USDT)', amend(ALICE, { orderId: 4, qtyLots: 1 }), 'NOTIONAL_TOO_SMALL'],
    ['another open order\'s client id', amend(ALICE, { orderId: 1, qtyLots: 500, newClientOrderId: 'other' }), 'CLIENT_ID_DUPLICATE'],
    ['an illegal client id', amend(ALICE, { orderId: 1, qtyLots: 500, newClientOrderId: 'no spaces' }), 'CLIENT_ID_INVALID'],
    ['someone else\'s order', amend(CAROL, { orderId: 1, qtyLots: 500 }), 'ORDER_UNKNOWN'],
    ['an orderId and a client id that disagree', amend(ALICE, { orderId: 1, clientOrderId: 'other', qtyLots: 500 }), 'ORDER_UNKNOWN'],
    ['an order that is gone', amend(BOB, { orderId: 3, qtyLots: 1 }), 'ORDER_UNKNOWN'],
    ['no order named', amend(ALICE, { qtyLots: 500 }), 'ORDER_ID_REQUIRED'],
    ['a perpetual market', { ...amend(ALICE, { orderId: 1, qtyLots: 500 }), marketId: BTCPERP }, 'MARKET_UNKNOWN'],
  ]
  for (const [what, cmd, code] of cases) {
    t.match(rejection(ex, cmd), { code, eventCount: 0, rootUnchanged: true }, what)
  }
  ex.ok({ type: 'SetMarketStatus', marketId: BTCSPOT, status: 'HALT' })
  t.match(rejection(ex, amend(ALICE, { orderId: 1, qtyLots: 500 })), { code: 'MARKET_NOT_TRADING', rootUnchanged: true }, 'a halted market')
})

t.test('an amendment is in the state root and survives a snapshot', async (t) => {
  const ex = setup()
  const before = stateRoot(ex.state)
  ex.ok(amend(ALICE, { orderId: 1, qtyLots: 600 }))
  const after = stateRoot(ex.state)
  t.not(after, before, 'the root moved')
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(stateRoot(restored), after, 'the restored state has the same root')
  // The same next command on both gives the same result and root.
  const next = { seq: ex.state.seq + 1, time: ex.time + 1, command: amend(ALICE, { clientOrderId: 'x-3-1', qtyLots: 500 }) }
  const a = apply(ex.state, next)
  const b = apply(restored, structuredClone(next))
  t.same(b, a, 'same result')
  t.match(orderEvents(a)[0], { clientOrderId: 'x-3-1-1', amendment: { count: 2, clientOrderIdBefore: 'x-3-1' } },
    'a generated id never repeats the one the order has')
  t.equal(stateRoot(restored), stateRoot(ex.state), 'same root after it')
})
