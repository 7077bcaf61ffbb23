// OCO order lists (core/order-lists.ts): two orders of one side and quantity, one above the
// last price and one below, holding together what the larger needs; when one fills, triggers
// or is canceled, the other goes with it and the list reports ALL_DONE. BTCUSDT spot: price ×
// 100 = ticks, qty × 10,000 = lots, 1 USDT unit per tick·lot (1 USDT = 1,000,000 units),
// 10,000 BTC units per lot.

import t from 'tap'
import fc from 'fast-check'
import type { Command, ListLeg, PlaceOrderList } from '../../core/commands.js'
import { stateRoot } from '../../core/root.js'
import { ORDER_STRATEGIES } from '../../core/rules.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { stateViolations } from '../../sim/model/invariants.js'
import { ALICE, BOB, BTCSPOT, CAROL, DAVE, TestExchange } from '../helpers/exchange.js'
import { cancel, limit, market, orderEvents, rejection } from '../helpers/commands.js'
import { runs } from '../helpers/property.js'
import { restoredAlike, spotScene, tradeAt } from '../helpers/spot-book.js'
import { fundEveryone, gap, listEvents, peg, plainCommand, plainOps, runFlow, side, who } from '../helpers/list-flow.js'

const spot = { marketId: BTCSPOT }

function oco(account: string, side: 'BUY' | 'SELL', qtyLots: number, above: ListLeg, below: ListLeg,
  extra: Partial<PlaceOrderList> = {}): PlaceOrderList {
  return { type: 'PlaceOrderList', account, sub: 0, marketId: BTCSPOT, side, qtyLots, above, below, ...extra }
}
const maker = (priceTicks: number, clientOrderId?: string): ListLeg => ({ orderType: 'POST_ONLY', priceTicks, clientOrderId })
const stopLimit = (stopPriceTicks: number, priceTicks: number): ListLeg => ({ orderType: 'STOP', stopPriceTicks, priceTicks, timeInForce: 'GTC' })
const stopMarket = (stopPriceTicks: number): ListLeg => ({ orderType: 'STOP_MARKET', stopPriceTicks })
const takeProfit = (stopPriceTicks: number): ListLeg => ({ orderType: 'TAKE_PROFIT_MARKET', stopPriceTicks })

const setup = (): TestExchange => spotScene()

const btc = (ex: TestExchange, who: string) => [ex.sub(who).spot.get('BTC')!.free, ex.sub(who).spot.get('BTC')!.locked]
const usdt = (ex: TestExchange, who: string) => [ex.sub(who).spot.get('USDT')!.free, ex.sub(who).spot.get('USDT')!.locked]

t.test('a sell OCO holds its base once; the stop firing expires the limit maker and ends the list', async (t) => {
  const ex = setup()
  // 0.1 BTC: sell at 31,000.00 (LIMIT_MAKER) or stop at 29,000.00 with a limit of 28,900.00.
  const r = ex.ok(oco(BOB, 'SELL', 1_000, maker(3_100_000, 'tp'), stopLimit(2_900_000, 2_890_000), { listClientOrderId: 'bracket' }))
  const [below, above] = orderEvents(r)
  t.match([below, above], [
    { execType: 'NEW', orderType: 'STOP', priceTicks: 2_890_000, cond: { stopPriceTicks: 2_900_000 }, orderListId: 1 },
    { execType: 'NEW', orderType: 'POST_ONLY', priceTicks: 3_100_000, clientOrderId: 'tp', orderListId: 1 },
  ], 'the below order first, then the above one, both of list 1')
  t.ok(below!.orderId < above!.orderId)
  t.match(listEvents(r), [{ orderListId: 1, listClientOrderId: 'bracket', listStatusType: 'EXEC_STARTED', listOrderStatus: 'EXECUTING',
    orders: [{ orderId: below!.orderId, clientOrderId: below!.clientOrderId }, { orderId: above!.orderId, clientOrderId: 'tp' }] }])
  t.same(btc(ex, BOB), [90_000_000, 10_000_000], '0.1 BTC held once for both orders')
  const m = ex.state.markets[BTCSPOT]!
  t.same([m.book.asks.best()!.priceTicks, m.book.asks.best()!.qtyLots], [3_100_000, 1_000], 'the limit maker rests')

  const fired = tradeAt(ex, 2_900_000)
  const mine = orderEvents(fired).filter((e) => e.orderListId === 1)
  t.same(mine.map((e) => [e.orderId, e.execType, e.orderType]), [
    [above!.orderId, 'EXPIRED', 'POST_ONLY'], [below!.orderId, 'NEW', 'LIMIT']])
  t.match(listEvents(fired), [{ orderListId: 1, listStatusType: 'ALL_DONE', listOrderStatus: 'ALL_DONE' }])
  t.same([m.book.asks.best()!.priceTicks, m.book.asks.best()!.qtyLots], [2_890_000, 1_000], 'the stop rests as a LIMIT at its price')
  t.same(btc(ex, BOB), [90_000_000, 10_000_000], 'still held once')
  t.same(stateViolations(ex.state), [])
})

