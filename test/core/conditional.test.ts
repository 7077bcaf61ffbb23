// Conditional orders in the core: the trigger rule of every type on both sides and both
// working types, -2021 at placement, trailing stops on hand-computed price paths,
// closePosition, reduce-only at trigger, priceProtect, cancels, the firing order when several
// cross at once, a cascade, and a snapshot round trip. Prices are ticks (price × 10),
// quantities lots (qty × 1000); "prints" are trades between CAROL and DAVE that set the last price.

import t from 'tap'
import type { ConditionalType, PlaceOrder, Side } from '../../core/commands.js'
import type { OrderEvent, Result } from '../../core/events.js'
import { stateRoot } from '../../core/root.js'
import { MARKET_STOPS_GTD } from '../../core/rules.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import type { PerpMarket, State } from '../../core/state.js'
import { cancel, fillTrail, limit, orderEvents, rejection, type OrderExtra } from '../helpers/commands.js'
import { ALICE, BOB, BTCPERP, CAROL, DAVE, NO_BAND_GENESIS, TestExchange, btcTicks as px } from '../helpers/exchange.js'
import { DEFAULT_GENESIS } from '../../core/genesis-spec.js'
import { publish, registerOracle } from '../helpers/oracle.js'
import { IdMonitor, stateViolations } from '../../sim/model/invariants.js'

function conditional(account: string, side: Side, orderType: ConditionalType, extra: OrderExtra & { qtyLots?: number } = {}): PlaceOrder {
  return { type: 'PlaceOrder', account, sub: 0, marketId: BTCPERP, side, orderType, qtyLots: 10, ...extra } as PlaceOrder
}

function setup(spec = DEFAULT_GENESIS): TestExchange {
  const ex = new TestExchange(spec)
  for (const a of [ALICE, BOB, CAROL, DAVE]) ex.fund(a, 1_000_000)
  return ex
}

/** A trade of 10 lots between CAROL (seller) and DAVE (buyer) at `price`: the new last price. */
function print(ex: TestExchange, price: number): Result {
  ex.ok(limit(CAROL, 'SELL', px(price), 10))
  return ex.ok(limit(DAVE, 'BUY', px(price), 10))
}

/** Records of triggered orders in a result: [orderId, orderType now, origType, execType, status]. */
function triggerTrail(r: Result): [number, string, string, string, string][] {
  return orderEvents(r).filter((e) => e.cond !== undefined && e.cond.triggerTime > 0)
    .map((e) => [e.orderId, e.orderType, e.cond!.origType, e.execType, e.status])
}

/** The orders a result triggered (their NEW records as LIMIT or MARKET), in firing order. */
function triggered(r: Result): [number, string, string, string, string][] {
  return triggerTrail(r).filter((x) => x[3] === 'NEW')
}

const perp = (ex: TestExchange): PerpMarket => ex.state.markets[BTCPERP] as PerpMarket

t.test('a placed conditional order waits: open order of its account, not in the book, no margin held', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  const r = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_000), clientOrderId: 'sl-1' }))
  t.equal(r.orderId, 3, 'the id comes from the market sequence (two print orders before it)')
  const e = orderEvents(r)[0]!
  t.match(e, { execType: 'NEW', status: 'NEW', orderType: 'STOP_MARKET', clientOrderId: 'sl-1', origQtyLots: 10,
    priceTicks: 0, timeInForce: 'GTC' })
  t.same(e.cond, { origType: 'STOP_MARKET', stopPriceTicks: 490_000, activationPriceTicks: 0, callbackPermille: 0,
    workingType: 'CONTRACT_PRICE', priceProtect: false, closePosition: false, triggerTime: 0, reason: '' })
  t.equal(perp(ex).book.orders.size, 0)
  t.equal(ex.sub(ALICE).orders.get('sl-1')?.orderId, 3)
  t.equal(ex.sub(ALICE).openByMarket.get(BTCPERP), 1)
  t.equal(ex.sub(ALICE).perp.get(BTCPERP), undefined, 'no holding, so no margin is held')
})

// [type, side, stop, a print that must not fire, the print that fires, the type it becomes]
const RULES: [ConditionalType, Side, number, number, number, string][] = [
  ['STOP_MARKET', 'BUY', 51_000, 50_900, 51_000, 'MARKET'],
  ['STOP_MARKET', 'SELL', 49_000, 49_100, 49_000, 'MARKET'],
  ['TAKE_PROFIT_MARKET', 'BUY', 49_000, 49_100, 49_000, 'MARKET'],
  ['TAKE_PROFIT_MARKET', 'SELL', 51_000, 50_900, 51_000, 'MARKET'],
  ['STOP', 'BUY', 51_000, 50_900, 51_000, 'LIMIT'],
  ['STOP', 'SELL', 49_000, 49_100, 49_000, 'LIMIT'],
  ['TAKE_PROFIT', 'BUY', 49_000, 49_100, 49_000, 'LIMIT'],
  ['TAKE_PROFIT', 'SELL', 51_000, 50_900, 51_000, 'LIMIT'],
]

