// The WebSocket API over real loopback: every method with its body (the REST route's own),
// HMAC and RSA signatures over the sorted params, session.logon then unsigned requests,
// refusals in Binance's shape that change nothing, one request-weight budget shared with
// REST, rateLimits on every response, and the same listenKey as REST.

import t from 'tap'
import { generateKeyPairSync, sign } from 'node:crypto'
import { stateRoot } from '../../core/root.js'
import { signaturePayload } from '../../gateway/ws-api/signing.js'
import { signedInject } from '../helpers/gateway.js'
import { connect, type Client } from './client.js'
import { signed, wsApiRig, type WsParams } from './ws-api-rig.js'

const ORDER = { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '40000.0' }
const WEIGHT = (count: number) => ({ rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 2400, count })
const ORDERS = (n10: number, n60: number) => [
  { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 300, count: n10 },
  { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: 1200, count: n60 },
]

type P = WsParams

const setup = (t: { teardown(fn: () => unknown): void }) => wsApiRig(t)

let nextId = 1
async function call(c: Client, method: string, params?: P): Promise<any> {
  const id = nextId++
  c.send({ id, method, ...(params !== undefined ? { params } : {}) })
  return c.next((m) => m.id === id)
}

t.test('the signature payload is the params sorted by key, signature left out', async (t) => {
  t.equal(signaturePayload(new Map([['timestamp', '5'], ['symbol', 'BTCUSDTPERP'], ['signature', 'x'], ['apiKey', 'k']])),
    'apiKey=k&symbol=BTCUSDTPERP&timestamp=5')
})

