// Position settings over REST: hedge mode on and off (refused with open orders), margin type,
// leverage brackets.

import t from 'tap'
import { Wallet } from 'ethers'
import { gatewayRig, openSession, signedInject, type Keys } from '../helpers/gateway.js'

t.test('position mode, margin type, brackets', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet)).json() as Keys
  await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 10_000_000_000, wallet: 'PERP', ref: 'x' })

  t.same((await signedInject(rig, keys, 'GET', '/fapi/v1/positionSide/dual')).json(), { dualSidePosition: false })
  t.same((await signedInject(rig, keys, 'POST', '/fapi/v1/positionSide/dual', { dualSidePosition: 'true' })).json(), { code: 200, msg: 'success' })
  t.same((await signedInject(rig, keys, 'GET', '/fapi/v1/positionSide/dual')).json(), { dualSidePosition: true })
  const same = await signedInject(rig, keys, 'POST', '/fapi/v1/positionSide/dual', { dualSidePosition: 'true' })
  t.equal(same.json().code, -4059, 'no change')
  const placed = await signedInject(rig, keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', positionSide: 'LONG',
    type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '40000.0' })
  t.equal(placed.statusCode, 200, 'hedge mode order with positionSide LONG')
  const busy = await signedInject(rig, keys, 'POST', '/fapi/v1/positionSide/dual', { dualSidePosition: 'false' })
  t.equal(busy.json().code, -4067, 'refused while orders are open')
  const bad = await signedInject(rig, keys, 'POST', '/fapi/v1/positionSide/dual', { dualSidePosition: 'yes' })
  t.equal(bad.json().code, -1130)
  t.equal((await signedInject(rig, keys, 'POST', '/fapi/v1/positionSide/dual', { dualSidePosition: 'TRUE' })).json().code, -4059,
    'TRUE is true, in any case, as Binance reads it (no change: already hedge mode)')
  // reduceOnly too: TRUE is read, not refused as a malformed value (-1130); in hedge mode reduceOnly is then -1106, as Binance
  // answers it there (positionSide says what closes).
  const upper = await signedInject(rig, keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'SELL', positionSide: 'LONG',
    type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '41000.0', reduceOnly: 'TRUE' })
  t.same(upper.json(), { code: -1106, msg: "Parameter 'reduceOnly' sent when not required." })
  t.equal((await signedInject(rig, keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'SELL', positionSide: 'LONG',
    type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '41000.0', reduceOnly: 'yes' })).json().code, -1130)
  // A closePosition stop in hedge mode names its position side as any order there: -4061 without one, by either route.
  const sideless = { symbol: 'BTCUSDTPERP', side: 'SELL', type: 'STOP_MARKET', closePosition: 'true' }
  const mismatch = { code: -4061, msg: "Order's position side does not match user's setting." }
  t.same((await signedInject(rig, keys, 'POST', '/fapi/v1/order', { ...sideless, stopPrice: '39000.0' })).json(), mismatch)
  t.same((await signedInject(rig, keys, 'POST', '/fapi/v1/algoOrder', { ...sideless, algoType: 'CONDITIONAL', triggerPrice: '39000.0' })).json(),
    mismatch)

  t.equal((await signedInject(rig, keys, 'POST', '/fapi/v1/marginType', { symbol: 'BTCUSDTPERP', marginType: 'CROSSED' })).json().code, -4046)

  const brackets = (await signedInject(rig, keys, 'GET', '/fapi/v1/leverageBracket', { symbol: 'BTCUSDTPERP' })).json()
  t.match(brackets[0].brackets[0], { bracket: 1, initialLeverage: 125, notionalCap: 50000, notionalFloor: 0, maintMarginRatio: 0.004, cum: 0 })
  // cum of bracket 2: 50000 × (0.005 − 0.004) = 50.
  t.match(brackets[0].brackets[1], { bracket: 2, initialLeverage: 100, notionalCap: 600000, notionalFloor: 50000, maintMarginRatio: 0.005, cum: 50 })
  const all = (await signedInject(rig, keys, 'GET', '/fapi/v1/leverageBracket')).json()
  t.same(all.map((b: { symbol: string }) => b.symbol), ['BTCUSDTPERP', 'ETHUSDTPERP'])
})
