// OPO and OPOCO lists (core/oto-lists.ts; Binance spot's one-pays-the-other): an OTO or OTOCO
// whose working order buys and whose pending orders sell what it brought. Each fill's base,
// less the fee taken from it, is held by the first pending order as it comes in; once the
// working order has filled, the pending orders are placed for it all, to the lot, and the rest
// is freed. BTCUSDT spot: 10,000 BTC units per lot, fees 0.1 % (taken from the base a buy gets).

import t from 'tap'
import type { ListLeg, PlaceOtoList } from '../../core/commands.js'
import { stateRoot } from '../../core/root.js'
import type { SpotMarket } from '../../core/state.js'
import { stateViolations } from '../../sim/model/invariants.js'
import { ALICE, BTCSPOT, DAVE, type TestExchange } from '../helpers/exchange.js'
import { balanceEvents, limit, orderEvents, rejection, spotTradeEvents } from '../helpers/commands.js'
import { restoredAlike, spotScene } from '../helpers/spot-book.js'
import { listEvents } from '../helpers/list-flow.js'

const spot = { marketId: BTCSPOT }
const maker = (priceTicks: number): ListLeg => ({ orderType: 'POST_ONLY', priceTicks })
const stopMarket = (stopPriceTicks: number): ListLeg => ({ orderType: 'STOP_MARKET', stopPriceTicks })

/** Alice buys `lots` at 29,900.00 and sells what she gets by the pending order(s). */
function opo(lots: number, pending: { pending?: ListLeg; pendingAbove?: ListLeg; pendingBelow?: ListLeg }, extra: Partial<PlaceOtoList> = {}): PlaceOtoList {
  return { type: 'PlaceOtoList', account: ALICE, sub: 0, marketId: BTCSPOT, opo: true, pendingSide: 'SELL', pendingQtyLots: 0,
    working: { orderType: 'LIMIT', side: 'BUY', priceTicks: 2_990_000, qtyLots: lots, timeInForce: 'GTC' }, ...pending, ...extra }
}

const btc = (ex: TestExchange) => [ex.sub(ALICE).spot.get('BTC')?.free ?? 0, ex.sub(ALICE).spot.get('BTC')?.locked ?? 0]
const pendingOf = (ex: TestExchange, orderId: number) => (ex.state.markets[BTCSPOT] as SpotMarket).stops.pending.get(orderId)

t.test('OPO: each fill\'s proceeds are held for the pending sell, which is placed for them all, to the lot', async (t) => {
  const ex = spotScene()
  const [free0] = btc(ex)
  const r = ex.ok(opo(100, { pending: maker(3_100_000) }))
  const [working, pending] = orderEvents(r)
  t.match(pending, { status: 'PENDING_NEW', side: 'SELL', orderType: 'POST_ONLY', origQtyLots: 0 }, 'no quantity until the buy fills')
  t.match(listEvents(r), [{ contingencyType: 'OTO', listStatusType: 'EXEC_STARTED' }])

  // Dave sells 40 lots into the working bid: 400,000 BTC units, less 400 of fee, held for the sale.
  const first = ex.ok(limit(DAVE, 'SELL', 2_990_000, 40, spot))
  t.equal(spotTradeEvents(first)[0]!.maker.fee, 400)
  t.same(btc(ex), [free0!, 399_600], 'the proceeds are held, not free')
  t.equal(pendingOf(ex, pending!.orderId)!.lockedRemaining, 399_600)
  t.match(spotTradeEvents(first)[0]!.maker.base, { free: free0, locked: 399_600 }, 'the fill reports the balance after the hold')
  t.same(stateViolations(ex.state), [])

  // The other 60: 599,400 more; 999,000 in all is 99 lots, the last 9,000 units freed.
  const done = ex.ok(limit(DAVE, 'SELL', 2_990_000, 60, spot))
  const placed = orderEvents(done).find((e) => e.orderId === pending!.orderId && e.execType === 'NEW')
  t.match(placed, { status: 'NEW', orderType: 'POST_ONLY', priceTicks: 3_100_000, origQtyLots: 99 })
  t.match(listEvents(done), [{ listStatusType: 'ALL_DONE' }])
  t.same(btc(ex), [free0! + 9_000, 990_000], 'the sell holds its 99 lots; the rest under a lot is free')
  t.same([ex.state.markets[BTCSPOT]!.book.asks.best()!.priceTicks, ex.state.markets[BTCSPOT]!.book.asks.best()!.qtyLots], [3_100_000, 99])
  t.ok(working!.orderId < pending!.orderId)
  t.same(stateViolations(ex.state), [])
})

