// Cancels (by orderId, by clientOrderId, with restrictions, naming themselves), CancelAll, and
// client order ids: generated ones, uniqueness among open orders, reuse once the order has closed.

import t from 'tap'
import { ALICE, BOB, BTCPERP, ETHPERP, TestExchange } from '../helpers/exchange.js'
import { cancel, limit, orderEvents, orderTrail, placedId, rejection } from '../helpers/commands.js'

function setup(): TestExchange {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB]) ex.fund(a, 100_000)
  return ex
}

t.test('cancel by orderId and by clientOrderId releases the order margin', async (t) => {
  for (const by of ['orderId', 'clientOrderId'] as const) {
    const ex = setup()
    const id = placedId(ex.ok(limit(ALICE, 'BUY', 500_000, 10, { clientOrderId: 'mine-1' })))
    t.same([ex.holding(ALICE).buyLots, ex.holding(ALICE).buyNotional], [10, 5_000_000])
    const r = ex.ok(cancel(ALICE, by === 'orderId' ? { orderId: id } : { clientOrderId: 'mine-1' }))
    t.same(orderTrail(r), [[ALICE, 1, 'CANCELED', 'CANCELED', 0]], by)
    t.equal(orderEvents(r)[0]!.clientOrderId, 'mine-1')
    t.same([ex.holding(ALICE).buyLots, ex.holding(ALICE).buyNotional], [0, 0], `${by}: margin released`)
    t.equal(ex.state.markets[BTCPERP]!.book.orders.size, 0)
    t.equal(rejection(ex, cancel(ALICE, { orderId: id })).code, 'ORDER_UNKNOWN', `${by}: twice is unknown`)
  }
})

t.test('a cancel that names itself: its id on the CANCELED event, the order keeps its own', async (t) => {
  const ex = setup()
  const id = placedId(ex.ok(limit(ALICE, 'BUY', 500_000, 10, { clientOrderId: 'mine-1' })))
  const r = ex.ok(cancel(ALICE, { orderId: id, cancelClientOrderId: 'undo-1' }))
  t.match(orderEvents(r), [{ clientOrderId: 'mine-1', cancelClientOrderId: 'undo-1', status: 'CANCELED' }])
  const plain = ex.ok(cancel(ALICE, { orderId: placedId(ex.ok(limit(ALICE, 'BUY', 500_000, 10))) }))
  t.notOk('cancelClientOrderId' in orderEvents(plain)[0]!, 'absent when the cancel names nothing')
})

t.test('a partially filled order cancels with its executed quantity', async (t) => {
  const ex = setup()
  const id = placedId(ex.ok(limit(ALICE, 'BUY', 500_000, 10)))
  ex.ok(limit(BOB, 'SELL', 500_000, 3))
  const r = ex.ok(cancel(ALICE, { orderId: id }))
  t.same(orderTrail(r), [[ALICE, id, 'CANCELED', 'CANCELED', 3]])
  t.equal(orderEvents(r)[0]!.cumQuoteTicksLots, 1_500_000)
})

t.test('cancel rejections', async (t) => {
  const ex = setup()
  const newId = placedId(ex.ok(limit(ALICE, 'BUY', 500_000, 10, { clientOrderId: 'new-one' })))
  const partId = placedId(ex.ok(limit(ALICE, 'BUY', 510_000, 10, { clientOrderId: 'part-one' })))
  ex.ok(limit(BOB, 'SELL', 510_000, 4)) // part-one: PARTIALLY_FILLED, 4 of 10
  const bobId = placedId(ex.ok(limit(BOB, 'SELL', 520_000, 10, { clientOrderId: 'bobs' })))
  const cases: [string, ReturnType<typeof cancel>, string][] = [
    ['no id at all', cancel(ALICE, {}), 'ORDER_ID_REQUIRED'],
    ['bad restriction', cancel(ALICE, { orderId: newId, restriction: 'ONLY_FOO' as never }), 'CANCEL_RESTRICTION_INVALID'],
    ['ONLY_NEW on a partially filled order', cancel(ALICE, { orderId: partId, restriction: 'ONLY_NEW' }), 'CANCEL_RESTRICTED'],
    ['ONLY_PARTIALLY_FILLED on a new order', cancel(ALICE, { orderId: newId, restriction: 'ONLY_PARTIALLY_FILLED' }), 'CANCEL_RESTRICTED'],
    ["another account's order by id", cancel(ALICE, { orderId: bobId }), 'ORDER_UNKNOWN'],
    ["another account's order by client id", cancel(ALICE, { clientOrderId: 'bobs' }), 'ORDER_UNKNOWN'],
    ['an id that never existed', cancel(ALICE, { orderId: 999 }), 'ORDER_UNKNOWN'],
    ['the right id in the wrong market', cancel(ALICE, { orderId: newId, marketId: ETHPERP }), 'ORDER_UNKNOWN'],
    ['orderId and a clientOrderId of another order', cancel(ALICE, { orderId: newId, clientOrderId: 'part-one' }), 'ORDER_UNKNOWN'],
    ['an account with nothing', cancel('0x' + 'e'.repeat(40), { orderId: newId }), 'ORDER_UNKNOWN'],
    ['unknown market', cancel(ALICE, { orderId: newId, marketId: 99 }), 'MARKET_UNKNOWN'],
    ['a cancel id with a space', cancel(ALICE, { orderId: newId, cancelClientOrderId: 'a b' }), 'CLIENT_ID_INVALID'],
    ['a cancel id of 37 characters', cancel(ALICE, { orderId: newId, cancelClientOrderId: 'c'.repeat(37) }), 'CLIENT_ID_INVALID'],
  ]
  for (const [name, cmd, code] of cases) {
    t.same(rejection(ex, cmd), { code, eventCount: 0, rootUnchanged: true }, name)
  }
  const ok: [string, ReturnType<typeof cancel>, number][] = [
    ['ONLY_NEW on a new order', cancel(ALICE, { orderId: newId, restriction: 'ONLY_NEW' }), 0],
    ['ONLY_PARTIALLY_FILLED on a partial order', cancel(ALICE, { clientOrderId: 'part-one', restriction: 'ONLY_PARTIALLY_FILLED' }), 4],
  ]
  for (const [name, cmd, executed] of ok) {
    const r = ex.ok(cmd)
    t.same(orderEvents(r).map((e) => [e.status, e.executedQtyLots]), [['CANCELED', executed]], name)
  }
})