t.test('trading over the WebSocket API answers what REST answers', async (t) => {
  const { rig, open, keys } = await setup(t)
  const ws = await open()

  const placed = await call(ws, 'order.place', signed(rig, keys, { ...ORDER, newClientOrderId: 'ws-1' }))
  t.equal(placed.status, 200)
  t.same(placed.rateLimits, [WEIGHT(1), ...ORDERS(1, 1)], 'order methods report the order counts too (the weight 1 is REST\'s session request)')
  const rec = (await signedInject(rig, keys, 'GET', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: placed.result.orderId })).json()
  t.same(placed.result, {
    orderId: 1, symbol: 'BTCUSDTPERP', status: 'NEW', clientOrderId: 'ws-1', price: '40000.0', avgPrice: '0.0',
    origQty: '0.010', executedQty: '0.000', cumQty: '0.000', cumQuote: '0.0000', timeInForce: 'GTC', type: 'LIMIT',
    reduceOnly: false, closePosition: false, side: 'BUY', positionSide: 'BOTH', stopPrice: '0.0', workingType: 'CONTRACT_PRICE',
    priceProtect: false, origType: 'LIMIT', priceMatch: 'NONE', selfTradePreventionMode: 'EXPIRE_MAKER', goodTillDate: 0,
    updateTime: rec.updateTime,
  }, 'the RESULT form')

  const status = await call(ws, 'order.status', signed(rig, keys, { symbol: 'BTCUSDTPERP', origClientOrderId: 'ws-1' }))
  t.same(status.result, rec, 'order.status is GET /fapi/v1/order')
  t.same(status.rateLimits, [WEIGHT(1 + 4 + 4)], 'weight 4 after the REST query\'s 4 (order.place weighs 0)')

  const modified = await call(ws, 'order.modify', signed(rig, keys, { symbol: 'BTCUSDTPERP', orderId: 1, side: 'BUY', quantity: '0.020', price: '40100.0' }))
  t.equal(modified.status, 200)
  t.match(modified.result, { orderId: 1, status: 'NEW', price: '40100.0', origQty: '0.020' })
  t.same(modified.rateLimits.slice(1), ORDERS(2, 2), 'a modification counts as an order, as on REST')

  const balance = await call(ws, 'account.balance', signed(rig, keys, {}))
  t.same(balance.result, (await signedInject(rig, keys, 'GET', '/fapi/v2/balance')).json())
  const account = await call(ws, 'account.status', signed(rig, keys, {}))
  t.same(account.result, (await signedInject(rig, keys, 'GET', '/fapi/v2/account')).json())
  const positions = await call(ws, 'account.position', signed(rig, keys, { symbol: 'BTCUSDTPERP' }))
  t.same(positions.result, (await signedInject(rig, keys, 'GET', '/fapi/v2/positionRisk', { symbol: 'BTCUSDTPERP' })).json())
  t.equal(positions.result.length, 1)
  t.same((await call(ws, 'v2/account.balance', signed(rig, keys, {}))).result, balance.result, 'v2/account.balance answers as v1')
  // The v2 names are REST v3's: only symbols with a position or open orders (this one has a BTC bid, no ETH).
  const everyPosition = await call(ws, 'account.position', signed(rig, keys, {}))
  t.ok(everyPosition.result.some((r: { symbol: string }) => r.symbol === 'ETHUSDTPERP'), 'v1 lists every perpetual')
  const held = await call(ws, 'v2/account.position', signed(rig, keys, {}))
  t.same(held.result, (await signedInject(rig, keys, 'GET', '/fapi/v3/positionRisk')).json(), 'v2/account.position is GET /fapi/v3/positionRisk')
  t.same(held.result.map((r: { symbol: string }) => r.symbol), ['BTCUSDTPERP'])
  const heldAccount = await call(ws, 'v2/account.status', signed(rig, keys, {}))
  t.same(heldAccount.result, (await signedInject(rig, keys, 'GET', '/fapi/v3/account')).json(), 'v2/account.status is GET /fapi/v3/account')
  t.same(heldAccount.result.positions.map((r: { symbol: string }) => r.symbol), ['BTCUSDTPERP'])

  const depth = await call(ws, 'depth', { symbol: 'BTCUSDTPERP', limit: 5 })
  t.same(depth.result, { lastUpdateId: rig.ex.state.seq, E: rig.ex.time, T: rig.ex.time, bids: [['40100.0', '0.020']], asks: [] })
  const price = await call(ws, 'ticker.price', { symbol: 'BTCUSDTPERP' })
  t.same(price.result, (await rig.app.inject({ url: '/fapi/v1/ticker/price?symbol=BTCUSDTPERP' })).json())
  const book = await call(ws, 'ticker.book', { symbol: 'BTCUSDTPERP' })
  t.same(book.result, (await rig.app.inject({ url: '/fapi/v1/ticker/bookTicker?symbol=BTCUSDTPERP' })).json())
  t.match(book.result, { symbol: 'BTCUSDTPERP', bidPrice: '40100.0', bidQty: '0.020' })

  const cancelled = await call(ws, 'order.cancel', signed(rig, keys, { symbol: 'BTCUSDTPERP', orderId: 1 }))
  t.match(cancelled, { status: 200, result: { orderId: 1, status: 'CANCELED', clientOrderId: 'ws-1' } })
  t.equal(rig.ex.state.markets[1]!.book.orders.size, 0, 'the book is empty again')

  // Conditional orders in the algo forms: the STOP gets orderId 2, so algoId 2 × 256 + market 1.
  const algo = await call(ws, 'algoOrder.place', signed(rig, keys, { ...ORDER, algoType: 'CONDITIONAL', type: 'STOP',
    price: '39000.0', triggerPrice: '39000.0', clientAlgoId: 'algo-1' }))
  t.equal(algo.status, 200)
  t.match(algo.result, { algoId: 513, clientAlgoId: 'algo-1', algoType: 'CONDITIONAL', orderType: 'STOP', algoStatus: 'NEW',
    triggerPrice: '39000.0', price: '39000.0', quantity: '0.010', actualOrderId: '' })
  const algoCancel = await call(ws, 'algoOrder.cancel', signed(rig, keys, { algoId: 513 }))
  t.same(algoCancel.result, { algoId: 513, clientAlgoId: 'algo-1', code: '200', msg: 'success' })
})

t.test('the test network path serves the same API', async (t) => {
  const { open } = await setup(t)
  const ws = await open('/ws-api/v1')
  const price = await call(ws, 'ticker.price', { symbol: 'BTCUSDTPERP' })
  t.match(price, { status: 200, result: { symbol: 'BTCUSDTPERP', price: '0.0' } })
})

