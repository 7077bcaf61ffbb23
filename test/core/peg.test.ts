// Spot pegged orders (Binance's pegPriceType; core/peg.ts): the limit price is the book's best
// on the order's own side (PRIMARY_PEG) or the side it would trade against (MARKET_PEG), or the
// level an offset names deeper, taken as the order enters the book; a stop's at its trigger.
// BTCUSDT: price × 100 = ticks, qty × 10,000 = lots, 1 USDT unit per tick·lot, 10,000 BTC units
// per lot.

import t from 'tap'
import type { PlaceOrder, PlaceOtoList } from '../../core/commands.js'
import { stateRoot } from '../../core/root.js'
import type { SpotMarket } from '../../core/state.js'
import { stateViolations } from '../../sim/model/invariants.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, CAROL, DAVE, type TestExchange } from '../helpers/exchange.js'
import { limit, orderEvents, rejection, spotTradeEvents } from '../helpers/commands.js'
import { restoredAlike, spotScene, tradeAt } from '../helpers/spot-book.js'

const spot = { marketId: BTCSPOT }

/**
 * The spot scene with a book: Carol bids 29,900.00 and 29,800.00, Bob asks 30,100.00 and
 * 30,200.00, 10 lots each.
 */
function scene(): TestExchange {
  const ex = spotScene()
  ex.ok(limit(CAROL, 'BUY', 2_990_000, 10, spot))
  ex.ok(limit(CAROL, 'BUY', 2_980_000, 10, spot))
  ex.ok(limit(BOB, 'SELL', 3_010_000, 10, spot))
  ex.ok(limit(BOB, 'SELL', 3_020_000, 10, spot))
  return ex
}

function pegged(account: string, side: 'BUY' | 'SELL', qtyLots: number, pegPriceType: 'PRIMARY_PEG' | 'MARKET_PEG',
  extra: Partial<PlaceOrder> = {}): PlaceOrder {
  return { type: 'PlaceOrder', account, sub: 0, marketId: BTCSPOT, side, orderType: 'LIMIT', timeInForce: 'GTC', qtyLots, pegPriceType, ...extra }
}

const market = (ex: TestExchange) => ex.state.markets[BTCSPOT] as SpotMarket
/** A side's levels, best first: [price, lots]. */
function levels(ex: TestExchange, bids: boolean): [number, number][] {
  return [...(bids ? market(ex).book.bids : market(ex).book.asks).levels].reverse().map((l) => [l.priceTicks, l.qtyLots])
}