t.test('trigger rules on the last price (CONTRACT_PRICE)', async (t) => {
  for (const [type, side, stop, near, at, becomes] of RULES) {
    const ex = setup()
    print(ex, 50_000)
    const extra: OrderExtra = { stopPriceTicks: px(stop) }
    if (becomes === 'LIMIT') extra.priceTicks = px(stop)
    const id = ex.ok(conditional(ALICE, side, type, extra)).orderId!
    t.same(triggered(print(ex, near)), [], `${type} ${side} waits at ${near}`)
    const r = print(ex, at)
    // A MARKET meets an empty book (the print emptied it) and expires, as any market order would.
    const trail = becomes === 'LIMIT' ? [[id, becomes, type, 'NEW', 'NEW']]
      : [[id, becomes, type, 'NEW', 'NEW'], [id, becomes, type, 'EXPIRED', 'EXPIRED']]
    t.same(triggerTrail(r), trail, `${type} ${side} fires at ${at}`)
    t.equal(perp(ex).triggers.live.size, 0)
    if (becomes === 'LIMIT') t.equal(perp(ex).book.orders.get(id)?.priceTicks, px(stop), 'the LIMIT rests at its price')
  }
})

t.test('trigger rules on the mark price (MARK_PRICE), moved by the oracle over an empty book', async (t) => {
  for (const [type, side, stop, near, at, becomes] of RULES) {
    const ex = setup()
    registerOracle(ex)
    await publish(ex, '50000')
    t.equal(perp(ex).markPriceTicks, 500_000)
    const extra: OrderExtra = { stopPriceTicks: px(stop), workingType: 'MARK_PRICE' }
    if (becomes === 'LIMIT') extra.priceTicks = px(stop)
    const id = ex.ok(conditional(ALICE, side, type, extra)).orderId!
    t.same(triggered(await publish(ex, String(near))), [], `${type} ${side} waits at mark ${near}`)
    const r = await publish(ex, String(at))
    t.same(triggered(r), [[id, becomes, type, 'NEW', 'NEW']], `${type} ${side} fires at mark ${at}`)
  }
})

t.test('the working types watch their own price', async (t) => {
  const ex = setup()
  registerOracle(ex)
  await publish(ex, '50000')
  print(ex, 50_000)
  const onMark = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_000), workingType: 'MARK_PRICE' })).orderId!
  const onLast = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_000) })).orderId!
  // The index falls to 48,000 with an empty book: the mark follows, the last trade stays at 50,000.
  const r = await publish(ex, '48000')
  t.same(triggered(r).map((x) => x[0]), [onMark])
  t.ok(perp(ex).triggers.live.has(onLast))
})

t.test('placement that would trigger at once is refused (-2021), changing nothing', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  const cases: [ConditionalType, Side, OrderExtra][] = [
    ['STOP_MARKET', 'BUY', { stopPriceTicks: px(50_000) }],
    ['STOP_MARKET', 'SELL', { stopPriceTicks: px(50_100) }],
    ['TAKE_PROFIT_MARKET', 'BUY', { stopPriceTicks: px(50_100) }],
    ['TAKE_PROFIT_MARKET', 'SELL', { stopPriceTicks: px(50_000) }],
    ['STOP', 'BUY', { stopPriceTicks: px(49_000), priceTicks: px(49_000) }],
    ['TRAILING_STOP_MARKET', 'SELL', { activationPriceTicks: px(49_000), callbackPermille: 10 }],
    ['TRAILING_STOP_MARKET', 'BUY', { activationPriceTicks: px(50_000), callbackPermille: 10 }],
  ]
  for (const [type, side, extra] of cases) {
    t.same(rejection(ex, conditional(ALICE, side, type, extra)), { code: 'WOULD_TRIGGER', eventCount: 0, rootUnchanged: true },
      `${type} ${side}`)
  }
})

