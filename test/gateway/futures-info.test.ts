// Futures information endpoints bots poll: order-count limits, trading-rules status, ADL
// quantiles (per market with a position), forced orders (none here), the multi-assets switch
// (always off, with Binance's codes) and index constituents.

import t from 'tap'
import { gatewayRig, signedInject, type GatewayRig, type Keys, fundedTrader } from '../helpers/gateway.js'

const trader = async (rig: GatewayRig): Promise<Keys> => (await fundedTrader(rig, 100_000)).keys

t.test('limits, status, ADL, forced orders, multi-assets, fee burn, constituents', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const alice = await trader(rig)
  const bob = await trader(rig)

  t.same((await signedInject(rig, alice, 'GET', '/fapi/v1/rateLimit/order')).json(), [
    { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 300 },
    { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: 1200 },
  ])
  t.same((await signedInject(rig, alice, 'GET', '/fapi/v1/apiTradingStatus')).json(), { indicators: {}, updateTime: rig.ex.time })
  t.same((await signedInject(rig, alice, 'GET', '/fapi/v1/apiTradingStatus', { symbol: 'NOPE' })).json(),
    { code: -1121, msg: 'Invalid symbol.' })

  t.same((await signedInject(rig, alice, 'GET', '/fapi/v1/adlQuantile')).json(), [], 'no position, no row')
  await signedInject(rig, alice, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'SELL', type: 'LIMIT',
    timeInForce: 'GTC', price: '50000.0', quantity: '0.010' })
  await signedInject(rig, bob, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'MARKET', quantity: '0.010' })
  // The only long: first in its queue (quantile 4); test/gateway/liquidation.test.ts ranks more.
  t.same((await signedInject(rig, bob, 'GET', '/fapi/v1/adlQuantile')).json(),
    [{ symbol: 'BTCUSDTPERP', adlQuantile: { LONG: 0, SHORT: 0, BOTH: 4 } }])
  t.same((await signedInject(rig, bob, 'GET', '/fapi/v1/adlQuantile', { symbol: 'ETHUSDTPERP' })).json(), [])
  // positionRisk's adl is that quantile, for the row's side.
  t.same((await signedInject(rig, bob, 'GET', '/fapi/v3/positionRisk')).json().map((r: { symbol: string; adl: number }) => [r.symbol, r.adl]),
    [['BTCUSDTPERP', 4]])
  t.same((await signedInject(rig, bob, 'GET', '/fapi/v2/positionRisk', { symbol: 'ETHUSDTPERP' })).json().map((r: { adl: number }) => r.adl), [0],
    'flat: 0')

  t.same((await signedInject(rig, bob, 'GET', '/fapi/v1/forceOrders', { symbol: 'BTCUSDTPERP' })).json(), [])
  t.same((await signedInject(rig, bob, 'GET', '/fapi/v1/forceOrders', { autoCloseType: 'BOTH' })).json(),
    { code: -1130, msg: "Data sent for parameter 'autoCloseType' is not valid." })

  t.same((await signedInject(rig, bob, 'POST', '/fapi/v1/multiAssetsMargin', { multiAssetsMargin: 'false' })).json(),
    { code: -4171, msg: 'Adjusted asset mode is currently set and does not need to be adjusted repeatedly.' })
  t.same((await signedInject(rig, bob, 'POST', '/fapi/v1/multiAssetsMargin', { multiAssetsMargin: 'true' })).json(),
    { code: -1020, msg: 'This operation is not supported.' })
  t.same((await signedInject(rig, bob, 'POST', '/fapi/v1/multiAssetsMargin', { multiAssetsMargin: 'yes' })).json(),
    { code: -1130, msg: "Data sent for parameter 'multiAssetsMargin' is not valid." })
  t.same((await signedInject(rig, bob, 'GET', '/fapi/v1/multiAssetsMargin')).json(), { multiAssetsMargin: false })

  // No BNB here: the fee discount is off, and stays off.
  t.same((await signedInject(rig, bob, 'GET', '/fapi/v1/feeBurn')).json(), { feeBurn: false })
  t.same((await signedInject(rig, bob, 'POST', '/fapi/v1/feeBurn', { feeBurn: 'false' })).json(), { code: 200, msg: 'success' })
  const burn = await signedInject(rig, bob, 'POST', '/fapi/v1/feeBurn', { feeBurn: 'true' })
  t.equal(burn.statusCode, 400)
  t.same(burn.json(), { code: -1020, msg: 'This operation is not supported.' })
  t.same((await signedInject(rig, bob, 'POST', '/fapi/v1/feeBurn', { feeBurn: 'on' })).json(),
    { code: -1130, msg: "Data sent for parameter 'feeBurn' is not valid." })
  t.same((await signedInject(rig, bob, 'POST', '/fapi/v1/feeBurn')).json(),
    { code: -1102, msg: "Mandatory parameter 'feeBurn' was not sent, was empty/null, or malformed." })
  t.equal((await rig.app.inject({ method: 'GET', url: '/fapi/v1/feeBurn' })).statusCode, 401, 'signed only')

  // No oracle price yet: no constituent.
  const c = await rig.app.inject({ method: 'GET', url: '/fapi/v1/constituents?symbol=BTCUSDTPERP' })
  t.equal(c.statusCode, 200)
  t.same(c.json(), { symbol: 'BTCUSDTPERP', time: rig.ex.time, constituents: [] })
  t.same((await rig.app.inject({ method: 'GET', url: '/fapi/v1/constituents?symbol=BTCUSDT' })).json(),
    { code: -1121, msg: 'Invalid symbol.' })
  t.same((await rig.app.inject({ method: 'GET', url: '/fapi/v1/constituents' })).json(),
    { code: -1102, msg: "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed." })
})
