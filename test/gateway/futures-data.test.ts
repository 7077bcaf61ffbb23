// /futures/data against a real core state and real projections. openInterestHist: the open
// interest at each period boundary, valued at the last mark (here the last trade) before it,
// carried forward through quiet periods; the newest rows, the oldest from startTime, up to
// endTime; the last 30 days only; Binance's errors for bad parameters. Then the shares of
// accounts net long and short, taker volumes and the basis, with hand-computed figures.

import t from 'tap'
import { ALICE, BOB, CAROL, DAVE } from '../helpers/exchange.js'
import { marketGateway } from '../helpers/market-gateway.js'
import { ORACLE, signedPrice } from '../helpers/oracle.js'
import { Fixture, trade, type Teardown } from '../helpers/projections-fixture.js'

const MIN = 60_000
const DAY = 1_440 * MIN
/** Midnight UTC, 2023-11-15. */
const B = Date.UTC(2023, 10, 15)
const U = '/futures/data/openInterestHist?symbol=BTCUSDTPERP'

/**
 * BOB buys 0.010 from ALICE at 50000 (B+1m), 0.020 more at 51000 (B+7m), then sells 0.005
 * back at 50500 (B+12m): open interest 0.010, 0.030, 0.025. The clock at B+21m.
 */
async function rig(t: Teardown) {
  const f = await Fixture.open(t)
  for (const a of [ALICE, BOB]) await f.fund(a, 10_000_000)
  await trade(f, ALICE, BOB, 50000, 0.01, B + MIN)
  await trade(f, ALICE, BOB, 51000, 0.02, B + 7 * MIN)
  await trade(f, ALICE, BOB, 50500, 0.005, B + 12 * MIN, 'SELL')
  return marketGateway(t, f, B + 21 * MIN)
}

const row = (timestamp: number, oi: string, value: string) =>
  ({ symbol: 'BTCUSDTPERP', sumOpenInterest: oi, sumOpenInterestValue: value, timestamp })
const ROWS_5M = [
  row(B + 5 * MIN, '0.01000000', '500.00000000'),
  row(B + 10 * MIN, '0.03000000', '1530.00000000'),
  row(B + 15 * MIN, '0.02500000', '1262.50000000'),
  row(B + 20 * MIN, '0.02500000', '1262.50000000'), // no trade in B+15..20: the last mark carries on
]

t.test('the open interest at each boundary, valued at the last mark before it', async (t) => {
  const r = await rig(t)
  t.same((await r.get(`${U}&period=5m`)).body, ROWS_5M, 'from the first period with open interest to now')
  t.same((await r.get(`${U}&period=5m&limit=2`)).body, ROWS_5M.slice(2), 'the newest')
  t.same((await r.get(`${U}&period=5m&startTime=${B + 6 * MIN}`)).body, ROWS_5M.slice(1), 'from startTime')
  t.same((await r.get(`${U}&period=5m&startTime=${B + 6 * MIN}&limit=1`)).body, ROWS_5M.slice(1, 2), 'the oldest from it')
  t.same((await r.get(`${U}&period=5m&endTime=${B + 14 * MIN}`)).body, ROWS_5M.slice(0, 2), 'up to endTime')
  t.same((await r.get(`${U}&period=15m`)).body, [row(B + 15 * MIN, '0.02500000', '1262.50000000')])
  t.same((await r.get(`${U}&period=1h`)).body, [], 'no hour has ended since the first trade')
  t.same((await r.get('/futures/data/openInterestHist?symbol=ETHUSDTPERP&period=5m')).body, [], 'never traded: no rows')
})