t.test('RSA signatures: base64 over the same sorted text', async (t) => {
  const { rig, open, keys } = await setup(t)
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const publicKey = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString()
  t.equal((await signedInject(rig, keys, 'POST', '/fapi/v1/apiKey/rsa', { publicKey })).statusCode, 200)
  const ws = await open()
  const p: P = { ...ORDER, newClientOrderId: 'rsa-ws', apiKey: keys.apiKey, timestamp: rig.ex.time }
  const text = signaturePayload(new Map(Object.entries(p).map(([k, v]) => [k, String(v)])))
  const signature = sign('sha256', Buffer.from(text), pair.privateKey).toString('base64')
  const placed = await call(ws, 'order.place', { ...p, signature })
  t.match(placed, { status: 200, result: { orderId: 1, clientOrderId: 'rsa-ws', status: 'NEW' } })
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const wrong = await call(ws, 'order.place', { ...p, newClientOrderId: 'rsa-x',
    signature: sign('sha256', Buffer.from(text), other.privateKey).toString('base64') })
  t.same(wrong.error, { code: -1022, msg: 'Signature for this request is not valid.' })
})

t.test('Ed25519 signatures: base64 over the same sorted text, and session.logon by one (as Binance asks)', async (t) => {
  const { rig, open, keys } = await setup(t)
  const pair = generateKeyPairSync('ed25519')
  const publicKey = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString()
  t.equal((await signedInject(rig, keys, 'POST', '/fapi/v1/apiKey/rsa', { publicKey })).statusCode, 200)
  const edSign = (p: P, key = pair.privateKey): string =>
    sign(null, Buffer.from(signaturePayload(new Map(Object.entries(p).map(([k, v]) => [k, String(v)])))), key).toString('base64')
  const ws = await open()
  const p: P = { ...ORDER, newClientOrderId: 'ed-ws', apiKey: keys.apiKey, timestamp: rig.ex.time }
  t.match(await call(ws, 'order.place', { ...p, signature: edSign(p) }), { status: 200, result: { orderId: 1, clientOrderId: 'ed-ws' } })
  const wrong = await call(ws, 'order.place', { ...p, newClientOrderId: 'ed-x', signature: edSign(p, generateKeyPairSync('ed25519').privateKey) })
  t.same(wrong.error, { code: -1022, msg: 'Signature for this request is not valid.' })

  const logonParams: P = { apiKey: keys.apiKey, timestamp: rig.ex.time }
  const logon = await call(ws, 'session.logon', { ...logonParams, signature: edSign(logonParams) })
  t.match(logon.result, { apiKey: keys.apiKey, authorizedSince: rig.ex.time })
  const unsigned = await call(ws, 'order.place', { ...ORDER, newClientOrderId: 'ed-logon', timestamp: rig.ex.time })
  t.match(unsigned, { status: 200, result: { orderId: 2, clientOrderId: 'ed-logon', status: 'NEW' } }, 'then requests go unsigned')
})

t.test('session.logon: later requests on the connection need no apiKey or signature', async (t) => {
  const { rig, open, keys } = await setup(t)
  const ws = await open()
  const connectedSince = rig.ex.time
  const before = await call(ws, 'session.status')
  t.same(before.result, { apiKey: null, authorizedSince: null, connectedSince, returnRateLimits: true, serverTime: rig.ex.time })
  const unsignedFirst = await call(ws, 'order.place', { ...ORDER, timestamp: rig.ex.time })
  t.same({ status: unsignedFirst.status, error: unsignedFirst.error },
    { status: 401, error: { code: -2014, msg: 'API-key format invalid.' } }, 'before logon an unsigned order is refused')

  const logon = await call(ws, 'session.logon', signed(rig, keys, {}))
  t.same(logon.result, { apiKey: keys.apiKey, authorizedSince: rig.ex.time, connectedSince, returnRateLimits: true, serverTime: rig.ex.time })
  const placed = await call(ws, 'order.place', { ...ORDER, newClientOrderId: 'logon-1', timestamp: rig.ex.time })
  t.match(placed, { status: 200, result: { orderId: 1, clientOrderId: 'logon-1' } })
  const stale = await call(ws, 'order.place', { ...ORDER, timestamp: rig.ex.time - 6000 })
  t.same(stale.error, { code: -1021, msg: 'Timestamp for this request is outside of the recvWindow.' }, 'the timestamp is still checked')

  const other = await open()
  const elsewhere = await call(other, 'order.place', { ...ORDER, timestamp: rig.ex.time })
  t.equal(elsewhere.error.code, -2014, 'the logon belongs to its connection only')

  const logout = await call(ws, 'session.logout')
  t.same(logout.result, { apiKey: null, authorizedSince: null, connectedSince, returnRateLimits: true, serverTime: rig.ex.time })
  const after = await call(ws, 'order.place', { ...ORDER, timestamp: rig.ex.time })
  t.equal(after.error.code, -2014)
  t.equal(rig.ex.state.markets[1]!.book.orders.size, 1, 'only the logged-on order was placed')
})

