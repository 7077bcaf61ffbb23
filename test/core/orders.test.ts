// Order types and price-time priority on the BTCUSDTPERP book: LIMIT resting and filling in
// steps, MARKET sweeping levels, priority across and within levels, statuses on the way.
// Prices are ticks (price × 10), quantities lots (qty × 1000).

import t from 'tap'
import { ALICE, BOB, CAROL, DAVE, TestExchange } from '../helpers/exchange.js'
import { fillTrail, limit, market, orderEvents, orderTrail, placedId, rejection, tradeEvents } from '../helpers/commands.js'

function setup(): TestExchange {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB, CAROL, DAVE]) ex.fund(a, 100_000)
  return ex
}

t.test('LIMIT GTC rests as NEW, then goes PARTIALLY_FILLED and FILLED', async (t) => {
  const ex = setup()
  const r1 = ex.ok(limit(BOB, 'SELL', 500_000, 10))
  t.same(orderTrail(r1), [[BOB, 1, 'NEW', 'NEW', 0]])
  t.equal(r1.orderId, 1, 'the result carries the order id')
  const e = orderEvents(r1)[0]!
  t.match(e, { side: 'SELL', orderType: 'LIMIT', timeInForce: 'GTC', priceTicks: 500_000, origQtyLots: 10,
    positionSide: 'BOTH', reduceOnly: false, stp: 'EXPIRE_MAKER', goodTillDate: 0 })
  const ask = ex.state.markets[1]!.book.asks.best()!
  t.same([ask.priceTicks, ask.qtyLots, ask.count], [500_000, 10, 1])

  // Alice takes 4 of Bob's 10: Bob PARTIALLY_FILLED (4), Alice FILLED (4); the level keeps 6.
  const r2 = ex.ok(limit(ALICE, 'BUY', 500_000, 4))
  t.same(orderTrail(r2), [[ALICE, 2, 'NEW', 'NEW', 0]])
  t.same(fillTrail(r2), [[500_000, 4, BOB, 1, ALICE]])
  const tr = tradeEvents(r2)[0]!
  t.same([tr.tradeId, tr.buyerIsMaker], [1, false])
  t.same([tr.maker.status, tr.maker.executedQtyLots, tr.maker.cumQuoteTicksLots], ['PARTIALLY_FILLED', 4, 2_000_000])
  t.same([tr.taker.status, tr.taker.executedQtyLots], ['FILLED', 4])
  t.equal(ex.state.markets[1]!.book.asks.best()!.qtyLots, 6)

  // The other 6: Bob FILLED, book empty, trade id 2.
  const r3 = ex.ok(limit(ALICE, 'BUY', 500_000, 6))
  const tr3 = tradeEvents(r3)[0]!
  t.same([tr3.tradeId, tr3.qtyLots, tr3.maker.status, tr3.maker.executedQtyLots], [2, 6, 'FILLED', 10])
  t.equal(ex.state.markets[1]!.book.asks.best(), undefined)
  t.equal(ex.state.markets[1]!.book.orders.size, 0)
  t.equal(ex.sub(BOB).orders.size, 0)
  t.equal(ex.position(ALICE).qtyLots, 10)
  t.equal(ex.position(BOB).qtyLots, -10)
  t.equal(ex.state.markets[1]!.lastPriceTicks, 500_000)
})

t.test('a taker crossing at a better price fills at the maker price', async (t) => {
  const ex = setup()
  ex.ok(limit(BOB, 'SELL', 500_000, 10))
  const r = ex.ok(limit(ALICE, 'BUY', 510_000, 10))
  t.same(fillTrail(r), [[500_000, 10, BOB, 1, ALICE]])
  // Cost = 10 lots × 500,000 ticks, not Alice's limit.
  t.equal(tradeEvents(r)[0]!.taker.positionCostTicksLots, 5_000_000)
})

t.test('price-time priority on asks: best price first, then arrival within a level', async (t) => {
  const ex = setup()
  const orders: [string, number, number][] = [
    [BOB, 501_000, 10], // id 1
    [CAROL, 501_000, 10], // id 2, behind Bob at the same price
    [CAROL, 500_000, 5], // id 3, the best price though it came later
    [BOB, 502_000, 10], // id 4, beyond Alice's limit
  ]
  for (const [who, price, lots] of orders) ex.ok(limit(who, 'SELL', price, lots))
  const r = ex.ok(limit(ALICE, 'BUY', 501_000, 22))
  t.same(fillTrail(r), [
    [500_000, 5, CAROL, 3, ALICE],
    [501_000, 10, BOB, 1, ALICE],
    [501_000, 7, CAROL, 2, ALICE],
  ])
  t.same(tradeEvents(r).map((e) => e.tradeId), [1, 2, 3])
  // 5 × 500,000 + 17 × 501,000 = 11,017,000 tick·lots.
  const last = tradeEvents(r)[2]!
  t.same([last.taker.status, last.taker.executedQtyLots, last.taker.cumQuoteTicksLots], ['FILLED', 22, 11_017_000])
  t.same([last.maker.status, last.maker.executedQtyLots], ['PARTIALLY_FILLED', 7])
  const asks = ex.state.markets[1]!.book.asks.levels.map((l) => [l.priceTicks, l.qtyLots])
  t.same(asks, [[502_000, 10], [501_000, 3]], 'worst first: Carol keeps 3 at 50100, Bob 10 at 50200')
  t.same([ex.position(ALICE).qtyLots, ex.position(ALICE).costTicksLots], [22, 11_017_000])
})

