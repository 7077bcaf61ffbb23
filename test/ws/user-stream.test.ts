// The user data stream over real WebSocket: a listen key from REST, every connection form
// API.md lists, the events a scripted sequence causes (exact), nothing of another account's,
// listenKeyExpired when the key runs out (and its events again once a POST revives it), and its
// connections closed when its owner closes it.

import t from 'tap'
import { signedInject, type GatewayRig, type Keys, fundedTrader } from '../helpers/gateway.js'
import { sleep, type Client } from './client.js'
import { listeningRig } from './ws-api-rig.js'

const trader = (rig: GatewayRig) => fundedTrader(rig, 100_000)

async function setup(t: { teardown(fn: () => unknown): void }) {
  const { rig, open } = await listeningRig(t, { listenKeySweepMs: 50 })
  const listenKey = async (keys: Keys): Promise<string> =>
    (await rig.app.inject({ method: 'POST', url: '/fapi/v1/listenKey', headers: { 'x-mbx-apikey': keys.apiKey } })).json().listenKey
  return { rig, open, listenKey, alice: await trader(rig), bob: await trader(rig) }
}

const ORDER = { symbol: 'BTCUSDTPERP', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '50000.0' }

t.test('every connection form gets the account\'s events, and only its own', async (t) => {
  const { rig, open, listenKey, alice, bob } = await setup(t)
  const key = await listenKey(alice.keys)
  const raw = await open(`/ws/${key}`)
  const combined = await open(`/stream?streams=${key}`)
  const privateWs = await open(`/private/ws?listenKey=${key}`)
  const privateStream = await open(`/private/stream?listenKey=${key}`)
  const bobs = await open(`/ws/${await listenKey(bob.keys)}`)
  const everything = (c: Client): any[] => { const all: any[] = []; c.ws.on('message', (d) => all.push(JSON.parse(d.toString()))); return all }
  const [seenByAlice, seenByBob] = [everything(raw), everything(bobs)]
  await sleep(20)

  const placed = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', { ...ORDER, side: 'SELL', newClientOrderId: 'ask-1' })
  t.equal(placed.statusCode, 200)
  for (const [name, c] of [['raw', raw], ['private/ws', privateWs]] as const) {
    const m = await c.next((m) => m.e === 'ORDER_TRADE_UPDATE')
    t.match(m, { e: 'ORDER_TRADE_UPDATE', o: { s: 'BTCUSDTPERP', c: 'ask-1', S: 'SELL', x: 'NEW', X: 'NEW', q: '0.010', p: '50000.0' } }, name)
  }
  for (const [name, c] of [['stream', combined], ['private/stream', privateStream]] as const) {
    const m = await c.next((m) => m.data?.e === 'ORDER_TRADE_UPDATE')
    t.equal(m.stream, key, `${name} wraps with the listen key as the stream name`)
    t.match(m.data, { o: { c: 'ask-1', x: 'NEW' } })
  }

  // Bob takes 0.004: each hears its own fill and account update, never the other's order.
  await signedInject(rig, bob.keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'MARKET', quantity: '0.004', newClientOrderId: 'bid-1' })
  const fill = await raw.next((m) => m.e === 'ORDER_TRADE_UPDATE' && m.o.x === 'TRADE')
  t.match(fill.o, { c: 'ask-1', X: 'PARTIALLY_FILLED', l: '0.004', L: '50000.0', n: '0.04000000', m: true })
  const acct = await raw.next((m) => m.e === 'ACCOUNT_UPDATE')
  t.match(acct.a, { m: 'ORDER', B: [{ a: 'USDT', wb: '99999.96000000' }], P: [{ s: 'BTCUSDTPERP', pa: '-0.004', ep: '50000.0', ps: 'BOTH' }] })
  const bobFill = await bobs.next((m) => m.e === 'ORDER_TRADE_UPDATE' && m.o.x === 'TRADE')
  t.match(bobFill.o, { c: 'bid-1', X: 'FILLED', m: false, n: '0.10000000' })
  await sleep(50)
  const orders = (all: any[]) => all.filter((m) => m.e === 'ORDER_TRADE_UPDATE').map((m) => `${m.o.c} ${m.o.x}`)
  t.same(orders(seenByAlice), ['ask-1 NEW', 'ask-1 TRADE'], 'Alice hears only her order')
  t.same(orders(seenByBob), ['bid-1 NEW', 'bid-1 TRADE'], 'Bob hears only his')

  // Leverage: ACCOUNT_CONFIG_UPDATE.
  await signedInject(rig, alice.keys, 'POST', '/fapi/v1/leverage', { symbol: 'BTCUSDTPERP', leverage: 7 })
  t.match(await raw.next((m) => m.e === 'ACCOUNT_CONFIG_UPDATE'), { ac: { s: 'BTCUSDTPERP', l: 7 } })
})

