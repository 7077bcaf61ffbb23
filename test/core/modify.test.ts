// Amending resting orders (ModifyOrder): same ids, lost queue priority, immediate matching at
// a crossing price, Binance's cancel-instead cases, and every refusal leaving the state as it was.

import t from 'tap'
import type { ModifyOrder } from '../../core/commands.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { fillTrail, limit, market, orderTrail, placedId, postOnly, rejection } from '../helpers/commands.js'
import { ALICE, BOB, BTCPERP, CAROL, TestExchange, btcLots, btcTicks } from '../helpers/exchange.js'

function modify(account: string, orderId: number, side: 'BUY' | 'SELL', price: number, qty: number,
  extra: Partial<ModifyOrder> = {}): ModifyOrder {
  return { type: 'ModifyOrder', account, sub: 0, marketId: BTCPERP, orderId, side, priceTicks: btcTicks(price),
    qtyLots: btcLots(qty), ...extra }
}

function setup(): TestExchange {
  const ex = new TestExchange()
  for (const who of [ALICE, BOB, CAROL]) ex.fund(who, 100_000)
  return ex
}

t.test('an amended order keeps its ids and goes to the back of its level', async (t) => {
  const ex = setup()
  const a = placedId(ex.ok(limit(ALICE, 'BUY', btcTicks(50000), btcLots(0.01), { clientOrderId: 'a-1' })))
  const b = placedId(ex.ok(limit(BOB, 'BUY', btcTicks(50000), btcLots(0.01))))
  const r = ex.ok(modify(ALICE, a, 'BUY', 50000, 0.02))
  t.same(orderTrail(r), [[ALICE, a, 'AMENDMENT', 'NEW', 0]])
  const o = ex.state.markets[BTCPERP]!.book.orders.get(a)!
  t.match(o, { orderId: a, clientOrderId: 'a-1', origQtyLots: 20, priceTicks: 500000, updateTime: ex.time })
  // Resting margin follows the new size: 0.03 BTC bid at 50000 in all.
  t.match(ex.holding(ALICE), { buyLots: 20, buyNotional: 20 * 500000 })
  // Bob is now first in the queue.
  const sweep = ex.ok(market(CAROL, 'SELL', btcLots(0.015)))
  t.same(fillTrail(sweep), [[500000, 10, BOB, b, CAROL], [500000, 5, ALICE, a, CAROL]])
})

t.test('a new price that crosses trades at once; the rest rests', async (t) => {
  const ex = setup()
  const ask = placedId(ex.ok(limit(BOB, 'SELL', btcTicks(50000), btcLots(0.004))))
  const bid = placedId(ex.ok(limit(ALICE, 'BUY', btcTicks(49000), btcLots(0.01))))
  const r = ex.ok(modify(ALICE, bid, 'BUY', 50000, 0.01))
  t.same(orderTrail(r), [[ALICE, bid, 'AMENDMENT', 'NEW', 0]])
  t.same(fillTrail(r), [[500000, 4, BOB, ask, ALICE]])
  const o = ex.state.markets[BTCPERP]!.book.orders.get(bid)!
  t.match(o, { status: 'PARTIALLY_FILLED', executedQtyLots: 4, origQtyLots: 10, priceTicks: 500000 })
  t.match(ex.holding(ALICE), { buyLots: 6, buyNotional: 6 * 500000 })
  t.equal(ex.position(ALICE).qtyLots, 4)
})

t.test('Binance cancels instead: quantity down to what filled, post-only that would take', async (t) => {
  const ex = setup()
  placedId(ex.ok(limit(BOB, 'SELL', btcTicks(50000), btcLots(0.004))))
  const bid = placedId(ex.ok(limit(ALICE, 'BUY', btcTicks(50000), btcLots(0.01))))
  const r = ex.ok(modify(ALICE, bid, 'BUY', 50000, 0.004))
  t.same(orderTrail(r), [[ALICE, bid, 'CANCELED', 'CANCELED', 4]])
  t.equal(ex.state.markets[BTCPERP]!.book.orders.get(bid), undefined)
  t.match(ex.holding(ALICE), { buyLots: 0, buyNotional: 0 })

  placedId(ex.ok(limit(BOB, 'SELL', btcTicks(51000), btcLots(0.004))))
  const po = placedId(ex.ok(postOnly(ALICE, 'BUY', btcTicks(50500), btcLots(0.004))))
  const c = ex.ok(modify(ALICE, po, 'BUY', 51000, 0.004))
  t.same(orderTrail(c), [[ALICE, po, 'CANCELED', 'CANCELED', 0]])
  t.same(fillTrail(c), [])
})