t.test('CancelAll cancels the account\'s orders in that market only, in placement order', async (t) => {
  const ex = setup()
  const a1 = placedId(ex.ok(limit(ALICE, 'BUY', 490_000, 10)))
  ex.ok(limit(ALICE, 'BUY', 300_000, 10, { marketId: ETHPERP }))
  const a2 = placedId(ex.ok(limit(ALICE, 'SELL', 510_000, 10)))
  ex.ok(limit(BOB, 'BUY', 491_000, 10))
  const r = ex.ok({ type: 'CancelAll', account: ALICE, sub: 0, marketId: BTCPERP })
  t.same(orderTrail(r), [[ALICE, a1, 'CANCELED', 'CANCELED', 0], [ALICE, a2, 'CANCELED', 'CANCELED', 0]])
  t.equal(ex.sub(ALICE).orders.size, 1, 'the ETH order stays')
  t.equal(ex.state.markets[BTCPERP]!.book.orders.size, 1, "Bob's order stays")
  t.same([ex.holding(ALICE).buyLots, ex.holding(ALICE).sellLots], [0, 0])
  t.same(ex.ok({ type: 'CancelAll', account: ALICE, sub: 0, marketId: BTCPERP }).events, [], 'nothing left: accepted, no events')
  t.same(ex.ok({ type: 'CancelAll', account: '0x' + 'e'.repeat(40), sub: 0, marketId: BTCPERP }).events, [],
    'an unknown account: accepted, no events')
})

t.test('client order ids: generated, unique among open orders, reusable once closed', async (t) => {
  const ex = setup()
  const gen = ex.ok(limit(ALICE, 'BUY', 490_000, 10))
  t.equal(orderEvents(gen)[0]!.clientOrderId, 'x-1-1', 'generated from market and order id')
  ex.ok(cancel(ALICE, { clientOrderId: 'x-1-1' }))

  const cases: [string, string, string][] = [
    ['fresh id', 'abc', 'ACCEPTED'],
    ['same id while open', 'abc', 'CLIENT_ID_DUPLICATE'],
    ['36 characters', 'A'.repeat(36), 'ACCEPTED'],
    ['37 characters', 'A'.repeat(37), 'CLIENT_ID_INVALID'],
    ['empty', '', 'CLIENT_ID_INVALID'],
    ['a space', 'a b', 'CLIENT_ID_INVALID'],
    ['a hash', 'a#b', 'CLIENT_ID_INVALID'],
    ['every allowed character', '.Az:/09_-', 'ACCEPTED'],
    ['the generated id of the canceled order 1', 'x-1-1', 'ACCEPTED'],
  ]
  for (const [name, id, code] of cases) {
    const rej = rejection(ex, limit(ALICE, 'BUY', 490_000, 10, { clientOrderId: id }))
    t.equal(rej.code, code, name)
    if (code !== 'ACCEPTED') t.ok(rej.rootUnchanged, `${name}: nothing changed`)
  }
  // Orders 2 to 5 were accepted above. Order 7 would be x-1-7: make that taken by order 6,
  // so the generator must step aside.
  ex.ok(limit(ALICE, 'BUY', 490_000, 10, { clientOrderId: 'x-1-7' }))
  const next = ex.ok(limit(ALICE, 'BUY', 490_000, 10))
  t.equal(placedId(next), 7)
  t.equal(orderEvents(next)[0]!.clientOrderId, 'x-1-7-1', 'never equal to an open order\'s id')

  t.equal(rejection(ex, limit(BOB, 'SELL', 510_000, 10, { clientOrderId: 'abc' })).code, 'ACCEPTED', 'ids are per account')
  ex.ok(cancel(ALICE, { clientOrderId: 'abc' }))
  t.equal(rejection(ex, limit(ALICE, 'BUY', 490_000, 10, { clientOrderId: 'abc' })).code, 'ACCEPTED', 'reusable after cancel')

  // A fully filled order frees its id too; so does an IOC that never rested.
  ex.ok(limit(BOB, 'BUY', 400_000, 10))
  ex.ok(limit(ALICE, 'SELL', 400_000, 10, { clientOrderId: 'filled' }))
  t.equal(rejection(ex, limit(ALICE, 'SELL', 600_000, 10, { clientOrderId: 'filled' })).code, 'ACCEPTED', 'reusable after fill')
})
