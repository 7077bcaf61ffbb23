// Mark and index price klines, funding settings and the insurance fund over HTTP, against a
// real core state and real projections. Until the prices issue lands, mark is the last trade
// price and index equals mark, so their klines follow the trade klines (volumes "0"); the core
// holds no insurance fund, so its balance is zero.

import t from 'tap'
import { ALICE, BOB, T0 } from '../helpers/exchange.js'
import { marketGateway } from '../helpers/market-gateway.js'
import { Fixture, trade, type Teardown } from '../helpers/projections-fixture.js'

const MIN = 60_000
const HOUR = 60 * MIN
/** Wednesday 2023-11-15 10:00:00 UTC. */
const M = Date.UTC(2023, 10, 15, 10, 0, 0)


/** BTCUSDTPERP trades at 30000.0, 30000.0, 30010.0 (first minute), 29990.0, then 30020.5. */
async function rig(t: Teardown) {
  const f = await Fixture.open(t)
  for (const a of [ALICE, BOB]) await f.fund(a, 10_000_000)
  await trade(f, ALICE, BOB, 30000, 0.01, M)
  await trade(f, ALICE, BOB, 30000, 0.005, M + 30)
  await trade(f, ALICE, BOB, 30010, 0.02, M + 50)
  await trade(f, BOB, ALICE, 29990, 0.03, M + MIN + 5, 'SELL')
  await trade(f, ALICE, BOB, 30020.5, 0.004, M + 2 * MIN)
  return { f, ...(await marketGateway(t, f, M + HOUR)) }
}

const err = (code: number, msg: string) => ({ code, msg })
const INVALID_SYMBOL = err(-1121, 'Invalid symbol.')
const missing = (p: string) => err(-1102, `Mandatory parameter '${p}' was not sent, was empty/null, or malformed.`)

/** The 1m price klines: open, high, low, close of the trades in each minute, 8 decimals, volumes "0". */
const P1M = [
  [M, '30000.00000000', '30010.00000000', '30000.00000000', '30010.00000000', '0', M + MIN - 1, '0', 3, '0', '0', '0'],
  [M + MIN, '29990.00000000', '29990.00000000', '29990.00000000', '29990.00000000', '0', M + 2 * MIN - 1, '0', 1, '0', '0', '0'],
  [M + 2 * MIN, '30020.50000000', '30020.50000000', '30020.50000000', '30020.50000000', '0', M + 3 * MIN - 1, '0', 1, '0', '0', '0'],
]

t.test('markPriceKlines and indexPriceKlines follow the trades', async (t) => {
  const r = await rig(t)
  const mark = '/fapi/v1/markPriceKlines?symbol=BTCUSDTPERP'
  const index = '/fapi/v1/indexPriceKlines?pair=BTCUSDT'
  for (const u of [mark, index]) {
    const all = await r.get(`${u}&interval=1m`)
    t.equal(all.status, 200, u)
    t.same(all.body, P1M, u)
    t.same((await r.get(`${u}&interval=1h`)).body, [
      [M, '30000.00000000', '30020.50000000', '29990.00000000', '30020.50000000', '0', M + HOUR - 1, '0', 5, '0', '0', '0'],
    ], `${u} hourly`)
    t.same((await r.get(`${u}&interval=1m&limit=1`)).body, P1M.slice(2), 'the newest')
    t.same((await r.get(`${u}&interval=1m&startTime=${M + 1}`)).body, P1M.slice(1), 'from startTime')
    t.same((await r.get(`${u}&interval=1m&startTime=${M}&endTime=${M + MIN}`)).body, P1M.slice(0, 2), 'to endTime')
    t.same((await r.get(u)).body, missing('interval'))
    t.same((await r.get(`${u}&interval=2m`)).body, err(-1120, 'Invalid interval.'))
    t.same((await r.get(`${u}&interval=1m&limit=1501`)).body, err(-1130, "Data sent for parameter 'limit' is not valid."))
    t.equal(await r.weightOf(`${u}&interval=1m&limit=99`), 1)
    t.equal(await r.weightOf(`${u}&interval=1m&limit=100`), 2)
    t.equal(await r.weightOf(`${u}&interval=1m`), 5, 'default 500')
    t.equal(await r.weightOf(`${u}&interval=1m&limit=1001`), 10)
  }
  t.same((await r.get('/fapi/v1/markPriceKlines?symbol=ETHUSDTPERP&interval=1m')).body, [], 'no trades, no rows')
  t.same((await r.get('/fapi/v1/indexPriceKlines?pair=ETHUSDT&interval=1m')).body, [])

  t.same((await r.get('/fapi/v1/markPriceKlines?interval=1m')).body, missing('symbol'))
  t.same((await r.get('/fapi/v1/markPriceKlines?symbol=BTCUSDT&interval=1m')).body, INVALID_SYMBOL, 'a spot symbol')
  t.same((await r.get('/fapi/v1/indexPriceKlines?interval=1m')).body, missing('pair'))
  t.same((await r.get('/fapi/v1/indexPriceKlines?symbol=BTCUSDTPERP&interval=1m')).body, missing('pair'), 'pair, not symbol')
  t.same((await r.get('/fapi/v1/indexPriceKlines?pair=BTCUSDTPERP&interval=1m')).body, P1M, "the perpetual's symbol names its pair (ccxt sends it)")
  t.same((await r.get('/fapi/v1/indexPriceKlines?pair=BTCUSDT_PERP&interval=1m')).body, INVALID_SYMBOL)
  t.same((await r.get('/fapi/v1/indexPriceKlines?pair=NOPE&interval=1m')).body, INVALID_SYMBOL)
})