t.test('parameter rules', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  const cases: [ConditionalType, Side, OrderExtra & { qtyLots?: number }, string][] = [
    ['STOP_MARKET', 'SELL', {}, 'STOP_PRICE_REQUIRED'],
    ['STOP', 'SELL', { stopPriceTicks: px(49_000) }, 'PRICE_REQUIRED'],
    ['STOP_MARKET', 'SELL', { stopPriceTicks: px(49_000), priceTicks: px(49_000) }, 'PRICE_NOT_ALLOWED'],
    ['STOP_MARKET', 'SELL', { stopPriceTicks: 490_005.5 }, 'PRICE_TICK'],
    ['TRAILING_STOP_MARKET', 'SELL', {}, 'CALLBACK_RATE_INVALID'],
    ['TRAILING_STOP_MARKET', 'SELL', { callbackPermille: 0 }, 'CALLBACK_RATE_INVALID'],
    ['TRAILING_STOP_MARKET', 'SELL', { callbackPermille: 101 }, 'CALLBACK_RATE_INVALID'],
    ['STOP_MARKET', 'SELL', { stopPriceTicks: px(49_000), workingType: 'INDEX' as never }, 'WORKING_TYPE_INVALID'],
    ['STOP', 'SELL', { stopPriceTicks: px(49_000), priceTicks: px(49_000), closePosition: true, qtyLots: undefined }, 'CLOSE_POSITION_INVALID'],
    ['STOP_MARKET', 'SELL', { stopPriceTicks: px(49_000), closePosition: true }, 'CLOSE_POSITION_WITH_QTY'],
    ['STOP_MARKET', 'SELL', { stopPriceTicks: px(49_000), closePosition: true, qtyLots: undefined, reduceOnly: true },
      'CLOSE_POSITION_WITH_REDUCE_ONLY'],
    ['STOP_MARKET', 'SELL', { stopPriceTicks: px(49_000), qtyLots: 1 }, 'NOTIONAL_TOO_SMALL'],
  ]
  for (const [type, side, extra, code] of cases) {
    t.same(rejection(ex, conditional(ALICE, side, type, extra)), { code, eventCount: 0, rootUnchanged: true }, `${type} ${code}`)
  }
  // Spot markets take stops (core/spot-stops.ts, test/core/spot-stops.test.ts), not trailing ones or the perpetual-only fields.
  t.equal(rejection(ex, { ...conditional(ALICE, 'SELL', 'TRAILING_STOP_MARKET', { callbackPermille: 10 }), marketId: 3 }).code,
    'ORDER_TYPE_INVALID')
  t.equal(rejection(ex, { ...conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: 1000, workingType: 'MARK_PRICE' }), marketId: 3 }).code,
    'COMMAND_INVALID')
})

t.test('at most 10 waiting conditional orders per account and market (MAX_NUM_ALGO_ORDERS)', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  for (let i = 0; i < 10; i++) ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_000 - i) }))
  t.equal(rejection(ex, conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(48_000) })).code, 'TOO_MANY_CONDITIONAL')
  // Plain orders are not counted against it.
  ex.ok(limit(ALICE, 'BUY', px(40_000), 10))
})

t.test('a trailing SELL stop: activation, then a 1 % retrace from the highest price', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  const id = ex.ok(conditional(ALICE, 'SELL', 'TRAILING_STOP_MARKET', { activationPriceTicks: px(51_000), callbackPermille: 10 })).orderId!
  const c = perp(ex).triggers.live.get(id)!.cond!
  print(ex, 50_500)
  t.equal(c.activated, false, 'below the activation price it waits')
  print(ex, 51_000)
  t.same([c.activated, c.extremeTicks], [true, 510_000], 'activated at 51,000')
  print(ex, 52_000)
  t.equal(c.extremeTicks, 520_000, 'the highest price is followed')
  // Trigger: 52,000 × 0.99 = 51,480.
  t.same(triggered(print(ex, 51_500)), [], '51,500 is above 51,480')
  t.equal(c.extremeTicks, 520_000, 'a lower price leaves the extreme')
  const r = print(ex, 51_480)
  t.same(triggered(r), [[id, 'MARKET', 'TRAILING_STOP_MARKET', 'NEW', 'NEW']])
  const rec = orderEvents(r).find((e) => e.orderId === id)!
  t.same([rec.cond!.stopPriceTicks, rec.cond!.activationPriceTicks, rec.cond!.callbackPermille], [514_800, 510_000, 10])
})

t.test('a trailing BUY stop without an activation price starts at the placement price', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  const r0 = ex.ok(conditional(ALICE, 'BUY', 'TRAILING_STOP_MARKET', { callbackPermille: 20 }))
  const id = r0.orderId!
  t.same([orderEvents(r0)[0]!.cond!.activationPriceTicks, orderEvents(r0)[0]!.cond!.stopPriceTicks], [500_000, 510_000],
    'activation is the price then; the trigger 50,000 × 1.02')
  print(ex, 49_000)
  // Trigger: 49,000 × 1.02 = 49,980.
  t.same(triggered(print(ex, 49_900)), [])
  t.same(triggered(print(ex, 49_980)).map((x) => x[0]), [id])
})

