// /futures/data/openInterestHist against a real core state and real projections: the open
// interest at each period boundary, valued at the last mark (here the last trade) before it,
// carried forward through quiet periods; the newest rows, the oldest from startTime, up to
// endTime; the last 30 days only; Binance's errors for bad parameters.

import t from 'tap'
import { ALICE, BOB } from '../helpers/exchange.js'
import { marketGateway } from '../helpers/market-gateway.js'
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
