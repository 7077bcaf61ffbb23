// The spot user data stream over real WebSocket: a spot listen key (/api/v3/userDataStream)
// streams executionReport and outboundAccountPosition, and the futures key does not (nor the
// other way round); the spot WebSocket API (/ws-api/v3) delivers the same events to
// subscriptions made by signature or on the logged-on session, wrapped as {subscriptionId,
// event}, ending them with eventStreamTerminated on unsubscribe, logout or revocation.

import t from 'tap'
import { signedInject, spotTraders, type Keys } from '../helpers/gateway.js'
import { sleep, type Client } from './client.js'
import { listeningRig, signed, type WsParams } from './ws-api-rig.js'

async function setup(t: { teardown(fn: () => unknown): void }) {
  const { rig, open } = await listeningRig(t, { listenKeySweepMs: 50 })
  const key = async (keys: Keys, url: string): Promise<string> =>
    (await rig.app.inject({ method: 'POST', url, headers: { 'x-mbx-apikey': keys.apiKey } })).json().listenKey
  const { seller, buyer, sellerWallet } = await spotTraders(rig)
  return { rig, open, key, alice: seller, bob: buyer, aliceAddress: sellerWallet.address }
}

const ASK = { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.1000', price: '50000.00' }

let nextId = 1
async function call(c: Client, method: string, params?: WsParams): Promise<any> {
  const id = nextId++
  c.send({ id, method, ...(params !== undefined ? { params } : {}) })
  return c.next((m) => m.id === id)
}

t.test('a spot listen key streams the spot events; the futures key the futures ones', async (t) => {
  const { rig, open, key, alice, aliceAddress } = await setup(t)
  const spotKey = await key(alice, '/api/v3/userDataStream')
  const spot = await open(`/ws/${spotKey}`)
  const combined = await open(`/stream?streams=${spotKey}`)
  const futures = await open(`/ws/${await key(alice, '/fapi/v1/listenKey')}`)
  await sleep(20)

  t.equal((await signedInject(rig, alice, 'POST', '/api/v3/order', { ...ASK, newClientOrderId: 'ask-1' })).statusCode, 200)
  t.match(await spot.next((m) => m.e === 'executionReport'),
    { s: 'BTCUSDT', c: 'ask-1', S: 'SELL', o: 'LIMIT', x: 'NEW', X: 'NEW', q: '0.1000', p: '50000.00', w: true })
  t.match(await spot.next((m) => m.e === 'outboundAccountPosition'), { B: [{ a: 'BTC', f: '0.90000000', l: '0.10000000' }] })
  const wrapped = await combined.next((m) => m.data?.e === 'executionReport')
  t.equal(wrapped.stream, spotKey, 'the combined form names the listen key')

  // A perp order: on the futures stream only.
  await rig.run({ type: 'Deposit', account: aliceAddress, sub: 0, asset: 'USDT', amount: 10_000_000_000, wallet: 'PERP', ref: 'p' })
  await signedInject(rig, alice, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
    quantity: '0.010', price: '40000.0' })
  t.match(await futures.next((m) => m.e === 'ORDER_TRADE_UPDATE'), { o: { s: 'BTCUSDTPERP', x: 'NEW' } })
  await sleep(50)
  t.same(futures.messages.filter((m: any) => m.e === 'executionReport' || m.e === 'outboundAccountPosition'), [],
    'no spot event on the futures stream')
  t.same(spot.messages.filter((m: any) => m.e === 'ORDER_TRADE_UPDATE' || m.e === 'ACCOUNT_UPDATE'), [],
    'no futures event on the spot stream')

  // The spot key runs out: listenKeyExpired.
  await rig.run({ type: 'Tick' }, 61 * 60_000)
  t.same(await spot.next((m) => m.e === 'listenKeyExpired'), { e: 'listenKeyExpired', E: rig.ex.time, listenKey: spotKey })
})