t.test('the last 30 days only', async (t) => {
  const r = await rig(t)
  r.clock.now = B + 31 * DAY + 21 * MIN
  const days = (await r.get(`${U}&period=1d&limit=500`)).body as { timestamp: number; sumOpenInterest: string }[]
  t.equal(days.length, 30)
  t.same([days[0]!.timestamp, days.at(-1)!.timestamp], [B + 2 * DAY, B + 31 * DAY])
  t.ok(days.every((d) => d.sumOpenInterest === '0.02500000'))
  const fives = (await r.get(`${U}&period=5m&limit=500`)).body as { timestamp: number }[]
  t.same([fives.length, fives.at(-1)!.timestamp], [500, B + 31 * DAY + 20 * MIN])
})

t.test('bad parameters', async (t) => {
  const r = await rig(t)
  const err = (code: number, msg: string) => ({ code, msg })
  t.same((await r.get(U)).body, err(-1102, "Mandatory parameter 'period' was not sent, was empty/null, or malformed."))
  t.same((await r.get('/futures/data/openInterestHist?period=5m')).body, err(-1102, "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed."))
  for (const bad of ['3m', '1w', 'constructor', '5M']) {
    t.same((await r.get(`${U}&period=${bad}`)).body, err(-1130, "Data sent for parameter 'period' is not valid."), bad)
  }
  t.same((await r.get(`${U}&period=5m&limit=501`)).body, err(-1130, "Data sent for parameter 'limit' is not valid."))
  t.same((await r.get(`${U}&period=5m&startTime=${B + 10 * MIN}&endTime=${B}`)).body, err(-1130, "Data sent for parameter 'startTime' is not valid."))
  t.same((await r.get('/futures/data/openInterestHist?symbol=BTCUSDT&period=5m')).body, err(-1121, 'Invalid symbol.'), 'a spot symbol')
})

/**
 * ALICE sells to three takers, BOB 0.01 (B+1m), CAROL 0.01 (B+2m) and DAVE 0.02 (B+3m); DAVE
 * (B+6m) and BOB (B+8m) sell 0.01 back to her as takers, and CAROL takes 0.03 more (B+9m).
 * The index: 49,900.0 from B+30s, 50,100.0 from B+7m. The clock at B+16m.
 */
async function crowd(t: Teardown) {
  const f = await Fixture.open(t)
  for (const a of [ALICE, BOB, CAROL, DAVE]) await f.fund(a, 10_000_000)
  await f.at(B + MIN / 2, { type: 'SetOracle', pair: 'BTCUSDT', oracle: ORACLE.address })
  await f.ok(await signedPrice(f.ex, '49900'))
  await trade(f, ALICE, BOB, 50000, 0.01, B + MIN)
  await trade(f, ALICE, CAROL, 50000, 0.01, B + 2 * MIN)
  await trade(f, ALICE, DAVE, 50000, 0.02, B + 3 * MIN)
  await trade(f, ALICE, DAVE, 50000, 0.01, B + 6 * MIN, 'SELL')
  await f.at(B + 7 * MIN, await signedPrice(f.ex, '50100', B + 7 * MIN - f.ex.time))
  await trade(f, ALICE, BOB, 50000, 0.01, B + 8 * MIN, 'SELL')
  await trade(f, ALICE, CAROL, 50000, 0.03, B + 9 * MIN)
  return marketGateway(t, f, B + 16 * MIN)
}

t.test('globalLongShortAccountRatio: the shares of sub-accounts net long and net short', async (t) => {
  const r = await crowd(t)
  const u = '/futures/data/globalLongShortAccountRatio?symbol=BTCUSDTPERP'
  const row = (timestamp: number, longShortRatio: string, longAccount: string, shortAccount: string) =>
    ({ symbol: 'BTCUSDTPERP', longShortRatio, longAccount, shortAccount, timestamp })
  // B+5m: BOB, CAROL, DAVE long, ALICE short. From B+8m BOB is flat: 2 / 1, 0.6667 / 0.3333 (halves up).
  const rows = [row(B + 5 * MIN, '3.0000', '0.7500', '0.2500'), row(B + 10 * MIN, '2.0000', '0.6667', '0.3333'),
    row(B + 15 * MIN, '2.0000', '0.6667', '0.3333')]
  t.same((await r.get(`${u}&period=5m`)).body, rows)
  t.same((await r.get(`${u}&period=5m&limit=1`)).body, rows.slice(2))
  t.same((await r.get(`${u}&period=15m`)).body, rows.slice(2))
  t.same((await r.get('/futures/data/globalLongShortAccountRatio?symbol=ETHUSDTPERP&period=5m')).body, [], 'no positions: no rows')
  t.same((await r.get(`${u}&period=1w`)).body, { code: -1130, msg: "Data sent for parameter 'period' is not valid." })
})

