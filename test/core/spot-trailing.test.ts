// Spot trailing stops (core/spot-stops.ts; Binance spot's trailingDelta, in BIPS): a stop
// with a delta starts trailing once its stop price is reached, or at once from the last price
// without one; then a SELL triggers once the last price falls the delta below the highest
// price since, a BUY once it rises the delta above the lowest. The hand-computed cases follow
// the scenarios of Binance's trailing stop FAQ. BTCUSDT: price × 100 = ticks, qty × 10,000 =
// lots, 1 USDT unit per tick·lot, 10,000 BTC units per lot.

import t from 'tap'
import fc from 'fast-check'
import type { ListLeg, PlaceOrder } from '../../core/commands.js'
import type { Result } from '../../core/events.js'
import { stateRoot } from '../../core/root.js'
import type { Order, SpotMarket } from '../../core/state.js'
import { stateViolations } from '../../sim/model/invariants.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, CAROL, COIN, DAVE, TestExchange } from '../helpers/exchange.js'
import { balanceEvents, cancel, limit, orderEvents, rejection, spotTradeEvents } from '../helpers/commands.js'
import { runs } from '../helpers/property.js'
import { restoredAlike, spotScene, tradeAt } from '../helpers/spot-book.js'
import { fundEveryone, listEvents, near, plainCommand, plainOps, runFlow, side, who } from '../helpers/list-flow.js'

const spot = { marketId: BTCSPOT }

function trailing(account: string, side: 'BUY' | 'SELL', orderType: PlaceOrder['orderType'], trailingDeltaBips: number, qtyLots: number,
  extra: Partial<PlaceOrder> = {}): PlaceOrder {
  return { type: 'PlaceOrder', account, sub: 0, marketId: BTCSPOT, side, orderType, trailingDeltaBips, qtyLots, ...extra }
}

const market = (ex: TestExchange): SpotMarket => ex.state.markets[BTCSPOT] as SpotMarket
const waiting = (ex: TestExchange, orderId: number): Order | undefined => market(ex).stops.live.get(orderId)
const btc = (ex: TestExchange, who: string) => [ex.sub(who).spot.get('BTC')!.free, ex.sub(who).spot.get('BTC')!.locked]
const usdt = (ex: TestExchange, who: string) => [ex.sub(who).spot.get('USDT')!.free, ex.sub(who).spot.get('USDT')!.locked]
const firedIn = (r: Result, orderId: number) =>
  orderEvents(r).filter((e) => e.orderId === orderId).map((e) => [e.execType, e.orderType, e.status])

/** The spot scene with the last price at 40,000.00 (the FAQ's starting trade). */
function at40k(): TestExchange {
  const ex = spotScene()
  tradeAt(ex, 4_000_000)
  return ex
}

t.test('FAQ scenario E: a sell without a stop price trails the highest price from its placement', async (t) => {
  const ex = at40k()
  // STOP_LOSS_LIMIT SELL, delta 700 (7 %), limit 39,000.00, no stop price.
  const placed = ex.ok(trailing(BOB, 'SELL', 'STOP', 700, 10, { priceTicks: 3_900_000, timeInForce: 'GTC' }))
  t.match(orderEvents(placed), [{ execType: 'NEW', orderType: 'STOP', cond: { origType: 'STOP', stopPriceTicks: 0,
    activationPriceTicks: 4_000_000, trailingDeltaBips: 700, trailingTime: ex.time, triggerTime: 0 } }],
  'it trails at once, from the last price')
  t.same(btc(ex, BOB), [COIN - 100_000, 100_000], 'holds its base as any stop-limit sell')
  const o = waiting(ex, placed.orderId!)!
  tradeAt(ex, 4_200_000)
  t.equal(o.cond!.extremeTicks, 4_200_000, 'a new high moves the extreme')
  tradeAt(ex, 3_950_000) // 42,000 × 0.93 = 39,060: not reached
  t.equal(o.cond!.extremeTicks, 4_200_000, 'a fall keeps it')
  tradeAt(ex, 4_550_000)
  t.equal(o.cond!.extremeTicks, 4_550_000)
  t.same(firedIn(tradeAt(ex, 4_231_600), placed.orderId!), [], 'one tick short of 45,500 × 0.93 = 42,315: waits')
  const r = tradeAt(ex, 4_231_500)
  t.same(firedIn(r, placed.orderId!), [['NEW', 'LIMIT', 'NEW']], 'at 42,315.00 it triggers and rests at its limit')
  t.match(orderEvents(r).find((e) => e.orderId === placed.orderId), { cond: { trailingDeltaBips: 700, triggerTime: ex.time } })
  t.same([market(ex).book.asks.best()!.priceTicks, market(ex).book.asks.best()!.qtyLots], [3_900_000, 10])
  t.equal(market(ex).stops.trailing, 0)
  t.same(stateViolations(ex.state), [])
})