t.test('a fill of the limit maker expires the stop: the list is done, the rest of the maker keeps its lock', async (t) => {
  const ex = setup()
  const r = ex.ok(oco(BOB, 'SELL', 1_000, maker(3_100_000), stopMarket(2_900_000)))
  const stopId = orderEvents(r)[0]!.orderId
  // Carol buys 0.05 at 31,000.00 from Bob's maker.
  const fill = ex.ok(limit(CAROL, 'BUY', 3_100_000, 500, spot))
  t.same(orderEvents(fill).filter((e) => e.orderId === stopId).map((e) => [e.execType, e.status]), [['EXPIRED', 'EXPIRED']])
  t.match(listEvents(fill), [{ listStatusType: 'ALL_DONE' }])
  t.same(btc(ex, BOB), [90_000_000, 5_000_000], 'what the maker has left, held')
  t.equal(ex.state.markets[BTCSPOT]!.kind === 'SPOT' && ex.state.markets[BTCSPOT]!.stops.live.size, 0, 'no stop waits')
  // A later fall to the old stop price fires nothing.
  const later = tradeAt(ex, 2_900_000)
  t.same(listEvents(later), [])
  t.same(stateViolations(ex.state), [])
})

t.test('a buy OCO holds the larger need, split so the resting maker holds its own', async (t) => {
  const ex = setup()
  const before = usdt(ex, ALICE)
  // Buy 0.1 at 29,000.00 (maker, needs 2,900 USDT) or stop at 31,000.00 (market, needs 3,100 at the stop).
  const r = ex.ok(oco(ALICE, 'BUY', 1_000, stopMarket(3_100_000), maker(2_900_000)))
  t.same(usdt(ex, ALICE), [before[0]! - 3_100_000_000, before[1]! + 3_100_000_000], 'the larger need, not the sum')
  const [makerLeg, stopLeg] = orderEvents(r).map((e) => ex.state.markets[BTCSPOT]!.book.orders.get(e.orderId)
    ?? (ex.state.markets[BTCSPOT] as { stops: { live: Map<number, unknown> } }).stops.live.get(e.orderId)) as { lockedRemaining: number }[]
  t.same([makerLeg!.lockedRemaining, stopLeg!.lockedRemaining], [2_900_000_000, 200_000_000])
  // Canceling either order cancels the list.
  const c = ex.ok(cancel(ALICE, { marketId: BTCSPOT, orderId: orderEvents(r)[0]!.orderId, cancelClientOrderId: 'undo' }))
  t.same(orderEvents(c).map((e) => [e.execType, e.status, e.orderListId]), [['CANCELED', 'CANCELED', 1], ['CANCELED', 'CANCELED', 1]])
  t.same(orderEvents(c).map((e) => e.cancelClientOrderId), ['undo', undefined], 'the cancel names the order it was sent for')
  t.match(listEvents(c), [{ listStatusType: 'ALL_DONE', listOrderStatus: 'ALL_DONE' }])
  t.same(usdt(ex, ALICE), before, 'all released')
  t.same(stateViolations(ex.state), [])
})

