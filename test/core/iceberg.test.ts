// Spot iceberg orders (Binance's icebergQty; core/book.ts): the book shows one slice of the
// order at a time, a taker meets only that slice, and a used-up slice shows the next one at the
// back of its level, where the same sweep may meet it again. BTCUSDT: price × 100 = ticks,
// qty × 10,000 = lots, 1 USDT unit per tick·lot.

import t from 'tap'
import type { AmendKeepPriority, PlaceOrder } from '../../core/commands.js'
import type { Result } from '../../core/events.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import type { Level } from '../../core/book.js'
import type { SpotMarket, State } from '../../core/state.js'
import { stateViolations } from '../../sim/model/invariants.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, CAROL, DAVE } from '../helpers/exchange.js'
import { limit, orderEvents, rejection, spotTradeEvents } from '../helpers/commands.js'
import { restoredAlike, spotScene, tradeAt } from '../helpers/spot-book.js'

const spot = { marketId: BTCSPOT }
const P = 3_100_000

function iceberg(account: string, side: 'BUY' | 'SELL', priceTicks: number, qtyLots: number, icebergLots: number,
  extra: Partial<PlaceOrder> = {}): PlaceOrder {
  return { ...limit(account, side, priceTicks, qtyLots, spot), timeInForce: 'GTC', icebergLots, ...extra }
}

const book = (s: State) => (s.markets[BTCSPOT] as SpotMarket).book
const askLevel = (s: State, price = P): Level | undefined => book(s).asks.level(price)
/** A level's queue: [orderId, lots it shows] head to tail. */
function queue(level: Level | undefined): [number, number][] {
  const out: [number, number][] = []
  for (let o = level?.head ?? null; o !== null; o = o.next) out.push([o.orderId, o.icebergLots === 0 ? o.origQtyLots - o.executedQtyLots : o.visibleLots])
  return out
}
/** The fills of a result: [maker orderId, lots]. */
const fills = (r: Result) => spotTradeEvents(r).map((e) => [e.maker.orderId, e.qtyLots])

t.test('a taker meets only the slice; the next slice waits at the back of the level', async (t) => {
  const ex = spotScene()
  const bob = ex.ok(iceberg(BOB, 'SELL', P, 30, 10)).orderId!
  t.match(orderEvents(ex.ok(limit(DAVE, 'SELL', P, 20, spot))), [{ execType: 'NEW' }])
  const dave = ex.state.markets[BTCSPOT]!.nextOrderId - 1
  t.same(queue(askLevel(ex.state)), [[bob, 10], [dave, 20]], 'Bob first, showing 10 of his 30')
  t.equal(askLevel(ex.state)!.qtyLots, 30, 'the level counts the slice, not the 30')

  const first = ex.ok(limit(CAROL, 'BUY', P, 25, spot))
  t.same(fills(first), [[bob, 10], [dave, 15]], 'Bob\'s slice, then Dave: Bob\'s next slice is behind him')
  t.same(queue(askLevel(ex.state)), [[dave, 5], [bob, 10]])
  t.equal(askLevel(ex.state)!.qtyLots, 15)

  const second = ex.ok(limit(ALICE, 'BUY', P, 20, spot))
  t.same(fills(second), [[dave, 5], [bob, 10], [bob, 5]], 'alone in the level, Bob\'s next slice is met again in the same sweep')
  t.same(queue(askLevel(ex.state)), [[bob, 5]], '5 left of the third slice')
  t.match(book(ex.state).orders.get(bob), { status: 'PARTIALLY_FILLED', executedQtyLots: 25, icebergLots: 10, visibleLots: 5 })
  t.same(stateViolations(ex.state), [])
})

t.test('icebergs at one price take turns, each slice behind the other\'s', async (t) => {
  const ex = spotScene()
  const bob = ex.ok(iceberg(BOB, 'SELL', P, 60, 20)).orderId!
  const dave = ex.ok(iceberg(DAVE, 'SELL', P, 40, 20)).orderId!
  const r = ex.ok(limit(CAROL, 'BUY', P, 90, spot))
  t.same(fills(r), [[bob, 20], [dave, 20], [bob, 20], [dave, 20], [bob, 10]])
  t.match(spotTradeEvents(r).filter((e) => e.maker.orderId === dave).at(-1)!.maker, { status: 'FILLED', executedQtyLots: 40 })
  t.same(queue(askLevel(ex.state)), [[bob, 10]], 'Bob: 10 left, the rest of his third slice')
  t.same(stateViolations(ex.state), [])
})

t.test('an iceberg taking liquidity takes all it can; what rests shows a slice', async (t) => {
  const ex = spotScene()
  ex.ok(limit(DAVE, 'SELL', 3_000_000, 30, spot))
  const r = ex.ok(iceberg(ALICE, 'BUY', 3_000_000, 50, 10))
  t.same(spotTradeEvents(r).map((e) => e.qtyLots), [30], 'one fill of 30, more than its slice')
  t.match(orderEvents(r)[0], { execType: 'NEW', icebergLots: 10 }, 'its record names the slice')
  const bid = book(ex.state).bids.best()!
  t.same([bid.priceTicks, bid.qtyLots], [3_000_000, 10], 'the 20 left show 10')
  t.same(stateViolations(ex.state), [])
})

