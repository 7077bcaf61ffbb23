// Fees and realized PnL in exact ledger units. BTCUSDTPERP: one tick·lot = 100 USDT units,
// maker fee 200 ppm and taker 500 ppm of notional, rounded up; a partial close removes
// entry cost rounded so the PnL rounds down. 1 USDT = 1,000,000 units.

import t from 'tap'
import { ALICE, BOB, BTCPERP, NO_BAND_GENESIS, TestExchange, USDT } from '../helpers/exchange.js'
import { limit, market, tradeEvents } from '../helpers/commands.js'
import type { PerpFillSide } from '../../core/events.js'
import { marginView } from '../../core/margin.js'
import { stateLeaves, stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { moneyViolations } from '../../sim/model/invariants.js'

type Figures = Pick<PerpFillSide, 'account' | 'fee' | 'realizedPnl' | 'positionQtyLots' | 'positionCostTicksLots' | 'wallet'>

t.test('open, add, partial close, full close through zero: fees, PnL, entry, wallets', async (t) => {
  // Steps of up to 10 % between trades: without the price band.
  const ex = new TestExchange(NO_BAND_GENESIS)
  ex.fund(ALICE, 10_000) // 10,000,000,000 units
  ex.fund(BOB, 10_000)
  const steps: {
    name: string
    maker: ReturnType<typeof limit>
    taker: ReturnType<typeof limit>
    makerFigures: Figures
    takerFigures: Figures
    openInterestLots: number
  }[] = [
    {
      // 10 lots at 50000.0: notional 500 USDT = 500,000,000. Maker fee 100,000, taker 250,000.
      name: 'open: Alice buys 10 from Bob at 50000.0',
      maker: limit(BOB, 'SELL', 500_000, 10),
      taker: limit(ALICE, 'BUY', 500_000, 10),
      makerFigures: { account: BOB, fee: 100_000, realizedPnl: 0, positionQtyLots: -10, positionCostTicksLots: -5_000_000, wallet: 9_999_900_000 },
      takerFigures: { account: ALICE, fee: 250_000, realizedPnl: 0, positionQtyLots: 10, positionCostTicksLots: 5_000_000, wallet: 9_999_750_000 },
      openInterestLots: 10,
    },
    {
      // 10 lots at 51000.0: notional 510,000,000. Maker 102,000, taker 255,000.
      // Alice's cost 5,000,000 + 5,100,000 = 10,100,000 over 20 lots: entry 505,000 ticks = 50500.0.
      name: 'add: Alice buys 10 more at 51000.0',
      maker: limit(BOB, 'SELL', 510_000, 10),
      taker: limit(ALICE, 'BUY', 510_000, 10),
      makerFigures: { account: BOB, fee: 102_000, realizedPnl: 0, positionQtyLots: -20, positionCostTicksLots: -10_100_000, wallet: 9_999_798_000 },
      takerFigures: { account: ALICE, fee: 255_000, realizedPnl: 0, positionQtyLots: 20, positionCostTicksLots: 10_100_000, wallet: 9_999_495_000 },
      openInterestLots: 20,
    },
    {
      // 6 lots at 52000.0: notional 312,000,000; Alice maker 62,400, Bob taker 156,000.
      // Removed cost 10,100,000 × 6/20 = 3,030,000; PnL 6 × 520,000 − 3,030,000 = 90,000 tick·lots
      // = 9,000,000 units (9 USDT = 1500 × 0.006). Bob loses the same.
      // Alice: 9,999,495,000 + 9,000,000 − 62,400 = 10,008,432,600.
      // Bob: 9,999,798,000 − 9,000,000 − 156,000 = 9,990,642,000.
      name: 'partial close: Alice sells 6 at 52000.0 as maker',
      maker: limit(ALICE, 'SELL', 520_000, 6),
      taker: limit(BOB, 'BUY', 520_000, 6),
      makerFigures: { account: ALICE, fee: 62_400, realizedPnl: 9_000_000, positionQtyLots: 14, positionCostTicksLots: 7_070_000, wallet: 10_008_432_600 },
      takerFigures: { account: BOB, fee: 156_000, realizedPnl: -9_000_000, positionQtyLots: -14, positionCostTicksLots: -7_070_000, wallet: 9_990_642_000 },
      openInterestLots: 14,
    },
    {
      // 20 lots at 49000.0: notional 980,000,000; Bob maker 196,000, Alice taker 490,000.
      // Alice closes 14: 14 × 490,000 − 7,070,000 = −210,000 tick·lots = −21,000,000 units
      // (−1500 × 0.014), then opens short 6 at 49000.0 (cost −2,940,000).
      // Alice: 10,008,432,600 − 21,000,000 − 490,000 = 9,986,942,600.
      // Bob: 9,990,642,000 + 21,000,000 − 196,000 = 10,011,446,000, long 6.
      name: 'close through zero: Alice sells 20 at 49000.0 as taker',
      maker: limit(BOB, 'BUY', 490_000, 20),
      taker: limit(ALICE, 'SELL', 490_000, 20),
      makerFigures: { account: BOB, fee: 196_000, realizedPnl: 21_000_000, positionQtyLots: 6, positionCostTicksLots: 2_940_000, wallet: 10_011_446_000 },
      takerFigures: { account: ALICE, fee: 490_000, realizedPnl: -21_000_000, positionQtyLots: -6, positionCostTicksLots: -2_940_000, wallet: 9_986_942_600 },
      openInterestLots: 6,
    },
    {
      // 6 lots at 49500.0: notional 297,000,000; Bob maker 59,400, Alice taker 148,500.
      // Alice's short closes whole: −6 × 495,000 + 2,940,000 = −30,000 → −3,000,000 (−500 × 0.006).
      // Alice: 9,986,942,600 − 3,000,000 − 148,500 = 9,983,794,100.
      // Bob: 10,011,446,000 + 3,000,000 − 59,400 = 10,014,386,600.
      name: 'full close to zero: Alice buys back her 6 at 49500.0',
      maker: limit(BOB, 'SELL', 495_000, 6),
      taker: limit(ALICE, 'BUY', 495_000, 6),
      makerFigures: { account: BOB, fee: 59_400, realizedPnl: 3_000_000, positionQtyLots: 0, positionCostTicksLots: 0, wallet: 10_014_386_600 },
      takerFigures: { account: ALICE, fee: 148_500, realizedPnl: -3_000_000, positionQtyLots: 0, positionCostTicksLots: 0, wallet: 9_983_794_100 },
      openInterestLots: 0,
    },
  ]
  const pick = (s: PerpFillSide): Figures => ({ account: s.account, fee: s.fee, realizedPnl: s.realizedPnl,
    positionQtyLots: s.positionQtyLots, positionCostTicksLots: s.positionCostTicksLots, wallet: s.wallet })
  for (const s of steps) {
    ex.ok(s.maker)
    const trades = tradeEvents(ex.ok(s.taker))
    t.equal(trades.length, 1, s.name)
    t.same(pick(trades[0]!.maker), s.makerFigures, `${s.name}: maker`)
    t.same(pick(trades[0]!.taker), s.takerFigures, `${s.name}: taker`)
    t.equal((ex.state.markets[BTCPERP] as { openInterestLots: number }).openInterestLots, s.openInterestLots, `${s.name}: open interest`)
  }
  // Wallets in state match the last events; fees collected balance the books:
  // 350,000 + 357,000 + 218,400 + 686,000 + 207,900 = 1,819,300, and
  // 9,983,794,100 + 10,014,386,600 + 1,819,300 = 2 × 10^10.
  t.equal(ex.sub(ALICE).perpWallet, 9_983_794_100)
  t.equal(ex.sub(BOB).perpWallet, 10_014_386_600)
  t.equal(ex.state.fees.get('USDT'), 1_819_300)
  t.equal(ex.sub(ALICE).perpWallet + ex.sub(BOB).perpWallet + Number(ex.state.fees.get('USDT')), 20_000 * USDT)
  t.same(marginView(ex.state, ex.sub(ALICE)), { wallet: 9_983_794_100, unrealizedPnl: 0, initialMargin: 0, available: 9_983_794_100 },
    'flat: nothing held')
})

t.test('realized PnL since the position opened: kept through partial closes, reset by a flip and by going flat', async (t) => {
  const ex = new TestExchange(NO_BAND_GENESIS)
  ex.fund(ALICE, 10_000)
  ex.fund(BOB, 10_000)
  const since = (): [number, number] => [ex.position(ALICE).realizedSinceOpen, ex.position(BOB).realizedSinceOpen]
  // Alice long 10 at 50000.0, Bob short 10.
  ex.ok(limit(BOB, 'SELL', 500_000, 10))
  ex.ok(limit(ALICE, 'BUY', 500_000, 10))
  t.same(since(), [0, 0], 'opening realizes nothing')
  // Alice sells 6 at 52000.0: 6 × 520,000 − 3,000,000 = 120,000 tick·lots = 12,000,000 units; Bob the opposite.
  ex.ok(limit(ALICE, 'SELL', 520_000, 6))
  ex.ok(limit(BOB, 'BUY', 520_000, 6))
  t.same(since(), [12_000_000, -12_000_000], 'a partial close keeps its PnL with the position')
  t.same([ex.position(ALICE).realizedPnl, ex.position(BOB).realizedPnl], [12_000_000, -12_000_000])
  // Alice sells 10 at 49000.0: closes her 4 and opens short 6; Bob from short 4 to long 6.
  ex.ok(limit(BOB, 'BUY', 490_000, 10))
  ex.ok(limit(ALICE, 'SELL', 490_000, 10))
  t.same([ex.position(ALICE).qtyLots, ex.position(BOB).qtyLots], [-6, 6])
  t.same(since(), [0, 0], 'a flip starts a new position')
  // Alice buys 3 back at 48000.0: removed cost −2,940,000 × 3/6 = −1,470,000; PnL −3 × 480,000 + 1,470,000 =
  // 30,000 tick·lots = 3,000,000 units. Bob sells 3 of his 6 at a loss of the same.
  ex.ok(limit(BOB, 'SELL', 480_000, 3))
  ex.ok(limit(ALICE, 'BUY', 480_000, 3))
  t.same(since(), [3_000_000, -3_000_000])
  t.same([ex.position(ALICE).costTicksLots, ex.position(BOB).costTicksLots], [-1_470_000, 1_470_000])
  // The rest at 48000.0: both flat, nothing since open; the lifetime figure stays.
  ex.ok(limit(BOB, 'SELL', 480_000, 3))
  ex.ok(limit(ALICE, 'BUY', 480_000, 3))
  t.same([ex.position(ALICE).qtyLots, ...since()], [0, 0, 0], 'flat: nothing since open')
  t.equal(ex.position(ALICE).realizedPnl, 12_000_000 - 4_000_000 + 3_000_000 + 3_000_000, 'accumulated: +12, −4 (4 lots at −1000), +3, +3 USDT')
})

t.test('entry price is cost / qty', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 100_000)
  ex.fund(BOB, 100_000)
  // Buy 10 at 50000.0, 30 at 50100.0, 20 at 49900.0:
  // cost 5,000,000 + 15,030,000 + 9,980,000 = 30,010,000 over 60 lots = 500,166.67 ticks (50016.67).
  const fills: [number, number][] = [[500_000, 10], [501_000, 30], [499_000, 20]]
  for (const [price, lots] of fills) {
    ex.ok(limit(BOB, 'SELL', price, lots))
    ex.ok(limit(ALICE, 'BUY', price, lots))
  }
  const p = ex.position(ALICE)
  t.same([p.qtyLots, p.costTicksLots], [60, 30_010_000])
  t.equal(p.costTicksLots / p.qtyLots, 30_010_000 / 60)
  t.same([ex.position(BOB).qtyLots, ex.position(BOB).costTicksLots], [-60, -30_010_000])
  // Unrealized at the mark 49900.0: 60 × 499,000 − 30,010,000 = −70,000 tick·lots = −7,000,000 units.
  t.equal(marginView(ex.state, ex.sub(ALICE)).unrealizedPnl, -7_000_000)
  t.equal(marginView(ex.state, ex.sub(BOB)).unrealizedPnl, 7_000_000)
})