t.test('price-time priority on bids: highest first, then arrival', async (t) => {
  const ex = setup()
  ex.ok(limit(ALICE, 'BUY', 499_000, 10)) // 1
  ex.ok(limit(BOB, 'BUY', 499_500, 10)) // 2
  ex.ok(limit(CAROL, 'BUY', 499_500, 10)) // 3
  const r = ex.ok(market(DAVE, 'SELL', 15))
  t.same(fillTrail(r), [[499_500, 10, BOB, 2, DAVE], [499_500, 5, CAROL, 3, DAVE]])
  t.equal(tradeEvents(r)[0]!.buyerIsMaker, true)
  t.same(orderTrail(r), [[DAVE, 4, 'NEW', 'NEW', 0]], 'a MARKET order filled in full ends with its last trade')
  const bids = ex.state.markets[1]!.book.bids.levels.map((l) => [l.priceTicks, l.qtyLots])
  t.same(bids, [[499_000, 10], [499_500, 5]])
})

t.test('MARKET sweeps levels and the unfilled rest EXPIRES', async (t) => {
  const ex = setup()
  ex.ok(limit(BOB, 'SELL', 500_000, 5))
  ex.ok(limit(BOB, 'SELL', 500_100, 5))
  const r = ex.ok(market(ALICE, 'BUY', 12))
  t.same(fillTrail(r), [[500_000, 5, BOB, 1, ALICE], [500_100, 5, BOB, 2, ALICE]])
  t.same(orderTrail(r), [[ALICE, 3, 'NEW', 'NEW', 0], [ALICE, 3, 'EXPIRED', 'EXPIRED', 10]])
  const expired = orderEvents(r)[1]!
  // 5 × 500,000 + 5 × 500,100 = 5,000,500 tick·lots.
  t.same([expired.orderType, expired.timeInForce, expired.priceTicks, expired.cumQuoteTicksLots],
    ['MARKET', 'IOC', 0, 5_000_500])
  t.equal(ex.state.markets[1]!.book.orders.size, 0)
  t.equal(ex.sub(ALICE).orders.size, 0, 'nothing of the market order rests')
})

t.test('MARKET on an empty book is accepted and EXPIRES with nothing filled', async (t) => {
  const ex = setup()
  const r = ex.ok(market(ALICE, 'BUY', 10))
  t.same(orderTrail(r), [[ALICE, 1, 'NEW', 'NEW', 0], [ALICE, 1, 'EXPIRED', 'EXPIRED', 0]])
  t.equal(r.orderId, 1)
  t.equal(ex.holding(ALICE).buyLots, 0)
})

t.test('MARKET quantity bound is MARKET_LOT_SIZE, LIMIT uses LOT_SIZE', async (t) => {
  const cases: { name: string, cmd: ReturnType<typeof market>, code: string }[] = [
    // marketMaxQty 120 BTC = 120,000 lots; maxQty 1000 BTC = 1,000,000 lots.
    { name: 'market at the market max', cmd: market(ALICE, 'BUY', 120_000), code: 'ACCEPTED' },
    { name: 'market one lot over', cmd: market(ALICE, 'BUY', 120_001), code: 'QTY_ABOVE_MAX' },
    { name: 'limit above the market max is fine', cmd: limit(ALICE, 'BUY', 1_000, 120_001), code: 'ACCEPTED' },
    { name: 'market with a price', cmd: market(ALICE, 'BUY', 10, { priceTicks: 500_000 }), code: 'PRICE_NOT_ALLOWED' },
  ]
  for (const c of cases) {
    const ex = setup()
    t.equal(rejection(ex, c.cmd).code, c.code, c.name)
  }
})

t.test('order ids and trade ids increase per market', async (t) => {
  const ex = setup()
  ex.ok(limit(BOB, 'SELL', 500_000, 10))
  const eth = ex.ok(limit(BOB, 'SELL', 300_000, 10, { marketId: 2 })) // ETH tick 0.01: 3000.00
  t.equal(placedId(eth), 1, 'ETHUSDTPERP numbers its own orders')
  const r = ex.ok(limit(ALICE, 'BUY', 500_000, 10))
  t.equal(placedId(r), 2)
  t.equal(tradeEvents(r)[0]!.tradeId, 1)
  const r2 = ex.ok(limit(ALICE, 'BUY', 300_000, 10, { marketId: 2 }))
  t.same([placedId(r2), tradeEvents(r2)[0]!.tradeId], [2, 1])
})

t.test('HALT stops placement but not cancels', async (t) => {
  const ex = setup()
  const id = placedId(ex.ok(limit(ALICE, 'BUY', 500_000, 10)))
  ex.ok({ type: 'SetMarketStatus', marketId: 1, status: 'HALT' })
  const rej = rejection(ex, limit(ALICE, 'BUY', 500_000, 10))
  t.same(rej, { code: 'MARKET_NOT_TRADING', eventCount: 0, rootUnchanged: true })
  t.equal(rejection(ex, { type: 'CancelOrder', account: ALICE, sub: 0, marketId: 1, orderId: id }).code, 'ACCEPTED')
  ex.ok({ type: 'SetMarketStatus', marketId: 1, status: 'TRADING' })
  t.equal(rejection(ex, limit(ALICE, 'BUY', 500_000, 10)).code, 'ACCEPTED')
})
