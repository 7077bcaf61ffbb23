// Order batches and amendments over REST: up to 5 orders placed in one request with each
// refusal in its place, amendments (single and batch) that keep ids and lose priority,
// batch cancels by id or client id, and Binance's errors for bad batches, all changing nothing.

import t from 'tap'
import { Wallet } from 'ethers'
import { stateRoot } from '../../core/root.js'
import { UserEvents, type Payload } from '../../gateway/user-data/events.js'
import { gatewayRig, hmac, type GatewayRig, type Keys, fundedTrader } from '../helpers/gateway.js'

const trader = async (rig: GatewayRig, usdt: number): Promise<Keys> => (await fundedTrader(rig, usdt)).keys

async function setup(t: { teardown(fn: () => unknown): void }) {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  return { rig, alice: await trader(rig, 100_000), bob: await trader(rig, 100_000) }
}

/** A signed request with its params in a form body (as clients send POST, PUT and DELETE). */
function signedBody(rig: GatewayRig, keys: Keys, method: 'POST' | 'PUT' | 'DELETE' | 'GET', url: string,
  params: Record<string, string>) {
  const body = new URLSearchParams({ ...params, timestamp: String(rig.ex.time) }).toString()
  if (method === 'GET') {
    return rig.app.inject({ method, url: `${url}?${body}&signature=${hmac(keys.secretKey, body)}`, headers: { 'x-mbx-apikey': keys.apiKey } })
  }
  return rig.app.inject({ method, url, payload: `${body}&signature=${hmac(keys.secretKey, '', body)}`,
    headers: { 'x-mbx-apikey': keys.apiKey, 'content-type': 'application/x-www-form-urlencoded' } })
}