t.test('several trailing stops share a price path: each its own extreme and callback', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  const a = ex.ok(conditional(ALICE, 'SELL', 'TRAILING_STOP_MARKET', { callbackPermille: 10 })).orderId!
  print(ex, 51_000)
  const b = ex.ok(conditional(BOB, 'SELL', 'TRAILING_STOP_MARKET', { callbackPermille: 20 })).orderId!
  const c = ex.ok(conditional(ALICE, 'SELL', 'TRAILING_STOP_MARKET', { callbackPermille: 5, activationPriceTicks: px(53_000) })).orderId!
  const ext = (id: number): number => perp(ex).triggers.live.get(id)!.cond!.extremeTicks
  print(ex, 52_000)
  t.same([ext(a), ext(b), ext(c)], [520_000, 520_000, 0], 'a and b follow the high; c waits for 53,000')
  t.same(triggered(print(ex, 51_900)), [], 'a fires at 51,480, b at 50,960')
  print(ex, 53_000)
  t.same([ext(a), ext(b), ext(c)], [530_000, 530_000, 530_000])
  // Triggers now: a 52,470, b 51,940, c 52,735. At 52,000 c (crossed first, 735 behind) then a (470).
  t.same(triggered(print(ex, 52_000)).map((x) => x[0]), [c, a])
  t.same(triggered(print(ex, 51_940)).map((x) => x[0]), [b])
  t.equal(perp(ex).triggers.contract.trailing, 0)
})

t.test('closePosition closes the whole position at trigger, whatever it grew to', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  ex.ok(limit(BOB, 'SELL', px(50_000), 30))
  ex.ok(limit(ALICE, 'BUY', px(50_000), 30))
  const r0 = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_000), closePosition: true, qtyLots: undefined }))
  const id = r0.orderId!
  t.same([orderEvents(r0)[0]!.origQtyLots, orderEvents(r0)[0]!.reduceOnly, orderEvents(r0)[0]!.cond!.closePosition], [0, true, true])
  ex.ok(limit(BOB, 'SELL', px(50_000), 10))
  ex.ok(limit(ALICE, 'BUY', px(50_000), 10))
  t.equal(ex.position(ALICE).qtyLots, 40)
  ex.ok(limit(BOB, 'BUY', px(48_900), 100))
  const r = print(ex, 49_000)
  t.same(triggered(r), [[id, 'MARKET', 'STOP_MARKET', 'NEW', 'NEW']])
  t.same(fillTrail(r).slice(1), [[489_000, 40, BOB, 8, ALICE]], 'all 40 lots sold to the bid at 48,900')
  t.equal(ex.position(ALICE).qtyLots, 0)
})

t.test('what cannot be placed at trigger expires with the reason', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  const close = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_000), closePosition: true, qtyLots: undefined })).orderId!
  const reduce = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_000), reduceOnly: true })).orderId!
  const r = print(ex, 49_000)
  const ends = orderEvents(r).filter((e) => e.orderId === close || e.orderId === reduce)
    .map((e) => [e.orderId, e.execType, e.status, e.cond!.reason])
  t.same(ends, [[close, 'EXPIRED', 'EXPIRED', 'CLOSE_POSITION_NOTHING'], [reduce, 'EXPIRED', 'EXPIRED', 'REDUCE_ONLY_REJECTED']])
  t.equal(ex.sub(ALICE).orders.size, 0)
  t.equal(ex.sub(ALICE).openByMarket.size, 0)
})

t.test('a triggered order beyond the price band expires with the band\'s code as its reason', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  // A STOP sell limited at 46,000: below the floor ⌈49,000 × 0.95⌉ = 46,550 once 49,000 prints.
  const stop = ex.ok(conditional(ALICE, 'SELL', 'STOP', { stopPriceTicks: px(49_000), priceTicks: px(46_000) })).orderId!
  // A STOP_MARKET buy at 50,500 whose only ask, 53,100, is past ⌊50,500 × 1.05⌋ = 53,025.
  const market = ex.ok(conditional(BOB, 'BUY', 'STOP_MARKET', { stopPriceTicks: px(50_500) })).orderId!
  const r1 = print(ex, 49_000)
  t.same(orderEvents(r1).filter((e) => e.orderId === stop).map((e) => [e.execType, e.cond!.reason]), [['EXPIRED', 'PRICE_BELOW_BAND']])
  ex.ok(limit(CAROL, 'SELL', px(53_100), 10))
  const r2 = print(ex, 50_500)
  t.same(orderEvents(r2).filter((e) => e.orderId === market).map((e) => [e.execType, e.cond!.reason]), [['EXPIRED', 'MARKET_BEYOND_BAND']])
})