t.test('takerlongshortRatio: taker volumes of the period ending at each boundary', async (t) => {
  const r = await crowd(t)
  const u = '/futures/data/takerlongshortRatio?symbol=BTCUSDTPERP'
  // B..B+5m: takers only bought (no ratio, no row). B+5m..B+10m: bought 0.03, sold 0.02.
  const row = { buySellRatio: '1.5000', buyVol: '0.0300', sellVol: '0.0200', timestamp: B + 10 * MIN }
  t.same((await r.get(`${u}&period=5m`)).body, [row])
  t.same((await r.get(`${u}&period=15m`)).body, [{ buySellRatio: '3.5000', buyVol: '0.0700', sellVol: '0.0200', timestamp: B + 15 * MIN }])
  t.same((await r.get(`${u}&period=5m&startTime=${B + 11 * MIN}`)).body, [], 'nothing after')
  t.same((await r.get(`${u}&period=5m&endTime=${B + 9 * MIN}`)).body, [], 'the period had not ended')
  t.same((await r.get(`${u}&period=1h`)).body, [], 'no hour has ended')
  t.same((await r.get('/futures/data/takerlongshortRatio?symbol=BTCUSDT&period=5m')).body, { code: -1121, msg: 'Invalid symbol.' })
})

t.test('basis: the last trade price against the index at each boundary', async (t) => {
  const r = await crowd(t)
  const u = '/futures/data/basis?pair=BTCUSDT&contractType=PERPETUAL'
  const row = (timestamp: number, indexPrice: string, basis: string, basisRate: string) => ({
    indexPrice, contractType: 'PERPETUAL', basisRate, futuresPrice: '50000.0', annualizedBasisRate: '', basis, pair: 'BTCUSDT', timestamp,
  })
  // 100 / 49,900 = 0.002004; −100 / 50,100 = −0.001996.
  const rows = [row(B + 5 * MIN, '49900.00000000', '100.00000000', '0.0020'), row(B + 10 * MIN, '50100.00000000', '-100.00000000', '-0.0020'),
    row(B + 15 * MIN, '50100.00000000', '-100.00000000', '-0.0020')]
  t.same((await r.get(`${u}&period=5m`)).body, rows)
  t.same((await r.get(`${u}&period=5m&startTime=${B + 1}&limit=2`)).body, rows.slice(0, 2), 'the oldest from startTime')
  t.same((await r.get('/futures/data/basis?pair=BTCUSDT&contractType=CURRENT_QUARTER&period=5m')).body, [],
    'a quarterly contract Binance lists: none here, so no rows')
  t.same((await r.get('/futures/data/basis?pair=BTCUSDT&contractType=NEXT_QUARTER&period=5m')).body, [])
  t.same((await r.get('/futures/data/basis?pair=BTCUSDT&contractType=QUARTERLY&period=5m')).body,
    { code: -1130, msg: "Data sent for parameter 'contractType' is not valid." }, 'no such contract type')
  t.same((await r.get('/futures/data/basis?pair=BTCUSDT&contractType=NEXT_QUARTER&period=7m')).body.code, -1130, 'the period is still checked')
  t.same((await r.get('/futures/data/basis?pair=BTCUSDT&period=5m')).body,
    { code: -1102, msg: "Mandatory parameter 'contractType' was not sent, was empty/null, or malformed." })
  t.same((await r.get('/futures/data/basis?pair=ETHUSDT&contractType=PERPETUAL&period=5m')).body, [], 'no index: no rows')
})

