// Self-trade prevention in DECREMENT mode (Binance spot's DECREMENT and TRANSFER;
// core/prevention.ts): a match between two orders of one sub-account does not trade; both lose
// the lots it would have traded, the smaller expires (both when equal), the other keeps its
// place. BTCUSDT: price × 100 = ticks, qty × 10,000 = lots, 1 USDT unit per tick·lot, 10,000
// BTC units per lot.

import t from 'tap'
import type { ListLeg, PlaceOrderList } from '../../core/commands.js'
import type { PreventedMatchEvent } from '../../core/events.js'
import { stateRoot } from '../../core/root.js'
import type { SpotMarket } from '../../core/state.js'
import { stateViolations } from '../../sim/model/invariants.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, CAROL, COIN, type TestExchange } from '../helpers/exchange.js'
import { limit, market, orderEvents, rejection, spotTradeEvents } from '../helpers/commands.js'
import { restoredAlike, spotScene } from '../helpers/spot-book.js'

const spot = { marketId: BTCSPOT }
const decrement = { marketId: BTCSPOT, stp: 'DECREMENT' as const }

/** The spot scene, with Alice holding 1 BTC more to sell. */
function scene(): TestExchange {
  const ex = spotScene()
  ex.deposit(ALICE, 'BTC', COIN)
  return ex
}

const book = (ex: TestExchange) => (ex.state.markets[BTCSPOT] as SpotMarket).book
const prevented = (events: { type: string }[]) => events.filter((e): e is PreventedMatchEvent => e.type === 'preventedMatch')
/** [price, lots shown] of a side's levels, best first. */
const levels = (ex: TestExchange, bids: boolean) =>
  [...(bids ? book(ex).bids : book(ex).asks).levels].reverse().map((l) => [l.priceTicks, l.qtyLots])
const balance = (ex: TestExchange, asset: string) => ex.sub(ALICE).spot.get(asset)!

t.test('the smaller order expires, the larger loses as many lots and keeps its place (Binance\'s scenario G)', async (t) => {
  const ex = scene()
  const usdtBefore = balance(ex, 'USDT').free + balance(ex, 'USDT').locked
  const maker = ex.ok(limit(ALICE, 'BUY', 2_900_000, 60, spot))
  ex.ok(limit(CAROL, 'BUY', 2_900_000, 10, spot))
  const r = ex.ok(limit(ALICE, 'SELL', 2_900_000, 20, decrement))
  t.match(prevented(r.events), [{ preventedMatchId: 0, makerOrderId: orderEvents(maker)[0]!.orderId, takerLots: 20, makerLots: 20, mode: 'DECREMENT' }])
  t.same(spotTradeEvents(r), [], 'nothing traded')
  const [makerCut, takerEnd] = orderEvents(r).slice(1)
  t.match(makerCut, { execType: 'TRADE_PREVENTION', status: 'NEW', origQtyLots: 40, preventedLots: 20, preventedMatchId: 0, executedQtyLots: 0 })
  t.match(takerEnd, { execType: 'EXPIRED_IN_MATCH', status: 'EXPIRED_IN_MATCH', origQtyLots: 0, preventedLots: 20, preventedMatchId: 0 })
  t.same(levels(ex, true)[0], [2_900_000, 50], 'Alice\'s 40 lots and Carol\'s 10')
  t.equal(book(ex).bids.best()!.head!.owner.address, ALICE, 'still ahead of Carol')
  // The cut lots' hold is back: she holds 40 lots at 29,000.00 now, and her BTC is all free.
  t.equal(balance(ex, 'USDT').locked, 40 * 2_900_000)
  t.equal(balance(ex, 'USDT').free + balance(ex, 'USDT').locked, usdtBefore)
  t.equal(balance(ex, 'BTC').locked, 0)
  // A seller meets her 40 first.
  const sold = ex.ok(limit(BOB, 'SELL', 2_900_000, 45, { ...spot, stp: 'NONE' }))
  t.same(spotTradeEvents(sold).map((e) => [e.maker.account, e.qtyLots]), [[ALICE, 40], [CAROL, 5]])
  t.match(spotTradeEvents(sold)[0]!.maker, { status: 'FILLED', executedQtyLots: 40 })
  t.same(stateViolations(ex.state), [])
})

