// Isolated margin (core/isolated.ts): margin type changes, the money an isolated position's
// fills, margin moves and funding move between the cross wallet and its isolated wallet, the
// cross figures that leave isolated positions out, Binance's liquidation price, and the state
// root and snapshot. BTCUSDTPERP: 1 lot × 1 tick = 100 units; fees 0.02 % maker, 0.05 % taker;
// first bracket (to 50,000 USDT) mmr 0.4 %, cum 0. Without an oracle the mark is the last trade.

import t, { type Test } from 'tap'
import fc from 'fast-check'
import type { AdjustPositionMargin, ChangeMarginType, Command } from '../../core/commands.js'
import type { Event, FundingEvent, PositionMarginEvent } from '../../core/events.js'
import { marginView, maxRemovable } from '../../core/margin.js'
import { crossRisk, isolatedRisk, liquidationPrice } from '../../core/margin-risk.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import type { PerpMarket } from '../../core/state.js'
import { moneyViolations, positionViolations } from '../../sim/model/invariants.js'
import { limit, rejection, tradeEvents } from '../helpers/commands.js'
import { ALICE, BOB, BTCPERP, CAROL, DAVE, ETHPERP, TestExchange, USDT } from '../helpers/exchange.js'
import { publish, registerOracle } from '../helpers/oracle.js'
import { runs } from '../helpers/property.js'

const btc = (ex: TestExchange): PerpMarket => ex.state.markets[BTCPERP] as PerpMarket
const eth = (ex: TestExchange): PerpMarket => ex.state.markets[ETHPERP] as PerpMarket

const marginType = (account: string, type: 'CROSSED' | 'ISOLATED', marketId = BTCPERP): ChangeMarginType =>
  ({ type: 'ChangeMarginType', account, sub: 0, marketId, marginType: type })
const adjust = (account: string, direction: 'ADD' | 'REDUCE', amount: number,
  positionSide: 'BOTH' | 'LONG' | 'SHORT' = 'BOTH'): AdjustPositionMargin =>
  ({ type: 'AdjustPositionMargin', account, sub: 0, marketId: BTCPERP, positionSide, amount, direction })
const leverage = (account: string, lev: number): Command => ({ type: 'ChangeLeverage', account, sub: 0, marketId: BTCPERP, leverage: lev })

/** Cross wallet and isolated wallet of a position. */
const wallets = (ex: TestExchange, account: string, side: 'BOTH' | 'LONG' | 'SHORT' = 'BOTH'): [number, number] =>
  [ex.sub(account).perpWallet, ex.position(account, BTCPERP, side).isolatedWallet]

const conserved = (t: Test, ex: TestExchange): void => {
  t.same(moneyViolations(ex.state), [], 'every unit accounted for')
  t.same(positionViolations(ex.state), [], 'positions consistent')
}

/** ALICE isolated long 10 lots at 50000.0 as taker against BOB (cross), 10,000 USDT each. */
function aliceIsolatedLong(): TestExchange {
  const ex = new TestExchange()
  ex.fund(ALICE, 10_000)
  ex.fund(BOB, 10_000)
  ex.ok(marginType(ALICE, 'ISOLATED'))
  ex.ok(limit(BOB, 'SELL', 500_000, 10))
  ex.ok(limit(ALICE, 'BUY', 500_000, 10))
  return ex
}