t.test('SUBSCRIBE to a listen key, unknown keys refused, closed by DELETE, listenKeyExpired at the end', async (t) => {
  const { rig, open, listenKey, alice, bob } = await setup(t)
  const key = await listenKey(alice.keys)
  const refused = await open(`/ws/${'0'.repeat(64)}`).then(() => null, (err: { status?: number }) => err)
  t.equal(refused?.status, 400, 'an unknown key is not a stream')

  const c = await open('/ws')
  t.same(await c.request({ method: 'SUBSCRIBE', params: [key], id: 1 }), { result: null, id: 1 })
  await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', { ...ORDER, side: 'BUY', price: '40000.0' })
  t.match(await c.next((m) => m.e === 'ORDER_TRADE_UPDATE'), { o: { x: 'NEW', S: 'BUY', p: '40000.0' } })

  // DELETE ends the key and closes its stream: no connection is left open hearing nothing
  // (the next POST gives the same key, and a client would have no reason to reconnect).
  const markets = await open(`/stream?streams=btcusdtperp@markPrice/${key}`)
  const del = await rig.app.inject({ method: 'DELETE', url: '/fapi/v1/listenKey', headers: { 'x-mbx-apikey': alice.keys.apiKey } })
  t.same(del.json(), {})
  t.same(await c.closedWith(), { code: 1000, reason: 'listenKey closed' })
  t.same(await markets.closedWith(), { code: 1000, reason: 'listenKey closed' }, 'with its market streams too')
  const other = await open(`/ws/${await listenKey(bob.keys)}`)
  await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', { ...ORDER, side: 'BUY', price: '40001.0' })
  t.same(c.messages.filter((m: any) => m.e === 'ORDER_TRADE_UPDATE'), [], 'a closed key hears nothing more')
  t.equal(other.closed, null, 'another key\'s connection stays')

  // A key that runs out: listenKeyExpired, sent once the sweep sees it; the connection stays, and
  // once a POST makes the key live again (the same key) it hears the account's events again.
  const again = await listenKey(alice.keys)
  t.equal(again, key, 'a POST after DELETE gives the same key, live again')
  const d = await open(`/ws/${again}`)
  await sleep(20)
  await rig.run({ type: 'Tick' }, 61 * 60_000)
  t.same(await d.next((m) => m.e === 'listenKeyExpired'), { e: 'listenKeyExpired', E: rig.ex.time, listenKey: again })
  await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', { ...ORDER, side: 'BUY', price: '40002.0' })
  await sleep(50)
  t.same(d.messages.filter((m: any) => m.e === 'ORDER_TRADE_UPDATE'), [], 'an expired key hears nothing')
  t.equal(await listenKey(alice.keys), again)
  await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', { ...ORDER, side: 'BUY', price: '40003.0' })
  t.match(await d.next((m) => m.e === 'ORDER_TRADE_UPDATE'), { o: { x: 'NEW', p: '40003.0' } }, 'live again: the same connection hears it')
  t.equal(d.closed, null)
})
