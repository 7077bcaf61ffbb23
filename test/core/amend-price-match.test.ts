// Amendment history in the core (count and before values on AMENDMENT events, the 10,000 cap),
// priceMatch resolved from the book as the command is applied, and resting reduce-only orders
// expiring as their position shrinks below them.

import t from 'tap'
import type { ModifyOrder, PriceMatch } from '../../core/commands.js'
import type { OrderEvent } from '../../core/events.js'
import { LIMITS } from '../../core/limits.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { limit, market, orderEvents, orderTrail, placedId, rejection, tradeEvents } from '../helpers/commands.js'
import { ALICE, BOB, BTCPERP, CAROL, TestExchange, btcLots, btcTicks } from '../helpers/exchange.js'

function modify(orderId: number, priceTicks: number | undefined, qtyLots: number, extra: Partial<ModifyOrder> = {}): ModifyOrder {
  return { type: 'ModifyOrder', account: ALICE, sub: 0, marketId: BTCPERP, orderId, side: 'BUY', qtyLots,
    ...(priceTicks !== undefined ? { priceTicks } : {}), ...extra }
}

function setup(): TestExchange {
  const ex = new TestExchange()
  for (const who of [ALICE, BOB, CAROL]) ex.fund(who, 1_000_000)
  return ex
}

const amendmentOf = (events: OrderEvent[]): OrderEvent => events.find((e) => e.execType === 'AMENDMENT')!

t.test('AMENDMENT events carry the price and quantity before, and the order\'s amendment count', async (t) => {
  const ex = setup()
  const id = placedId(ex.ok(limit(ALICE, 'BUY', btcTicks(50000), btcLots(0.01))))
  const first = amendmentOf(orderEvents(ex.ok(modify(id, btcTicks(49000), btcLots(0.01)))))
  t.match(first, { priceTicks: 490000, origQtyLots: 10, amendment: { priceBeforeTicks: 500000, origQtyBeforeLots: 10, count: 1 } })
  const second = amendmentOf(orderEvents(ex.ok(modify(id, btcTicks(49000), btcLots(0.02)))))
  t.match(second, { priceTicks: 490000, origQtyLots: 20, amendment: { priceBeforeTicks: 490000, origQtyBeforeLots: 10, count: 2 } })
  t.equal(ex.state.markets[BTCPERP]!.book.orders.get(id)!.amendCount, 2)
  // Other order events carry no amendment.
  t.equal(orderEvents(ex.ok(limit(BOB, 'BUY', btcTicks(48000), btcLots(0.01))))[0]!.amendment, undefined)

  // A snapshot keeps the count: the same root, and the next amendment is the third.
  const restored = new TestExchange()
  Object.assign(restored, { state: decodeSnapshot(encodeSnapshot(ex.state)) })
  t.equal(stateRoot(restored.state), stateRoot(ex.state))
  restored.time = ex.time
  const third = amendmentOf(orderEvents(restored.ok(modify(id, btcTicks(48500), btcLots(0.02)))))
  t.match(third, { amendment: { priceBeforeTicks: 490000, origQtyBeforeLots: 20, count: 3 } })
  // The count is in the root: an amended order hashes apart from the same order never amended.
  const fresh = setup()
  const freshId = placedId(fresh.ok(limit(ALICE, 'BUY', btcTicks(50000), btcLots(0.01))))
  fresh.ok(modify(freshId, btcTicks(49000), btcLots(0.01)))
  const o = fresh.state.markets[BTCPERP]!.book.orders.get(freshId)!
  const amended = stateRoot(fresh.state)
  o.amendCount = 0
  t.not(stateRoot(fresh.state), amended, 'amendCount is covered by the root')
})

t.test(`an order is amended at most ${LIMITS.amendmentsPerOrderMax} times (Binance -5026)`, async (t) => {
  const ex = setup()
  const id = placedId(ex.ok(limit(ALICE, 'BUY', btcTicks(40000), btcLots(0.01))))
  for (let i = 1; i <= LIMITS.amendmentsPerOrderMax; i++) {
    const r = ex.run(modify(id, btcTicks(i % 2 === 1 ? 40001 : 40000), btcLots(0.01)))
    if (!r.ok) t.fail(`amendment ${i} refused: ${r.code}`)
  }
  const o = ex.state.markets[BTCPERP]!.book.orders.get(id)!
  t.equal(o.amendCount, 10_000)
  t.same(rejection(ex, modify(id, btcTicks(40002), btcLots(0.01))),
    { code: 'MODIFY_LIMIT_REACHED', eventCount: 0, rootUnchanged: true })
  // It can still be canceled, and a snapshot keeps the cap.
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(restored.markets[BTCPERP]!.book.orders.get(id)!.amendCount, 10_000)
})