t.test('change margin type: no change, open orders, open position; back once flat', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 10_000)
  ex.fund(BOB, 10_000)
  t.same(rejection(ex, marginType(ALICE, 'CROSSED')), { code: 'MARGIN_TYPE_UNCHANGED', eventCount: 0, rootUnchanged: true },
    'every market starts cross')
  t.equal(rejection(ex, { ...marginType(ALICE, 'ISOLATED'), marketId: 3 }).code, 'MARKET_UNKNOWN', 'a spot market has no margin type')
  t.equal(rejection(ex, { ...marginType(ALICE, 'ISOLATED'), marginType: 'BOTH' as 'CROSSED' }).code, 'COMMAND_INVALID')

  const r = ex.ok(marginType(ALICE, 'ISOLATED'))
  t.same(r.events, [{ type: 'marginType', account: ALICE, sub: 0, marketId: BTCPERP, marginType: 'ISOLATED', time: ex.time }])
  t.equal(ex.holding(ALICE).marginType, 'ISOLATED')
  t.equal(rejection(ex, marginType(ALICE, 'ISOLATED')).code, 'MARGIN_TYPE_UNCHANGED')
  t.equal(ex.holding(ALICE, BTCPERP).leverage, 20, 'the holding keeps the default leverage')

  ex.ok(limit(ALICE, 'BUY', 490_000, 10))
  t.same(rejection(ex, marginType(ALICE, 'CROSSED')), { code: 'MARGIN_TYPE_OPEN_ORDERS', eventCount: 0, rootUnchanged: true })
  t.equal(rejection(ex, marginType(ALICE, 'ISOLATED', ETHPERP)).code, 'ACCEPTED', 'orders in another market do not matter')
  ex.ok({ type: 'CancelAll', account: ALICE, sub: 0, marketId: BTCPERP })

  ex.ok(limit(BOB, 'SELL', 500_000, 10))
  ex.ok(limit(ALICE, 'BUY', 500_000, 10))
  t.same(rejection(ex, marginType(ALICE, 'CROSSED')), { code: 'MARGIN_TYPE_OPEN_POSITION', eventCount: 0, rootUnchanged: true })
  ex.ok(limit(BOB, 'BUY', 500_000, 10))
  ex.ok(limit(ALICE, 'SELL', 500_000, 10))
  t.same(wallets(ex, ALICE)[1], 0, 'a closed position has no isolated wallet')
  t.equal(rejection(ex, marginType(ALICE, 'CROSSED')).code, 'ACCEPTED')
  conserved(t, ex)
})

t.test('opening moves the initial margin into the isolated wallet; the fee is paid from it', async (t) => {
  const ex = aliceIsolatedLong()
  // Notional 10 × 500,000 × 100 = 500,000,000 (500 USDT); at 20x 25,000,000 moves from cross;
  // taker fee 0.05 % = 250,000 from the isolated wallet. BOB (cross, maker) pays 100,000.
  t.same(wallets(ex, ALICE), [9_975_000_000, 24_750_000])
  t.equal(ex.sub(BOB).perpWallet, 9_999_900_000)
  t.same(marginView(ex.state, ex.sub(ALICE)), { wallet: 9_975_000_000, unrealizedPnl: 0, initialMargin: 0, available: 9_975_000_000 },
    'cross figures leave the isolated position out')
  t.same(isolatedRisk(btc(ex), ex.holding(ALICE), 'BOTH'), { marginBalance: 24_750_000, maintenance: 2_000_000 },
    'maintenance 500 USDT × 0.4 %')
  t.same(crossRisk(ex.state, ex.sub(ALICE)), { marginBalance: 9_975_000_000, maintenance: 0 })
  const fill = tradeEvents(ex.ok(limit(BOB, 'SELL', 500_000, 2)).events)
  t.same(fill, [])
  const r = ex.ok(limit(ALICE, 'BUY', 500_000, 2))
  // 2 more lots: 100,000,000 notional, 5,000,000 margin in, fee 50,000.
  t.match(tradeEvents(r)[0]!.taker, { wallet: 9_970_000_000, isolatedWallet: 29_700_000, positionQtyLots: 12 })
  t.notOk('isolatedWallet' in tradeEvents(r)[0]!.maker, 'a cross side carries no isolated wallet')
  conserved(t, ex)
})

t.test('reducing returns the share of the isolated wallet; closing returns the rest', async (t) => {
  const ex = aliceIsolatedLong()
  ex.ok(limit(BOB, 'BUY', 510_000, 4))
  ex.ok(limit(ALICE, 'SELL', 510_000, 4))
  // Realized 4 × 510,000 − 2,000,000 = 40,000 tick·lots = 4,000,000; fee 204,000,000 × 0.05 % = 102,000.
  // Wallet 24,750,000 + 4,000,000 − 102,000 = 28,648,000; 4 of 10 lots closed return
  // floor(28,648,000 × 4 / 10) = 11,459,200 to cross.
  t.same(wallets(ex, ALICE), [9_986_459_200, 17_188_800])

  ex.ok(limit(BOB, 'BUY', 490_000, 6))
  ex.ok(limit(ALICE, 'SELL', 490_000, 6))
  // Realized 6 × 490,000 − 3,000,000 = −60,000 tick·lots = −6,000,000; fee 294,000,000 × 0.05 % = 147,000.
  // 17,188,800 − 6,000,000 − 147,000 = 11,041,800, all of it back.
  t.same(wallets(ex, ALICE), [9_986_459_200 + 11_041_800, 0])
  conserved(t, ex)
})

