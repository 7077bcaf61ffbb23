// premiumIndex, fundingRate history, fundingInfo and FUNDING_FEE income over HTTP, against a
// real core with an oracle and real projections. The figures are those of
// test/core/funding.test.ts: index and trades at 30000.0, quotes 30023.9 / 30100.0, so the
// premium is 79,666 E8 and the rate 0.029666 %; a 0.006 BTC long pays 0.053399 USDT.

import t from 'tap'
import { UserEvents, type Payload } from '../../gateway/user-data/events.js'
import { gatewayRig, signedInject, type GatewayRig, type Keys, fundedTrader } from '../helpers/gateway.js'
import { T0 } from '../helpers/exchange.js'
import { limit } from '../helpers/commands.js'
import { ORACLE, signedPrice } from '../helpers/oracle.js'

const EIGHT_H = 8 * 3_600_000
const BOUNDARY = Math.floor(T0 / EIGHT_H) * EIGHT_H + EIGHT_H

const trader = (rig: GatewayRig) => fundedTrader(rig, 100_000)

t.test('a funding interval seen through the REST API', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const get = async (url: string) => (await rig.app.inject({ method: 'GET', url })).json()
  const alice = await trader(rig)
  const bob = await trader(rig)

  // Before any oracle price: mark = last trade (none), index printed as the mark, no rate.
  t.match(await get('/fapi/v1/premiumIndex?symbol=BTCUSDTPERP'), { markPrice: '0.00000000', indexPrice: '0.00000000', lastFundingRate: '0.00000000' })

  await rig.run({ type: 'SetOracle', pair: 'BTCUSDT', oracle: ORACLE.address })
  t.ok((await rig.run(await signedPrice(rig.ex, '30000'))).ok)
  await rig.run(limit(bob.address, 'SELL', 300_000, 6))
  await rig.run(limit(alice.address, 'BUY', 300_000, 6))
  await rig.run(limit(alice.address, 'BUY', 300_239, 1000))
  await rig.run(limit(bob.address, 'SELL', 301_000, 1000))
  await rig.run({ type: 'Tick' }, 5_000)

  t.same(await get('/fapi/v1/premiumIndex?symbol=BTCUSDTPERP'), {
    symbol: 'BTCUSDTPERP', markPrice: '30000.00000000', indexPrice: '30000.00000000', estimatedSettlePrice: '30000.00000000',
    lastFundingRate: '0.00029666', interestRate: '0.00010000', nextFundingTime: BOUNDARY, time: rig.ex.time,
  })
  t.same(await get('/fapi/v1/fundingRate?symbol=BTCUSDTPERP'), [], 'nothing settled yet')

  const settled = await rig.run({ type: 'Tick' }, BOUNDARY - rig.ex.time)
  const pushed: [string, Payload][] = []
  new UserEvents().entry(rig.ex.state, BOUNDARY, settled.events, () => true, (account, _sub, payload) => pushed.push([account, payload]))
  t.match(pushed, [
    [alice.address, { e: 'ACCOUNT_UPDATE', E: BOUNDARY, T: BOUNDARY, a: { m: 'FUNDING_FEE', B: [{ a: 'USDT', bc: '-0.05339900' }], P: [] } }],
    [bob.address, { e: 'ACCOUNT_UPDATE', a: { m: 'FUNDING_FEE', B: [{ a: 'USDT', bc: '0.05339800' }], P: [] } }],
  ], 'the user data stream: balance only, as Binance pushes a cross funding fee')
  t.equal(pushed.length, 2)
  const row = { symbol: 'BTCUSDTPERP', fundingRate: '0.00029666', fundingTime: BOUNDARY, markPrice: '30000.00000000' }
  t.same(await get('/fapi/v1/fundingRate?symbol=BTCUSDTPERP'), [row])
  t.same(await get('/fapi/v1/fundingRate'), [row], 'every symbol')
  t.same(await get(`/fapi/v1/fundingRate?startTime=${BOUNDARY + 1}`), [])
  t.same(await get(`/fapi/v1/fundingRate?endTime=${BOUNDARY - 1}`), [])
  t.same(await get(`/fapi/v1/fundingRate?startTime=${BOUNDARY}&endTime=${BOUNDARY}&limit=1`), [row])
  t.same(await get('/fapi/v1/fundingRate?limit=1001'), { code: -1130, msg: 'Data sent for parameter \'limit\' is not valid.' })
  t.same(await get('/fapi/v1/fundingRate?symbol=NOPE'), { code: -1121, msg: 'Invalid symbol.' })

  const premium = await get('/fapi/v1/premiumIndex?symbol=BTCUSDTPERP')
  t.match(premium, { lastFundingRate: '0.00029666', nextFundingTime: BOUNDARY + EIGHT_H }, 'the settled rate until the next sample')

  const income = async (who: { keys: Keys }) =>
    (await signedInject(rig, who.keys, 'GET', '/fapi/v1/income', { incomeType: 'FUNDING_FEE' })).json()
  t.match(await income(alice), [{ symbol: 'BTCUSDTPERP', incomeType: 'FUNDING_FEE', income: '-0.05339900', asset: 'USDT', time: BOUNDARY }])
  t.match(await income(bob), [{ symbol: 'BTCUSDTPERP', incomeType: 'FUNDING_FEE', income: '0.05339800', asset: 'USDT', time: BOUNDARY }])
  t.equal((await income(alice)).length, 1)
})