t.test('the stop of a buy OCO fires with what both held: the maker is gone first', async (t) => {
  const ex = setup()
  ex.ok(limit(DAVE, 'SELL', 3_110_000, 1_000, spot))
  const r = ex.ok(oco(ALICE, 'BUY', 1_000, stopLimit(3_100_000, 3_120_000), maker(2_900_000)))
  t.equal(usdt(ex, ALICE)[1], 3_120_000_000, 'the stop limit\'s need at its limit price')
  const fired = tradeAt(ex, 3_100_000)
  const mine = orderEvents(fired).filter((e) => e.orderListId === 1)
  t.same(mine.map((e) => [e.orderType, e.execType, e.status]), [['POST_ONLY', 'EXPIRED', 'EXPIRED'], ['LIMIT', 'NEW', 'NEW']])
  // The triggered limit buy at 31,200 takes Dave's 31,100 ask.
  t.equal(ex.sub(ALICE).spot.get('USDT')!.locked, 0, 'filled at 31,100: nothing left held')
  t.same(orderEvents(r).length, 2)
  t.same(stateViolations(ex.state), [])
})

t.test('refusals: leg types and places, prices against the last one, ids, balance, room; nothing changes', async (t) => {
  const ex = setup()
  const cases: [string, Command, string][] = [
    ['two limit makers', oco(BOB, 'SELL', 100, maker(3_100_000), maker(2_900_000)), 'LIST_BOTH_LIMIT'],
    ['a plain limit', oco(BOB, 'SELL', 100, { orderType: 'LIMIT', priceTicks: 3_100_000 }, stopMarket(2_900_000)), 'LIST_LEG_TYPE'],
    ['a trailing stop', oco(BOB, 'SELL', 100, maker(3_100_000), { orderType: 'TRAILING_STOP_MARKET', stopPriceTicks: 2_900_000 }), 'LIST_LEG_TYPE'],
    ['sell: stop loss above', oco(BOB, 'SELL', 100, stopMarket(3_100_000), maker(2_900_000)), 'LIST_STOP_BELOW'],
    ['sell: maker below', oco(BOB, 'SELL', 100, takeProfit(3_100_000), maker(2_900_000)), 'LIST_LIMIT_ABOVE'],
    ['sell: take profit below', oco(BOB, 'SELL', 100, maker(3_100_000), takeProfit(2_900_000)), 'LIST_TAKE_PROFIT_ABOVE'],
    ['buy: maker above', oco(ALICE, 'BUY', 100, maker(3_100_000), stopMarket(2_900_000)), 'LIST_LIMIT_BELOW'],
    ['buy: take profit above', oco(ALICE, 'BUY', 100, takeProfit(3_100_000), maker(2_900_000)), 'LIST_TAKE_PROFIT_BELOW'],
    ['buy: stop loss below', oco(ALICE, 'BUY', 100, stopMarket(3_100_000), stopMarket(2_900_000)), 'LIST_STOP_ABOVE'],
    ['sell: both over the last price', oco(BOB, 'SELL', 100, maker(3_100_000), stopMarket(3_050_000)), 'LIST_PRICES'],
    ['buy: both under the last price', oco(ALICE, 'BUY', 100, stopMarket(2_990_000), maker(2_900_000)), 'LIST_PRICES'],
    ['a missing stop price', oco(BOB, 'SELL', 100, maker(3_100_000), { orderType: 'STOP_MARKET' }), 'STOP_PRICE_REQUIRED'],
    ['a leg off the tick', oco(BOB, 'SELL', 100, maker(3_100_000.5), stopMarket(2_900_000)), 'PRICE_TICK'],
    ['below the minimum notional', oco(BOB, 'SELL', 1, maker(3_100_000), stopMarket(2_900_000)), 'NOTIONAL_TOO_SMALL'],
    ['one client id for both', oco(BOB, 'SELL', 100, maker(3_100_000, 'a'), { ...stopMarket(2_900_000), clientOrderId: 'a' }), 'CLIENT_ID_DUPLICATE'],
    ['a bad list id', oco(BOB, 'SELL', 100, maker(3_100_000), stopMarket(2_900_000), { listClientOrderId: 'no spaces' }), 'CLIENT_ID_INVALID'],
    ['more than the balance', oco(BOB, 'SELL', 10_001, maker(3_100_000), stopMarket(2_900_000)), 'BALANCE_INSUFFICIENT'],
    ['a perpetual market', { ...oco(BOB, 'SELL', 100, maker(3_100_000), stopMarket(2_900_000)), marketId: 1 }, 'COMMAND_INVALID'],
  ]
  for (const [name, command, code] of cases) t.match(rejection(ex, command), { code, eventCount: 0, rootUnchanged: true }, name)
  // The whole balance covers a list that needs all of it: the larger need, not the sum.
  t.match(rejection(ex, oco(BOB, 'SELL', 10_000, maker(3_100_000), stopMarket(2_900_000))), { code: 'ACCEPTED' })
  t.match(rejection(ex, oco(BOB, 'SELL', 100, maker(3_200_000), stopMarket(2_800_000))), { code: 'BALANCE_INSUFFICIENT' })
})