t.test('OPOCO: the pair is placed as an OCO for the proceeds', async (t) => {
  const ex = spotScene()
  const r = ex.ok(opo(200, { pendingAbove: maker(3_100_000), pendingBelow: stopMarket(2_900_000) }))
  const ids = orderEvents(r).slice(1).map((e) => e.orderId)
  const done = ex.ok(limit(DAVE, 'SELL', 2_990_000, 200, spot)) // 2,000,000 less 2,000: 199 lots
  t.same(orderEvents(done).filter((e) => ids.includes(e.orderId) && e.execType === 'NEW').map((e) => [e.orderType, e.origQtyLots]),
    [['STOP_MARKET', 199], ['POST_ONLY', 199]])
  t.match(listEvents(done), [{ listStatusType: 'EXEC_STARTED' }], 'the pair executes as an OCO of the same list')
  t.same(btc(ex)[1], 1_990_000, 'held once for both')
  t.same(stateViolations(ex.state), [])
})

t.test('canceled after a partial fill, the list frees what it held; a pending order its proceeds are too small for expires', async (t) => {
  const ex = spotScene()
  const [free0] = btc(ex)
  const r = ex.ok(opo(100, { pending: maker(3_100_000) }))
  ex.ok(limit(DAVE, 'SELL', 2_990_000, 30, spot))
  t.same(btc(ex), [free0!, 299_700])
  const canceled = ex.ok({ type: 'CancelOrderList', account: ALICE, sub: 0, marketId: BTCSPOT, orderListId: listEvents(r)[0]!.orderListId })
  t.same(orderEvents(canceled).map((e) => e.status), ['CANCELED', 'CANCELED'])
  t.same(btc(ex), [free0! + 299_700, 0], 'the proceeds are free again')
  t.ok(balanceEvents(canceled).some((e) => e.asset === 'BTC' && e.locked === 0), 'and reported')

  // Two lots bought bring 20,000 less 20: one lot to sell, 3.10 USDT, under the 5 USDT minimum notional.
  const small = ex.ok(opo(2, { pending: maker(3_100_000) }))
  const pendingId = orderEvents(small)[1]!.orderId
  const filled = ex.ok(limit(DAVE, 'SELL', 2_990_000, 2, spot))
  t.match(orderEvents(filled).filter((e) => e.orderId === pendingId), [{ execType: 'EXPIRED', status: 'EXPIRED' }])
  t.same(btc(ex), [free0! + 299_700 + 19_980, 0], 'its proceeds freed')
  t.match(balanceEvents(filled).at(-1), { asset: 'BTC', locked: 0 })
  t.same(stateViolations(ex.state), [])
})

t.test('refusals: a selling working order, a buying pending one, a pending quantity sent', async (t) => {
  const ex = spotScene()
  const cases: [string, PlaceOtoList, string][] = [
    ['a working sell', opo(100, { pending: maker(3_100_000) }, { working: { orderType: 'LIMIT', side: 'SELL', priceTicks: 3_100_000, qtyLots: 100,
      timeInForce: 'GTC' } }), 'SIDE_INVALID'],
    ['a pending buy', opo(100, { pending: maker(2_800_000) }, { pendingSide: 'BUY' }), 'SIDE_INVALID'],
    ['a pending quantity', opo(100, { pending: maker(3_100_000) }, { pendingQtyLots: 50 }), 'COMMAND_INVALID'],
    ['opo not a boolean', opo(100, { pending: maker(3_100_000) }, { opo: 'yes' as never }), 'COMMAND_INVALID'],
  ]
  for (const [what, cmd, code] of cases) t.match(rejection(ex, cmd), { code, eventCount: 0, rootUnchanged: true }, what)
})

t.test('an OPO list survives a snapshot mid-fill: the same root, and the same results after', async (t) => {
  const ex = spotScene()
  ex.ok(opo(100, { pendingAbove: maker(3_100_000), pendingBelow: stopMarket(2_900_000) }))
  ex.ok(limit(DAVE, 'SELL', 2_990_000, 25, spot))
  const { restored, results } = restoredAlike(ex, [limit(DAVE, 'SELL', 2_990_000, 75, spot), limit(DAVE, 'SELL', 2_900_000, 10, spot)])
  for (const [straight, resumed] of results) t.same(resumed, straight)
  t.equal(stateRoot(restored), stateRoot(ex.state))
  t.same(stateViolations(restored), [])
})