t.test('fundingInfo prints each market\'s own cap, floor and interval', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const info = (await rig.app.inject({ method: 'GET', url: '/fapi/v1/fundingInfo' })).json()
  t.same(info[0], { symbol: 'BTCUSDTPERP', adjustedFundingRateCap: '0.00300000', adjustedFundingRateFloor: '-0.00300000',
    fundingIntervalHours: 8, disclaimer: false })
})

t.test('mark and index price klines from the sampled prices once a market has an oracle', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const get = async (url: string) => (await rig.app.inject({ method: 'GET', url })).json()
  await rig.run({ type: 'SetOracle', pair: 'BTCUSDT', oracle: ORACLE.address })
  // An empty book: the mark is the index each time. Four samples inside one minute.
  for (const price of ['30000', '30010.5', '29990']) t.ok((await rig.run(await signedPrice(rig.ex, price, 1000), 1000)).ok)
  await rig.run({ type: 'Tick' }, 1000)
  const open = Math.floor(rig.ex.time / 60_000) * 60_000
  const row = [open, '30000.00000000', '30010.50000000', '29990.00000000', '29990.00000000', '0', open + 59_999, '0', 4, '0', '0', '0']
  t.same(await get('/fapi/v1/markPriceKlines?symbol=BTCUSDTPERP&interval=1m'), [row])
  t.same(await get('/fapi/v1/indexPriceKlines?pair=BTCUSDT&interval=1m'), [row])
  const day = await get('/fapi/v1/indexPriceKlines?pair=BTCUSDT&interval=1d')
  t.equal(day.length, 1)
  t.equal(day[0][8], 4)
  t.same(await get('/fapi/v1/indexPriceKlines?pair=ETHUSDT&interval=1m'), [], 'no oracle price for ETH: trade klines, none')
})

t.test('premiumIndexKlines: the premium index, one sample per 5-s slot', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const get = async (url: string) => (await rig.app.inject({ method: 'GET', url })).json()
  const alice = await trader(rig)
  const bob = await trader(rig)
  const url = '/fapi/v1/premiumIndexKlines?symbol=BTCUSDTPERP&interval=1d'
  t.same(await get(url), [], 'no index, no premium')

  await rig.run({ type: 'SetOracle', pair: 'BTCUSDT', oracle: ORACLE.address })
  t.ok((await rig.run(await signedPrice(rig.ex, '30000'))).ok)
  await rig.run(limit(alice.address, 'BUY', 300_239, 1000))
  await rig.run(limit(bob.address, 'SELL', 301_000, 1000))
  const slot = Math.ceil(rig.ex.time / 5_000) * 5_000
  // 23.9 / 30000: impact bid over the index, floored in E8.
  await rig.run({ type: 'Tick' }, slot - rig.ex.time)
  await rig.run({ type: 'Tick' }, 1_000)
  t.equal((await get(url))[0][8], 1, 'a second Tick in the slot takes no sample')
  // A bid at 30050.0 covers the 25,000 USDT impact notional: 50 / 30000.
  await rig.run(limit(alice.address, 'BUY', 300_500, 1000))
  await rig.run({ type: 'Tick' }, slot + 5_000 - rig.ex.time)
  // The index at 30200.0 is over the impact ask 30100.0: −100 / 30200, floored.
  t.ok((await rig.run(await signedPrice(rig.ex, '30200'))).ok)
  await rig.run({ type: 'Tick' }, slot + 10_000 - rig.ex.time)

  const open = Math.floor(slot / 86_400_000) * 86_400_000
  t.same(await get(url), [[open, '0.00079666', '0.00166666', '-0.00331126', '-0.00331126', '0', open + 86_399_999, '0', 3, '0', '0', '0']])
  const minutes = await get('/fapi/v1/premiumIndexKlines?symbol=BTCUSDTPERP&interval=1m')
  t.equal(minutes.reduce((n: number, k: number[]) => n + k[8]!, 0), 3, 'every sample in one 1m kline or another')
  t.same(await get(`${url}&endTime=${open - 1}`), [])
  t.same(await get('/fapi/v1/premiumIndexKlines?symbol=BTCUSDT&interval=1m'), { code: -1121, msg: 'Invalid symbol.' }, 'a spot symbol')
  t.same(await get('/fapi/v1/premiumIndexKlines?symbol=BTCUSDTPERP&interval=7m'), { code: -1120, msg: 'Invalid interval.' })
  t.same(await get('/fapi/v1/premiumIndexKlines?symbol=BTCUSDTPERP&interval=1m&limit=1501'),
    { code: -1130, msg: 'Data sent for parameter \'limit\' is not valid.' })
})