t.test('fees round up', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 1_000)
  ex.fund(BOB, 1_000)
  // 3 lots at 50000.1: notional 500,001 × 3 × 100 = 150,000,300 units.
  // Maker 150,000,300 × 200 / 10^6 = 30,000.06 → 30,001; taker × 500 / 10^6 = 75,000.15 → 75,001.
  ex.ok(limit(BOB, 'SELL', 500_001, 3))
  const tr = tradeEvents(ex.ok(limit(ALICE, 'BUY', 500_001, 3)))[0]!
  t.same([tr.maker.fee, tr.taker.fee], [30_001, 75_001])
  t.same([tr.maker.wallet, tr.taker.wallet], [1_000 * USDT - 30_001, 1_000 * USDT - 75_001])
})

t.test('partial closes round realized PnL down for longs and shorts', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 10_000)
  ex.fund(BOB, 10_000)
  // Alice buys 1 at 100000.0 and 2 at 100000.1: cost 1,000,000 + 2,000,002 = 3,000,002 over 3 lots.
  ex.ok(limit(BOB, 'SELL', 1_000_000, 1))
  ex.ok(limit(BOB, 'SELL', 1_000_001, 2))
  ex.ok(market(ALICE, 'BUY', 3))
  t.same([ex.position(ALICE).costTicksLots, ex.position(BOB).costTicksLots], [3_000_002, -3_000_002])

  const rows: { name: string, lots: number, alice: [number, number, number], bob: [number, number, number] }[] = [
    {
      // Alice removes ceil(3,000,002 / 3) = 1,000,001: PnL 1,000,000 − 1,000,001 = −1 tick·lot = −100
      // (exactly −0.67 tick·lots, rounded down). Bob removes ceil(−1,000,000.67) = −1,000,000: PnL
      // −1,000,000 + 1,000,000 = 0 (exactly +0.67, rounded down).
      name: 'close 1 of 3 at 100000.0', lots: 1,
      alice: [-100, 2, 2_000_001], bob: [0, -2, -2_000_002],
    },
    {
      // The rest is removed whole: Alice 2,000,000 − 2,000,001 = −1 → −100; Bob −2,000,000 + 2,000,002
      // = 2 → +200. Totals: Alice −200, Bob +200, the exact 2 tick·lots between them.
      name: 'close the other 2 at 100000.0', lots: 2,
      alice: [-100, 0, 0], bob: [200, 0, 0],
    },
  ]
  for (const r of rows) {
    ex.ok(limit(BOB, 'BUY', 1_000_000, r.lots))
    const tr = tradeEvents(ex.ok(limit(ALICE, 'SELL', 1_000_000, r.lots, { reduceOnly: true })))[0]!
    t.same([tr.taker.realizedPnl, tr.taker.positionQtyLots, tr.taker.positionCostTicksLots], r.alice, `${r.name}: Alice`)
    t.same([tr.maker.realizedPnl, tr.maker.positionQtyLots, tr.maker.positionCostTicksLots], r.bob, `${r.name}: Bob`)
  }
})