t.test('spot WebSocket API: subscriptions by signature and on the logged-on session', async (t) => {
  const { rig, open, key, alice, bob } = await setup(t)
  const ws = await open('/ws-api/v3')

  t.match(await call(ws, 'userDataStream.subscribe'), { status: 403, error: { code: -2015 } }, 'not logged on: refused')
  const sub = await call(ws, 'userDataStream.subscribe.signature', signed(rig, alice, {}))
  t.same([sub.status, sub.result], [200, { subscriptionId: 0 }])
  t.match(await call(ws, 'userDataStream.subscribe.signature', signed(rig, alice, {})),
    { status: 400, error: { code: -2035, msg: 'User Data Stream subscription already active.' } }, 'one per account per connection')
  t.same((await call(ws, 'userDataStream.subscribe.signature', signed(rig, bob, {}))).result, { subscriptionId: 1 })
  t.same((await call(ws, 'session.subscriptions')).result, [{ subscriptionId: 0 }, { subscriptionId: 1 }])
  t.match((await call(ws, 'session.status')).result, { apiKey: null, userDataStream: true })

  // Alice's events under her subscription's id; Bob's under his.
  await signedInject(rig, alice, 'POST', '/api/v3/order', { ...ASK, newClientOrderId: 'ask-1' })
  t.match(await ws.next((m) => m.event?.e === 'executionReport'), { subscriptionId: 0, event: { c: 'ask-1', x: 'NEW' } })
  t.match(await ws.next((m) => m.event?.e === 'outboundAccountPosition'), { subscriptionId: 0 })
  await signedInject(rig, bob, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.0100' })
  const fills = [await ws.next((m) => m.event?.e === 'executionReport' && m.event.x === 'TRADE'),
    await ws.next((m) => m.event?.e === 'executionReport' && m.event.x === 'TRADE')]
  t.same(fills.map((m) => [m.subscriptionId, m.event.S]).sort(), [[0, 'SELL'], [1, 'BUY']], 'each fill under its owner\'s id')

  t.same((await call(ws, 'userDataStream.unsubscribe', { subscriptionId: 1 })).result, {})
  t.match(await ws.next((m) => m.event?.e === 'eventStreamTerminated'), { subscriptionId: 1, event: { E: rig.ex.time } })
  t.match(await call(ws, 'userDataStream.unsubscribe', { subscriptionId: 7 }),
    { status: 400, error: { code: -2036, msg: 'User Data Stream subscription not active.' } })
  t.same((await call(ws, 'session.subscriptions')).result, [{ subscriptionId: 0 }])

  // On the logged-on session: session.logout ends it (and not a signature's).
  const logged = await open('/ws-api/v3')
  t.equal((await call(logged, 'session.logon', signed(rig, bob, {}))).status, 200)
  t.same((await call(logged, 'userDataStream.subscribe')).result, { subscriptionId: 0 })
  t.same((await call(logged, 'userDataStream.subscribe.signature', signed(rig, alice, {}))).result, { subscriptionId: 1 })
  t.match((await call(logged, 'session.logout')).result, { apiKey: null, userDataStream: true })
  t.match(await logged.next((m) => m.event?.e === 'eventStreamTerminated'), { subscriptionId: 0 })
  t.same((await call(logged, 'session.subscriptions')).result, [{ subscriptionId: 1 }], 'the signature\'s subscription stays')

  // Alice's session revoked: every subscription of hers ends, and a connection logged on with it cannot subscribe.
  const aliceLogged = await open('/ws-api/v3')
  t.equal((await call(aliceLogged, 'session.logon', signed(rig, alice, {}))).status, 200)
  t.same((await signedInject(rig, alice, 'DELETE', '/fapi/v1/session')).json(), {})
  t.match(await ws.next((m) => m.event?.e === 'eventStreamTerminated'), { subscriptionId: 0 })
  t.match(await logged.next((m) => m.event?.e === 'eventStreamTerminated'), { subscriptionId: 1 })
  t.match(await call(aliceLogged, 'userDataStream.subscribe'), { status: 403, error: { code: -2015 } }, 'the revoked session cannot subscribe')
  t.same((await call(ws, 'session.subscriptions')).result, [])
  t.match((await call(ws, 'session.status')).result, { userDataStream: false })

  // The spot API's listen keys are the spot keys; the futures API has no subscriptions.
  const started = await call(ws, 'userDataStream.start', { apiKey: bob.apiKey })
  t.equal(started.result.listenKey, await key(bob, '/api/v3/userDataStream'))
  t.match(await call(ws, 'userDataStream.ping', { apiKey: bob.apiKey }), { status: 400, error: { code: -1102 } }, 'spot wants the key')
  t.same((await call(ws, 'userDataStream.ping', { apiKey: bob.apiKey, listenKey: started.result.listenKey })).result, {})
  const futuresApi = await open('/ws-fapi/v1')
  t.match(await call(futuresApi, 'userDataStream.subscribe.signature', signed(rig, bob, {})), { status: 400, error: { code: -1020 } })
  t.notOk('userDataStream' in (await call(futuresApi, 'session.status')).result, 'futures session.status has no userDataStream')
})