t.test('fill-or-kill and quote-sized orders count the hidden lots, as the sweep meets them', async (t) => {
  const ex = spotScene()
  const bob = ex.ok(iceberg(BOB, 'SELL', P, 30, 10)).orderId!
  ex.ok(limit(DAVE, 'SELL', 3_200_000, 10, spot))
  const dave = ex.state.markets[BTCSPOT]!.nextOrderId - 1
  const fok = rejection(ex, limit(CAROL, 'BUY', P, 31, { ...spot, timeInForce: 'FOK' }))
  t.same([fok.code, fok.rootUnchanged], ['FOK_UNFILLED', true], '30 at the price, 10 of them showing: 31 cannot fill')
  // 30 lots × 31,000.00 + 5 × 32,000.00 = 109 USDT.
  const r = ex.ok({ type: 'PlaceOrder', account: CAROL, sub: 0, marketId: BTCSPOT, side: 'BUY', orderType: 'MARKET', qtyLots: 0,
    quoteQty: 109_000_000 })
  t.same(fills(r), [[bob, 10], [bob, 10], [bob, 10], [dave, 5]], 'sized to 35 lots: the three slices, then 5 above')
  const fok2 = ex.ok(iceberg(BOB, 'SELL', P, 30, 10))
  t.same(fills(ex.ok(limit(ALICE, 'BUY', P, 30, { ...spot, timeInForce: 'FOK' }))), [[fok2.orderId!, 10], [fok2.orderId!, 10], [fok2.orderId!, 10]],
    'a fill-or-kill of exactly the 30 fills')
  t.same(stateViolations(ex.state), [])
})

t.test('refusals: GTC LIMIT, LIMIT_MAKER and limit stops only, a slice of whole lots, at most 10 slices', async (t) => {
  const ex = spotScene()
  const cases: [string, PlaceOrder, string][] = [
    ['IOC', iceberg(BOB, 'SELL', P, 30, 10, { timeInForce: 'IOC' }), 'ICEBERG_NOT_ALLOWED'],
    ['FOK', iceberg(BOB, 'SELL', P, 30, 10, { timeInForce: 'FOK' }), 'ICEBERG_NOT_ALLOWED'],
    ['MARKET', { type: 'PlaceOrder', account: BOB, sub: 0, marketId: BTCSPOT, side: 'SELL', orderType: 'MARKET', qtyLots: 30, icebergLots: 10 },
      'ICEBERG_NOT_ALLOWED'],
    ['a market-form stop', { type: 'PlaceOrder', account: BOB, sub: 0, marketId: BTCSPOT, side: 'SELL', orderType: 'STOP_MARKET', qtyLots: 30,
      stopPriceTicks: 2_900_000, icebergLots: 10 }, 'ICEBERG_NOT_ALLOWED'],
    ['a perpetual', { ...limit(BOB, 'SELL', P, 30), timeInForce: 'GTC', icebergLots: 10 }, 'ICEBERG_NOT_ALLOWED'],
    ['a zero slice', iceberg(BOB, 'SELL', P, 30, 0), 'ICEBERG_QTY_INVALID'],
    ['a fraction of a lot', iceberg(BOB, 'SELL', P, 30, 2.5), 'ICEBERG_QTY_INVALID'],
    ['11 slices', iceberg(BOB, 'SELL', P, 101, 10), 'ICEBERG_PARTS'],
  ]
  for (const [what, command, code] of cases) {
    const r = rejection(ex, command)
    t.same([r.code, r.rootUnchanged, r.eventCount], [code, true, 0], what)
  }
  t.equal(rejection(ex, iceberg(BOB, 'SELL', P, 100, 10)).code, 'ACCEPTED', '10 slices')
  t.equal(rejection(ex, iceberg(BOB, 'SELL', P + 1, 10, 20)).code, 'ACCEPTED', 'a slice larger than the order: all of it shows')
  t.equal(rejection(ex, iceberg(BOB, 'SELL', P + 2, 30, 10, { orderType: 'POST_ONLY', timeInForce: undefined })).code, 'ACCEPTED', 'LIMIT_MAKER')
  t.equal(askLevel(ex.state, P + 1)!.qtyLots, 10)
  t.equal(ex.state.markets[BTCPERP]!.book.orders.size, 0)
})

t.test('an amendment shrinks the slice only when less than it is left', async (t) => {
  const ex = spotScene()
  const bob = ex.ok(iceberg(BOB, 'SELL', P, 30, 10)).orderId!
  const amend = (qtyLots: number): AmendKeepPriority => ({ type: 'AmendKeepPriority', account: BOB, sub: 0, marketId: BTCSPOT, orderId: bob, qtyLots })
  t.match(orderEvents(ex.ok(amend(25))), [{ execType: 'REPLACED', origQtyLots: 25, icebergLots: 10 }])
  t.same(queue(askLevel(ex.state)), [[bob, 10]], '25 left: the slice shows 10 still')
  ex.ok(amend(6))
  t.same(queue(askLevel(ex.state)), [[bob, 6]], '6 left: it shows 6')
  t.equal(askLevel(ex.state)!.qtyLots, 6)
  t.same(stateViolations(ex.state), [])
})

