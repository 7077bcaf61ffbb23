// Cross margin on placement and on leverage changes. Initial margin = ceil(notional / leverage)
// over positions at the mark plus open orders: one-way mode counts the larger of the buy and
// sell sides, orders that only reduce the position count nothing; hedge mode counts both.
// Notional in units = ticks × lots × 100; 10 lots at 50000.0 = 500 USDT, 25 USDT at 20x.

import t from 'tap'
import { marginView } from '../../core/margin.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, ETHPERP, TestExchange, USDT } from '../helpers/exchange.js'
import { cancel, limit, placedId, rejection } from '../helpers/commands.js'
import type { Command } from '../../core/commands.js'

function withUnits(units: number): TestExchange {
  const ex = new TestExchange()
  ex.ok({ type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: units, wallet: 'PERP', ref: 'alice-1' })
  ex.fund(BOB, 100_000)
  return ex
}

const lev = (leverage: number, marketId = BTCPERP): Command =>
  ({ type: 'ChangeLeverage', account: ALICE, sub: 0, marketId, leverage })

const im = (ex: TestExchange): [number, number] => {
  const v = marginView(ex.state, ex.sub(ALICE))
  return [v.initialMargin, v.available]
}

t.test('an order that uses exactly the available margin is accepted, one lot more is not', async (t) => {
  const ex = withUnits(25 * USDT)
  // 11 lots: 5,500,000 tick·lots × 100 / 20 = 27,500,000 > 25,000,000.
  t.same(rejection(ex, limit(ALICE, 'BUY', 500_000, 11)), { code: 'MARGIN_INSUFFICIENT', eventCount: 0, rootUnchanged: true })
  t.equal(rejection(ex, limit(ALICE, 'BUY', 500_000, 10)).code, 'ACCEPTED')
  t.same(im(ex), [25_000_000, 0])
  const rows: [string, Command, string][] = [
    ['2 more lots on the buy side', limit(ALICE, 'BUY', 500_000, 2), 'MARGIN_INSUFFICIENT'],
    // One-way: the larger side counts. 10 at 50000.1 = 5,000,010 > 5,000,000.
    ['a sell one tick richer than the bid notional', limit(ALICE, 'SELL', 500_001, 10), 'MARGIN_INSUFFICIENT'],
    // 9 at 55000.0 = 4,950,000 < 5,000,000: the requirement does not rise.
    ['a smaller sell side', limit(ALICE, 'SELL', 550_000, 9), 'ACCEPTED'],
  ]
  for (const [name, cmd, code] of rows) t.equal(rejection(ex, cmd).code, code, name)
  t.same(im(ex), [25_000_000, 0])
})

t.test('initial margin rounds up', async (t) => {
  // At 3x: 2 lots at 50000.0 = 100,000,000 units / 3 = 33,333,333.33 → 33,333,334.
  for (const [units, code] of [[33_333_334, 'ACCEPTED'], [33_333_333, 'MARGIN_INSUFFICIENT']] as const) {
    const ex = withUnits(units)
    ex.ok(lev(3))
    t.equal(rejection(ex, limit(ALICE, 'BUY', 500_000, 2)).code, code, `${units} units`)
    if (code === 'ACCEPTED') t.same(im(ex), [33_333_334, 0])
  }
})

t.test('one-way: the larger of the two sides', async (t) => {
  // Buy 10 at 50000.0 (5,000,000) and sell 10 at 51000.0 (5,100,000): 25,500,000.
  const ex = withUnits(25_500_000)
  ex.ok(limit(ALICE, 'BUY', 500_000, 10))
  t.equal(rejection(ex, limit(ALICE, 'SELL', 510_000, 11)).code, 'MARGIN_INSUFFICIENT', '5,610,000 → 28,050,000')
  t.equal(rejection(ex, limit(ALICE, 'SELL', 510_000, 10)).code, 'ACCEPTED')
  t.same(im(ex), [25_500_000, 0])
})

t.test('one-way: orders that reduce the position count nothing', async (t) => {
  const ex = withUnits(100 * USDT)
  ex.ok(limit(BOB, 'SELL', 500_000, 10))
  ex.ok(limit(ALICE, 'BUY', 500_000, 10)) // long 10 at 50000.0, taker fee 250,000
  // Position at the mark: 5,000,000 tick·lots → 25,000,000.
  t.same(im(ex), [25_000_000, 99_750_000 - 25_000_000])
  const rows: [string, Command, number][] = [
    ['sell 10: closes exactly', limit(ALICE, 'SELL', 510_000, 10), 25_000_000],
    // Sell 15 at 51000.0: 7,650,000 of which 5/15 opens = 2,550,000 → (5,000,000 + 2,550,000) × 5.
    ['sell 15: 5 would open', limit(ALICE, 'SELL', 510_000, 15), 37_750_000],
    // A buy adds to the long in full: 4 at 49000.0 = 1,960,000 → (5,000,000 + 1,960,000) × 5.
    ['buy 4', limit(ALICE, 'BUY', 490_000, 4), 34_800_000],
  ]
  for (const [name, cmd, want] of rows) {
    const id = placedId(ex.ok(cmd))
    t.equal(im(ex)[0], want, name)
    ex.ok(cancel(ALICE, { orderId: id }))
  }
  // Both at once: max(buy 1,960,000, sell 2,550,000) = 2,550,000.
  ex.ok(limit(ALICE, 'SELL', 510_000, 15))
  ex.ok(limit(ALICE, 'BUY', 490_000, 4))
  t.equal(im(ex)[0], 37_750_000)
})