/** Bob's asks at 50001…50000+asks and Carol's bids at 49999…50000−bids, 0.003 BTC each. */
function bookOf(asks: number, bids: number): TestExchange {
  const ex = setup()
  for (let i = 1; i <= asks; i++) ex.ok(limit(BOB, 'SELL', btcTicks(50000 + i), btcLots(0.003)))
  for (let i = 1; i <= bids; i++) ex.ok(limit(CAROL, 'BUY', btcTicks(50000 - i), btcLots(0.003)))
  return ex
}

t.test('priceMatch takes the price from the book: every mode, both sides', async (t) => {
  const cases: [PriceMatch, number, number][] = [
    // mode, BUY price, SELL price
    ['OPPONENT', 50001, 49999], ['OPPONENT_5', 50005, 49995], ['OPPONENT_10', 50010, 49990], ['OPPONENT_20', 50020, 49980],
    ['QUEUE', 49999, 50001], ['QUEUE_5', 49995, 50005], ['QUEUE_10', 49990, 50010], ['QUEUE_20', 49980, 50020],
  ]
  for (const [mode, buy, sell] of cases) {
    for (const [side, want] of [['BUY', buy], ['SELL', sell]] as const) {
      const ex = bookOf(25, 25)
      const cmd = limit(ALICE, side, 0, btcLots(0.003), { priceMatch: mode })
      delete cmd.priceTicks
      const r = ex.ok(cmd)
      const placed = orderEvents(r)[0]!
      t.match(placed, { execType: 'NEW', priceTicks: btcTicks(want), priceMatch: mode }, `${mode} ${side}`)
      // OPPONENT prices cross: the order takes the touch at once. QUEUE prices rest, the mode on their record.
      const resting = ex.state.markets[BTCPERP]!.book.orders.get(placed.orderId)
      if (mode.startsWith('OPPONENT')) {
        t.same(tradeEvents(r).map((e) => e.priceTicks), [btcTicks(side === 'BUY' ? 50001 : 49999)], `${mode} ${side} takes the touch`)
        t.equal(resting, undefined)
      } else {
        t.equal(resting?.priceMatch, mode)
      }
    }
  }
})

t.test('priceMatch past the last level takes the last one; modify takes it too', async (t) => {
  const ex = bookOf(3, 2)
  const cmd = limit(ALICE, 'BUY', 0, btcLots(0.003), { priceMatch: 'QUEUE_20' })
  delete cmd.priceTicks
  const id = placedId(ex.ok(cmd))
  t.equal(ex.state.markets[BTCPERP]!.book.orders.get(id)!.priceTicks, btcTicks(49998), 'QUEUE_20 with two bids: the second')
  const r = ex.ok(modify(id, undefined, btcLots(0.003), { priceMatch: 'OPPONENT_5' }))
  t.match(amendmentOf(orderEvents(r)), { priceTicks: btcTicks(50003), priceMatch: 'OPPONENT_5',
    amendment: { priceBeforeTicks: btcTicks(49998), count: 1 } })
  // An explicit price clears the mode from the record.
  const bid = placedId(ex.ok(limit(ALICE, 'BUY', btcTicks(49000), btcLots(0.003), { priceMatch: 'NONE' })))
  const q = ex.ok(modify(bid, undefined, btcLots(0.003), { priceMatch: 'QUEUE' }))
  t.match(amendmentOf(orderEvents(q)), { priceTicks: btcTicks(49999), priceMatch: 'QUEUE' })
  const back = amendmentOf(orderEvents(ex.ok(modify(bid, btcTicks(49000), btcLots(0.003)))))
  t.equal(back.priceMatch, undefined)
  t.equal(ex.state.markets[BTCPERP]!.book.orders.get(bid)!.priceMatch, undefined)
})