t.test('priceMatch on STOP and TAKE_PROFIT: the price comes from the book as it triggers', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  ex.ok(limit(BOB, 'SELL', px(50_010), 10))
  ex.ok(limit(BOB, 'SELL', px(50_020), 10))
  const none = { eventCount: 0, rootUnchanged: true }
  t.same(rejection(ex, conditional(ALICE, 'BUY', 'STOP', { stopPriceTicks: px(50_005), priceTicks: px(50_010), priceMatch: 'OPPONENT' })),
    { code: 'PRICE_NOT_ALLOWED', ...none }, 'a price and a priceMatch')
  t.same(rejection(ex, conditional(ALICE, 'BUY', 'STOP_MARKET', { stopPriceTicks: px(50_005), priceMatch: 'OPPONENT' })),
    { code: 'PRICE_MATCH_TYPE', ...none }, 'a MARKET form')

  const buy = ex.ok(conditional(ALICE, 'BUY', 'STOP', { stopPriceTicks: px(50_005), priceMatch: 'OPPONENT', timeInForce: 'GTC' }))
  t.match(orderEvents(buy)[0], { execType: 'NEW', orderType: 'STOP', priceTicks: 0, priceMatch: 'OPPONENT' }, 'waits without a price')
  const sell = ex.ok(conditional(ALICE, 'SELL', 'STOP', { stopPriceTicks: px(49_500), priceMatch: 'OPPONENT', timeInForce: 'GTC', reduceOnly: true }))

  // A snapshot keeps the mode: the same root, the same trigger later.
  const restored = new TestExchange()
  Object.assign(restored, { state: decodeSnapshot(encodeSnapshot(ex.state)), time: ex.time })
  t.equal(stateRoot(restored.state), stateRoot(ex.state))
  t.equal(perp(restored).triggers.live.get(buy.orderId!)?.priceMatch, 'OPPONENT')

  for (const e of [ex, restored]) {
    // The print at 50,005 takes its own ask; the stop then buys at the best ask left, 50,010.
    const r = print(e, 50_005)
    t.match(orderEvents(r).find((o) => o.orderId === buy.orderId && o.execType === 'NEW'),
      { orderType: 'LIMIT', priceTicks: px(50_010), priceMatch: 'OPPONENT' })
    t.match(r.events.filter((x) => x.type === 'trade').map((x) => x.priceTicks), [px(50_005), px(50_010)])
  }
  t.equal(stateRoot(restored.state), stateRoot(ex.state))

  // With no bid to match, the reduce-only SELL stop expires as it triggers.
  const r = print(ex, 49_000)
  t.match(orderEvents(r).find((o) => o.orderId === sell.orderId),
    { execType: 'EXPIRED', status: 'EXPIRED', cond: { reason: 'PRICE_MATCH_NO_DEPTH' } })
})

t.test('a reduce-only stop reduces at trigger when the position is there', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  ex.ok(limit(BOB, 'SELL', px(50_000), 20))
  ex.ok(limit(ALICE, 'BUY', px(50_000), 20))
  const id = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_000), reduceOnly: true })).orderId!
  ex.ok(limit(BOB, 'BUY', px(48_900), 10))
  const r = print(ex, 49_000)
  t.same(triggered(r), [[id, 'MARKET', 'STOP_MARKET', 'NEW', 'NEW']])
  t.equal(ex.position(ALICE).qtyLots, 10)
})

t.test('priceProtect holds a trigger while mark and last differ by more than 5 %', async (t) => {
  // A print 6 % from the mark: beyond the price band, so without one.
  const ex = setup(NO_BAND_GENESIS)
  registerOracle(ex)
  await publish(ex, '50000')
  print(ex, 50_000)
  const guarded = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(48_000), priceProtect: true })).orderId!
  const plain = ex.ok(conditional(BOB, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(48_000) })).orderId!
  // A print at 47,000 against a mark of 50,000 (empty book): 6 % apart.
  const r = print(ex, 47_000)
  t.equal(perp(ex).markPriceTicks, 500_000)
  t.same(triggered(r).map((x) => x[0]), [plain], 'only the unprotected stop fires')
  t.ok(perp(ex).triggers.live.has(guarded), 'the protected one keeps waiting')
  // The index comes down to 49,400: 47,000 is 4.86 % below it, inside 5 %: it fires now.
  const r2 = await publish(ex, '49400')
  t.equal(perp(ex).markPriceTicks, 494_000)
  t.same(triggered(r2).map((x) => x[0]), [guarded])
})