t.test('list client ids, cancels by list id and client id, cancel-all', async (t) => {
  const ex = setup()
  ex.ok(oco(BOB, 'SELL', 100, maker(3_100_000), stopMarket(2_900_000), { listClientOrderId: 'one' }))
  t.match(rejection(ex, oco(BOB, 'SELL', 100, maker(3_100_000), stopMarket(2_900_000), { listClientOrderId: 'one' })),
    { code: 'CLIENT_ID_DUPLICATE', rootUnchanged: true }, 'unique among executing lists')
  const second = ex.ok(oco(BOB, 'SELL', 100, maker(3_150_000), stopMarket(2_850_000)))
  t.match(listEvents(second), [{ orderListId: 2, listClientOrderId: 'xl-2' }], 'generated when absent')
  const byName = { type: 'CancelOrderList', account: BOB, sub: 0, marketId: BTCSPOT, listClientOrderId: 'one' } as const
  const c = ex.ok(byName)
  t.same(orderEvents(c).map((e) => e.status), ['CANCELED', 'CANCELED'])
  t.match(rejection(ex, byName), { code: 'LIST_UNKNOWN', rootUnchanged: true }, 'done lists cannot be canceled')
  t.match(rejection(ex, { type: 'CancelOrderList', account: BOB, sub: 0, marketId: BTCSPOT }), { code: 'LIST_ID_REQUIRED' })
  t.match(rejection(ex, { type: 'CancelOrderList', account: ALICE, sub: 0, marketId: BTCSPOT, orderListId: 2 }),
    { code: 'LIST_UNKNOWN' }, 'another account\'s list')
  ex.ok(limit(BOB, 'SELL', 3_300_000, 100, spot))
  const all = ex.ok({ type: 'CancelAll', account: BOB, sub: 0, marketId: BTCSPOT })
  t.equal(orderEvents(all).length, 3, 'both legs and the plain order, each once')
  t.match(listEvents(all), [{ orderListId: 2, listStatusType: 'ALL_DONE' }])
  t.same(btc(ex, BOB), [100_000_000, 0])
  t.same(stateViolations(ex.state), [])
})

t.test('a generated leg id never takes the id given to the other leg', async (t) => {
  const ex = setup()
  const next = ex.state.markets[BTCSPOT]!.nextOrderId
  const r = ex.ok(oco(BOB, 'SELL', 100, maker(3_100_000, `x-${BTCSPOT}-${next}`), stopMarket(2_900_000)))
  const ids = orderEvents(r).map((e) => e.clientOrderId)
  t.not(ids[0], ids[1])
  t.same(stateViolations(ex.state), [])
})