t.test('a flip returns the old position\'s wallet and funds the new one', async (t) => {
  const ex = aliceIsolatedLong()
  ex.ok(limit(BOB, 'BUY', 500_000, 15))
  ex.ok(limit(ALICE, 'SELL', 500_000, 15))
  // Closing 10: PnL 0, fee on 15 lots 750,000,000 × 0.05 % = 375,000 → 24,375,000 all back;
  // opening 5 short: 250,000,000 / 20 = 12,500,000 in.
  t.same(wallets(ex, ALICE), [9_975_000_000 + 24_375_000 - 12_500_000, 12_500_000])
  t.equal(ex.position(ALICE).qtyLots, -5)
  conserved(t, ex)
})

t.test('add and reduce margin: the max removable, the errors', async (t) => {
  const ex = aliceIsolatedLong()
  ex.ok(limit(BOB, 'BUY', 510_000, 4))
  ex.ok(limit(ALICE, 'SELL', 510_000, 4))
  // Mark 51000.0; 6 lots of cost 3,000,000: PnL +6,000,000; initial margin 306,000,000 / 20 =
  // 15,300,000; removable min(17,188,800, 17,188,800 + 6,000,000 − 15,300,000) = 7,888,800.
  t.equal(maxRemovable(btc(ex), ex.holding(ALICE), ex.position(ALICE)), 7_888_800)
  t.same(rejection(ex, adjust(ALICE, 'REDUCE', 7_888_801)), { code: 'ISOLATED_BALANCE_INSUFFICIENT', eventCount: 0, rootUnchanged: true })
  const r = ex.ok(adjust(ALICE, 'REDUCE', 7_888_800))
  t.same(r.events, [{ type: 'positionMargin', account: ALICE, sub: 0, marketId: BTCPERP, positionSide: 'BOTH', direction: 'REDUCE',
    amount: 7_888_800, wallet: 9_994_348_000, isolatedWallet: 9_300_000, positionQtyLots: 6, positionCostTicksLots: 3_000_000,
    time: ex.time }] satisfies PositionMarginEvent[])
  t.equal(maxRemovable(btc(ex), ex.holding(ALICE), ex.position(ALICE)), 0)
  ex.ok(adjust(ALICE, 'ADD', 1_000_000))
  t.same(wallets(ex, ALICE), [9_993_348_000, 10_300_000])

  const rows: [string, Command, string][] = [
    ['a cross market', { ...adjust(BOB, 'ADD', 1) }, 'MARGIN_NOT_ISOLATED'],
    ['an account with nothing there', adjust(CAROL, 'ADD', 1), 'MARGIN_NOT_ISOLATED'],
    ['a hedge side in one-way mode', adjust(ALICE, 'ADD', 1, 'LONG'), 'POSITION_SIDE_INVALID'],
    ['zero', adjust(ALICE, 'ADD', 0), 'AMOUNT_INVALID'],
    ['a fraction of a unit', adjust(ALICE, 'ADD', 0.5), 'AMOUNT_INVALID'],
    ['more than cross available', adjust(ALICE, 'ADD', 9_993_348_001), 'CROSS_BALANCE_INSUFFICIENT'],
    ['an unknown direction', { ...adjust(ALICE, 'ADD', 1), direction: 'UP' as 'ADD' }, 'COMMAND_INVALID'],
  ]
  for (const [name, cmd, code] of rows) {
    const r = rejection(ex, cmd)
    t.same(r, { code, eventCount: 0, rootUnchanged: true }, name)
  }
  ex.ok(adjust(ALICE, 'ADD', 9_993_348_000))
  t.same(wallets(ex, ALICE), [0, 10_003_648_000], 'all of cross available may go in')

  const flat = new TestExchange()
  flat.fund(ALICE, 100)
  flat.ok(marginType(ALICE, 'ISOLATED'))
  t.equal(rejection(flat, adjust(ALICE, 'ADD', USDT)).code, 'MARGIN_NO_POSITION', 'no position, nothing to back')
  conserved(t, ex)
})

