// Trading over REST with signed requests: place (ACK and RESULT), query, open orders,
// cancel (with restrictions), cancel all, countdown cancel-all, leverage; Binance's errors for
// bad input and core rejections; one account never touches another's orders.

import t from 'tap'
import { gatewayRig, hmac, signedInject, type GatewayRig, fundedTrader } from '../helpers/gateway.js'

const trader = (rig: GatewayRig, usdt: number) => fundedTrader(rig, usdt)

async function setup(t: { teardown(fn: () => unknown): void }) {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  return { rig, alice: await trader(rig, 100_000), bob: await trader(rig, 100_000) }
}

t.test('place, fill, query, cancel', async (t) => {
  const { rig, alice, bob } = await setup(t)
  const placed = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'SELL',
    type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '50000.0', newClientOrderId: 'ask-1' })
  t.equal(placed.statusCode, 200)
  const ack = placed.json()
  t.same(Object.keys(ack).sort(), ['clientOrderId', 'orderId', 'product_id', 'symbol', 'transactTime'])
  t.match(ack, { symbol: 'BTCUSDTPERP', product_id: 1, orderId: 1, clientOrderId: 'ask-1' })
  t.equal(placed.headers['x-mbx-order-count-10s'], '1')
  t.equal(placed.headers['x-mbx-order-count-1m'], '1')

  // Bob takes 0.004 at 50000.0: notional 200 USDT.
  const taken = await signedInject(rig, bob.keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY',
    type: 'MARKET', quantity: '0.004', newOrderRespType: 'RESULT' })
  t.equal(taken.statusCode, 200)
  t.match(taken.json(), { symbol: 'BTCUSDTPERP', status: 'FILLED', type: 'MARKET', side: 'BUY', origQty: '0.004',
    executedQty: '0.004', cumQty: '0.004', avgPrice: '50000.0', cumQuote: '200.0000', positionSide: 'BOTH',
    reduceOnly: false, selfTradePreventionMode: 'EXPIRE_MAKER', timeInForce: 'GTC' })

  const q = await signedInject(rig, alice.keys, 'GET', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: 1 })
  t.match(q.json(), { orderId: 1, status: 'PARTIALLY_FILLED', executedQty: '0.004', price: '50000.0', origQty: '0.010', clientOrderId: 'ask-1' })
  t.ok('time' in q.json() && !('cumQty' in q.json()), 'records carry time, not cumQty')
  const open = await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openOrders', { symbol: 'BTCUSDTPERP' })
  t.same(open.json().map((o: { orderId: number }) => o.orderId), [1])
  const one = await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openOrder', { symbol: 'BTCUSDTPERP', origClientOrderId: 'ask-1' })
  t.same(one.json(), open.json()[0], 'openOrder: the one open order, by client id')
  t.same((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openOrder', { symbol: 'BTCUSDTPERP', orderId: 1 })).json(), open.json()[0])
  t.same((await signedInject(rig, bob.keys, 'GET', '/fapi/v1/openOrder', { symbol: 'BTCUSDTPERP', orderId: 1 })).json(),
    { code: -2013, msg: 'Order does not exist.' }, "not another account's")
  t.same((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openOrder', { symbol: 'BTCUSDTPERP' })).json(),
    { code: -1102, msg: "Param 'orderId' or 'origClientOrderId' must be sent, but both were empty/null!" })

  const bobCancels = await signedInject(rig, bob.keys, 'DELETE', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: 1 })
  t.same(bobCancels.json(), { code: -2011, msg: 'Unknown order sent.' }, 'another account cannot cancel it')
  const restricted = await signedInject(rig, alice.keys, 'DELETE', '/fapi/v1/order', { symbol: 'BTCUSDTPERP',
    origClientOrderId: 'ask-1', cancelRestrictions: 'ONLY_NEW' })
  t.same(restricted.json(), { code: -2011, msg: 'Order was not canceled due to cancel restrictions.' })
  const canceled = await signedInject(rig, alice.keys, 'DELETE', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', origClientOrderId: 'ask-1' })
  t.match(canceled.json(), { orderId: 1, status: 'CANCELED', executedQty: '0.004' })
  const after = await signedInject(rig, alice.keys, 'GET', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: 1 })
  t.match(after.json(), { orderId: 1, status: 'CANCELED' }, 'history answers for closed orders')
  const gone = await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openOrder', { symbol: 'BTCUSDTPERP', orderId: 1 })
  t.same([gone.statusCode, gone.json()], [400, { code: -2013, msg: 'Order does not exist.' }], 'openOrder: not once canceled')
  const missing = await signedInject(rig, alice.keys, 'GET', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: 99 })
  t.same(missing.json(), { code: -2013, msg: 'Order does not exist.' })
})