t.test('a larger taker goes on past its own order: it expires, the taker trades and rests the rest', async (t) => {
  const ex = scene()
  ex.ok(limit(ALICE, 'SELL', 3_100_000, 10, spot))
  ex.ok(limit(BOB, 'SELL', 3_100_000, 10, spot))
  const r = ex.ok(limit(ALICE, 'BUY', 3_100_000, 25, { ...spot, stp: 'TRANSFER' }))
  t.same(r.events.map((e) => e.type).filter((x) => x !== 'balance'), ['order', 'preventedMatch', 'order', 'order', 'spotTrade'])
  // TRANSFER is in effect only when the maker's mode is TRANSFER too (Binance's STP FAQ): DECREMENT here.
  t.match(prevented(r.events), [{ takerLots: 10, makerLots: 10, mode: 'DECREMENT' }])
  t.match(orderEvents(r), [
    { execType: 'NEW', origQtyLots: 25 },
    { account: ALICE, execType: 'EXPIRED_IN_MATCH', side: 'SELL', origQtyLots: 0, preventedLots: 10 },
    { execType: 'TRADE_PREVENTION', side: 'BUY', status: 'NEW', origQtyLots: 15, preventedLots: 10 },
  ])
  t.same(spotTradeEvents(r).map((e) => [e.maker.account, e.qtyLots]), [[BOB, 10]])
  const rest = book(ex).bids.best()!.head!
  t.match(rest, { owner: { address: ALICE }, status: 'PARTIALLY_FILLED', origQtyLots: 15, executedQtyLots: 10, preventedLots: 10, visibleLots: 5 })
  t.equal(balance(ex, 'USDT').locked, 5 * 3_100_000, 'holds only for the 5 lots it rests')
  t.equal(balance(ex, 'BTC').locked, 0)
  t.same(stateViolations(ex.state), [])
})

t.test('equal quantities: both expire', async (t) => {
  const ex = scene()
  ex.ok(limit(ALICE, 'SELL', 3_100_000, 10, { ...spot, stp: 'TRANSFER' }))
  const r = ex.ok(limit(ALICE, 'BUY', 3_100_000, 10, { ...spot, stp: 'TRANSFER' }))
  t.match(prevented(r.events), [{ mode: 'TRANSFER' }], 'both TRANSFER: TRANSFER in effect')
  t.match(orderEvents(r).slice(1), [
    { side: 'SELL', execType: 'EXPIRED_IN_MATCH', preventedLots: 10, origQtyLots: 0 },
    { side: 'BUY', execType: 'EXPIRED_IN_MATCH', preventedLots: 10, origQtyLots: 0 },
  ])
  t.equal(ex.sub(ALICE).orders.size, 0)
  t.same(levels(ex, false), [])
  t.equal(balance(ex, 'USDT').locked, 0)
  t.equal(balance(ex, 'BTC').locked, 0)
})

t.test('fill-or-kill counts the prevented lots: it fills all that is not prevented, or nothing', async (t) => {
  const ex = scene()
  ex.ok(limit(ALICE, 'SELL', 3_100_000, 10, spot))
  ex.ok(limit(BOB, 'SELL', 3_100_000, 10, spot))
  t.match(rejection(ex, limit(ALICE, 'BUY', 3_100_000, 21, { ...decrement, timeInForce: 'FOK' })), { code: 'FOK_UNFILLED', rootUnchanged: true })
  const r = ex.ok(limit(ALICE, 'BUY', 3_100_000, 20, { ...decrement, timeInForce: 'FOK' }))
  t.match(orderEvents(r).at(-1), { side: 'BUY', execType: 'TRADE_PREVENTION', status: 'NEW', origQtyLots: 10, preventedLots: 10 })
  t.match(spotTradeEvents(r).at(-1)!.taker, { status: 'FILLED', executedQtyLots: 10 })
  t.equal(balance(ex, 'USDT').locked, 0)
})

t.test('a market buy holds only what its fills cost; prevented lots cost nothing', async (t) => {
  const ex = scene()
  ex.ok(limit(ALICE, 'SELL', 3_100_000, 10, spot))
  ex.ok(limit(BOB, 'SELL', 3_200_000, 10, spot))
  const usdt = balance(ex, 'USDT').free
  const r = ex.ok(market(ALICE, 'BUY', 15, decrement))
  t.same(spotTradeEvents(r).map((e) => [e.priceTicks, e.qtyLots]), [[3_200_000, 5]])
  t.match(orderEvents(r).at(-1), { execType: 'TRADE_PREVENTION', origQtyLots: 5, preventedLots: 10 })
  t.match(spotTradeEvents(r).at(-1)!.taker, { status: 'FILLED', executedQtyLots: 5 })
  t.equal(balance(ex, 'USDT').free, usdt - 5 * 3_200_000)
  t.equal(balance(ex, 'USDT').locked, 0)
  // By quote: 10 lots prevented, then 16,000,000 units buy 5 lots at 32,000.00.
  ex.ok(limit(ALICE, 'SELL', 3_100_000, 10, spot))
  const q = ex.ok({ ...market(ALICE, 'BUY', 0, decrement), quoteQty: 16_000_000 })
  t.match(orderEvents(q)[0], { origQtyLots: 15 })
  t.same(spotTradeEvents(q).map((e) => [e.priceTicks, e.qtyLots]), [[3_200_000, 5]])
  t.same(stateViolations(ex.state), [])
})