t.test('topLongShortAccountRatio and topLongShortPositionRatio: the top fifth by margin balance', async (t) => {
  const f = await Fixture.open(t)
  // Ten traders, the n-th funded with n million USDT: the top fifth (two of ten) are the richest holders.
  const e = Array.from({ length: 11 }, (_, n) => '0x' + n.toString(16).padStart(2, '0').repeat(20))
  for (let n = 1; n <= 10; n++) await f.fund(e[n]!, n * 1_000_000)
  await f.at(B + MIN / 2, { type: 'SetOracle', pair: 'BTCUSDT', oracle: ORACLE.address })
  await f.ok(await signedPrice(f.ex, '50000'))
  const tick = (at: number) => f.at(at, { type: 'Tick' })
  await trade(f, e[1]!, e[10]!, 50000, 0.03, B + MIN) // 10 long 30 lots
  await trade(f, e[2]!, e[9]!, 50000, 0.01, B + 2 * MIN, 'SELL') // 9 short 10
  await trade(f, e[3]!, e[8]!, 50000, 0.02, B + 3 * MIN) // 8 long 20
  await trade(f, e[4]!, e[7]!, 50000, 0.005, B + 3 * MIN + 1, 'SELL') // 7 short 5
  await trade(f, e[5]!, e[6]!, 50000, 0.01, B + 4 * MIN) // 6 long 10
  await tick(B + 5 * MIN + 1_000) // the bucket's sample: ten holders, the top two 10 (long 30) and 9 (short 10)
  await tick(B + 5 * MIN + 30_000) // the same bucket: no new sample
  await trade(f, e[5]!, e[9]!, 50000, 0.01, B + 6 * MIN) // 9 flat: the top two, 10 and 8, are both long
  await tick(B + 10 * MIN + 1_000)
  await trade(f, e[6]!, e[8]!, 50000, 0.05, B + 11 * MIN, 'SELL') // 8 short 30
  await tick(B + 15 * MIN + 1_000)
  const r = await marketGateway(t, f, B + 16 * MIN)
  const row = (timestamp: number, longShortRatio: string, longAccount: string, shortAccount: string) =>
    ({ symbol: 'BTCUSDTPERP', longShortRatio, longAccount, shortAccount, timestamp })
  const accounts = '/futures/data/topLongShortAccountRatio?symbol=BTCUSDTPERP'
  const positions = '/futures/data/topLongShortPositionRatio?symbol=BTCUSDTPERP'
  // B+10m: both top traders long, no row.
  t.same((await r.get(`${accounts}&period=5m`)).body,
    [row(B + 5 * MIN, '1.0000', '0.5000', '0.5000'), row(B + 15 * MIN, '1.0000', '0.5000', '0.5000')])
  t.same((await r.get(`${positions}&period=5m`)).body,
    [row(B + 5 * MIN, '3.0000', '0.7500', '0.2500'), row(B + 15 * MIN, '1.0000', '0.5000', '0.5000')])
  t.same((await r.get(`${positions}&period=15m`)).body, [row(B + 15 * MIN, '1.0000', '0.5000', '0.5000')])
  t.same((await r.get(`${positions}&period=5m&limit=1&startTime=${B + 1}`)).body, [row(B + 5 * MIN, '3.0000', '0.7500', '0.2500')])
  t.same((await r.get('/futures/data/topLongShortAccountRatio?symbol=ETHUSDTPERP&period=5m')).body, [], 'no holders: no rows')
  t.same((await r.get(`${accounts}&period=2m`)).body, { code: -1130, msg: "Data sent for parameter 'period' is not valid." })
  t.same((await r.get('/futures/data/topLongShortPositionRatio?period=5m')).body.code, -1102)
})