t.test('cancel all and leverage', async (t) => {
  const { rig, alice } = await setup(t)
  for (const price of ['40000.0', '40001.0']) {
    await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT',
      timeInForce: 'GTC', quantity: '0.010', price })
  }
  const all = await signedInject(rig, alice.keys, 'DELETE', '/fapi/v1/allOpenOrders', { symbol: 'BTCUSDTPERP' })
  t.same(all.json(), { code: 200, msg: 'The operation of cancel all open order is done.' })
  t.same((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openOrders', {})).json(), [])
  const lev = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/leverage', { symbol: 'BTCUSDTPERP', leverage: 10 })
  t.same(lev.json(), { leverage: 10, maxNotionalValue: '230000000', symbol: 'BTCUSDTPERP' })
  const tooHigh = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/leverage', { symbol: 'BTCUSDTPERP', leverage: 126 })
  t.equal(tooHigh.statusCode, 400)
  t.equal(tooHigh.json().code, -4028)
})

t.test('countdownCancelAll: the open orders go at the first tick past the countdown, unless called again', async (t) => {
  const { rig, alice } = await setup(t)
  const place = (price: string) => signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY',
    type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price })
  const openIds = async () => (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openOrders', {})).json().map((o: { orderId: number }) => o.orderId)
  const arm = (countdownTime: string) => signedInject(rig, alice.keys, 'POST', '/fapi/v1/countdownCancelAll', { symbol: 'BTCUSDTPERP', countdownTime })
  await place('40000.0')
  t.same((await arm('5000')).json(), { symbol: 'BTCUSDTPERP', countdownTime: '5000' })
  await place('40001.0')
  await rig.run({ type: 'Tick' }, 3000)
  t.same((await arm('5000')).json().countdownTime, '5000', 'a heartbeat')
  await rig.run({ type: 'Tick' }, 4000)
  t.same(await openIds(), [1, 2], 'seven seconds after the first call, four after the heartbeat: still open')
  await rig.run({ type: 'Tick' }, 1000)
  t.same(await openIds(), [], 'gone at the first tick past the heartbeat\'s countdown')
  t.match((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: 2 })).json(), { status: 'CANCELED' })

  await place('40002.0')
  t.same((await arm('1000')).json().countdownTime, '1000')
  t.same((await arm('0')).json(), { symbol: 'BTCUSDTPERP', countdownTime: '0' }, '0 clears it')
  await rig.run({ type: 'Tick' }, 5000)
  t.same(await openIds(), [3])

  t.same((await arm('-1')).json(), { code: -1130, msg: "Data sent for parameter 'countdownTime' is not valid." })
  t.same((await arm('1.5')).json(), { code: -1130, msg: "Data sent for parameter 'countdownTime' is not valid." })
  t.same((await arm('86400001')).json(), { code: -1130, msg: "Data sent for parameter 'countdownTime' is not valid." })
  t.same((await signedInject(rig, alice.keys, 'POST', '/fapi/v1/countdownCancelAll', { symbol: 'BTCUSDTPERP' })).json(),
    { code: -1102, msg: "Mandatory parameter 'countdownTime' was not sent, was empty/null, or malformed." })
  t.same((await signedInject(rig, alice.keys, 'POST', '/fapi/v1/countdownCancelAll', { symbol: 'NOPE', countdownTime: '1000' })).json(),
    { code: -1121, msg: 'Invalid symbol.' })
  await rig.run({ type: 'Tick' }, 100_000)
  t.same(await openIds(), [3], 'no refused call armed anything')
})

