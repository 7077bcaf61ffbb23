// POST /fapi/v1/order/test and /api/v3/order/test: a dry run of placement against the state
// now. Each case is sent to the test endpoint, then placed for real: a refusal must be the
// very answer placement gives, an acceptance the order placement makes (before fills), and
// the test must leave the state root as it was.

import t, { type Test } from 'tap'
import { stateRoot } from '../../core/root.js'
import { gatewayRig, signedInject, spotTraders, fundedTrader, type GatewayRig, type Keys } from '../helpers/gateway.js'

const S = 'BTCUSDTPERP'
const limit = (side: string, price: string, quantity: string, extra: Record<string, string> = {}) =>
  ({ symbol: S, side, type: 'LIMIT', timeInForce: 'GTC', price, quantity, ...extra })

/** The test endpoint's answer, checking it changed nothing. */
async function tested(t: Test, rig: GatewayRig, keys: Keys, path: string, params: Record<string, string>) {
  const before = stateRoot(rig.ex.state)
  const seq = rig.ex.state.seq
  const r = await signedInject(rig, keys, 'POST', path, params)
  t.equal(stateRoot(rig.ex.state), before, `${params.type} ${params.side}: the state root is unchanged`)
  t.equal(rig.ex.state.seq, seq, 'nothing was sequenced')
  return r
}

t.test('futures: refusals as placement gives them, acceptance as the order it places', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const alice = await fundedTrader(rig, 1_000)
  const bob = await fundedTrader(rig, 100_000)
  await signedInject(rig, bob.keys, 'POST', '/fapi/v1/order', limit('SELL', '30000.0', '0.100'))
  await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', limit('BUY', '29000.0', '0.004', { newClientOrderId: 'taken' }))

  const refusals: [string, Record<string, string>, number][] = [
    ['off the tick', limit('BUY', '29000.05', '0.001'), -1111],
    ['below the minimum notional', limit('BUY', '29000.0', '0.0001'), -1111],
    ['under 100 USDT of notional', limit('BUY', '20000.0', '0.001'), -4164],
    ['more than the margin pays for', limit('BUY', '29000.0', '1.000'), -2019],
    ['reduce-only with nothing to reduce', limit('SELL', '31000.0', '0.010', { reduceOnly: 'true' }), -2022],
    ['post-only that would take', limit('BUY', '30000.0', '0.010', { timeInForce: 'GTX' }), -5022],
    ['a clientOrderId already open', limit('BUY', '29000.0', '0.010', { newClientOrderId: 'taken' }), -4116],
    ['a stop that would trigger at once', { symbol: S, side: 'BUY', type: 'STOP_MARKET', stopPrice: '29000.0', quantity: '0.010',
      workingType: 'CONTRACT_PRICE' }, -2021],
    ['a fill-or-kill the book cannot fill', limit('BUY', '30000.0', '0.200', { timeInForce: 'FOK' }), -2021],
  ]
  // One trade so the stop has a last price to compare with.
  t.equal((await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', { symbol: S, side: 'BUY', type: 'MARKET', quantity: '0.004' })).statusCode, 200)
  for (const [name, params, code] of refusals) {
    const test = await tested(t, rig, alice.keys, '/fapi/v1/order/test', params)
    const real = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', params)
    t.equal(real.statusCode, 400, `${name}: placement refuses it`)
    t.same([test.statusCode, test.json()], [real.statusCode, real.json()], `${name}: the same answer`)
    if (code !== -2021) t.equal(test.json().code, code, name)
  }

  const ok = limit('BUY', '29500.0', '0.010', { newClientOrderId: 'fine' })
  const test = await tested(t, rig, alice.keys, '/fapi/v1/order/test', ok)
  t.equal(test.statusCode, 200)
  const placed = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', { ...ok, newOrderRespType: 'RESULT' })
  const { orderId, updateTime, ...rest } = placed.json()
  t.ok(orderId > 0)
  t.same(test.json(), { ...rest, orderId: 0, updateTime: test.json().updateTime }, 'the order placement made, with no id')
  t.match(test.json(), { status: 'NEW', clientOrderId: 'fine', price: '29500.0', origQty: '0.010', executedQty: '0.000' })

  const stop = { symbol: S, side: 'SELL', type: 'STOP_MARKET', stopPrice: '25000.0', quantity: '0.010' }
  t.match((await tested(t, rig, alice.keys, '/fapi/v1/order/test', stop)).json(),
    { type: 'STOP_MARKET', origType: 'STOP_MARKET', stopPrice: '25000.0', status: 'NEW', orderId: 0 })
  t.same((await tested(t, rig, alice.keys, '/fapi/v1/order/test', { ...ok, newOrderRespType: 'FULL' })).json(),
    { code: -1130, msg: "Data sent for parameter 'newOrderRespType' is not valid." })
  t.same((await tested(t, rig, alice.keys, '/fapi/v1/order/test', { ...ok, symbol: 'NOPE' })).json(), { code: -1121, msg: 'Invalid symbol.' })
})

t.test('spot: {} or the commission rates; refusals as placement gives them', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, buyer } = await spotTraders(rig)
  const order = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', price: '50000.00', quantity: '0.1000' }
  const ok = await tested(t, rig, buyer, '/api/v3/order/test', order)
  t.same([ok.statusCode, ok.json()], [200, {}])
  t.same((await tested(t, rig, buyer, '/api/v3/order/test', { ...order, computeCommissionRates: 'true' })).json(), {
    standardCommissionForOrder: { maker: '0.001', taker: '0.001' },
    specialCommissionForOrder: { maker: '0', taker: '0' }, taxCommissionForOrder: { maker: '0', taker: '0' },
    discount: { enabledForAccount: false, enabledForSymbol: false, discountAsset: 'BNB', discount: '0' },
  })
  for (const [name, who, params] of [
    ['more USDT than the buyer holds', buyer, { ...order, quantity: '1.0000' }],
    ['more BTC than the seller holds', seller, { ...order, side: 'SELL', quantity: '2.0000' }],
    ['off the tick', buyer, { ...order, price: '50000.001' }],
  ] as const) {
    const test = await tested(t, rig, who, '/api/v3/order/test', params)
    const real = await signedInject(rig, who, 'POST', '/api/v3/order', params)
    t.equal(real.statusCode, 400, `${name}: placement refuses it`)
    t.same([test.statusCode, test.json()], [real.statusCode, real.json()], `${name}: the same answer`)
  }
  t.equal((await tested(t, rig, buyer, '/api/v3/order/test', { ...order, computeCommissionRates: 'maybe' })).statusCode, 400)
})