t.test('fees collected count exactly past 2^53 units (9.0e9 USDT), in the root and the snapshot', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 10_000)
  ex.fund(BOB, 10_000)
  // An exchange that has already collected 2^53 − 100 units; the same amount deposited before
  // keeps the books balanced (wallets + fees = deposited − withdrawn).
  const before = Number.MAX_SAFE_INTEGER - 100
  ex.state.fees.set('USDT', before)
  ex.state.deposited.set('USDT', ex.state.deposited.get('USDT')! + BigInt(before))
  ex.ok(limit(BOB, 'SELL', 500_000, 10))
  ex.ok(limit(ALICE, 'BUY', 500_000, 10)) // fees 100,000 maker + 250,000 taker
  const total = BigInt(before) + 350_000n
  t.equal(ex.state.fees.get('USDT'), total, 'as a number, the sum would have rounded')
  t.same(moneyViolations(ex.state), [], 'money is conserved in exact arithmetic')
  t.ok(stateLeaves(ex.state).includes(`fees|USDT|${total}`), 'the root hashes the exact total')
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(restored.fees.get('USDT'), total)
  t.equal(stateRoot(restored), stateRoot(ex.state))
  ex.ok(limit(BOB, 'SELL', 500_000, 2))
  ex.ok(limit(ALICE, 'BUY', 500_000, 2))
  t.equal(ex.state.fees.get('USDT'), total + 70_000n, 'and keeps counting')
})