t.test('hedge mode counts both opening sides', async (t) => {
  // Buy LONG 10 at 50000.0 + sell SHORT 10 at 51000.0 = 10,100,000 tick·lots → 50,500,000.
  for (const [units, code] of [[50_500_000, 'ACCEPTED'], [50_499_999, 'MARGIN_INSUFFICIENT']] as const) {
    const ex = withUnits(units)
    ex.ok({ type: 'ChangePositionMode', account: ALICE, sub: 0, dualSide: true })
    ex.ok(limit(ALICE, 'BUY', 500_000, 10, { positionSide: 'LONG' }))
    t.equal(rejection(ex, limit(ALICE, 'SELL', 510_000, 10, { positionSide: 'SHORT' })).code, code, `${units} units`)
    if (code === 'ACCEPTED') t.same(im(ex), [50_500_000, 0])
  }
})

t.test('leverage bounds and the notional each allows', async (t) => {
  const ex = withUnits(100 * USDT)
  const rows: [string, Command, string, number?][] = [
    ['0', lev(0), 'LEVERAGE_INVALID'],
    ['-5', lev(-5), 'LEVERAGE_INVALID'],
    ['2.5', lev(2.5), 'LEVERAGE_INVALID'],
    ['126 over BTC max 125', lev(126), 'LEVERAGE_INVALID'],
    ['101 over ETH max 100', lev(101, ETHPERP), 'LEVERAGE_INVALID'],
    ['a spot market', lev(5, BTCSPOT), 'MARKET_UNKNOWN'],
    // maxNotional: the largest bracket cap whose maxLeverage allows it, in units.
    ['BTC 125: 50,000 USDT', lev(125), 'ACCEPTED', 50_000 * USDT],
    ['BTC 101: only the first bracket allows it, 50,000 USDT', lev(101), 'ACCEPTED', 50_000 * USDT],
    ['BTC 100: 600,000 USDT', lev(100), 'ACCEPTED', 600_000 * USDT],
    ['BTC 20: 100,000,000 USDT', lev(20), 'ACCEPTED', 100_000_000 * USDT],
    ['BTC 1: 1,800,000,000 USDT', lev(1), 'ACCEPTED', 1_800_000_000 * USDT],
    ['ETH 100: 50,000 USDT', lev(100, ETHPERP), 'ACCEPTED', 50_000 * USDT],
    ['ETH 75: 600,000 USDT', lev(75, ETHPERP), 'ACCEPTED', 600_000 * USDT],
  ]
  for (const [name, cmd, code, maxNotional] of rows) {
    const r = ex.run(cmd)
    t.equal(r.ok ? 'ACCEPTED' : r.code, code, name)
    if (r.ok) t.match(r.events, [{ type: 'leverage', leverage: (cmd as { leverage: number }).leverage, maxNotional }], name)
  }
  t.same([ex.holding(ALICE).leverage, ex.holding(ALICE, ETHPERP).leverage], [1, 75])
})

t.test('POSITION_LIMIT: placement beyond the bracket of the leverage', async (t) => {
  const ex = withUnits(1_000 * USDT)
  ex.ok(lev(125))
  // 1000 lots at 50000.0 = 50,000 USDT: exactly the 125x cap. 1001 lots is over.
  t.same(rejection(ex, limit(ALICE, 'BUY', 500_000, 1_001)), { code: 'POSITION_LIMIT', eventCount: 0, rootUnchanged: true })
  t.equal(rejection(ex, limit(ALICE, 'BUY', 500_000, 1_000)).code, 'ACCEPTED')
  t.same(im(ex), [400 * USDT, 600 * USDT], '50,000 / 125 = 400 USDT')
})

t.test('POSITION_LIMIT and MARGIN_INSUFFICIENT on leverage changes', async (t) => {
  const ex = withUnits(5_000 * USDT)
  ex.ok(limit(ALICE, 'BUY', 600_000, 1_000)) // 60,000 USDT resting, 3,000 at 20x
  t.same(rejection(ex, lev(125)), { code: 'POSITION_LIMIT', eventCount: 0, rootUnchanged: true })
  ex.ok(lev(100))
  t.same(im(ex), [600 * USDT, 4_400 * USDT])
  ex.ok(limit(BOB, 'SELL', 600_000, 1_000)) // now a position of the same size
  t.equal(rejection(ex, lev(125)).code, 'POSITION_LIMIT', 'positions count too')

  // Lowering: 25 USDT wallet fully used by 10 lots at 50000.0 at 20x.
  const ex2 = withUnits(25 * USDT)
  ex2.ok(limit(ALICE, 'BUY', 500_000, 10))
  // At 19x: ceil(500,000,000 / 19) = 26,315,790 > 25,000,000.
  t.same(rejection(ex2, lev(19)), { code: 'MARGIN_INSUFFICIENT', eventCount: 0, rootUnchanged: true })
  ex2.ok(lev(25))
  t.same(im(ex2), [20_000_000, 5_000_000])
  ex2.ok(lev(20))
  t.same(im(ex2), [25_000_000, 0], 'back to exactly the wallet')
  t.equal(rejection(ex2, lev(20)).code, 'ACCEPTED', 'the same leverage again is accepted')
})

t.test('an account with nothing is refused margin', async (t) => {
  const ex = new TestExchange()
  t.same(rejection(ex, limit(ALICE, 'BUY', 500_000, 10)), { code: 'MARGIN_INSUFFICIENT', eventCount: 0, rootUnchanged: true })
})