t.test('cancel by orderId or clientOrderId, and cancel-all, end waiting conditional orders', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  const a = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_000) })).orderId!
  ex.ok(conditional(ALICE, 'SELL', 'TAKE_PROFIT', { stopPriceTicks: px(51_000), priceTicks: px(51_000), clientOrderId: 'tp' }))
  ex.ok(conditional(ALICE, 'BUY', 'TRAILING_STOP_MARKET', { callbackPermille: 5 }))
  ex.ok(conditional(ALICE, 'BUY', 'STOP', { stopPriceTicks: px(52_000), priceTicks: px(52_000) }))
  t.equal(ex.sub(ALICE).openByMarket.get(BTCPERP), 4)
  const r1 = ex.ok(cancel(ALICE, { orderId: a }))
  t.same(orderEvents(r1).map((e) => [e.orderId, e.execType, e.status, e.orderType]), [[a, 'CANCELED', 'CANCELED', 'STOP_MARKET']])
  const r2 = ex.ok(cancel(ALICE, { clientOrderId: 'tp' }))
  t.same(orderEvents(r2).map((e) => [e.clientOrderId, e.status]), [['tp', 'CANCELED']])
  t.equal(rejection(ex, cancel(BOB, { orderId: a + 2 })).code, 'ORDER_UNKNOWN', 'not the owner')
  const r3 = ex.ok({ type: 'CancelAll', account: ALICE, sub: 0, marketId: BTCPERP })
  t.same(orderEvents(r3).map((e) => [e.orderType, e.status]), [['TRAILING_STOP_MARKET', 'CANCELED'], ['STOP', 'CANCELED']])
  t.equal(perp(ex).triggers.live.size, 0)
  t.equal(ex.sub(ALICE).orders.size, 0)
  t.same(triggered(print(ex, 48_000)), [], 'nothing canceled fires')
})

t.test('several crossed at once fire in the order the price crossed them, ties by orderId', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  const a = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_500) })).orderId!
  const b = ex.ok(conditional(BOB, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_000) })).orderId!
  const c = ex.ok(conditional(ALICE, 'BUY', 'TAKE_PROFIT_MARKET', { stopPriceTicks: px(49_500) })).orderId!
  const d = ex.ok(conditional(BOB, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_900) })).orderId!
  // 50,000 → 48,000: 49,900 was crossed first, then both 49,500 (a before c), then 49,000.
  const r = print(ex, 48_000)
  t.same(triggered(r).map((x) => x[0]), [d, a, c, b])
})

t.test('a cascade: a triggered order trades, and its price triggers the next', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  ex.ok(limit(BOB, 'SELL', px(50_000), 20))
  ex.ok(limit(ALICE, 'BUY', px(50_000), 20))
  ex.ok(limit(BOB, 'BUY', px(48_500), 10))
  ex.ok(limit(BOB, 'BUY', px(48_000), 10))
  const first = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_000), qtyLots: 10, reduceOnly: true })).orderId!
  const second = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(48_500), qtyLots: 10, reduceOnly: true })).orderId!
  // The print at 49,000 fires the first; its sale at 48,500 fires the second, which sells at 48,000.
  const r = print(ex, 49_000)
  t.same(triggered(r).map((x) => x[0]), [first, second])
  t.same(fillTrail(r).slice(1).map((f) => [f[0], f[1], f[4]]), [[485_000, 10, ALICE], [480_000, 10, ALICE]])
  t.equal(perp(ex).lastPriceTicks, 480_000)
  t.equal(ex.position(ALICE).qtyLots, 0)
})

t.test('GTD on a STOP: it expires at its date while still waiting', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  const gtd = ex.time + 700_000
  const id = ex.ok(conditional(ALICE, 'SELL', 'STOP', { stopPriceTicks: px(49_000), priceTicks: px(49_000), timeInForce: 'GTD', goodTillDate: gtd })).orderId!
  const r = ex.ok({ type: 'Tick' }, 700_000)
  t.same(orderEvents(r).map((e) => [e.orderId, e.status]), [[id, 'EXPIRED']])
  t.equal(perp(ex).triggers.live.size, 0)
})