t.test('PRIMARY_PEG joins the best price of its own side, at the back; an offset names a level deeper', async (t) => {
  const ex = scene()
  const r = ex.ok(pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG'))
  t.match(orderEvents(r), [{ execType: 'NEW', status: 'NEW', orderType: 'LIMIT', priceTicks: 2_990_000,
    peg: { type: 'PRIMARY_PEG', offsetLevels: 0, sentPriceTicks: 0 } }])
  t.same(levels(ex, true), [[2_990_000, 20], [2_980_000, 10]])
  // Behind Carol's: a seller meets hers first.
  const sold = ex.ok(limit(DAVE, 'SELL', 2_990_000, 10, spot))
  t.same(spotTradeEvents(sold).map((e) => e.maker.account), [CAROL])

  const deeper = ex.ok(pegged(DAVE, 'SELL', 10, 'PRIMARY_PEG', { pegOffsetLevels: 1 }))
  t.match(orderEvents(deeper), [{ priceTicks: 3_020_000, peg: { type: 'PRIMARY_PEG', offsetLevels: 1 } }])
  t.same(levels(ex, false), [[3_010_000, 10], [3_020_000, 20]])
  t.same(stateViolations(ex.state), [])
})

t.test('MARKET_PEG takes the best opposite level and no worse; with an offset, the levels up to that one', async (t) => {
  const ex = scene()
  const ioc = ex.ok(pegged(ALICE, 'BUY', 15, 'MARKET_PEG', { timeInForce: 'IOC' }))
  t.same(spotTradeEvents(ioc).map((e) => [e.priceTicks, e.qtyLots]), [[3_010_000, 10]], 'only the best ask\'s price')
  t.match(orderEvents(ioc).at(-1), { execType: 'EXPIRED', priceTicks: 3_010_000, executedQtyLots: 10, expiryReason: 'UNFILLED_IOC_QUANTITY_EXPIRED' })

  ex.ok(limit(BOB, 'SELL', 3_030_000, 10, spot))
  // Asks now 30,200.00 and 30,300.00: one level deeper is 30,300.00, and the rest rests there.
  const gtc = ex.ok(pegged(ALICE, 'BUY', 25, 'MARKET_PEG', { pegOffsetLevels: 1 }))
  t.same(spotTradeEvents(gtc).map((e) => [e.priceTicks, e.qtyLots]), [[3_020_000, 10], [3_030_000, 10]])
  t.same(levels(ex, true)[0], [3_030_000, 5], 'the rest bids at the pegged price')
  t.same(levels(ex, false), [])
})

t.test('a price sent with the peg is checked and recorded, not traded at', async (t) => {
  const ex = scene()
  const r = ex.ok(pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG', { priceTicks: 2_500_000 }))
  t.match(orderEvents(r), [{ priceTicks: 2_990_000, peg: { sentPriceTicks: 2_500_000 } }])
  // Alice holds at the price she rests at.
  t.equal(ex.sub(ALICE).spot.get('USDT')!.locked, 10 * 2_990_000)
  t.match(rejection(ex, pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG', { priceTicks: 0 })), { code: 'PRICE_BELOW_ZERO', rootUnchanged: true })
  t.match(rejection(ex, pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG', { priceTicks: 2_500_000.5 })), { code: 'PRICE_TICK', rootUnchanged: true })
  // 10 lots at 1.00 is under the minimum notional, though at the pegged price it would not be.
  t.match(rejection(ex, pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG', { priceTicks: 100 })), { code: 'NOTIONAL_TOO_SMALL', rootUnchanged: true })
})

t.test('refusals change nothing', async (t) => {
  const ex = scene()
  const cases: [string, PlaceOrder, string][] = [
    ['a LIMIT_MAKER at the opposite side', pegged(BOB, 'SELL', 10, 'MARKET_PEG', { orderType: 'POST_ONLY', timeInForce: undefined }), 'PEG_TYPE_MISMATCH'],
    ['a PRIMARY_PEG that is not GTC', pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG', { timeInForce: 'IOC' }), 'PEG_TYPE_MISMATCH'],
    ['a PRIMARY_PEG stop limit that is not GTC', pegged(BOB, 'SELL', 10, 'PRIMARY_PEG', { orderType: 'STOP', stopPriceTicks: 2_900_000, timeInForce: 'FOK' }),
      'PEG_TYPE_MISMATCH'],
    ['a MARKET order', pegged(ALICE, 'BUY', 10, 'MARKET_PEG', { orderType: 'MARKET', timeInForce: undefined }), 'PEG_ORDER_TYPE'],
    ['a stop-market', pegged(BOB, 'SELL', 10, 'MARKET_PEG', { orderType: 'STOP_MARKET', stopPriceTicks: 2_900_000, timeInForce: undefined }),
      'PEG_ORDER_TYPE'],
    ['an offset past the book\'s levels', pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG', { pegOffsetLevels: 2 }), 'PEG_NO_DEPTH'],
    ['an offset over 100', pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG', { pegOffsetLevels: 101 }), 'PEG_INVALID'],
    ['a negative offset', pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG', { pegOffsetLevels: -1 }), 'PEG_INVALID'],
    ['a fractional offset', pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG', { pegOffsetLevels: 0.5 }), 'PEG_INVALID'],
    ['an unknown peg', pegged(ALICE, 'BUY', 10, 'MID_PEG' as 'MARKET_PEG'), 'PEG_INVALID'],
    ['an offset without a peg', { ...limit(ALICE, 'BUY', 2_990_000, 10, spot), pegOffsetLevels: 1 }, 'PEG_INVALID'],
    ['a perpetual', { ...pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG'), marketId: BTCPERP }, 'COMMAND_INVALID'],
  ]
  for (const [name, cmd, code] of cases) t.match(rejection(ex, cmd), { code, eventCount: 0, rootUnchanged: true }, name)
  // Without a level on its side at all.
  const empty = spotScene()
  t.match(rejection(empty, pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG')), { code: 'PEG_NO_DEPTH', rootUnchanged: true })
  t.match(rejection(empty, pegged(ALICE, 'BUY', 10, 'MARKET_PEG', { orderType: 'POST_ONLY', timeInForce: undefined })),
    { code: 'PEG_TYPE_MISMATCH', rootUnchanged: true })
})

t.test('a LIMIT_MAKER joins its own best price', async (t) => {
  const ex = scene()
  const r = ex.ok(pegged(DAVE, 'SELL', 10, 'PRIMARY_PEG', { orderType: 'POST_ONLY', timeInForce: undefined }))
  t.match(orderEvents(r), [{ orderType: 'POST_ONLY', priceTicks: 3_010_000 }])
  t.same(levels(ex, false)[0], [3_010_000, 20])
})

t.test('a pegged stop limit takes its price from the book as it triggers', async (t) => {
  const ex = scene()
  // Stop-loss sell at 29,950.00, at the best bid then; holds its base as any sell.
  const placed = ex.ok(pegged(BOB, 'SELL', 10, 'MARKET_PEG', { orderType: 'STOP', stopPriceTicks: 2_995_000 }))
  t.match(orderEvents(placed), [{ orderType: 'STOP', priceTicks: 0, peg: { type: 'MARKET_PEG' } }])
  t.equal(ex.sub(BOB).spot.get('BTC')!.locked, 30 * 10_000, 'its 10 lots and the two asks\' 20')
  // Dave sells into Carol's 29,900.00 bid: the last price falls to it, and the best bid is 29,800.00 now.
  const r = ex.ok(limit(DAVE, 'SELL', 2_990_000, 10, spot))
  const fired = orderEvents(r).filter((e) => e.orderId === placed.orderId)
  t.match(fired[0], { execType: 'NEW', orderType: 'LIMIT', priceTicks: 2_980_000, peg: { type: 'MARKET_PEG' } })
  t.same(spotTradeEvents(r).filter((e) => e.taker.orderId === placed.orderId).map((e) => [e.priceTicks, e.qtyLots]), [[2_980_000, 10]])
  t.same(stateViolations(ex.state), [])
})

t.test('a triggered pegged stop limit, amended, gives back what its lots hold at the price it rests at', async (t) => {
  const ex = scene()
  ex.fund(DAVE, 10_000, 0, 'SPOT')
  // Stop-loss buy at 30,100.00 joining the best bid (29,900.00) as it fires; it waits holding at its stop price.
  const placed = ex.ok(pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG', { orderType: 'STOP', stopPriceTicks: 3_010_000 }))
  const id = orderEvents(placed)[0]!.orderId
  ex.ok(limit(DAVE, 'BUY', 3_010_000, 10, spot))
  const usdt = () => ex.sub(ALICE).spot.get('USDT')!.locked
  t.equal(usdt(), 10 * 2_990_000, 'it rests at 29,900.00, holding at that price')
  const r = ex.ok({ type: 'AmendKeepPriority', account: ALICE, sub: 0, marketId: BTCSPOT, orderId: id, qtyLots: 5 })
  t.match(orderEvents(r), [{ execType: 'REPLACED', origQtyLots: 5, priceTicks: 2_990_000 }])
  t.equal(usdt(), 5 * 2_990_000, 'the 5 lots cut gave back 5 × 29,900.00, not 5 × its stop price')
  // Filled (behind Carol's 10 at that price), it spends exactly what it holds.
  ex.ok(limit(BOB, 'SELL', 2_990_000, 15, spot))
  t.equal(usdt(), 0)
  t.same(stateViolations(ex.state), [])
})

t.test('a pegged stop-limit buy holds at its stop price; without a level at its trigger it expires', async (t) => {
  const ex = spotScene()
  ex.ok(limit(BOB, 'SELL', 3_010_000, 10, spot))
  // Stop-loss buy at 30,100.00, joining the best bid when it fires: holds 10 × 3,010,000.
  const before = ex.sub(ALICE).spot.get('USDT')!.free
  const placed = ex.ok(pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG', { orderType: 'STOP', stopPriceTicks: 3_010_000 }))
  t.same([ex.sub(ALICE).spot.get('USDT')!.free, ex.sub(ALICE).spot.get('USDT')!.locked], [before - 30_100_000, 30_100_000])
  // Carol lifts Bob's ask: the stop fires with no bid to join.
  const r = ex.ok(limit(CAROL, 'BUY', 3_010_000, 10, spot))
  t.match(orderEvents(r).filter((e) => e.orderId === placed.orderId), [{ execType: 'EXPIRED', status: 'EXPIRED', expiryReason: 'REJECTED',
    cond: { reason: 'PEG_NO_DEPTH' } }])
  t.same([ex.sub(ALICE).spot.get('USDT')!.free, ex.sub(ALICE).spot.get('USDT')!.locked], [before, 0], 'its hold freed')
})

t.test('a pegged stop-limit buy whose pegged price costs more than its balance holds expires at its trigger', async (t) => {
  const ex = spotScene()
  for (const price of [3_010_000, 3_020_000, 3_200_000]) ex.ok(limit(BOB, 'SELL', price, 10, spot))
  // Dave's sub-account 1 has 31 USDT: the stop's hold at 30,100.00 is 30.1; one level past the best ask at its trigger is 32,000.00.
  ex.fund(DAVE, 31, 1, 'SPOT')
  const usdt = () => ex.sub(DAVE, 1).spot.get('USDT')!
  const placed = ex.ok(pegged(DAVE, 'BUY', 10, 'MARKET_PEG', { sub: 1, orderType: 'STOP', stopPriceTicks: 3_010_000, pegOffsetLevels: 1 }))
  t.equal(usdt().locked, 30_100_000)
  const r = ex.ok(limit(CAROL, 'BUY', 3_010_000, 10, spot))
  t.match(orderEvents(r).filter((e) => e.orderId === placed.orderId), [{ execType: 'EXPIRED', expiryReason: 'REJECTED',
    priceTicks: 3_200_000, cond: { reason: 'BALANCE_INSUFFICIENT' } }])
  t.same([usdt().free, usdt().locked], [31_000_000, 0], 'nothing held, nothing spent')
})

t.test('an OTO\'s pegged pending order takes its price as it is placed', async (t) => {
  const ex = scene()
  const oto: PlaceOtoList = {
    type: 'PlaceOtoList', account: ALICE, sub: 0, marketId: BTCSPOT,
    working: { orderType: 'LIMIT', timeInForce: 'GTC', side: 'BUY', qtyLots: 10, priceTicks: 2_995_000 },
    pendingSide: 'SELL', pendingQtyLots: 10, pending: { orderType: 'POST_ONLY', pegPriceType: 'PRIMARY_PEG' },
  }
  const placed = ex.ok(oto)
  const pending = orderEvents(placed).find((e) => e.status === 'PENDING_NEW')!
  t.match(pending, { priceTicks: 0, peg: { type: 'PRIMARY_PEG' } })
  // Bob lowers the best ask to 30,050.00, then sells into Alice's working bid.
  ex.ok(limit(BOB, 'SELL', 3_005_000, 10, spot))
  const r = ex.ok(limit(DAVE, 'SELL', 2_995_000, 10, spot))
  t.match(orderEvents(r).find((e) => e.orderId === pending.orderId), { execType: 'NEW', status: 'NEW', priceTicks: 3_005_000 })
})

t.test('the peg is in the state root and survives a snapshot', async (t) => {
  const plain = scene()
  plain.ok(limit(ALICE, 'BUY', 2_990_000, 10, spot))
  const peg = scene()
  peg.ok(pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG'))
  t.not(stateRoot(peg.state), stateRoot(plain.state), 'the same order at the same price, pegged or not')

  peg.ok(pegged(BOB, 'SELL', 10, 'MARKET_PEG', { orderType: 'STOP', stopPriceTicks: 2_995_000, pegOffsetLevels: 1, priceTicks: 2_900_000 }))
  const { restored, results } = restoredAlike(peg, [limit(DAVE, 'SELL', 2_990_000, 20, spot), limit(CAROL, 'BUY', 2_990_000, 10, spot)])
  t.equal(stateRoot(restored), stateRoot(peg.state))
  for (const [straight, after] of results) t.same(after, straight)
  // The stop fired in the first: one level deeper than the best bid left.
  t.ok(orderEvents(results[0]![0]).some((e) => e.orderType === 'LIMIT' && e.peg?.offsetLevels === 1))
})

t.test('an amendment keeping priority keeps the peg and the pegged price; a pegged stop\'s hold shrinks at its hold price', async (t) => {
  const ex = scene()
  const placed = ex.ok(pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG'))
  const r = ex.ok({ type: 'AmendKeepPriority', account: ALICE, sub: 0, marketId: BTCSPOT, orderId: placed.orderId!, qtyLots: 4 })
  t.match(orderEvents(r), [{ execType: 'REPLACED', priceTicks: 2_990_000, origQtyLots: 4, peg: { type: 'PRIMARY_PEG' } }])
  t.equal(ex.sub(ALICE).spot.get('USDT')!.locked, 4 * 2_990_000)
  const stop = ex.ok(pegged(ALICE, 'BUY', 10, 'PRIMARY_PEG', { orderType: 'STOP', stopPriceTicks: 3_050_000 }))
  ex.ok({ type: 'AmendKeepPriority', account: ALICE, sub: 0, marketId: BTCSPOT, orderId: stop.orderId!, qtyLots: 5 })
  t.equal(ex.sub(ALICE).spot.get('USDT')!.locked, 4 * 2_990_000 + 5 * 3_050_000, 'the stop holds 5 lots at its stop price')
  t.same(stateViolations(ex.state), [])
})

t.test('a trade moving the last price is no part of the peg: it reads the book only', async (t) => {
  const ex = scene()
  tradeAt(ex, 3_000_000)
  t.match(orderEvents(ex.ok(pegged(ALICE, 'BUY', 10, 'MARKET_PEG'))), [{ priceTicks: 3_010_000 }])
})
