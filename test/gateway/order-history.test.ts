// Order history as Binance keeps it, through the REST routes: USDⓈ-M's GET order and
// allOrders stop finding an order that ended with nothing filled 3 days after it was created,
// any ended order after 90; spot's keep an unfilled one 90 days and a traded one for good.
// allOrders spans at most 7 days on USDⓈ-M (the last 7 by default) and 24 hours on spot;
// USDⓈ-M user trades reach back 6 months.

import { Wallet } from 'ethers'
import t from 'tap'
import { gatewayRig, openSession, signedInject, type Keys } from '../helpers/gateway.js'

const DAY = 86_400_000
const PERP = { symbol: 'BTCUSDTPERP' }
const SPOT = { symbol: 'BTCUSDT' }
const NOT_FOUND = { code: -2013, msg: 'Order does not exist.' }
const TOO_WIDE = (hours: number) => ({ code: -1127, msg: `More than ${hours} hours between startTime and endTime.` })

t.test('ended orders leave the history by the venue\'s rule; allOrders windows', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  // A trader of its own, whose wallet opens a new session once the first has expired.
  const wallet = Wallet.createRandom()
  const other = Wallet.createRandom()
  let keys = (await openSession(rig, wallet)).json() as Keys
  let otherKeys = (await openSession(rig, other)).json() as Keys
  const fund = (address: string, asset: string, amount: number, w: 'PERP' | 'SPOT') =>
    rig.run({ type: 'Deposit', account: address, sub: 0, asset, amount, wallet: w, ref: `${address}-${asset}-${w}` })
  await fund(wallet.address, 'USDT', 100_000_000_000, 'PERP')
  await fund(wallet.address, 'BTC', 100_000_000, 'SPOT')
  await fund(other.address, 'USDT', 100_000_000_000, 'PERP')
  await fund(other.address, 'USDT', 100_000_000_000, 'SPOT')
  const get = async (k: Keys, path: string, params: Record<string, string | number>) => {
    const r = await signedInject(rig, k, 'GET', path, params)
    return r.json()
  }
  const ids = async (path: string, params: Record<string, string | number>) => {
    const r = await get(keys, path, params)
    return Array.isArray(r) ? r.map((o: { orderId: number; status: string }) => [o.orderId, o.status]) : r
  }
  const post = async (k: Keys, path: string, params: Record<string, string>) => (await signedInject(rig, k, 'POST', path, params)).json()

  // USDⓈ-M: one canceled with nothing filled, one that traded, one left open.
  const canceled = await post(keys, '/fapi/v1/order', { ...PERP, side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '60000.0', newClientOrderId: 'gone' })
  await signedInject(rig, keys, 'DELETE', '/fapi/v1/order', { ...PERP, orderId: canceled.orderId })
  const traded = await post(keys, '/fapi/v1/order', { ...PERP, side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '50000.0' })
  await post(otherKeys, '/fapi/v1/order', { ...PERP, side: 'BUY', type: 'MARKET', quantity: '0.010' })
  const open = await post(keys, '/fapi/v1/order', { ...PERP, side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '70000.0' })
  // Spot: one canceled with nothing filled.
  const spotCanceled = await post(keys, '/api/v3/order', { ...SPOT, side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '60000.00' })
  await signedInject(rig, keys, 'DELETE', '/api/v3/order', { ...SPOT, orderId: spotCanceled.orderId })
  const placedAt = rig.ex.time

  t.same(await ids('/fapi/v1/allOrders', PERP), [[canceled.orderId, 'CANCELED'], [traded.orderId, 'FILLED'], [open.orderId, 'NEW']])

  // Four days on.
  await rig.run({ type: 'Tick' }, 4 * DAY)
  keys = (await openSession(rig, wallet)).json() as Keys
  t.same(await get(keys, '/fapi/v1/order', { ...PERP, orderId: canceled.orderId }), NOT_FOUND, 'USDⓈ-M: canceled unfilled, past 3 days: not found')
  t.same(await get(keys, '/fapi/v1/order', { ...PERP, origClientOrderId: 'gone' }), NOT_FOUND, 'nor by its client id')
  t.match(await get(keys, '/fapi/v1/order', { ...PERP, orderId: traded.orderId }), { status: 'FILLED' }, 'one that traded is')
  t.same(await ids('/fapi/v1/allOrders', PERP), [[traded.orderId, 'FILLED'], [open.orderId, 'NEW']], 'allOrders leaves it out')
  t.match(await get(keys, '/api/v3/order', { ...SPOT, orderId: spotCanceled.orderId }), { status: 'CANCELED' }, 'spot keeps it 90 days')
  t.same(await ids('/api/v3/allOrders', SPOT), [[spotCanceled.orderId, 'CANCELED']])

  // allOrders' windows.
  t.same(await get(keys, '/fapi/v1/allOrders', { ...PERP, startTime: placedAt - 1000, endTime: placedAt - 1000 + 7 * DAY + 1 }), TOO_WIDE(168),
    'USDⓈ-M: more than 7 days apart')
  t.same(await get(keys, '/api/v3/allOrders', { ...SPOT, startTime: placedAt - 1000, endTime: placedAt - 1000 + DAY + 1 }), TOO_WIDE(24),
    'spot: more than 24 hours apart')
  await rig.run({ type: 'Tick' }, 4 * DAY)
  keys = (await openSession(rig, wallet)).json() as Keys
  t.same(await ids('/fapi/v1/allOrders', PERP), [], 'eight days on, the default window (the last 7 days) holds none')
  t.same(await ids('/fapi/v1/allOrders', { ...PERP, endTime: placedAt + DAY }), [[traded.orderId, 'FILLED'], [open.orderId, 'NEW']],
    'up to an endTime: the 7 days before it')
  t.same(await ids('/fapi/v1/allOrders', { ...PERP, startTime: placedAt - DAY }), [[traded.orderId, 'FILLED'], [open.orderId, 'NEW']], 'from a startTime')
  t.same(await ids('/api/v3/allOrders', SPOT), [[spotCanceled.orderId, 'CANCELED']], 'spot: no default window')

  // Ninety days after they were placed.
  await rig.run({ type: 'Tick' }, 83 * DAY)
  keys = (await openSession(rig, wallet)).json() as Keys
  otherKeys = (await openSession(rig, other)).json() as Keys
  t.same(await get(keys, '/fapi/v1/order', { ...PERP, orderId: traded.orderId }), NOT_FOUND, 'USDⓈ-M: any ended order past 90 days')
  t.match(await get(keys, '/fapi/v1/order', { ...PERP, orderId: open.orderId }), { status: 'NEW' }, 'an open one is always found')
  t.same(await ids('/fapi/v1/allOrders', { ...PERP, orderId: 1 }), [[open.orderId, 'NEW']])
  t.same(await ids('/api/v3/allOrders', SPOT), [], 'spot: the unfilled one past 90 days')
  t.same(await get(keys, '/api/v3/order', { ...SPOT, orderId: spotCanceled.orderId }), NOT_FOUND)
  t.match(await get(otherKeys, '/fapi/v1/userTrades', PERP), [{ id: 1, price: '50000.0', buyer: true }], 'the fill is within 6 months')

  // Six months after the fill.
  await rig.run({ type: 'Tick' }, 91 * DAY)
  otherKeys = (await openSession(rig, other)).json() as Keys
  t.same(await get(otherKeys, '/fapi/v1/userTrades', PERP), [], 'USDⓈ-M: user trades reach back 6 months')
  t.same(await get(otherKeys, '/fapi/v1/userTrades', { ...PERP, fromId: 1 }), [], 'from a trade id too')
})