t.test('refusals in Binance\'s shape change nothing, and nothing a client sends crashes the server', async (t) => {
  const { rig, open, keys } = await setup(t)
  const ws = await open()
  const root = stateRoot(rig.ex.state)
  const good = signed(rig, keys, ORDER)
  const cases: [string, unknown, number, { code: number; msg: string }][] = [
    ['a bad signature', { id: 'a', method: 'order.place', params: { ...good, signature: '0'.repeat(64) } }, 400,
      { code: -1022, msg: 'Signature for this request is not valid.' }],
    ['a tampered param', { id: 'b', method: 'order.place', params: { ...good, quantity: '1.000' } }, 400,
      { code: -1022, msg: 'Signature for this request is not valid.' }],
    ['an old timestamp', { id: 'c', method: 'order.place', params: signed(rig, keys, { ...ORDER, recvWindow: 1000, timestamp: rig.ex.time - 2000 }) }, 400,
      { code: -1021, msg: 'Timestamp for this request is outside of the recvWindow.' }],
    ['a missing side', { id: 'd', method: 'order.place', params: signed(rig, keys, { symbol: 'BTCUSDTPERP', type: 'LIMIT', quantity: '1', price: '1' }) }, 400,
      { code: -1102, msg: "Mandatory parameter 'side' was not sent, was empty/null, or malformed." }],
    ['an unknown symbol', { id: 'e', method: 'order.place', params: signed(rig, keys, { ...ORDER, symbol: 'NOPE' }) }, 400,
      { code: -1121, msg: 'Invalid symbol.' }],
    ['params not an object', { id: 'f', method: 'depth', params: [1] }, 400,
      { code: -1135, msg: "Invalid 'params' in JSON request; expected an object." }],
    ['no method: answered with the request\'s id', { id: 'g0', params: {} }, 400,
      { code: -1102, msg: "Mandatory parameter 'method' was not sent, was empty/null, or malformed." }],
    ['an unknown method', { id: 'g', method: 'order.explode', params: {} }, 400,
      { code: -1020, msg: 'This operation is not supported.' }],
    // Looked up in the method table, these found Object.prototype's and answered 500.
    ['a method named constructor', { id: 'g2', method: 'constructor', params: {} }, 400,
      { code: -1020, msg: 'This operation is not supported.' }],
    ['a method named toString', { id: 'g3', method: 'toString', params: {} }, 400,
      { code: -1020, msg: 'This operation is not supported.' }],
    ['no apiKey', { id: 'h', method: 'account.balance', params: { timestamp: rig.ex.time } }, 401,
      { code: -2014, msg: 'API-key format invalid.' }],
  ]
  for (const [name, req, status, error] of cases) {
    ws.send(req)
    const r = await ws.next((m) => m.id === (req as { id: string }).id)
    t.same({ status: r.status, error: r.error }, { status, error }, name)
    t.equal(r.rateLimits[0].rateLimitType, 'REQUEST_WEIGHT', `${name}: rateLimits present`)
  }
  ws.send('{not json')
  const bad = await ws.next((m) => m.id === null)
  t.same({ status: bad.status, error: bad.error }, { status: 400, error: { code: -1135, msg: 'Invalid JSON Request.' } })
  ws.ws.send(Buffer.from([1, 2, 3]), { binary: true })
  t.equal((await ws.next((m) => m.id === null)).error.code, -1135, 'a binary frame')
  t.equal(stateRoot(rig.ex.state), root, 'the state root is unchanged')
  const still = await call(ws, 'ticker.price', { symbol: 'BTCUSDTPERP' })
  t.equal(still.status, 200, 'the connection and server still serve')
})