t.test('an executing list survives a snapshot: same root, and the same results after', async (t) => {
  const ex = setup()
  ex.ok(oco(BOB, 'SELL', 1_000, maker(3_100_000), stopLimit(2_900_000, 2_890_000), { listClientOrderId: 's' }))
  ex.ok(oco(ALICE, 'BUY', 500, stopMarket(3_100_000), maker(2_950_000)))
  t.equal(stateRoot(decodeSnapshot(encodeSnapshot(ex.state))), stateRoot(ex.state))
  const { restored, results } = restoredAlike(ex, [limit(DAVE, 'SELL', 2_900_000, 600, spot), market(CAROL, 'BUY', 50, spot),
    { type: 'CancelOrderList', account: ALICE, sub: 0, marketId: BTCSPOT, orderListId: 2 }])
  for (const [straight, resumed] of results) t.same(resumed, straight)
  t.equal(stateRoot(restored), stateRoot(ex.state))
  t.same(stateViolations(restored), [])
})

t.test('rules 7: each leg keeps its own strategy tags, through the stop firing and a snapshot; a reserved type refuses the list', async (t) => {
  const ex = setup()
  ex.ok({ type: 'SetRules', version: ORDER_STRATEGIES, leafSeed: '0x' + '7c'.repeat(32) })
  const r = ex.ok(oco(BOB, 'SELL', 1_000, { ...maker(3_100_000), strategyId: 1, strategyType: 1_000_001 },
    { ...stopLimit(2_900_000, 2_890_000), strategyId: 2 }))
  const [below, above] = orderEvents(r)
  t.match([below, above], [{ orderType: 'STOP', strategyId: 2 }, { orderType: 'POST_ONLY', strategyId: 1, strategyType: 1_000_001 }])
  t.notOk('strategyType' in below!, 'the below leg sent no strategyType')
  t.equal(stateRoot(decodeSnapshot(encodeSnapshot(ex.state))), stateRoot(ex.state))
  const { restored, results } = restoredAlike(ex, [limit(DAVE, 'SELL', 2_900_000, 10, spot), limit(CAROL, 'BUY', 2_900_000, 10, spot)])
  for (const [straight, resumed] of results) t.same(resumed, straight)
  t.equal(stateRoot(restored), stateRoot(ex.state))
  t.match(orderEvents(results[1]![0]).filter((e) => e.orderListId === 1), [
    { orderId: above!.orderId, execType: 'EXPIRED', strategyId: 1, strategyType: 1_000_001 },
    { orderId: below!.orderId, execType: 'NEW', orderType: 'LIMIT', strategyId: 2 }], 'the maker expired, the stop fired, each with its tags')
  t.same(rejection(ex, oco(BOB, 'SELL', 100, { ...maker(3_100_000), strategyType: 1 }, stopMarket(2_800_000))),
    { code: 'STRATEGY_TYPE_INVALID', eventCount: 0, rootUnchanged: true })
})

t.test('property: random spot flows with OCO lists keep every invariant and replay from a snapshot to the same root', async (t) => {
  const op = fc.oneof(...plainOps,
    fc.record({ kind: fc.constant('oco' as const), who, side, up: gap, down: gap, lots: fc.integer({ min: 2, max: 60 }),
      upper: fc.constantFrom('maker', 'tp', 'tpLimit'), lower: fc.constantFrom('stop', 'stopLimit'), offset: fc.integer({ min: -5, max: 5 }),
      peg }))
  let lists = 0
  let done = 0
  let cut = 0
  let amended = 0
  fc.assert(fc.property(fc.array(op, { minLength: 20, maxLength: 120 }), (ops) => {
    const ex = fundEveryone(setup())
    return runFlow(ex, ops.length, (i) => {
      const o = ops[i]!
      if (o.kind !== 'oco') return plainCommand(ex, o)
      // The profit-taking leg on the favourable side of the last price, the stop loss on the other.
      const last = ex.state.markets[BTCSPOT]!.lastPriceTicks
      const profit = o.side === 'SELL' ? last + o.up : last - o.down
      const loss = o.side === 'SELL' ? last - o.down : last + o.up
      const profitLeg: ListLeg = o.upper === 'maker' ? maker(profit)
        : o.upper === 'tp' ? takeProfit(profit) : { orderType: 'TAKE_PROFIT', stopPriceTicks: profit, priceTicks: profit + o.offset * 1_000, timeInForce: 'GTC' }
      const lossLeg: ListLeg = o.lower === 'stop' ? stopMarket(loss) : stopLimit(loss, loss + o.offset * 1_000)
      // Now and then the limit legs are pegged: the LIMIT_MAKER as placed, a stop limit as it triggers.
      if (o.peg !== null) for (const leg of [profitLeg, lossLeg]) if (leg.priceTicks !== undefined) leg.pegPriceType = o.peg
      return o.side === 'SELL' ? oco(o.who, 'SELL', o.lots, profitLeg, lossLeg) : oco(o.who, 'BUY', o.lots, lossLeg, profitLeg)
    }, (_c, r) => {
      for (const e of listEvents(r)) e.listStatusType === 'EXEC_STARTED' ? lists++ : done++
      for (const e of orderEvents(r)) {
        if (e.execType === 'TRADE_PREVENTION' && e.orderListId !== undefined) cut++
        if (e.execType === 'REPLACED' && e.orderListId !== undefined) amended++
      }
    })
  }), runs(40))
  t.comment(`lists placed ${lists}, ended ${done}; list orders cut by DECREMENT ${cut}, amended ${amended}`)
  t.ok(lists > 100 && done > 50, 'the flow places lists and ends many of them')
  t.ok(cut > 0, 'some pairs lose lots to their own account\'s takers')
  t.ok(amended > 0, 'some pairs are amended')
})