// Found by exploratory testing: a client id of 256 bytes or more reached the history's key
// builder, which holds at most 255, and the lookup answered 500 (-1000).
t.test('a client id longer than any order can have is -1100, never looked up', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const keys = (await openSession(rig, Wallet.createRandom())).json() as Keys
  const illegal = (param: string) => ({ code: -1100,
    msg: `Illegal characters found in parameter '${param}'; legal range is '^[\\.A-Z\\:/a-z0-9_-]{1,36}$'.` })
  for (const id of ['a'.repeat(37), 'a'.repeat(256), '€'.repeat(100)]) {
    const cases: [string, string, Record<string, string>, string][] = [
      ['GET', '/fapi/v1/order', { ...PERP, origClientOrderId: id }, 'origClientOrderId'],
      ['GET', '/fapi/v1/orderAmendment', { ...PERP, origClientOrderId: id }, 'origClientOrderId'],
      ['GET', '/fapi/v1/algoOrder', { clientAlgoId: id }, 'clientAlgoId'],
      ['DELETE', '/fapi/v1/algoOrder', { clientAlgoId: id }, 'clientAlgoId'],
      ['GET', '/api/v3/order', { ...SPOT, origClientOrderId: id }, 'origClientOrderId'],
      ['GET', '/api/v3/order/amendments', { ...SPOT, origClientOrderId: id }, 'origClientOrderId'],
      ['GET', '/api/v3/orderList', { origClientOrderId: id }, 'origClientOrderId'],
    ]
    for (const [method, path, params, param] of cases) {
      const r = await signedInject(rig, keys, method as 'GET' | 'DELETE', path, params)
      t.same([r.statusCode, r.json()], [400, illegal(param)], `${method} ${path}, ${id.length} characters`)
    }
  }
  t.same((await signedInject(rig, keys, 'GET', '/fapi/v1/order', { ...PERP, origClientOrderId: 'a'.repeat(36) })).json(), NOT_FOUND,
    '36 characters: looked up, and not there')
})