const S = 'BTCUSDTPERP'
const ask = (price: string, qty: string, extra: Record<string, string> = {}) =>
  ({ symbol: S, side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', price, quantity: qty, ...extra })

t.test('place a batch: each order or its refusal in place, order limits counted per order', async (t) => {
  const { rig, alice, bob } = await setup(t)
  const batch = [
    ask('60000.0', '0.010', { newClientOrderId: 'b-1' }),
    ask('60000.05', '0.010'),
    { symbol: 'NOPE', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', price: '1', quantity: '1' },
    ask('61000.0', '0.020', { newOrderRespType: 'ACK', newClientOrderId: 'b-4' }),
    { ...ask('62000.0', '0.001'), quantity: 0.001 },
  ]
  const before = Number((await rig.app.inject({ method: 'GET', url: '/fapi/v1/ping' })).headers['x-mbx-used-weight-1m'])
  const r = await signedBody(rig, alice, 'POST', '/fapi/v1/batchOrders', { batchOrders: JSON.stringify(batch) })
  t.equal(r.statusCode, 200)
  t.equal(r.headers['x-mbx-order-count-10s'], '5')
  t.equal(r.headers['x-mbx-used-weight-1m'], String(before + 5))
  const body = r.json()
  t.equal(body.length, 5)
  t.match(body[0], { orderId: 1, symbol: S, status: 'NEW', clientOrderId: 'b-1', price: '60000.0', origQty: '0.010',
    executedQty: '0.000', cumQty: '0.000', type: 'LIMIT', side: 'SELL', timeInForce: 'GTC' })
  t.same(body[1], { code: -1111, msg: 'Precision is over the maximum defined for this asset.' })
  t.same(body[2], { code: -1121, msg: 'Invalid symbol.' })
  t.same(Object.keys(body[3]).sort(), ['clientOrderId', 'orderId', 'product_id', 'symbol', 'transactTime'])
  t.match(body[3], { orderId: 2, clientOrderId: 'b-4' })
  // A number where Binance sends strings is read the same; 0.001 × 62000 is below the 100 minimum.
  t.same(body[4], { code: -4164, msg: "Order's notional must be no smaller than 100 (unless you choose reduce only)." })

  // Bob takes with a batch too: the first order fills against Alice's best ask.
  const taken = await signedBody(rig, bob, 'POST', '/fapi/v1/batchOrders', {
    batchOrders: JSON.stringify([{ symbol: S, side: 'BUY', type: 'MARKET', quantity: '0.004' }]) })
  t.match(taken.json(), [{ status: 'FILLED', executedQty: '0.004', avgPrice: '60000.0', cumQuote: '240.0000' }])
})

t.test('bad batches are refused whole and change nothing', async (t) => {
  const { rig, alice } = await setup(t)
  const root = stateRoot(rig.ex.state)
  const six = JSON.stringify(Array.from({ length: 6 }, () => ask('60000.0', '0.010')))
  const cases: [string, Record<string, string>, { code: number; msg: string }][] = [
    ['missing', {}, { code: -1102, msg: "Mandatory parameter 'batchOrders' was not sent, was empty/null, or malformed." }],
    ['not JSON', { batchOrders: '[{' }, { code: -1130, msg: "Data sent for parameter 'batchOrders' is not valid." }],
    ['not a list', { batchOrders: '{}' }, { code: -1130, msg: "Data sent for parameter 'batchOrders' is not valid." }],
    ['empty', { batchOrders: '[]' }, { code: -4082, msg: 'Invalid number of batch place orders.' }],
    ['six', { batchOrders: six }, { code: -4082, msg: 'Invalid number of batch place orders.' }],
    ['element not an object', { batchOrders: '[1]' }, { code: -1130, msg: "Data sent for parameter 'batchOrders' is not valid." }],
  ]
  for (const [name, params, want] of cases) {
    const r = await signedBody(rig, alice, 'POST', '/fapi/v1/batchOrders', params)
    t.equal(r.statusCode, 400, name)
    t.same(r.json(), want, name)
  }
  t.equal(stateRoot(rig.ex.state), root)
})

t.test('amend one order: same ids, new price and quantity, back of the queue', async (t) => {
  const { rig, alice, bob } = await setup(t)
  await signedBody(rig, alice, 'POST', '/fapi/v1/order', ask('60000.0', '0.010', { newClientOrderId: 'a-1' }))
  await signedBody(rig, bob, 'POST', '/fapi/v1/order', ask('60000.0', '0.010'))
  const r = await signedBody(rig, alice, 'PUT', '/fapi/v1/order',
    { symbol: S, origClientOrderId: 'a-1', side: 'SELL', price: '60000.0', quantity: '0.020' })
  t.equal(r.statusCode, 200)
  t.equal(r.headers['x-mbx-order-count-1m'], '2')
  t.match(r.json(), { orderId: 1, clientOrderId: 'a-1', status: 'NEW', price: '60000.0', origQty: '0.020', cumQty: '0.000' })
  // Bob's order is now ahead: a 0.015 buy fills his 0.010 first.
  const carol = await trader(rig, 100_000)
  await signedBody(rig, carol, 'POST', '/fapi/v1/order', { symbol: S, side: 'BUY', type: 'MARKET', quantity: '0.015' })
  const q = await signedBody(rig, alice, 'GET', '/fapi/v1/order', { symbol: S, orderId: '1' })
  t.match(q.json(), { status: 'PARTIALLY_FILLED', executedQty: '0.005', origQty: '0.020' })

  // Down to what filled: Binance cancels the order.
  const c = await signedBody(rig, alice, 'PUT', '/fapi/v1/order', { symbol: S, orderId: '1', side: 'SELL', price: '60000.0', quantity: '0.005' })
  t.match(c.json(), { orderId: 1, status: 'CANCELED', executedQty: '0.005' })

  const errors: [Record<string, string>, { code: number; msg: string }][] = [
    [{ symbol: S, orderId: '1', side: 'SELL', price: '60000.0', quantity: '0.020' }, { code: -2013, msg: 'Order does not exist.' }],
    [{ symbol: S, side: 'SELL', price: '60000.0', quantity: '0.020' },
      { code: -1102, msg: "Param 'orderId' or 'origClientOrderId' must be sent, but both were empty/null!" }],
    [{ symbol: S, orderId: '1', price: '60000.0', quantity: '0.020' },
      { code: -1102, msg: "Mandatory parameter 'side' was not sent, was empty/null, or malformed." }],
    [{ symbol: S, orderId: '1', side: 'SELL', quantity: '0.020' },
      { code: -1102, msg: "Mandatory parameter 'price' was not sent, was empty/null, or malformed." }],
    [{ symbol: S, orderId: '1', side: 'SELL', price: '60000.0', quantity: '0.020', priceMatch: 'QUEUE_3' },
      { code: -5037, msg: 'Invalid price match' }],
  ]
  for (const [params, want] of errors) t.same((await signedBody(rig, alice, 'PUT', '/fapi/v1/order', params)).json(), want)
})

t.test('amend refusals: unchanged, wrong side, notional, another account', async (t) => {
  const { rig, alice, bob } = await setup(t)
  await signedBody(rig, alice, 'POST', '/fapi/v1/order', { symbol: S, side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
    price: '50000.0', quantity: '0.010' })
  const root = stateRoot(rig.ex.state)
  const amend = (keys: Keys, extra: Record<string, string>) => signedBody(rig, keys, 'PUT', '/fapi/v1/order',
    { symbol: S, orderId: '1', side: 'BUY', price: '50000.0', quantity: '0.010', ...extra })
  t.same((await amend(alice, {})).json(), { code: -5027, msg: 'No need to modify the order.' })
  t.same((await amend(alice, { side: 'SELL', quantity: '0.02' })).json(), { code: -1117, msg: 'Invalid side.' })
  t.same((await amend(alice, { price: '40000.0', quantity: '0.002' })).json(),
    { code: -5029, msg: "Order's notional must be no smaller than 100" })
  t.same((await amend(bob, { quantity: '0.02' })).json(), { code: -2013, msg: 'Order does not exist.' })
  t.equal(stateRoot(rig.ex.state), root)

  // A new price through the book trades at once, as a taker.
  await signedBody(rig, bob, 'POST', '/fapi/v1/order', ask('50500.0', '0.004'))
  const crossed = await amend(alice, { price: '50500.0' })
  t.match(crossed.json(), { orderId: 1, status: 'PARTIALLY_FILLED', executedQty: '0.004', avgPrice: '50500.0', price: '50500.0' })
})

t.test('amend and cancel in batches', async (t) => {
  const { rig, alice } = await setup(t)
  for (const [price, id] of [['60000.0', 'x1'], ['60100.0', 'x2'], ['60200.0', 'x3']] as const) {
    await signedBody(rig, alice, 'POST', '/fapi/v1/order', ask(price, '0.010', { newClientOrderId: id }))
  }
  const amended = await signedBody(rig, alice, 'PUT', '/fapi/v1/batchOrders', { batchOrders: JSON.stringify([
    { symbol: S, orderId: 1, side: 'SELL', price: '59000.0', quantity: '0.003' },
    { symbol: S, orderId: 2, side: 'SELL', price: '60100.0', quantity: '0.010' },
    { symbol: S, origClientOrderId: 'x3', side: 'SELL', price: '60300.0', quantity: '0.020' },
  ]) })
  t.equal(amended.headers['x-mbx-order-count-10s'], '6')
  t.match(amended.json(), [
    { orderId: 1, price: '59000.0', origQty: '0.003', status: 'NEW' },
    { code: -5027, msg: 'No need to modify the order.' },
    { orderId: 3, clientOrderId: 'x3', price: '60300.0', origQty: '0.020' },
  ])

  const canceled = await signedBody(rig, alice, 'DELETE', '/fapi/v1/batchOrders', { symbol: S, orderIdList: '[1,99]' })
  t.match(canceled.json(), [{ orderId: 1, status: 'CANCELED' }, { code: -2011, msg: 'Unknown order sent.' }])
  // ccxt's lower-case names and quoted client ids.
  const byClient = await signedBody(rig, alice, 'DELETE', '/fapi/v1/batchOrders', { symbol: S, origclientorderidlist: '["x2","x3"]' })
  t.match(byClient.json(), [{ orderId: 2, clientOrderId: 'x2', status: 'CANCELED' }, { orderId: 3, status: 'CANCELED' }])
  // Binance's own connector sends the ids as strings of digits.
  await signedBody(rig, alice, 'POST', '/fapi/v1/order', ask('60400.0', '0.010'))
  const quoted = await signedBody(rig, alice, 'DELETE', '/fapi/v1/batchOrders', { symbol: S, orderIdList: '["4"]' })
  t.match(quoted.json(), [{ orderId: 4, status: 'CANCELED' }])
  t.equal(rig.ex.state.markets[1]!.book.orders.size, 0)
  for (const list of ['["1.5"]', '["-1"]', '["1e3"]', '[""]', '[" 4"]', '["99999999999999999"]', '[true]', '[[4]]']) {
    const r = await signedBody(rig, alice, 'DELETE', '/fapi/v1/batchOrders', { symbol: S, orderIdList: list })
    t.same(r.json(), { code: -1130, msg: "Data sent for parameter 'orderIdList' is not valid." }, list)
  }

  const none = await signedBody(rig, alice, 'DELETE', '/fapi/v1/batchOrders', { symbol: S })
  t.same(none.json(), { code: -1102, msg: "Param 'orderIdList' or 'origClientOrderIdList' must be sent, but both were empty/null!" })
  const eleven = await signedBody(rig, alice, 'DELETE', '/fapi/v1/batchOrders', { symbol: S, orderIdList: JSON.stringify(Array.from({ length: 11 }, (_, i) => i + 1)) })
  t.same(eleven.json(), { code: -1130, msg: "Data sent for parameter 'orderIdList' is not valid." })
})

t.test("an amendment reaches the user data stream as execution type AMENDMENT", async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 100_000_000_000, wallet: 'PERP', ref: 'x' })
  await rig.run({ type: 'PlaceOrder', account: wallet.address, sub: 0, marketId: 1, side: 'BUY', orderType: 'LIMIT',
    timeInForce: 'GTC', priceTicks: 500_000, qtyLots: 10, clientOrderId: 'bid-1' })
  const users = new UserEvents()
  users.seed(rig.ex.state)
  const got: Payload[] = []
  const r = await rig.run({ type: 'ModifyOrder', account: wallet.address, sub: 0, marketId: 1, orderId: 1, side: 'BUY',
    priceTicks: 499_000, qtyLots: 20 })
  users.entry(rig.ex.state, rig.ex.time, r.events, () => true, (_a, _s, p) => got.push(p))
  t.match(got, [{ e: 'ORDER_TRADE_UPDATE', T: rig.ex.time, o: { s: S, c: 'bid-1', i: 1, x: 'AMENDMENT', X: 'NEW', p: '49900.0',
    q: '0.020', z: '0.000' } }])
})
