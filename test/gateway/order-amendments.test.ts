// Order modify history (GET /fapi/v1/orderAmendment) and priceMatch over REST: rows in
// Binance's shape and order, its errors, the 10,000-amendment cap (-5026), priceMatch on
// placement and on amendment with the mode on the order's record, and the `binance` package's
// own modify-history call over real HTTP on loopback.

import t from 'tap'
import { USDMClient } from 'binance'
import { LIMITS } from '../../core/limits.js'
import { stateRoot } from '../../core/root.js'
import type { Result } from '../../core/events.js'
import { UserEvents, type Payload } from '../../gateway/user-data/events.js'
import { gatewayRig, hmac, type GatewayRig, type Keys, fundedTrader } from '../helpers/gateway.js'

const S = 'BTCUSDTPERP'

/** A signed request, params in the query (GET) or a form body (POST, PUT). */
function signed(rig: GatewayRig, keys: Keys, method: 'POST' | 'PUT' | 'GET', url: string, params: Record<string, string>) {
  const body = new URLSearchParams({ ...params, timestamp: String(rig.ex.time) }).toString()
  if (method === 'GET') {
    return rig.app.inject({ method, url: `${url}?${body}&signature=${hmac(keys.secretKey, body)}`, headers: { 'x-mbx-apikey': keys.apiKey } })
  }
  return rig.app.inject({ method, url, payload: `${body}&signature=${hmac(keys.secretKey, '', body)}`,
    headers: { 'x-mbx-apikey': keys.apiKey, 'content-type': 'application/x-www-form-urlencoded' } })
}

async function setup(t: { teardown(fn: () => unknown): void }) {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  return { rig, alice: (await fundedTrader(rig)).keys, bob: (await fundedTrader(rig)).keys }
}