t.test('one request-weight budget per IP for REST and the WebSocket API', async (t) => {
  const { rig, open, keys, http } = await setup(t)
  const ws = await open()
  const first = await call(ws, 'account.balance', signed(rig, keys, {}))
  t.same(first.rateLimits, [WEIGHT(1 + 5)], 'the session was opened over REST (weight 1), then account.balance (5)')
  const rest = await fetch(`${http}/fapi/v1/depth?symbol=BTCUSDTPERP&limit=5`)
  t.equal(rest.headers.get('x-mbx-used-weight-1m'), '8', 'REST sees the WebSocket request\'s weight (6 + 2)')
  const second = await call(ws, 'depth', { symbol: 'BTCUSDTPERP', limit: 5 })
  t.same(second.rateLimits, [WEIGHT(10)], 'and the WebSocket API sees REST\'s')
})

t.test('returnRateLimits: the connection URL\'s default, each request\'s own; a refused order still reports the counts', async (t) => {
  const { rig, open, keys, address, http } = await setup(t)
  const quiet = await open('/ws-fapi/v1?returnRateLimits=false')
  const depth = await call(quiet, 'depth', { symbol: 'BTCUSDTPERP', limit: 5 })
  t.equal(depth.status, 200)
  t.notOk('rateLimits' in depth, 'returnRateLimits=false on the URL: none')
  t.match((await call(quiet, 'depth', { symbol: 'BTCUSDTPERP', limit: 5, returnRateLimits: true })).rateLimits,
    [{ rateLimitType: 'REQUEST_WEIGHT' }], 'unless the request asks')
  t.match((await call(quiet, 'session.status')).result, { returnRateLimits: false })
  const ws = await open()
  t.notOk('rateLimits' in await call(ws, 'ticker.price', { symbol: 'BTCUSDTPERP', returnRateLimits: false }), 'a request may leave them out')
  t.same((await call(ws, 'ticker.price', { symbol: 'BTCUSDTPERP', returnRateLimits: 'maybe' })).error,
    { code: -1130, msg: "Data sent for parameter 'returnRateLimits' is not valid." })
  const refused = await connect(`${http.replace('http:', 'ws:')}/ws-fapi/v1?returnRateLimits=maybe`).catch((e: { status: number; body: string }) => e)
  t.same([(refused as { status: number }).status, JSON.parse((refused as { body: string }).body)],
    [400, { code: -1130, msg: "Data sent for parameter 'returnRateLimits' is not valid." }], 'a connection URL with another value is refused')

  // Past the ORDERS limit the refusal (-1015) reports the counts that refused it, as an accepted order's answer does.
  for (let i = 0; i < 300; i++) rig.app.orders.count(`${address}/0`)
  const limited = await call(ws, 'order.place', signed(rig, keys, ORDER))
  t.match({ status: limited.status, error: limited.error }, { status: 429, error: { code: -1015 } })
  t.same(limited.rateLimits.slice(1), ORDERS(301, 301))
})

t.test('userDataStream.start gives the listenKey REST gives', async (t) => {
  const { rig, open, keys, http } = await setup(t)
  const ws = await open()
  const started = await call(ws, 'userDataStream.start', { apiKey: keys.apiKey })
  const rest = await (await fetch(`${http}/fapi/v1/listenKey`, { method: 'POST', headers: { 'x-mbx-apikey': keys.apiKey } })).json()
  t.same(started.result, rest)
  t.equal(started.result.listenKey.length, 64)
  const pinged = await call(ws, 'userDataStream.ping', { apiKey: keys.apiKey, listenKey: rest.listenKey })
  t.same(pinged.result, rest)
  const wrongKey = await call(ws, 'userDataStream.ping', { apiKey: keys.apiKey, listenKey: 'x'.repeat(64) })
  t.same(wrongKey.error, { code: -1125, msg: 'This listenKey does not exist.' })
  const stopped = await call(ws, 'userDataStream.stop', { apiKey: keys.apiKey })
  t.same({ status: stopped.status, result: stopped.result }, { status: 200, result: {} })
  const again = await call(ws, 'userDataStream.ping', { apiKey: keys.apiKey })
  t.equal(again.error.code, -1125, 'the key is gone')
  void rig
})