t.test('refusals change nothing', async (t) => {
  const ex = setup()
  const bid = placedId(ex.ok(limit(ALICE, 'BUY', btcTicks(50000), btcLots(0.01))))
  const cases: [string, ModifyOrder, string][] = [
    ['unchanged', modify(ALICE, bid, 'BUY', 50000, 0.01), 'MODIFY_UNCHANGED'],
    ['other side', modify(ALICE, bid, 'SELL', 50000, 0.02), 'SIDE_INVALID'],
    ["another's order", modify(BOB, bid, 'BUY', 50000, 0.02), 'ORDER_UNKNOWN'],
    ['unknown id', modify(ALICE, 999, 'BUY', 50000, 0.02), 'ORDER_UNKNOWN'],
    ['client id that does not match', modify(ALICE, bid, 'BUY', 50000, 0.02, { clientOrderId: 'nope' }), 'ORDER_UNKNOWN'],
    ['no id', modify(ALICE, bid, 'BUY', 50000, 0.02, { orderId: undefined }), 'ORDER_ID_REQUIRED'],
    ['below min notional', modify(ALICE, bid, 'BUY', 40000, 0.002), 'MODIFY_NOTIONAL_TOO_SMALL'],
    ['quantity over max', modify(ALICE, bid, 'BUY', 50000, 1001), 'QTY_ABOVE_MAX'],
    ['more margin than the wallet', modify(ALICE, bid, 'BUY', 50000, 50), 'MARGIN_INSUFFICIENT'],
    ['spot market', modify(ALICE, bid, 'BUY', 50000, 0.02, { marketId: 3 }), 'MARKET_UNKNOWN'],
  ]
  for (const [name, cmd, code] of cases) {
    t.same(rejection(ex, cmd), { code, eventCount: 0, rootUnchanged: true }, name)
  }
})

t.test('shrinking needs no margin check; a reduce-only order may not outgrow its position', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 300)
  ex.fund(BOB, 100_000)
  // 0.05 BTC at 50000 = 2500 notional: 125 initial margin at the default 20x.
  const bid = placedId(ex.ok(limit(ALICE, 'BUY', btcTicks(50000), btcLots(0.05))))
  t.same(rejection(ex, modify(ALICE, bid, 'BUY', 50000, 0.2)).code, 'MARGIN_INSUFFICIENT')
  ex.ok(modify(ALICE, bid, 'BUY', 49000, 0.03))
  t.match(ex.holding(ALICE), { buyLots: 30, buyNotional: 30 * 490000 })

  ex.ok(limit(BOB, 'SELL', btcTicks(49000), btcLots(0.03)))
  t.equal(ex.position(ALICE).qtyLots, 30)
  const ro = placedId(ex.ok(limit(ALICE, 'SELL', btcTicks(60000), btcLots(0.01), { reduceOnly: true })))
  t.same(rejection(ex, modify(ALICE, ro, 'SELL', 60000, 0.04)).code, 'REDUCE_ONLY_REJECTED')
  const r = ex.ok(modify(ALICE, ro, 'SELL', 61000, 0.03))
  t.same(orderTrail(r), [[ALICE, ro, 'AMENDMENT', 'NEW', 0]])
})

t.test('an amended GTD order still expires at its date; snapshots keep the new queue order', async (t) => {
  const ex = setup()
  const gtd = ex.time + 3_600_000
  const a = placedId(ex.ok(limit(ALICE, 'BUY', btcTicks(50000), btcLots(0.01), { timeInForce: 'GTD', goodTillDate: gtd })))
  const b = placedId(ex.ok(limit(BOB, 'BUY', btcTicks(50000), btcLots(0.01))))
  ex.ok(modify(ALICE, a, 'BUY', 50000, 0.02))
  const copy = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(stateRoot(copy), stateRoot(ex.state))
  const level = copy.markets[BTCPERP]!.book.bids.best()!
  t.same([level.head!.orderId, level.tail!.orderId], [b, a], 'Bob ahead of the amended order after a restore too')
  ex.ok({ type: 'Tick' }, 3_600_000)
  t.equal(ex.state.markets[BTCPERP]!.book.orders.get(a), undefined, 'expired at its goodTillDate')
  t.match(ex.holding(ALICE), { buyLots: 0, buyNotional: 0 })
})