t.test('a stop-limit iceberg rests as an iceberg once triggered', async (t) => {
  const ex = spotScene()
  const stop = ex.ok({ type: 'PlaceOrder', account: BOB, sub: 0, marketId: BTCSPOT, side: 'SELL', orderType: 'STOP', qtyLots: 30,
    stopPriceTicks: 2_900_000, priceTicks: 2_800_000, timeInForce: 'GTC', icebergLots: 10 })
  t.match(orderEvents(stop), [{ orderType: 'STOP', icebergLots: 10 }])
  const r = tradeAt(ex, 2_900_000)
  t.match(orderEvents(r).filter((e) => e.orderId === stop.orderId), [{ execType: 'NEW', orderType: 'LIMIT', icebergLots: 10 }])
  t.same(queue(askLevel(ex.state, 2_800_000)), [[stop.orderId!, 10]], 'it shows its first slice')
  t.same(stateViolations(ex.state), [])
})

t.test('a snapshot keeps each slice and each queue; the root tells queues apart', async (t) => {
  const ex = spotScene()
  const bob = ex.ok(iceberg(BOB, 'SELL', P, 30, 10)).orderId!
  ex.ok(limit(DAVE, 'SELL', P, 20, spot))
  const dave = ex.state.markets[BTCSPOT]!.nextOrderId - 1
  ex.ok(limit(CAROL, 'BUY', P, 25, spot))
  const { restored, results } = restoredAlike(ex, [limit(ALICE, 'BUY', P, 12, spot), limit(CAROL, 'BUY', P, 4, spot)])
  t.same(results.map(([a, b]) => JSON.stringify(b) === JSON.stringify(a)), [true, true], 'the same results after the restore')
  t.same(fills(results[0]![0]), [[dave, 5], [bob, 7]])
  t.equal(stateRoot(restored), stateRoot(ex.state))
  t.same(queue(askLevel(restored)), queue(askLevel(ex.state)))

  // The same orders, slices and lots in another queue order is another state.
  ex.ok(limit(DAVE, 'SELL', P, 10, spot))
  const before = decodeSnapshot(encodeSnapshot(ex.state))
  const daveAgain = book(before).orders.get(ex.state.markets[BTCSPOT]!.nextOrderId - 1)!
  const asks = book(before).asks
  asks.remove(daveAgain)
  asks.add(daveAgain)
  t.equal(stateRoot(before), stateRoot(ex.state), 'the last order moved to the back where it was: the same root')
  const bobOrder = book(before).orders.get(bob)!
  asks.remove(bobOrder)
  asks.add(bobOrder)
  t.notSame(queue(askLevel(before)), queue(askLevel(ex.state)))
  t.not(stateRoot(before), stateRoot(ex.state), 'Bob moved behind Dave\'s new order: another root')
})

t.test('at most 5 open icebergs per account and market (MAX_NUM_ICEBERG_ORDERS), waiting stops among them', async (t) => {
  const ex = spotScene()
  const ids: number[] = []
  for (let i = 0; i < 4; i++) ids.push(ex.ok(iceberg(BOB, 'SELL', P + i, 20, 10)).orderId!)
  ex.ok({ type: 'PlaceOrder', account: BOB, sub: 0, marketId: BTCSPOT, side: 'SELL', orderType: 'STOP', qtyLots: 20,
    stopPriceTicks: 2_900_000, priceTicks: 2_800_000, timeInForce: 'GTC', icebergLots: 10 })
  const sixth = rejection(ex, iceberg(BOB, 'SELL', P + 9, 20, 10))
  t.same([sixth.code, sixth.rootUnchanged], ['TOO_MANY_ICEBERGS', true], 'the fifth was a waiting stop-limit iceberg')
  t.equal(rejection(ex, { type: 'PlaceOrder', account: BOB, sub: 0, marketId: BTCSPOT, side: 'SELL', orderType: 'STOP', qtyLots: 20,
    stopPriceTicks: 2_900_000, priceTicks: 2_800_000, timeInForce: 'GTC', icebergLots: 10 }).code, 'TOO_MANY_ICEBERGS', 'nor a stop')
  t.equal(rejection(ex, limit(BOB, 'SELL', P + 9, 20, spot)).code, 'ACCEPTED', 'a plain order is not one')
  t.equal(rejection(ex, iceberg(DAVE, 'SELL', P + 9, 20, 10)).code, 'ACCEPTED', 'another account has its own')
  ex.ok({ type: 'CancelOrder', account: BOB, sub: 0, marketId: BTCSPOT, orderId: ids[0] })
  t.equal(rejection(ex, iceberg(BOB, 'SELL', P + 9, 20, 10)).code, 'ACCEPTED', 'one canceled: room again')
})