t.test('GTD on a market form: rules 7 keep it (it expires waiting, or triggers as a market order); older rules make it GTC', async (t) => {
  const ex = setup()
  print(ex, 50_000)
  const gtd = (): number => ex.time + 700_000
  const old = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_000), timeInForce: 'GTD', goodTillDate: gtd() }))
  t.same(orderEvents(old).map((e) => [e.timeInForce, e.goodTillDate]), [['GTC', 0]], 'rules 1: GTC, as logs before rules 7 have it')
  ex.ok({ type: 'SetRules', version: MARKET_STOPS_GTD, leafSeed: '0x' + '6e'.repeat(32) })
  const date = gtd()
  const waits = ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(48_000), timeInForce: 'GTD', goodTillDate: date }))
  t.same(orderEvents(waits).map((e) => [e.timeInForce, e.goodTillDate]), [['GTD', date]])
  const fires = ex.ok(conditional(BOB, 'BUY', 'TAKE_PROFIT_MARKET', { stopPriceTicks: px(49_500), timeInForce: 'GTD', goodTillDate: date }))
  t.same(rejection(ex, conditional(BOB, 'BUY', 'STOP_MARKET', { stopPriceTicks: px(51_000), timeInForce: 'GTD', goodTillDate: ex.time + 1_000 })),
    { code: 'GTD_INVALID', eventCount: 0, rootUnchanged: true }, 'a date too soon')
  // 49,500 triggers the TAKE_PROFIT_MARKET into a market order; the STOP_MARKET waits on.
  print(ex, 49_500)
  t.notOk(perp(ex).triggers.live.has(fires.orderId!), 'triggered')
  const r = ex.ok({ type: 'Tick' }, 700_000)
  t.same(orderEvents(r).map((e) => [e.orderId, e.status]), [[waits.orderId, 'EXPIRED']], 'the waiting one expires at its date; the old one is GTC')
  t.ok(perp(ex).triggers.live.has(old.orderId!))
})

t.test('a snapshot keeps waiting orders and trailing state: same root, same later results', async (t) => {
  // The prints jump 25 % at the end: without the price band.
  const ex = setup(NO_BAND_GENESIS)
  print(ex, 50_000)
  ex.ok(conditional(ALICE, 'SELL', 'STOP_MARKET', { stopPriceTicks: px(49_000), clientOrderId: 'a' }))
  ex.ok(conditional(ALICE, 'SELL', 'TRAILING_STOP_MARKET', { activationPriceTicks: px(51_000), callbackPermille: 10 }))
  ex.ok(conditional(BOB, 'BUY', 'TRAILING_STOP_MARKET', { callbackPermille: 30, workingType: 'MARK_PRICE', priceProtect: true }))
  ex.ok(conditional(BOB, 'BUY', 'STOP', { stopPriceTicks: px(53_000), priceTicks: px(53_100), timeInForce: 'GTD', goodTillDate: ex.time + 900_000 }))
  // 51,400 activates the SELL trailing stop and stays under the BUY one's 50,000 × 1.03.
  print(ex, 51_400)
  const copy = new TestExchange(NO_BAND_GENESIS)
  ;(copy as { state: State }).state = decodeSnapshot(encodeSnapshot(ex.state))
  copy.time = ex.time
  t.equal(stateRoot(copy.state), stateRoot(ex.state))
  const a = perp(ex).triggers
  const b = (copy.state.markets[BTCPERP] as PerpMarket).triggers
  t.same([...b.live.keys()], [...a.live.keys()])
  t.same([b.contract.trailing, b.mark.trailing], [a.contract.trailing, a.mark.trailing])
  t.same([a.contract.trailing, a.mark.trailing], [1, 1], 'one activated trailing stop per working type')
  for (const price of [52_000, 50_900, 53_000, 40_000]) {
    const ra = print(ex, price)
    const rb = print(copy, price)
    t.same(rb.events, ra.events, `same events at ${price}`)
    t.equal(stateRoot(copy.state), stateRoot(ex.state))
  }
  // A triggered STOP resting as a LIMIT keeps its conditional record through a snapshot too.
  const ex2 = setup()
  print(ex2, 50_000)
  const id = ex2.ok(conditional(BOB, 'BUY', 'STOP', { stopPriceTicks: px(51_000), priceTicks: px(50_500) })).orderId!
  print(ex2, 51_000)
  const resting = perp(ex2).book.orders.get(id)!
  t.same([resting.orderType, resting.cond!.origType, resting.cond!.triggerTime > 0], ['LIMIT', 'STOP', true])
  const back = decodeSnapshot(encodeSnapshot(ex2.state))
  t.equal(stateRoot(back), stateRoot(ex2.state))
  t.same((back.markets[BTCPERP] as PerpMarket).book.orders.get(id)!.cond!.origType, 'STOP')
  const moved: OrderEvent[] = orderEvents(ex2.ok(cancel(BOB, { orderId: id })))
  t.same(moved.map((e) => [e.orderType, e.cond!.origType, e.status]), [['LIMIT', 'STOP', 'CANCELED']])
})

/**
 * A naive model of the market forms on last-price prints, checked against the core on seeded
 * random streams: every waiting order is looked at on every print (what the heaps avoid), the
 * fired ones sorted by how far behind the print their trigger lies, then orderId.
 */
interface ModelOrder { id: number; type: ConditionalType; side: Side; stop: number; activation: number; cb: number; active: boolean; ext: number }