t.test('FAQ scenario A: a buy with a stop price trails only once the price reaches it', async (t) => {
  const ex = at40k()
  // STOP_LOSS_LIMIT BUY, stop 44,000.00, delta 500 (5 %), limit 45,000.00.
  const placed = ex.ok(trailing(ALICE, 'BUY', 'STOP', 500, 10, { stopPriceTicks: 4_400_000, priceTicks: 4_500_000, timeInForce: 'GTC' }))
  t.match(orderEvents(placed), [{ cond: { stopPriceTicks: 4_400_000, activationPriceTicks: 0, trailingDeltaBips: 500, trailingTime: 0 } }])
  const o = waiting(ex, placed.orderId!)!
  tradeAt(ex, 3_700_000) // a 7.5 % fall: ignored, not trailing yet
  t.same([o.cond!.activated, market(ex).stops.trailing], [false, 0])
  tradeAt(ex, 4_400_000)
  t.match(o.cond!, { activated: true, extremeTicks: 4_400_000, activationPriceTicks: 4_400_000, trailingTime: ex.time },
    'the trade at the stop price starts the trailing, from it')
  t.same(firedIn(tradeAt(ex, 4_600_000), placed.orderId!), [], '46,000 is short of 44,000 × 1.05 = 46,200')
  tradeAt(ex, 4_200_000)
  t.equal(o.cond!.extremeTicks, 4_200_000, 'a new low moves the extreme')
  t.same(firedIn(tradeAt(ex, 4_409_900), placed.orderId!), [])
  const r = tradeAt(ex, 4_410_000) // 42,000 × 1.05
  t.same(firedIn(r, placed.orderId!), [['NEW', 'LIMIT', 'NEW']])
  t.same([market(ex).book.bids.best()!.priceTicks, market(ex).book.bids.best()!.qtyLots], [4_500_000, 10], 'rests at its limit')
  t.same(stateViolations(ex.state), [])
})

t.test('a market-form buy trails from placement holding its cost at that price, and sweeps the book at its trigger', async (t) => {
  const ex = spotScene() // last 30,000.00
  ex.ok(limit(DAVE, 'SELL', 3_040_000, 100, spot))
  const [free] = usdt(ex, ALICE)
  // TAKE_PROFIT BUY, delta 100 (1 %), 0.001 BTC: holds 10 × 3,000,000 = 30 USDT.
  const placed = ex.ok(trailing(ALICE, 'BUY', 'TAKE_PROFIT_MARKET', 100, 10))
  t.same(usdt(ex, ALICE), [free! - 30_000_000, 30_000_000])
  tradeAt(ex, 2_950_000)
  t.same(firedIn(tradeAt(ex, 2_979_400), placed.orderId!), [], 'short of 29,500 × 1.01 = 29,795')
  const r = tradeAt(ex, 2_979_500)
  t.same(firedIn(r, placed.orderId!), [['NEW', 'MARKET', 'NEW']])
  t.same(spotTradeEvents(r).filter((e) => e.taker.orderId === placed.orderId).map((e) => [e.priceTicks, e.qtyLots]), [[3_040_000, 10]],
    'bought from the book at 30,400.00')
  t.same(usdt(ex, ALICE), [free! - 30_400_000, 0], 'paid what the book asked; nothing held')
  t.same(stateViolations(ex.state), [])
})