t.test('an order on an isolated market needs its initial margin from cross available', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 30)
  for (const a of [BOB, CAROL]) ex.fund(a, 10_000)
  ex.ok(marginType(ALICE, 'ISOLATED'))
  ex.ok(limit(BOB, 'SELL', 500_000, 10))
  ex.ok(limit(ALICE, 'BUY', 500_000, 10))
  t.same(wallets(ex, ALICE), [5_000_000, 24_750_000])
  // 3 lots need 150,000,000 / 20 = 7,500,000 > 5,000,000; 2 lots need exactly 5,000,000.
  t.equal(rejection(ex, limit(ALICE, 'BUY', 500_000, 3)).code, 'MARGIN_INSUFFICIENT')
  t.equal(rejection(ex, limit(ALICE, 'BUY', 500_000, 2)).code, 'ACCEPTED')
  t.same(marginView(ex.state, ex.sub(ALICE)), { wallet: 5_000_000, unrealizedPnl: 0, initialMargin: 5_000_000, available: 0 })
  t.equal(rejection(ex, limit(ALICE, 'SELL', 520_000, 10)).code, 'ACCEPTED', 'a closing order needs nothing')
  ex.ok({ type: 'CancelAll', account: ALICE, sub: 0, marketId: BTCPERP })
  // The mark rises to 51000.0: ALICE's isolated profit (+10 USDT) is not cross margin.
  ex.ok(limit(BOB, 'SELL', 510_000, 2))
  ex.ok(limit(CAROL, 'BUY', 510_000, 2))
  t.same(marginView(ex.state, ex.sub(ALICE)), { wallet: 5_000_000, unrealizedPnl: 0, initialMargin: 0, available: 5_000_000 })
  t.same(isolatedRisk(btc(ex), ex.holding(ALICE), 'BOTH'), { marginBalance: 34_750_000, maintenance: 2_040_000 })
  t.equal(rejection(ex, { type: 'Transfer', account: ALICE, sub: 0, direction: 'PERP_TO_SPOT', amount: 5_000_001 }).code,
    'BALANCE_INSUFFICIENT', 'nor can it be withdrawn')
  conserved(t, ex)
})

t.test('leverage on an isolated position: lower only while the wallet holds the new initial margin', async (t) => {
  const ex = aliceIsolatedLong()
  // At 19x: ceil(500,000,000 / 19) = 26,315,790 > 24,750,000.
  t.same(rejection(ex, leverage(ALICE, 19)), { code: 'MARGIN_INSUFFICIENT', eventCount: 0, rootUnchanged: true })
  t.equal(rejection(ex, leverage(ALICE, 25)).code, 'ACCEPTED', 'raising it needs nothing')
  t.same(wallets(ex, ALICE), [9_975_000_000, 24_750_000], 'the wallet stays as it was')
  ex.ok(adjust(ALICE, 'ADD', 1_565_790))
  t.equal(rejection(ex, leverage(ALICE, 19)).code, 'ACCEPTED', '26,315,790 held')
  conserved(t, ex)
})

t.test('funding of an isolated position is paid from its isolated wallet', async (t) => {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB, CAROL, DAVE]) ex.fund(a, 100_000)
  registerOracle(ex)
  await publish(ex, '30000')
  ex.ok(marginType(ALICE, 'ISOLATED'))
  ex.ok(limit(BOB, 'SELL', 300_000, 6))
  ex.ok(limit(ALICE, 'BUY', 300_000, 6))
  // 6 × 300,000 × 100 = 180,000,000: 9,000,000 in, taker fee 90,000.
  t.same(wallets(ex, ALICE), [100_000 * USDT - 9_000_000, 8_910_000])
  // Quotes 30023.9 / 30100: premium 79,666 E8, rate 29,666 E8 (test/core/funding.test.ts).
  ex.ok(limit(CAROL, 'BUY', 300_239, 1000))
  ex.ok(limit(DAVE, 'SELL', 301_000, 1000))
  ex.ok({ type: 'Tick' }, 5_000)
  const EIGHT_H = 8 * 3_600_000
  const boundary = Math.floor(ex.time / EIGHT_H) * EIGHT_H + EIGHT_H
  const r = ex.ok({ type: 'Tick' }, boundary - ex.time)
  // 6 lots at 30000.0 × 0.029666 %: ALICE pays ceil(53,398.8) = 53,399 from the isolated wallet.
  t.same(wallets(ex, ALICE), [100_000 * USDT - 9_000_000, 8_856_601])
  const f = r.events.filter((e: Event): e is FundingEvent => e.type === 'funding' && e.account === ALICE)
  t.same(f.map((e) => [e.amount, e.wallet, e.isolated]), [[-53_399, 100_000 * USDT - 9_000_000,
    [{ positionSide: 'BOTH', amount: -53_399, isolatedWallet: 8_856_601, qtyLots: 6, costTicksLots: 1_800_000 }]]])
  conserved(t, ex)
})