const bid = (price: string, extra: Record<string, string> = {}) =>
  ({ symbol: S, side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', price, quantity: '0.010', ...extra })

t.test('GET /fapi/v1/orderAmendment: every amendment of one order, newest first', async (t) => {
  const { rig, alice } = await setup(t)
  const placed = (await signed(rig, alice, 'POST', '/fapi/v1/order', bid('50000.0', { newClientOrderId: 'am-1' }))).json()
  const amended: { id: number; time: number }[] = []
  for (const [price, quantity] of [['49000.0', '0.010'], ['49000.0', '0.020'], ['48500.5', '0.015']]) {
    const r = await signed(rig, alice, 'PUT', '/fapi/v1/order', { symbol: S, orderId: String(placed.orderId), side: 'BUY', price, quantity })
    t.equal(r.statusCode, 200, r.body)
    // The row's id is its entry's: seq × rows per entry, the first row of the entry.
    amended.push({ id: rig.ex.state.seq * 65_536, time: rig.ex.time })
  }
  const row = (i: number, before: [string, string], after: [string, string]) => ({
    amendmentId: amended[i]!.id, symbol: S, pair: 'BTCUSDT', orderId: placed.orderId, clientOrderId: 'am-1', time: amended[i]!.time,
    amendment: { price: { before: before[0], after: after[0] }, origQty: { before: before[1], after: after[1] }, count: i + 1 },
  })
  const all = [
    row(2, ['49000.0', '0.020'], ['48500.5', '0.015']),
    row(1, ['49000.0', '0.010'], ['49000.0', '0.020']),
    row(0, ['50000.0', '0.010'], ['49000.0', '0.010']),
  ]
  const byId = await signed(rig, alice, 'GET', '/fapi/v1/orderAmendment', { symbol: S, orderId: String(placed.orderId) })
  t.same(byId.json(), all)
  t.equal(byId.headers['x-mbx-used-weight-1m'] !== undefined, true)
  t.same((await signed(rig, alice, 'GET', '/fapi/v1/orderAmendment', { symbol: S, origClientOrderId: 'am-1' })).json(), all)
  t.same((await signed(rig, alice, 'GET', '/fapi/v1/orderAmendment', { symbol: S, orderId: String(placed.orderId), limit: '2' })).json(),
    all.slice(0, 2), 'limit: the newest')
  t.same((await signed(rig, alice, 'GET', '/fapi/v1/orderAmendment',
    { symbol: S, orderId: String(placed.orderId), startTime: String(amended[1]!.time), limit: '1' })).json(),
  [all[1]], 'startTime: the oldest from it')
  // Canceled, the order's history stays.
  const unamended = (await signed(rig, alice, 'POST', '/fapi/v1/order', bid('40000.0'))).json()
  const cancel = await rig.app.inject({ method: 'DELETE', url: '/fapi/v1/order?' + (() => {
    const q = new URLSearchParams({ symbol: S, orderId: String(placed.orderId), timestamp: String(rig.ex.time) }).toString()
    return `${q}&signature=${hmac(alice.secretKey, q)}`
  })(), headers: { 'x-mbx-apikey': alice.apiKey } })
  t.equal(cancel.statusCode, 200)
  t.same((await signed(rig, alice, 'GET', '/fapi/v1/orderAmendment', { symbol: S, origClientOrderId: 'am-1' })).json(), all)
  // An order never amended has none.
  t.same((await signed(rig, alice, 'GET', '/fapi/v1/orderAmendment', { symbol: S, orderId: String(unamended.orderId) })).json(), [])
})

t.test('GET /fapi/v1/orderAmendment errors', async (t) => {
  const { rig, alice, bob } = await setup(t)
  const placed = (await signed(rig, alice, 'POST', '/fapi/v1/order', bid('50000.0'))).json()
  const cases: [string, Record<string, string>, number, object][] = [
    ['no symbol', { orderId: '1' }, 400, { code: -1102, msg: "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed." }],
    ['no order', { symbol: S }, 400, { code: -1102, msg: "Param 'orderId' or 'origClientOrderId' must be sent, but both were empty/null!" }],
    ['unknown order', { symbol: S, orderId: '999' }, 400, { code: -2013, msg: 'Order does not exist.' }],
    ['unknown client id', { symbol: S, origClientOrderId: 'nope' }, 400, { code: -2013, msg: 'Order does not exist.' }],
    ['limit over 100', { symbol: S, orderId: String(placed.orderId), limit: '101' }, 400,
      { code: -1130, msg: "Data sent for parameter 'limit' is not valid." }],
  ]
  for (const [name, params, status, body] of cases) {
    const r = await signed(rig, alice, 'GET', '/fapi/v1/orderAmendment', params)
    t.same([r.statusCode, r.json()], [status, body], name)
  }
  // Another account's order is not found either.
  const other = await signed(rig, bob, 'GET', '/fapi/v1/orderAmendment', { symbol: S, orderId: String(placed.orderId) })
  t.same([other.statusCode, other.json().code], [400, -2013])
})

t.test('PUT /fapi/v1/order past the amendment cap: -5026, nothing changes', async (t) => {
  const { rig, alice } = await setup(t)
  const placed = (await signed(rig, alice, 'POST', '/fapi/v1/order', bid('50000.0'))).json()
  // The core loops to the cap in test/core/amend-price-match.test.ts; here the count is set to it.
  rig.ex.state.markets[1]!.book.orders.get(placed.orderId)!.amendCount = LIMITS.amendmentsPerOrderMax
  const before = stateRoot(rig.ex.state)
  const r = await signed(rig, alice, 'PUT', '/fapi/v1/order', { symbol: S, orderId: String(placed.orderId), side: 'BUY',
    price: '49000.0', quantity: '0.010' })
  t.same([r.statusCode, r.json()], [400, { code: -5026, msg: 'Exceed maximum modify order limit.' }])
  t.equal(stateRoot(rig.ex.state), before)
})

t.test('priceMatch over REST: placement, amendment, the record, and Binance\'s errors', async (t) => {
  const { rig, alice, bob } = await setup(t)
  const place = (params: Record<string, string>) => signed(rig, alice, 'POST', '/fapi/v1/order', params)
  const matched = (mode: string, extra: Record<string, string> = {}) =>
    ({ symbol: S, side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', priceMatch: mode, newOrderRespType: 'RESULT', ...extra })
  const empty = await place(matched('QUEUE'))
  t.same([empty.statusCode, empty.json()], [400, { code: -5041, msg: 'No depth matches this BBO order' }], 'no bids')
  for (const price of ['49999.0', '49990.0']) await signed(rig, bob, 'POST', '/fapi/v1/order', bid(price))
  await signed(rig, bob, 'POST', '/fapi/v1/order', { ...bid('50100.0'), side: 'SELL' })

  const r = await place(matched('QUEUE'))
  t.equal(r.statusCode, 200, r.body)
  t.match(r.json(), { status: 'NEW', price: '49999.0', priceMatch: 'QUEUE', type: 'LIMIT', origQty: '0.010' })
  const orderId = String(r.json().orderId)
  const query = await signed(rig, alice, 'GET', '/fapi/v1/order', { symbol: S, orderId })
  t.match(query.json(), { price: '49999.0', priceMatch: 'QUEUE' })
  const open = await signed(rig, alice, 'GET', '/fapi/v1/openOrders', { symbol: S })
  t.match(open.json(), [{ orderId: Number(orderId), priceMatch: 'QUEUE' }])

  // Amended by QUEUE_10 with two bid levels: the last one. The user stream shows the mode (pm).
  const users = new UserEvents()
  users.seed(rig.ex.state)
  const committed: Result[] = []
  const stop = rig.ctx.onCommitted!((c) => { committed.push(...c.results) })
  const m = await signed(rig, alice, 'PUT', '/fapi/v1/order', { symbol: S, orderId, side: 'BUY', quantity: '0.010', priceMatch: 'QUEUE_10' })
  t.equal(m.statusCode, 200, m.body)
  t.match(m.json(), { price: '49990.0', priceMatch: 'QUEUE_10' })
  stop()
  const pushed: Payload[] = []
  users.entry(rig.ex.state, rig.ex.time, committed[0]!.events, () => true, (_a, _s, p) => pushed.push(p))
  t.match(pushed, [{ e: 'ORDER_TRADE_UPDATE', o: { i: Number(orderId), x: 'AMENDMENT', p: '49990.0', pm: 'QUEUE_10' } }])
  const history = (await signed(rig, alice, 'GET', '/fapi/v1/orderAmendment', { symbol: S, orderId })).json()
  t.match(history, [{ amendment: { price: { before: '49999.0', after: '49990.0' }, origQty: { before: '0.010', after: '0.010' }, count: 1 } }])
  // Amended by an explicit price: the record is NONE again.
  const back = await signed(rig, alice, 'PUT', '/fapi/v1/order', { symbol: S, orderId, side: 'BUY', quantity: '0.010', price: '49000.0' })
  t.match(back.json(), { price: '49000.0', priceMatch: 'NONE' })

  const before = stateRoot(rig.ex.state)
  const refusals: [string, Record<string, string>, object][] = [
    ['price with priceMatch', matched('OPPONENT', { price: '50000.0' }), { code: -1106, msg: "Parameter 'price' sent when not required." }],
    ['unknown mode', matched('OPPONENT_3'), { code: -5037, msg: 'Invalid price match' }],
    ['MARKET', { symbol: S, side: 'BUY', type: 'MARKET', quantity: '0.010', priceMatch: 'OPPONENT' },
      { code: -5038, msg: 'Price match only supports order type: LIMIT, STOP AND TAKE_PROFIT' }],
  ]
  for (const [name, params, body] of refusals) {
    const x = await place(params)
    t.same([x.statusCode, x.json()], [400, body], name)
  }
  const modifyBoth = await signed(rig, alice, 'PUT', '/fapi/v1/order', { symbol: S, orderId, side: 'BUY', quantity: '0.010',
    price: '49500.0', priceMatch: 'QUEUE' })
  t.same([modifyBoth.statusCode, modifyBoth.json().code], [400, -1106], 'modify: price with priceMatch')
  t.equal(stateRoot(rig.ex.state), before, 'refusals change nothing')

  // OPPONENT in a batch takes the best ask at once.
  const batch = await signed(rig, alice, 'POST', '/fapi/v1/batchOrders', { batchOrders: JSON.stringify([matched('OPPONENT')]) })
  t.match(batch.json(), [{ status: 'FILLED', price: '50100.0', avgPrice: '50100.0', priceMatch: 'OPPONENT' }])

  // STOP and TAKE_PROFIT wait with the mode and no price; the book gives it at trigger (test/core/conditional.test.ts).
  const stopOrder = await place({ symbol: S, side: 'BUY', type: 'STOP', timeInForce: 'GTC', quantity: '0.010', stopPrice: '60000.0',
    priceMatch: 'OPPONENT', newOrderRespType: 'RESULT' })
  t.equal(stopOrder.statusCode, 200, stopOrder.body)
  t.match(stopOrder.json(), { type: 'STOP', status: 'NEW', price: '0.0', stopPrice: '60000.0', priceMatch: 'OPPONENT' })
  const algo = await signed(rig, alice, 'POST', '/fapi/v1/algoOrder', { symbol: S, algoType: 'CONDITIONAL', side: 'SELL',
    type: 'TAKE_PROFIT', quantity: '0.010', triggerPrice: '60000.0', priceMatch: 'QUEUE_5' })
  t.equal(algo.statusCode, 200, algo.body)
  t.match(algo.json(), { orderType: 'TAKE_PROFIT', algoStatus: 'NEW', price: '0.0', triggerPrice: '60000.0', priceMatch: 'QUEUE_5' })
})

t.test('the binance package: submitNewOrder with priceMatch, modifyOrder, getOrderModifyHistory', async (t) => {
  const { rig, alice, bob } = await setup(t)
  await signed(rig, bob, 'POST', '/fapi/v1/order', bid('49999.0'))
  const base = await rig.app.listen({ port: 0, host: '127.0.0.1' })
  const client = new USDMClient({ api_key: alice.apiKey, api_secret: alice.secretKey, baseUrl: base })
  // The rig's clock is the core's, not the wall's.
  client.setTimeOffset(rig.ex.time - Date.now())
  const placed = await client.submitNewOrder({ symbol: S, side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: 0.01,
    priceMatch: 'QUEUE', newOrderRespType: 'RESULT' })
  t.match(placed, { price: '49999.0', priceMatch: 'QUEUE' })
  client.setTimeOffset(rig.ex.time - Date.now())
  await client.modifyOrder({ symbol: S, orderId: placed.orderId, side: 'BUY', quantity: 0.02, price: 49000 })
  client.setTimeOffset(rig.ex.time - Date.now())
  const history = await client.getOrderModifyHistory({ symbol: S, orderId: placed.orderId })
  t.match(history, [{ symbol: S, orderId: placed.orderId, amendment: { price: { before: '49999.0', after: '49000.0' },
    origQty: { before: '0.010', after: '0.020' }, count: 1 } }])
})
