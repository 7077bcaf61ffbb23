// General endpoints: ping, time, exchangeInfo (futures and spot) in Binance's shapes, the
// weight header, unknown paths and symbols.

import t from 'tap'
import { gatewayRig } from '../helpers/gateway.js'

t.test('ping and time', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const ping = await rig.app.inject({ method: 'GET', url: '/fapi/v1/ping' })
  t.equal(ping.statusCode, 200)
  t.same(ping.json(), {})
  t.equal(ping.headers['x-mbx-used-weight-1m'], '1')
  const time = await rig.app.inject({ method: 'GET', url: '/fapi/v1/time' })
  t.same(time.json(), { serverTime: rig.ex.time })
  t.equal(time.headers['x-mbx-used-weight-1m'], '2', 'weight adds up per IP')
  const spot = await rig.app.inject({ method: 'GET', url: '/api/v1/time' })
  t.same(spot.json(), { serverTime: rig.ex.time })
})

t.test('futures exchangeInfo lists the perpetuals with their filters', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const r = await rig.app.inject({ method: 'GET', url: '/fapi/v1/exchangeInfo' })
  t.equal(r.statusCode, 200)
  const body = r.json()
  t.equal(body.futuresType, 'U_MARGINED')
  t.equal(body.timezone, 'UTC')
  t.same(body.rateLimits.map((l: { rateLimitType: string }) => l.rateLimitType), ['REQUEST_WEIGHT', 'ORDERS', 'ORDERS'])
  t.same(body.symbols.map((s: { symbol: string }) => s.symbol), ['BTCUSDTPERP', 'ETHUSDTPERP'])
  const btc = body.symbols[0]
  t.match(btc, {
    pair: 'BTCUSDT', contractType: 'PERPETUAL', status: 'TRADING', baseAsset: 'BTC', quoteAsset: 'USDT', marginAsset: 'USDT',
    pricePrecision: 1, quantityPrecision: 3, maxLeverage: 125, deliveryDate: 4133404800000, product_id: 1,
    maintMarginPercent: '0.4000', requiredMarginPercent: '0.8000',
    timeInForce: ['GTC', 'IOC', 'FOK', 'GTX', 'GTD'],
  })
  t.ok(btc.orderTypes.includes('POST_ONLY') && btc.orderTypes.includes('LIMIT') && btc.orderTypes.includes('MARKET'))
  t.same(btc.filters.find((f: { filterType: string }) => f.filterType === 'PRICE_FILTER'),
    { filterType: 'PRICE_FILTER', minPrice: '100.0', maxPrice: '1000000.0', tickSize: '0.1' })
  t.same(btc.filters.find((f: { filterType: string }) => f.filterType === 'LOT_SIZE'),
    { filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '1000.000', stepSize: '0.001' })
  t.same(btc.filters.find((f: { filterType: string }) => f.filterType === 'MIN_NOTIONAL'), { filterType: 'MIN_NOTIONAL', notional: '100' })
  t.same(btc.filters.find((f: { filterType: string }) => f.filterType === 'PERCENT_PRICE'),
    { filterType: 'PERCENT_PRICE', multiplierUp: '1.0500', multiplierDown: '0.9500', multiplierDecimal: '4' })
  t.equal(btc.marketTakeBound, '0.05')
  t.equal(btc.onboardDate, rig.ex.state.markets[1]!.onboardDate)
  t.equal(r.headers['x-mbx-used-weight-1m'], '20')

  const one = await rig.app.inject({ method: 'GET', url: '/fapi/v1/exchangeInfo?symbol=ETHUSDTPERP' })
  t.same(one.json().symbols.map((s: { symbol: string }) => s.symbol), ['ETHUSDTPERP'])
  const some = await rig.app.inject({ method: 'GET', url: '/fapi/v1/exchangeInfo?symbols=' + encodeURIComponent('["BTCUSDTPERP"]') })
  t.same(some.json().symbols.map((s: { symbol: string }) => s.symbol), ['BTCUSDTPERP'])
  const bad = await rig.app.inject({ method: 'GET', url: '/fapi/v1/exchangeInfo?symbol=NOPE' })
  t.equal(bad.statusCode, 400)
  t.same(bad.json(), { code: -1121, msg: 'Invalid symbol.' })
  const junk = await rig.app.inject({ method: 'GET', url: '/fapi/v1/exchangeInfo?symbols=%5Bnot-json' })
  t.equal(junk.statusCode, 400)
})

t.test('spot exchangeInfo lists the spot markets', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const body = (await rig.app.inject({ method: 'GET', url: '/api/v1/exchangeInfo' })).json()
  t.same(body.symbols.map((s: { symbol: string }) => s.symbol), ['BTCUSDT', 'ETHUSDT'])
  t.match(body.symbols[0], { baseAsset: 'BTC', quoteAsset: 'USDT', baseAssetPrecision: 8, quotePrecision: 6, permissions: ['SPOT'] })
})

t.test('unknown paths answer 404 in the error shape', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const r = await rig.app.inject({ method: 'GET', url: '/fapi/v9/nothing' })
  t.equal(r.statusCode, 404)
  t.equal(r.json().code, -1099)
})