t.test('refusals: the TRAILING_DELTA filter, a delta on other orders, no price to trail from, balance, notional', async (t) => {
  const ex = spotScene()
  const sl = (delta: number, extra: Partial<PlaceOrder> = {}) => trailing(BOB, 'SELL', 'STOP_MARKET', delta, 100, extra)
  const cases: [string, PlaceOrder, string][] = [
    ['under the minimum (10)', sl(9), 'TRAILING_DELTA_INVALID'],
    ['over the maximum (2,000)', sl(2_001), 'TRAILING_DELTA_INVALID'],
    ['not whole', sl(10.5), 'TRAILING_DELTA_INVALID'],
    ['on a limit order', { ...limit(BOB, 'SELL', 3_100_000, 10, spot), trailingDeltaBips: 100 }, 'COMMAND_INVALID'],
    ['on a perpetual stop', { ...sl(100, { stopPriceTicks: 290_000 }), marketId: BTCPERP }, 'COMMAND_INVALID'],
    ['a stop price off the filter', sl(100, { stopPriceTicks: 2_900_000.5 }), 'PRICE_TICK'],
    ['more USDT than held at the last price', trailing(ALICE, 'BUY', 'STOP_MARKET', 100, 5_000), 'BALANCE_INSUFFICIENT'],
    ['a market form under min notional at the last price', sl(100, { qtyLots: 1 }), 'NOTIONAL_TOO_SMALL'],
  ]
  for (const [what, cmd, code] of cases) t.match(rejection(ex, cmd), { code, eventCount: 0, rootUnchanged: true }, what)

  const fresh = new TestExchange()
  fresh.deposit(BOB, 'BTC', COIN)
  t.match(rejection(fresh, sl(100)), { code: 'TRAILING_NO_PRICE', rootUnchanged: true }, 'no trade yet, no stop price')
  t.ok(fresh.run(sl(100, { stopPriceTicks: 2_900_000 })).ok, 'with a stop price it waits for one')
})

t.test('a stop price the last price already reached starts the trailing at once', async (t) => {
  const ex = spotScene()
  // A stop-loss sell at 31,000.00 with the last price at 30,000.00: a plain stop would trigger at once.
  t.match(rejection(ex, { type: 'PlaceOrder', account: BOB, sub: 0, marketId: BTCSPOT, side: 'SELL', orderType: 'STOP_MARKET',
    stopPriceTicks: 3_100_000, qtyLots: 100 }), { code: 'WOULD_TRIGGER' })
  const placed = ex.ok(trailing(BOB, 'SELL', 'STOP_MARKET', 200, 100, { stopPriceTicks: 3_100_000 }))
  t.match(waiting(ex, placed.orderId!)!.cond!, { activated: true, extremeTicks: 3_000_000, trailingTime: ex.time, stopPriceTicks: 3_100_000 })
  t.same(stateViolations(ex.state), [])
})

t.test('canceled, waiting or trailing, a trailing stop gives back what it held and never fires', async (t) => {
  const ex = spotScene()
  const a = ex.ok(trailing(BOB, 'SELL', 'STOP_MARKET', 100, 100))
  const b = ex.ok(trailing(BOB, 'SELL', 'STOP_MARKET', 100, 100, { stopPriceTicks: 2_900_000 }))
  t.same(btc(ex, BOB), [COIN - 2_000_000, 2_000_000])
  t.equal(market(ex).stops.trailing, 1, 'one trails, one waits for its stop price')
  const r = ex.ok(cancel(BOB, { orderId: a.orderId!, marketId: BTCSPOT }))
  t.match(orderEvents(r), [{ status: 'CANCELED', cond: { trailingDeltaBips: 100, trailingTime: a.events[0]!.type === 'order' ? a.events[0]!.time : 0 } }])
  t.match(balanceEvents(r), [{ asset: 'BTC', locked: 1_000_000 }])
  ex.ok(cancel(BOB, { orderId: b.orderId!, marketId: BTCSPOT }))
  t.same([btc(ex, BOB), market(ex).stops.trailing, market(ex).stops.live.size], [[COIN, 0], 0, 0])
  tradeAt(ex, 2_500_000)
  t.equal(ex.sub(BOB).orders.size, 0, 'nothing fires after')
  t.same(stateViolations(ex.state), [])
})

t.test('a trailing stop survives a snapshot mid-trail: the same root, and the same results to its trigger', async (t) => {
  const ex = spotScene()
  ex.ok(limit(CAROL, 'BUY', 3_050_000, 100, spot))
  ex.ok(trailing(BOB, 'SELL', 'STOP_MARKET', 300, 50))
  ex.ok(trailing(DAVE, 'SELL', 'STOP_MARKET', 500, 50, { stopPriceTicks: 3_100_000 }))
  tradeAt(ex, 3_100_000) // both trail now (Dave's stop price was reached at placement), from 31,000.00
  const before = stateRoot(ex.state)
  const cmds = [limit(DAVE, 'SELL', 3_200_000, 10, spot), limit(CAROL, 'BUY', 3_200_000, 10, spot),
    limit(DAVE, 'SELL', 3_104_000, 10, spot), limit(CAROL, 'BUY', 3_104_000, 10, spot)] // 32,000 × 0.97 = 31,040: Bob's fires
  const { restored, results } = restoredAlike(ex, cmds)
  t.not(stateRoot(ex.state), before)
  for (const [i, [a, b]] of results.entries()) t.same(b, a, `command ${i}: same result`)
  t.ok(orderEvents(results[3]![0]).some((e) => e.orderType === 'MARKET' && e.cond?.trailingDeltaBips === 300), 'the 3 % stop fired')
  t.equal(market(ex).stops.trailing, 1, 'the 5 % one still trails: Bob sold at 30,500.00, above 32,000 × 0.95 = 30,400')
  t.equal(stateRoot(restored), stateRoot(ex.state))
  t.same(stateViolations(restored), [])
})

