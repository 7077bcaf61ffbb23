// Spot trading over REST: a resting sell, a market buy with its fills and fee in the asset
// received, balances with locks, open orders, cancel, and spot's own error forms.

import t from 'tap'
import { gatewayRig, signedInject, spotTraders } from '../helpers/gateway.js'

t.test('spot order flow', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, buyer } = await spotTraders(rig)

  const ask = await signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.1000', price: '50000.00', newOrderRespType: 'RESULT' })
  t.match(ask.json(), { symbol: 'BTCUSDT', orderId: 1, orderListId: -1, status: 'NEW', type: 'LIMIT', side: 'SELL',
    price: '50000.00', origQty: '0.1000', executedQty: '0.0000' })

  // The buyer takes 0.05 BTC for 2500 USDT and pays 0.1% in BTC: 0.00005.
  const buy = await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.0500' })
  t.match(buy.json(), { status: 'FILLED', executedQty: '0.0500', cummulativeQuoteQty: '2500.000000', type: 'MARKET',
    fills: [{ price: '50000.00', qty: '0.0500', commission: '0.00005000', commissionAsset: 'BTC', tradeId: 1 }] })

  const acct = (await signedInject(rig, buyer, 'GET', '/api/v3/account')).json()
  const bal = (asset: string) => acct.balances.find((b: { asset: string }) => b.asset === asset)
  t.same(bal('BTC'), { asset: 'BTC', free: '0.04995000', locked: '0.00000000' })
  t.same(bal('USDT'), { asset: 'USDT', free: '7500.00000000', locked: '0.00000000' })
  const sellerAcct = (await signedInject(rig, seller, 'GET', '/api/v3/account')).json()
  t.same(sellerAcct.balances.find((b: { asset: string }) => b.asset === 'BTC'), { asset: 'BTC', free: '0.90000000', locked: '0.05000000' })

  const open = (await signedInject(rig, seller, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json()
  t.match(open, [{ orderId: 1, status: 'PARTIALLY_FILLED', executedQty: '0.0500' }])
  const canceled = await signedInject(rig, seller, 'DELETE', '/api/v3/order', { symbol: 'BTCUSDT', orderId: 1 })
  t.match(canceled.json(), { orderId: 1, status: 'CANCELED', origClientOrderId: String })
  const q = await signedInject(rig, seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: 1 })
  t.match(q.json(), { orderId: 1, status: 'CANCELED' })

  const poor = await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '1.0000', price: '50000.00' })
  t.equal(poor.json().code, -2010, 'insufficient balance, spot wording')
  const step = await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.00001', price: '50000.00' })
  t.equal(step.json().code, -1111, 'more quantity decimals than the market has')
  const perp = await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'MARKET', quantity: '1' })
  t.equal(perp.json().code, -1121, 'a perpetual symbol on the spot API')
})