t.test('priceMatch refusals change nothing', async (t) => {
  const ex = bookOf(2, 0)
  const withoutPrice = (extra: Parameters<typeof limit>[4]) => {
    const c = limit(ALICE, 'BUY', 0, btcLots(0.003), extra)
    delete c.priceTicks
    return c
  }
  const none = { eventCount: 0, rootUnchanged: true }
  t.same(rejection(ex, limit(ALICE, 'BUY', btcTicks(50000), btcLots(0.003), { priceMatch: 'QUEUE' })),
    { code: 'PRICE_NOT_ALLOWED', ...none }, 'price and priceMatch')
  t.same(rejection(ex, withoutPrice({ priceMatch: 'QUEUE' })), { code: 'PRICE_MATCH_NO_DEPTH', ...none }, 'no bids')
  t.same(rejection(ex, withoutPrice({ priceMatch: 'FOO' as PriceMatch })), { code: 'PRICE_MATCH_INVALID', ...none })
  t.same(rejection(ex, market(ALICE, 'BUY', btcLots(0.003), { priceMatch: 'OPPONENT' })),
    { code: 'PRICE_MATCH_TYPE', ...none }, 'MARKET')
  t.same(rejection(ex, { ...withoutPrice({ priceMatch: 'OPPONENT', stopPriceTicks: btcTicks(51000) }), orderType: 'STOP_MARKET' }),
    { code: 'PRICE_MATCH_TYPE', ...none }, 'STOP_MARKET (STOP and TAKE_PROFIT take it at trigger: test/core/conditional.test.ts)')
  const id = placedId(ex.ok(limit(ALICE, 'BUY', btcTicks(49000), btcLots(0.003))))
  t.same(rejection(ex, modify(id, btcTicks(49500), btcLots(0.003), { priceMatch: 'OPPONENT' })),
    { code: 'PRICE_NOT_ALLOWED', ...none }, 'modify: price and priceMatch')
  t.same(rejection(ex, modify(id, undefined, btcLots(0.003), { priceMatch: 'QUEUE_5' })),
    { code: 'MODIFY_UNCHANGED', ...none }, 'QUEUE_5 with only its own bid is its own price')
})

t.test('resting reduce-only orders expire when the position shrinks below them', async (t) => {
  const ex = setup()
  ex.ok(limit(BOB, 'SELL', btcTicks(50000), btcLots(0.01)))
  ex.ok(market(ALICE, 'BUY', btcLots(0.01)))
  const small = placedId(ex.ok(limit(ALICE, 'SELL', btcTicks(60000), btcLots(0.004), { reduceOnly: true })))
  const large = placedId(ex.ok(limit(ALICE, 'SELL', btcTicks(61000), btcLots(0.008), { reduceOnly: true })))
  ex.ok(limit(CAROL, 'BUY', btcTicks(50000), btcLots(0.005)))
  // Alice sells 0.005 to Carol: long 0.005 left; the 0.008 order could no longer only reduce.
  const r = ex.ok(limit(ALICE, 'SELL', btcTicks(50000), btcLots(0.005)))
  t.equal(ex.position(ALICE).qtyLots, 5)
  t.same(orderTrail(r).slice(-1), [[ALICE, large, 'EXPIRED', 'EXPIRED', 0]])
  t.ok(ex.state.markets[BTCPERP]!.book.orders.get(small), 'the 0.004 order still fits and rests')
  // Bob takes the rest of the position from Alice's side: Alice is the maker this time.
  ex.ok(limit(ALICE, 'SELL', btcTicks(50000), btcLots(0.005)))
  const close = ex.ok(market(BOB, 'BUY', btcLots(0.005)))
  t.equal(ex.position(ALICE).qtyLots, 0)
  t.same(orderTrail(close).filter((e) => e[2] === 'EXPIRED'), [[ALICE, small, 'EXPIRED', 'EXPIRED', 0]])
  t.equal(ex.sub(ALICE).orders.size, 0)
})

t.test('hedge mode: a resting SELL LONG close expires when the long is closed', async (t) => {
  const ex = setup()
  ex.ok({ type: 'ChangePositionMode', account: ALICE, sub: 0, dualSide: true })
  ex.ok(limit(BOB, 'SELL', btcTicks(50000), btcLots(0.01)))
  ex.ok(market(ALICE, 'BUY', btcLots(0.01), { positionSide: 'LONG' }))
  const close = placedId(ex.ok(limit(ALICE, 'SELL', btcTicks(60000), btcLots(0.01), { positionSide: 'LONG' })))
  // A short opened beside it changes nothing for the LONG close.
  ex.ok(limit(CAROL, 'BUY', btcTicks(50000), btcLots(0.02)))
  const shortOpen = ex.ok(market(ALICE, 'SELL', btcLots(0.01), { positionSide: 'SHORT' }))
  t.same(orderTrail(shortOpen).filter((e) => e[2] === 'EXPIRED'), [])
  const r = ex.ok(market(ALICE, 'SELL', btcLots(0.01), { positionSide: 'LONG' }))
  t.equal(ex.position(ALICE, BTCPERP, 'LONG').qtyLots, 0)
  t.same(orderTrail(r).filter((e) => e[2] === 'EXPIRED'), [[ALICE, close, 'EXPIRED', 'EXPIRED', 0]])
  t.equal(ex.position(ALICE, BTCPERP, 'SHORT').qtyLots, -10)
})