t.test('an iceberg keeps its slice unless less is left', async (t) => {
  const ex = scene()
  ex.ok({ ...limit(ALICE, 'SELL', 3_100_000, 50, spot), icebergLots: 10 })
  const r = ex.ok(limit(ALICE, 'BUY', 3_100_000, 20, decrement))
  t.match(orderEvents(r)[1], { execType: 'TRADE_PREVENTION', origQtyLots: 30, preventedLots: 20 })
  t.match(book(ex).asks.best()!.head!, { visibleLots: 10 })
  ex.ok(limit(ALICE, 'BUY', 3_100_000, 25, decrement))
  t.match(book(ex).asks.best()!.head!, { origQtyLots: 5, preventedLots: 45, visibleLots: 5 })
  t.same(levels(ex, false), [[3_100_000, 5]])
  t.equal(balance(ex, 'BTC').locked, 5 * 10_000)
  t.same(stateViolations(ex.state), [])
})

t.test('an OCO pair shares one quantity: both orders lose the lots, and hold what the larger needs', async (t) => {
  const ex = scene()
  const above: ListLeg = { orderType: 'POST_ONLY', priceTicks: 3_200_000 }
  const below: ListLeg = { orderType: 'STOP_MARKET', stopPriceTicks: 2_900_000 }
  const list: PlaceOrderList = { type: 'PlaceOrderList', account: ALICE, sub: 0, marketId: BTCSPOT, side: 'SELL', qtyLots: 20, above, below }
  ex.ok(list)
  t.equal(balance(ex, 'BTC').locked, 20 * 10_000)
  const r = ex.ok(limit(ALICE, 'BUY', 3_200_000, 5, decrement))
  const cut = orderEvents(r).filter((e) => e.execType === 'TRADE_PREVENTION')
  t.same(cut.map((e) => [e.orderType, e.origQtyLots, e.preventedLots, e.preventedMatchId]), [['POST_ONLY', 15, 5, 0], ['STOP_MARKET', 15, 5, 0]])
  t.equal(balance(ex, 'BTC').locked, 15 * 10_000)
  t.same(stateViolations(ex.state), [])
  // The rest of the pair still works as one: the limit maker filled, the stop expires.
  const bought = ex.ok(limit(CAROL, 'BUY', 3_200_000, 15, spot))
  t.same(spotTradeEvents(bought).map((e) => e.qtyLots), [15])
  t.equal(balance(ex, 'BTC').locked, 0)
  t.equal(ex.sub(ALICE).orders.size, 0)
})

t.test('amending keeps the quantity as sent: the prevented lots stay taken', async (t) => {
  const ex = scene()
  const id = orderEvents(ex.ok(limit(ALICE, 'BUY', 2_900_000, 60, spot)))[0]!.orderId
  ex.ok(limit(ALICE, 'SELL', 2_900_000, 20, decrement))
  const amend = (qtyLots: number) => ({ type: 'AmendKeepPriority' as const, account: ALICE, sub: 0, marketId: BTCSPOT, orderId: id, qtyLots })
  t.match(rejection(ex, amend(60)), { code: 'MODIFY_UNCHANGED', rootUnchanged: true })
  t.match(rejection(ex, amend(61)), { code: 'AMEND_QTY_INCREASE', rootUnchanged: true })
  t.match(rejection(ex, amend(20)), { code: 'AMEND_QTY_FILLED', rootUnchanged: true })
  const r = ex.ok(amend(50))
  t.match(orderEvents(r)[0], { execType: 'REPLACED', origQtyLots: 30, preventedLots: 20, amendment: { origQtyBeforeLots: 60 } })
  t.equal(balance(ex, 'USDT').locked, 30 * 2_900_000)
  t.same(levels(ex, true)[0], [2_900_000, 30])
})

t.test('snapshots and roots carry what prevention took; perpetual markets refuse the mode', async (t) => {
  const ex = scene()
  ex.ok(limit(ALICE, 'BUY', 2_900_000, 60, spot))
  const before = stateRoot(ex.state)
  ex.ok(limit(ALICE, 'SELL', 2_900_000, 20, decrement))
  t.not(stateRoot(ex.state), before)
  const { restored, results } = restoredAlike(ex, [limit(ALICE, 'SELL', 2_900_000, 50, { ...decrement, timeInForce: 'IOC' }),
    limit(BOB, 'SELL', 2_900_000, 5, spot)])
  for (const [a, b] of results) t.same(b, a)
  t.equal(stateRoot(restored), stateRoot(ex.state))
  t.match(rejection(ex, limit(ALICE, 'BUY', 500_000, 1, { marketId: BTCPERP, stp: 'DECREMENT' })), { code: 'STP_INVALID', rootUnchanged: true })
  t.match(rejection(ex, limit(ALICE, 'BUY', 500_000, 1, { marketId: BTCPERP, stp: 'TRANSFER' })), { code: 'STP_INVALID', rootUnchanged: true })
})