t.test('liquidation price: one-way isolated and cross', async (t) => {
  const ex = aliceIsolatedLong()
  // Isolated long: (24.75 − 0.01 × 50000) / (0.01 × 0.004 − 0.01) = 47715.863453815…
  t.equal(liquidationPrice(ex.state, ex.sub(ALICE), btc(ex), ex.position(ALICE)), 4_771_586_345_382n)
  // BOB cross short, wallet 9999.9: (9999.9 + 0.01 × 50000) / (0.01 × 0.004 + 0.01) = 1045806.772908366…
  t.equal(liquidationPrice(ex.state, ex.sub(BOB), btc(ex), ex.position(BOB)), 104_580_677_290_837n)
  ex.ok(limit(BOB, 'BUY', 510_000, 4))
  ex.ok(limit(ALICE, 'SELL', 510_000, 4))
  ex.ok(adjust(ALICE, 'REDUCE', 7_888_800))
  ex.ok(adjust(ALICE, 'ADD', 1_000_000))
  // Wallet 10.3, 6 lots from 50000: (10.3 − 300) / (0.006 × 0.004 − 0.006) = 48477.242302543…
  t.equal(liquidationPrice(ex.state, ex.sub(ALICE), btc(ex), ex.position(ALICE)), 4_847_724_230_254n)
  t.equal(liquidationPrice(ex.state, ex.sub(BOB), btc(ex), ex.position(BOB, BTCPERP, 'LONG')), 0n, 'flat: none')
  // A long the wallet fully backs: the formula goes negative, shown as 0.
  const rich = new TestExchange()
  rich.fund(ALICE, 10_000)
  rich.fund(BOB, 10_000)
  rich.ok(limit(BOB, 'SELL', 500_000, 10))
  rich.ok(limit(ALICE, 'BUY', 500_000, 10))
  t.equal(liquidationPrice(rich.state, rich.sub(ALICE), btc(rich), rich.position(ALICE)), 0n)
  // A short a large wallet backs: liquidated only far away, beyond a number's exact integers (it
  // was a number, and the gateway's formatting of it threw: positionRisk answered 500).
  const far = new TestExchange()
  far.fund(ALICE, 1_000_000)
  far.fund(BOB, 10_000)
  far.ok(limit(BOB, 'BUY', 300_000, 9))
  far.ok(limit(ALICE, 'SELL', 300_000, 9))
  // At such a price the position's notional (~995,000) is in the third bracket, MMR 0.65 %, cum 950:
  // (1000000 − taker fee 0.135 + 950 + 0.009 × 30000) / (0.009 × 0.0065 + 0.009) = 110528218.248054…
  const lp = liquidationPrice(far.state, far.sub(ALICE), btc(far), far.position(ALICE))
  t.ok(lp > BigInt(Number.MAX_SAFE_INTEGER))
  t.equal(lp, 11_052_821_824_805_431n)
})

t.test('liquidation price: solved again in the bracket its own notional falls in', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 10_000)
  ex.fund(CAROL, 3_500)
  ex.ok(limit(ALICE, 'BUY', 300_000, 1600))
  ex.ok(limit(CAROL, 'SELL', 300_000, 1600))
  // CAROL cross short 1.6 at 30000.0 (48,000 USDT, bracket 1), wallet 3500 − 24 fee = 3476.
  t.equal(ex.sub(CAROL).perpWallet, 3_476 * USDT)
  // Bracket 1: (3476 + 48000) / (1.6 × 0.004 + 1.6) = 32044.32…, where 1.6 BTC is 51,271 USDT:
  // bracket 2 (mmr 0.5 %, cum 50). Again: (3476 + 50 + 48000) / (1.6 × 0.005 + 1.6) =
  // 32043.532338308…, 51,269.65 USDT, still bracket 2.
  t.equal(liquidationPrice(ex.state, ex.sub(CAROL), btc(ex), ex.position(CAROL)), 3_204_353_233_831n)
})