t.test('mark price klines agree with premiumIndex', async (t) => {
  const r = await rig(t)
  const last = (await r.get('/fapi/v1/markPriceKlines?symbol=BTCUSDTPERP&interval=1d')).body[0]
  const premium = (await r.get('/fapi/v1/premiumIndex?symbol=BTCUSDTPERP')).body
  t.equal(last[4], premium.markPrice)
  t.equal(premium.markPrice, '30020.50000000')
})

t.test('fundingInfo: every perpetual, weight 0', async (t) => {
  const r = await rig(t)
  const info = await r.get('/fapi/v1/fundingInfo')
  t.equal(info.status, 200)
  t.same(info.body, [
    // The markets' own: ±0.75 × the first bracket's maintenance rate (0.4 % and 0.5 %).
    { symbol: 'BTCUSDTPERP', adjustedFundingRateCap: '0.00300000', adjustedFundingRateFloor: '-0.00300000', fundingIntervalHours: 8, disclaimer: false },
    { symbol: 'ETHUSDTPERP', adjustedFundingRateCap: '0.00375000', adjustedFundingRateFloor: '-0.00375000', fundingIntervalHours: 8, disclaimer: false },
  ])
  t.same(Object.keys(info.body[0]), ['symbol', 'adjustedFundingRateCap', 'adjustedFundingRateFloor', 'fundingIntervalHours', 'disclaimer'])
  t.equal(await r.weightOf('/fapi/v1/fundingInfo'), 0)
})

t.test('insuranceBalance: one USDT fund for every perpetual, balance zero', async (t) => {
  const r = await rig(t)
  // The fund exists since the first USDT perpetual was listed: genesis applies one entry per ms
  // from T0, three assets and then BTCUSDTPERP.
  const listed = T0 + 4
  t.equal(r.f.ex.state.marketsBySymbol.get('BTCUSDTPERP')!.onboardDate, listed)
  const fund = { symbols: ['BTCUSDTPERP', 'ETHUSDTPERP'], assets: [{ asset: 'USDT', marginBalance: '0', updateTime: listed }] }
  const all = await r.get('/fapi/v1/insuranceBalance')
  t.equal(all.status, 200)
  t.same(all.body, [fund], 'without symbol: every fund')
  t.same((await r.get('/fapi/v1/insuranceBalance?symbol=ETHUSDTPERP')).body, fund, 'with symbol: its fund')
  t.same((await r.get('/fapi/v1/insuranceBalance?symbol=BTCUSDT')).body, INVALID_SYMBOL)
  t.same((await r.get('/fapi/v1/insuranceBalance?symbol=NOPE')).body, INVALID_SYMBOL)
  t.equal(await r.weightOf('/fapi/v1/insuranceBalance'), 1)
})