t.test('stops due together fire by orderId, whatever merged their groups, as after a snapshot restore', async (t) => {
  const ex = spotScene()
  for (const price of [2_990_000, 2_980_000, 2_970_000]) ex.ok(limit(CAROL, 'BUY', price, 10, spot))
  tradeAt(ex, 3_010_000)
  const a = ex.ok(trailing(BOB, 'SELL', 'STOP_MARKET', 100, 10)).orderId!
  tradeAt(ex, 3_020_000) // A's extreme moves to 30,200
  tradeAt(ex, 3_015_000)
  const b = ex.ok(trailing(BOB, 'SELL', 'STOP_MARKET', 100, 10)).orderId!
  const c = ex.ok(trailing(BOB, 'SELL', 'STOP_MARKET', 100, 10)).orderId!
  // B and C share a group at 30,150; 30,300 merges A's (at 30,200) into it, behind its members.
  tradeAt(ex, 3_030_000)
  // 30,300 × 0.99 = 29,997: all three are due; each sells 0.001 into the next bid down.
  const { restored, results } = restoredAlike(ex, [limit(DAVE, 'SELL', 2_999_700, 10, spot), limit(CAROL, 'BUY', 2_999_700, 10, spot)])
  const [straight, after] = results[1]!
  t.same(after, straight, 'the same result after a restore')
  const sold = spotTradeEvents(straight).filter((e) => [a, b, c].includes(e.taker.orderId))
  t.same(sold.map((e) => [e.taker.orderId, e.priceTicks]), [[a, 2_990_000], [b, 2_980_000], [c, 2_970_000]], 'in orderId order')
  t.equal(stateRoot(restored), stateRoot(ex.state))
})

t.test('a trailing stop as an OCO leg: its trigger expires the limit maker and ends the list', async (t) => {
  const ex = spotScene()
  ex.ok(limit(CAROL, 'BUY', 2_900_000, 100, spot))
  const oco = (above: ListLeg, below: ListLeg) => ({ type: 'PlaceOrderList' as const, account: BOB, sub: 0, marketId: BTCSPOT, side: 'SELL' as const,
    qtyLots: 50, above, below })
  const trail: ListLeg = { orderType: 'STOP_MARKET', trailingDeltaBips: 500 }
  t.match(rejection(ex, oco({ orderType: 'POST_ONLY', priceTicks: 2_950_000 }, trail)), { code: 'LIST_PRICES' },
    'the limit maker must still stand above the last price')
  const r = ex.ok(oco({ orderType: 'POST_ONLY', priceTicks: 3_200_000 }, trail))
  const [below, above] = orderEvents(r)
  t.match(below, { orderType: 'STOP_MARKET', cond: { trailingDeltaBips: 500, activationPriceTicks: 3_000_000 } })
  t.same(btc(ex, BOB), [COIN - 500_000, 500_000], 'held once for both')
  tradeAt(ex, 3_100_000)
  const fired = tradeAt(ex, 2_945_000) // 31,000 × 0.95
  t.same(orderEvents(fired).filter((e) => e.orderListId !== undefined).map((e) => [e.orderId, e.execType, e.orderType]), [
    [above!.orderId, 'EXPIRED', 'POST_ONLY'], [below!.orderId, 'NEW', 'MARKET']])
  t.match(listEvents(fired), [{ listStatusType: 'ALL_DONE' }])
  t.same(spotTradeEvents(fired).filter((e) => e.taker.orderId === below!.orderId).map((e) => [e.priceTicks, e.qtyLots]), [[2_900_000, 50]])
  t.same(stateViolations(ex.state), [])
})