t.test('liquidation price in hedge mode: isolated sides apart, cross sides together with the other markets', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 250)
  for (const a of [BOB, CAROL, DAVE]) ex.fund(a, 10_000)
  for (const a of [ALICE, CAROL]) ex.ok({ type: 'ChangePositionMode', account: a, sub: 0, dualSide: true })
  ex.ok(marginType(CAROL, 'ISOLATED'))
  // CAROL isolated: LONG 8 and SHORT 4 at 30000.0, taker against DAVE.
  ex.ok(limit(DAVE, 'SELL', 300_000, 8))
  ex.ok(limit(CAROL, 'BUY', 300_000, 8, { positionSide: 'LONG' }))
  ex.ok(limit(DAVE, 'BUY', 300_000, 4))
  ex.ok(limit(CAROL, 'SELL', 300_000, 4, { positionSide: 'SHORT' }))
  // LONG: 240 USDT → 12,000,000 in, fee 120,000; SHORT: 120 USDT → 6,000,000 in, fee 60,000.
  t.same([wallets(ex, CAROL, 'LONG')[1], wallets(ex, CAROL, 'SHORT')[1]], [11_880_000, 5_940_000])
  // LONG: (11.88 − 0.008 × 30000) / (0.008 × 0.004 − 0.008) = 28629.518072289…
  t.equal(liquidationPrice(ex.state, ex.sub(CAROL), btc(ex), ex.position(CAROL, BTCPERP, 'LONG')), 2_862_951_807_229n)
  // SHORT: (5.94 + 0.004 × 30000) / (0.004 × 0.004 + 0.004) = 31359.561752988…
  t.equal(liquidationPrice(ex.state, ex.sub(CAROL), btc(ex), ex.position(CAROL, BTCPERP, 'SHORT')), 3_135_956_175_299n)
  t.same(ex.ok(adjust(CAROL, 'ADD', USDT, 'SHORT')).events.length, 1, 'each side has its own wallet')
  t.same([wallets(ex, CAROL, 'LONG')[1], wallets(ex, CAROL, 'SHORT')[1]], [11_880_000, 6_940_000])
  t.equal(rejection(ex, adjust(CAROL, 'ADD', 1, 'BOTH')).code, 'POSITION_SIDE_INVALID')

  // ALICE cross: LONG 4 and SHORT 8 at 30000.0 (fees 60,000 + 120,000), and 1 ETH long at
  // 2000.00 (fee 1,000,000) whose mark then moves to 2100.00.
  ex.ok(limit(BOB, 'SELL', 300_000, 4))
  ex.ok(limit(ALICE, 'BUY', 300_000, 4, { positionSide: 'LONG' }))
  ex.ok(limit(BOB, 'BUY', 300_000, 8))
  ex.ok(limit(ALICE, 'SELL', 300_000, 8, { positionSide: 'SHORT' }))
  ex.ok(limit(BOB, 'SELL', 200_000, 1000, { marketId: ETHPERP }))
  ex.ok(limit(ALICE, 'BUY', 200_000, 1000, { marketId: ETHPERP, positionSide: 'LONG' }))
  ex.ok(limit(BOB, 'SELL', 210_000, 10, { marketId: ETHPERP }))
  ex.ok(limit(DAVE, 'BUY', 210_000, 10, { marketId: ETHPERP }))
  t.equal(ex.sub(ALICE).perpWallet, 248_820_000)
  // WB 248.82, ETH maintenance 2100 × 0.5 % = 10.5 and PnL +100:
  // (248.82 − 10.5 + 100 − 0.004 × 30000 + 0.008 × 30000) / (0.012 × 0.004 − 0.004 + 0.008) = 113221.343873517…
  const lp = liquidationPrice(ex.state, ex.sub(ALICE), btc(ex), ex.position(ALICE, BTCPERP, 'LONG'))
  t.equal(lp, 11_322_134_387_352n)
  t.equal(liquidationPrice(ex.state, ex.sub(ALICE), btc(ex), ex.position(ALICE, BTCPERP, 'SHORT')), lp, 'both sides share it')
  t.equal(eth(ex).markPriceTicks, 210_000)
  conserved(t, ex)
})