t.test('bad orders get Binance errors and change nothing', async (t) => {
  const { rig, alice } = await setup(t)
  const base = { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '40000.0' }
  const rows: [string, Record<string, string>, number][] = [
    ['price off tick', { ...base, price: '40000.05' }, -1111],
    ['missing quantity', { ...base, quantity: '' }, -1102],
    ['bad side', { ...base, side: 'UP' }, -1117],
    ['bad type', { ...base, type: 'ICEBERG' }, -1116],
    ['bad time in force', { ...base, timeInForce: 'DAY' }, -1115],
    ['LIMIT without time in force', { ...base, timeInForce: '' }, -1102],
    ['MARKET with a price', { ...base, type: 'MARKET', timeInForce: '' }, -1106],
    ['below min notional', { ...base, quantity: '0.001', price: '40000.0' }, -4164],
    ['below min price', { ...base, price: '50.0' }, -4013],
    ['margin insufficient', { ...base, quantity: '900.000', price: '100000.0' }, -2019],
    ['unknown symbol', { ...base, symbol: 'DOGEUSDTPERP' }, -1121],
    ['a spot symbol', { ...base, symbol: 'BTCUSDT' }, -1121],
    ['bad positionSide', { ...base, positionSide: 'UP' }, -4060],
    ['closePosition with quantity', { ...base, closePosition: 'true' }, -4137],
  ]
  const seq = rig.ex.state.seq
  for (const [name, params, code] of rows) {
    const r = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', params)
    t.equal(r.statusCode, 400, `${name}: 400`)
    t.equal(r.json().code, code, `${name}: ${code}`)
  }
  const unchanged = rig.ex.state.seq
  t.ok(unchanged - seq <= 2, 'only the core rejections reached the log (margin, notional)')
  // A name sent twice, correctly signed, in the query or in the body: refused, not the last value
  // taken. Once in each is allowed (the query wins).
  const sign = (text: string) => `${text}&signature=${hmac(alice.keys.secretKey, text)}`
  const order = `symbol=BTCUSDTPERP&side=BUY&type=LIMIT&timeInForce=GTC&price=40000.0&timestamp=${rig.ex.time}`
  const twice = `${order}&quantity=0.010&quantity=0.500`
  const headers = { 'x-mbx-apikey': alice.keys.apiKey, 'content-type': 'application/x-www-form-urlencoded' }
  for (const [where, r] of [
    ['query', await rig.app.inject({ method: 'POST', url: `/fapi/v1/order?${sign(twice)}`, headers })],
    ['body', await rig.app.inject({ method: 'POST', url: '/fapi/v1/order', headers, payload: sign(twice) })],
  ] as const) {
    t.equal(r.statusCode, 400, `twice in the ${where}: 400`)
    t.same(r.json(), { code: -1101, msg: 'Duplicate values for a parameter detected.' }, `twice in the ${where}: -1101`)
  }
  t.equal(rig.ex.state.seq, unchanged, 'neither reached the log')
  t.same((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openOrders', {})).json(), [], 'no order rests')
  const both = await rig.app.inject({ method: 'POST', url: `/fapi/v1/order?${order}&quantity=0.010`, headers,
    payload: `quantity=0.500&signature=${hmac(alice.keys.secretKey, `${order}&quantity=0.010quantity=0.500`)}` })
  t.equal(both.statusCode, 200, 'once in the query and once in the body: accepted')
  const placed = await signedInject(rig, alice.keys, 'GET', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: both.json().orderId })
  t.equal(placed.json().origQty, '0.010', 'the query\'s value')
})

t.test('Content-Type application/json: an empty body is no body, and a JSON body carries no parameters', async (t) => {
  const { rig, alice } = await setup(t)
  const headers = { 'x-mbx-apikey': alice.keys.apiKey, 'content-type': 'application/json' }
  const signed = (query: string) => `${query}&signature=${hmac(alice.keys.secretKey, query)}`
  const order = `symbol=BTCUSDTPERP&side=BUY&type=LIMIT&timeInForce=GTC&price=40000.0&quantity=0.010&timestamp=${rig.ex.time}`
  // Binance's own connectors send every request so: the parameters in the query, the body empty.
  const empty = await rig.app.inject({ method: 'POST', url: `/fapi/v1/order?${signed(order)}`, headers })
  t.equal(empty.statusCode, 200, empty.body)
  t.match(empty.json(), { symbol: 'BTCUSDTPERP', orderId: Number })
  const seq = rig.ex.state.seq
  // Parameters in a JSON body are not read (Binance takes a query string or a form body).
  const json = await rig.app.inject({ method: 'POST', url: `/fapi/v1/order?${signed(`timestamp=${rig.ex.time}`)}`, headers,
    payload: JSON.stringify({ symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', price: '40000.0', quantity: '0.010' }) })
  t.equal(json.statusCode, 400)
  t.same(json.json(), { code: -1102, msg: "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed." })
  t.equal(rig.ex.state.seq, seq, 'the JSON body placed nothing')
  const notJson = await rig.app.inject({ method: 'POST', url: `/fapi/v1/order?${signed(order)}`, headers, payload: '{"symbol":' })
  t.equal(notJson.statusCode, 200, 'a body that is not even JSON is no body either')
})

t.test('the price band: -4016 and -4024 name the cap and floor at the mark, -4131 refuses a market order', async (t) => {
  const { rig, alice, bob } = await setup(t)
  const order = (keys: typeof alice.keys, params: Record<string, string>) =>
    signedInject(rig, keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', quantity: '0.010', ...params })
  // A trade at 50000.0 sets the mark (no oracle: the last trade).
  t.equal((await order(bob.keys, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', price: '50000.0' })).statusCode, 200)
  t.equal((await order(alice.keys, { side: 'BUY', type: 'MARKET' })).statusCode, 200)
  const high = await order(alice.keys, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', price: '52500.1' })
  t.equal(high.statusCode, 400)
  t.same(high.json(), { code: -4016, msg: 'Limit price can\'t be higher than 52500.0.' })
  const low = await order(bob.keys, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', price: '47499.9' })
  t.same(low.json(), { code: -4024, msg: 'Limit price can\'t be lower than 47500.0.' })
  t.equal((await order(bob.keys, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', price: '52600.0' })).statusCode, 200,
    'a sell above the cap is no risk: it rests')
  const market = await order(alice.keys, { side: 'BUY', type: 'MARKET' })
  t.equal(market.statusCode, 400)
  t.same(market.json(), { code: -4131, msg: 'The counterparty\'s best price does not meet the PERCENT_PRICE filter limit.' })
  const open = await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openOrders', {})
  t.same(open.json(), [], 'nothing of alice\'s rests')
})
