// The `binance` npm package, unmodified (baseUrl only), with conditional orders: a trailing
// stop through POST /fapi/v1/order (submitNewOrder) and a take-profit through the algo
// routes (submitNewAlgoOrder, getOpenAlgoOrders, getAlgoOrder, cancelAlgoOrder,
// cancelAllAlgoOpenOrders, getAllAlgoOrders), with the exact fields Binance would print.

import t from 'tap'
import { USDMClient } from 'binance'
import { startLiveExchange } from '../helpers/live-exchange.js'

const S = 'BTCUSDTPERP'

t.test('binance USDMClient: conditional orders by submitNewOrder and the algo endpoints', { timeout: 120_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const c = new USDMClient({ api_key: live.maker.apiKey, api_secret: live.maker.secretKey, baseUrl: live.base })

  const trailing = await c.submitNewOrder({ symbol: S, side: 'SELL', type: 'TRAILING_STOP_MARKET', quantity: 0.01,
    callbackRate: 1.5, activationPrice: 70000, newClientOrderId: 'trail-1', newOrderRespType: 'RESULT' })
  t.match(trailing, { orderId: 1, clientOrderId: 'trail-1', type: 'TRAILING_STOP_MARKET', origType: 'TRAILING_STOP_MARKET',
    status: 'NEW', origQty: '0.010', activatePrice: '70000.0', priceRate: '1.5', workingType: 'CONTRACT_PRICE' })
  const open = await c.getAllOpenOrders({ symbol: S })
  t.same(open.map((o) => [o.orderId, o.type]), [[1, 'TRAILING_STOP_MARKET']])

  const tp = await c.submitNewAlgoOrder({ algoType: 'CONDITIONAL', symbol: S, side: 'SELL', type: 'TAKE_PROFIT_MARKET',
    quantity: '0.010', triggerPrice: '80000', clientAlgoId: 'tp-1' })
  // orderId 2 of market 1: algoId 2 × 256 + 1.
  t.match(tp, { algoId: 513, clientAlgoId: 'tp-1', algoType: 'CONDITIONAL', orderType: 'TAKE_PROFIT_MARKET', algoStatus: 'NEW',
    triggerPrice: '80000.0', quantity: '0.010' })
  t.same((await c.getOpenAlgoOrders({ symbol: S })).map((o) => o.algoId), [257, 513], 'both conditional orders, in algo form')
  t.match(await c.getAlgoOrder({ algoId: 513 }), { clientAlgoId: 'tp-1', algoStatus: 'NEW' })
  t.match(await c.cancelAlgoOrder({ algoId: 513 }), { algoId: 513, clientAlgoId: 'tp-1', code: '200', msg: 'success' })
  t.match(await c.cancelAllAlgoOpenOrders({ symbol: S }), { code: 200 })
  t.same(await c.getOpenAlgoOrders({ symbol: S }), [])
  // The history keeps both, ended: the trailing stop canceled with the rest, the take-profit first.
  const all = await c.getAllAlgoOrders({ symbol: S })
  t.same(all.map((o) => [o.algoId, o.orderType, o.algoStatus]), [[257, 'TRAILING_STOP_MARKET', 'CANCELED'], [513, 'TAKE_PROFIT_MARKET', 'CANCELED']])
  t.same((await c.getAllAlgoOrders({ symbol: S, algoId: 513 })).map((o) => o.clientAlgoId), ['tp-1'])
})