t.test('state root and snapshot cover margin type and isolated wallets', async (t) => {
  const ex = aliceIsolatedLong()
  ex.ok({ type: 'ChangePositionMode', account: CAROL, sub: 0, dualSide: true })
  ex.fund(CAROL, 1_000)
  ex.ok(marginType(CAROL, 'ISOLATED', ETHPERP))
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(stateRoot(restored), stateRoot(ex.state))
  const h = restored.accounts.get(ALICE)!.subs[0]!.perp.get(BTCPERP)!
  t.same([h.marginType, h.both.isolatedWallet], ['ISOLATED', 24_750_000])
  t.equal(restored.accounts.get(CAROL)!.subs[0]!.perp.get(ETHPERP)!.marginType, 'ISOLATED')
  // Both go on identically.
  const other = new TestExchange()
  Object.assign(other, { state: restored })
  const at = ex.time
  for (const x of [ex, other]) {
    x.time = at
    x.ok(limit(BOB, 'BUY', 510_000, 4))
    x.ok(limit(ALICE, 'SELL', 510_000, 4))
  }
  t.equal(stateRoot(other.state), stateRoot(ex.state))
  t.same(wallets(other, ALICE), [9_986_459_200, 17_188_800])

  // The root sees an isolated wallet move alone.
  const before = stateRoot(ex.state)
  ex.ok(adjust(ALICE, 'ADD', 1))
  t.not(stateRoot(ex.state), before)
})

t.test('random isolated and cross trading: every unit accounted for after every command', async (t) => {
  const accounts = [ALICE, BOB, CAROL, DAVE]
  const action = fc.oneof(
    fc.record({ k: fc.constant('type' as const), a: fc.nat(3), iso: fc.boolean() }),
    fc.record({ k: fc.constant('order' as const), a: fc.nat(3), buy: fc.boolean(), off: fc.integer({ min: -300, max: 300 }),
      lots: fc.integer({ min: 3, max: 40 }), hedgeSide: fc.boolean() }),
    fc.record({ k: fc.constant('margin' as const), a: fc.nat(3), add: fc.boolean(), amount: fc.integer({ min: 1, max: 30_000_000 }),
      hedgeSide: fc.boolean() }),
    fc.record({ k: fc.constant('leverage' as const), a: fc.nat(3), lev: fc.integer({ min: 1, max: 60 }) }),
    fc.record({ k: fc.constant('cancel' as const), a: fc.nat(3) }),
  )
  fc.assert(fc.property(fc.array(action, { minLength: 1, maxLength: 80 }), (actions) => {
    const ex = new TestExchange()
    for (const a of accounts) ex.fund(a, 2_000)
    ex.ok({ type: 'ChangePositionMode', account: DAVE, sub: 0, dualSide: true })
    for (const x of actions) {
      const who = accounts[x.a]!
      const hedge = who === DAVE
      let cmd: Command
      if (x.k === 'type') cmd = marginType(who, x.iso ? 'ISOLATED' : 'CROSSED')
      else if (x.k === 'order') {
        cmd = limit(who, x.buy ? 'BUY' : 'SELL', 500_000 + x.off * 10, x.lots,
          hedge ? { positionSide: x.hedgeSide ? 'LONG' : 'SHORT' } : {})
      } else if (x.k === 'margin') cmd = adjust(who, x.add ? 'ADD' : 'REDUCE', x.amount, hedge ? (x.hedgeSide ? 'LONG' : 'SHORT') : 'BOTH')
      else if (x.k === 'leverage') cmd = leverage(who, x.lev)
      else cmd = { type: 'CancelAll', account: who, sub: 0, marketId: BTCPERP }
      ex.run(cmd)
      const broken = [...moneyViolations(ex.state), ...positionViolations(ex.state)]
      if (broken.length > 0) throw new Error(`${JSON.stringify(cmd)}: ${broken.join('; ')}`)
    }
    const restored = decodeSnapshot(encodeSnapshot(ex.state))
    if (stateRoot(restored) !== stateRoot(ex.state)) throw new Error('snapshot root differs')
  }), runs(60))
  t.pass()
})