function modelPrint(orders: Map<number, ModelOrder>, price: number): number[] {
  const due: [number, number][] = []
  for (const o of orders.values()) {
    if (o.type === 'TRAILING_STOP_MARKET') {
      if (!o.active) {
        if (o.side === 'SELL' ? price >= o.activation : price <= o.activation) { o.active = true; o.ext = price }
        continue
      }
      if (o.side === 'SELL' ? price > o.ext : price < o.ext) o.ext = price
      const trig = o.side === 'SELL' ? o.ext * (1000 - o.cb) : o.ext * (1000 + o.cb)
      if (o.side === 'SELL' ? price * 1000 <= trig : price * 1000 >= trig) due.push([Math.abs(price * 1000 - trig), o.id])
      continue
    }
    const up = o.type === 'STOP_MARKET' ? o.side === 'BUY' : o.side === 'SELL'
    if (up ? price >= o.stop : price <= o.stop) due.push([Math.abs(price - o.stop) * 1000, o.id])
  }
  due.sort((a, b) => b[0] - a[0] || a[1] - b[1])
  for (const [, id] of due) orders.delete(id)
  return due.map((d) => d[1])
}

t.test('random streams: the indexed triggers fire exactly what a full scan fires, in its order', async (t) => {
  let firedTotal = 0
  let together = 0
  for (let seed = 1; seed <= 12; seed++) {
    let x = seed * 7919
    // xorshift32: a float LCG (x * 1103515245 + …) loses its low bits, and x % n with them.
    const rnd = (n: number): number => { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; return (x >>> 0) % n }
    const ex = setup()
    // The simulator's invariants hold with conditional orders about (ownership, ids, money, positions).
    const ids = new IdMonitor()
    const violations: string[] = []
    const see = (r: Result): Result => {
      violations.push(...ids.see({ seq: ex.state.seq, time: ex.time, command: { type: 'Tick' } }, r))
      return r
    }
    let last = 50_000
    see(ex.ok(limit(CAROL, 'SELL', px(last), 10)))
    see(ex.ok(limit(DAVE, 'BUY', px(last), 10)))
    const model = new Map<number, ModelOrder>()
    const accounts = [ALICE, BOB]
    let mismatches = 0
    for (let step = 0; step < 300; step++) {
      if (rnd(3) === 0) {
        const side: Side = rnd(2) === 0 ? 'BUY' : 'SELL'
        const kind = rnd(3)
        const away = 1 + rnd(300)
        const who = accounts[rnd(2)]!
        let cmd: PlaceOrder
        if (kind === 0) cmd = conditional(who, side, 'STOP_MARKET', { stopPriceTicks: px(last + (side === 'BUY' ? away : -away)) })
        else if (kind === 1) cmd = conditional(who, side, 'TAKE_PROFIT_MARKET', { stopPriceTicks: px(last + (side === 'BUY' ? -away : away)) })
        else {
          const activation = rnd(2) === 0 ? undefined : px(last + (side === 'SELL' ? away : -away))
          cmd = conditional(who, side, 'TRAILING_STOP_MARKET', { callbackPermille: 1 + rnd(30), ...(activation ? { activationPriceTicks: activation } : {}) })
        }
        const r = see(ex.run(cmd))
        if (!r.ok) continue // the 10-per-market cap
        const id = r.orderId!
        const stop = cmd.stopPriceTicks ?? 0
        const trailing = cmd.orderType === 'TRAILING_STOP_MARKET'
        model.set(id, { id, type: cmd.orderType as ConditionalType, side, stop, cb: cmd.callbackPermille ?? 0,
          activation: cmd.activationPriceTicks ?? 0, active: trailing && cmd.activationPriceTicks === undefined, ext: px(last) })
      } else {
        last = Math.max(40_000, Math.min(60_000, last + rnd(401) - 200))
        see(ex.ok(limit(CAROL, 'SELL', px(last), 10)))
        const r = see(ex.ok(limit(DAVE, 'BUY', px(last), 10)))
        violations.push(...stateViolations(ex.state))
        const fired = triggered(r).map((f) => f[0])
        const expected = modelPrint(model, px(last))
        if (JSON.stringify(fired) !== JSON.stringify(expected)) mismatches++
        firedTotal += fired.length
        if (fired.length > 1) together++
      }
    }
    t.equal(mismatches, 0, `seed ${seed}`)
    t.same(violations.slice(0, 5), [], `seed ${seed}: no invariant broken`)
    t.same([...perp(ex).triggers.live.keys()].sort((a, b) => a - b), [...model.keys()].sort((a, b) => a - b), `seed ${seed}: the same orders wait`)
  }
  t.ok(firedTotal > 100 && together > 10, `the streams fire (${firedTotal} triggers, ${together} prints firing several)`)
})