t.test('amending an OCO order amends the pair: one quantity for both, holds as placed, UPDATED for a new client id', async (t) => {
  const ex = setup()
  const placed = ex.ok(oco(BOB, 'SELL', 100, maker(3_100_000), stopMarket(2_900_000), { listClientOrderId: 'pair' }))
  const [below, above] = orderEvents(placed)
  const amend = (orderId: number, qtyLots: number, extra = {}) =>
    ({ type: 'AmendKeepPriority' as const, account: BOB, sub: 0, marketId: BTCSPOT, orderId, qtyLots, ...extra })
  t.match(rejection(ex, amend(above!.orderId, 100)), { code: 'MODIFY_UNCHANGED', rootUnchanged: true })
  t.match(rejection(ex, amend(below!.orderId, 101)), { code: 'AMEND_QTY_INCREASE', rootUnchanged: true })
  t.match(rejection(ex, amend(above!.orderId, 1)), { code: 'NOTIONAL_TOO_SMALL', rootUnchanged: true })
  const r = ex.ok(amend(above!.orderId, 60, { newClientOrderId: 'tp' }))
  t.match(orderEvents(r), [
    { orderId: above!.orderId, execType: 'REPLACED', origQtyLots: 60, clientOrderId: 'tp', amendment: { origQtyBeforeLots: 100, count: 1 } },
    { orderId: below!.orderId, execType: 'REPLACED', origQtyLots: 60, clientOrderId: below!.clientOrderId, amendment: { origQtyBeforeLots: 100 } },
  ])
  t.match(listEvents(r), [{ listStatusType: 'UPDATED', listOrderStatus: 'EXECUTING', listClientOrderId: 'pair',
    orders: [{ orderId: below!.orderId, clientOrderId: below!.clientOrderId }, { orderId: above!.orderId, clientOrderId: 'tp' }] }])
  t.same(btc(ex, BOB), [100_000_000 - 60 * 10_000, 60 * 10_000], 'the pair holds what 60 lots need')
  t.same(ex.state.markets[BTCSPOT]!.book.asks.best()?.qtyLots, 60)
  // Keeping its id, no UPDATED; the stop leg amends the pair too.
  const again = ex.ok(amend(below!.orderId, 40, { newClientOrderId: below!.clientOrderId }))
  t.same(listEvents(again), [])
  t.same(orderEvents(again).map((e) => e.origQtyLots), [40, 40])
  t.same(btc(ex, BOB)[1], 40 * 10_000)
  // The pair still ends as one: the LIMIT_MAKER fills, the stop expires.
  const bought = ex.ok(limit(CAROL, 'BUY', 3_100_000, 40, spot))
  t.match(listEvents(bought), [{ listStatusType: 'ALL_DONE' }])
  t.same(btc(ex, BOB), [100_000_000 - 40 * 10_000, 0])
  t.same(stateViolations(ex.state), [])
})