t.test('a trailing stop as an OTO pending order trails from the price its working order filled at', async (t) => {
  const ex = spotScene(CAROL)
  ex.deposit(ALICE, 'BTC', COIN / 100)
  ex.ok(limit(CAROL, 'BUY', 2_800_000, 100, spot))
  const r = ex.ok({ type: 'PlaceOtoList', account: ALICE, sub: 0, marketId: BTCSPOT, pendingSide: 'SELL', pendingQtyLots: 10,
    working: { orderType: 'LIMIT', side: 'BUY', priceTicks: 2_990_000, qtyLots: 10, timeInForce: 'GTC' },
    pending: { orderType: 'STOP_MARKET', trailingDeltaBips: 300 } })
  const pendingId = orderEvents(r)[1]!.orderId
  t.match(orderEvents(r)[1], { status: 'PENDING_NEW', cond: { trailingDeltaBips: 300, trailingTime: 0 } }, 'not trailing while pending')
  const filled = ex.ok(limit(DAVE, 'SELL', 2_990_000, 10, spot))
  t.match(orderEvents(filled).find((e) => e.orderId === pendingId && e.execType === 'NEW'),
    { status: 'NEW', cond: { activationPriceTicks: 2_990_000, trailingTime: ex.time } }, 'placed, trailing from 29,900.00')
  tradeAt(ex, 3_100_000)
  const fired = tradeAt(ex, 3_007_000) // 31,000 × 0.97
  t.same(firedIn(fired, pendingId), [['NEW', 'MARKET', 'NEW']])
  t.same(stateViolations(ex.state), [])
})

t.test('a trailing market-form buy amended keeping priority: the cut lots\' hold at the price it trails from', async (t) => {
  const ex = spotScene()
  const placed = ex.ok(trailing(ALICE, 'BUY', 'STOP_MARKET', 100, 100))
  const [, locked] = usdt(ex, ALICE)
  t.equal(locked, 100 * 3_000_000)
  ex.ok({ type: 'AmendKeepPriority', account: ALICE, sub: 0, marketId: BTCSPOT, orderId: placed.orderId!, qtyLots: 40 })
  t.same(usdt(ex, ALICE)[1], 40 * 3_000_000)
  t.same(stateViolations(ex.state), [])
})

t.test('random spot flow with trailing stops: every state consistent, replay and snapshot alike', async (t) => {
  const op = fc.oneof(
    ...plainOps,
    fc.record({ kind: fc.constant('trail' as const), who, side,
      type: fc.constantFrom('STOP' as const, 'STOP_MARKET' as const, 'TAKE_PROFIT' as const, 'TAKE_PROFIT_MARKET' as const),
      // Mostly two deltas, so that stops due together tie (their order must not depend on their groups' merges).
      delta: fc.oneof(fc.constantFrom(50, 100), fc.integer({ min: 10, max: 150 })), stop: fc.option(near, { nil: undefined }),
      offset: fc.integer({ min: -20, max: 20 }).map((o) => o * 1_000), lots: fc.integer({ min: 2, max: 60 }) }),
  )
  let placed = 0
  let trailed = 0
  let fired = 0
  fc.assert(fc.property(fc.array(op, { minLength: 20, maxLength: 150 }), (ops) => {
    const ex = fundEveryone(spotScene())
    return runFlow(ex, ops.length, (i) => {
      const o = ops[i]!
      if (o.kind !== 'trail') return plainCommand(ex, o)
      const limitForm = o.type === 'STOP' || o.type === 'TAKE_PROFIT'
      const ref = o.stop ?? market(ex).lastPriceTicks
      return trailing(o.who, o.side, o.type, o.delta, o.lots, {
        ...(o.stop !== undefined ? { stopPriceTicks: o.stop } : {}),
        ...(limitForm ? { priceTicks: ref + o.offset, timeInForce: 'GTC' as const } : {}),
      })
    }, (_c, r) => {
      for (const e of orderEvents(r)) {
        if (e.cond?.trailingDeltaBips === undefined) continue
        if (e.execType === 'NEW' && e.cond.triggerTime === 0) placed++
        if (e.cond.triggerTime > 0 && (e.execType === 'NEW' || e.execType === 'EXPIRED')) fired++
      }
      trailed = Math.max(trailed, market(ex).stops.trailing)
    })
  }), runs(40))
  t.comment(`trailing stops placed ${placed}, fired ${fired}, most trailing at once ${trailed}`)
  t.ok(placed > 80 && fired > 30 && trailed > 3, 'the flow places trailing stops and fires many of them')
})
