// A listen key lives in the log (the ListenKey command), so any gateway serves it: made on the
// sequencer's gateway, streamed from a follower's, kept alive there, closed on the first —
// and the follower's stream hears nothing more. The spot stream likewise, by its own key and
// by a /ws-api/v3 subscription on the follower. Real processes, real WebSockets.

import t from 'tap'
import { createHmac } from 'node:crypto'
import WebSocket from 'ws'
import { startGatewayPair } from '../helpers/processes.js'

const SECRET = '22'.repeat(32)

t.test('a listen key made on one gateway streams, extends and closes on another', { timeout: 90_000 }, async (t) => {
  const { apiA, apiB, demo } = await startGatewayPair(t, SECRET, ['--tick-ms', '100'], ['--chain', 'off', '--price-feed', 'off'])

  const keyed = async (port: number, method: string): Promise<{ status: number; body: any; seq: string }> => {
    const r = await fetch(`http://127.0.0.1:${port}/fapi/v1/listenKey`, { method, headers: { 'X-MBX-APIKEY': demo.apiKey } })
    return { status: r.status, body: await r.json(), seq: r.headers.get('x-exchange-seq') ?? '' }
  }
  const made = await keyed(apiA, 'POST')
  t.equal(made.status, 200)
  const key = made.body.listenKey as string
  t.match(key, /^[0-9a-f]{64}$/)

  // The follower may be a moment behind a write: wait for its seq, as a client would.
  const caughtUp = async (seqHeader: string): Promise<void> => {
    const until = Date.now() + 10_000
    while (Number((await fetch(`http://127.0.0.1:${apiB}/fapi/v1/ping`)).headers.get('x-exchange-seq')) < Number(seqHeader)) {
      if (Date.now() > until) throw new Error('the follower did not catch up')
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  await caughtUp(made.seq)
  const ws = new WebSocket(`ws://127.0.0.1:${apiB}/ws/${key}`)
  const messages: any[] = []
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())))
  await new Promise((r, j) => { ws.once('open', r); ws.once('error', j) })

  // An order placed through the sequencer's gateway reaches the follower's stream.
  const place = async (clientOrderId: string): Promise<string> => {
    const q = new URLSearchParams({ symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.003',
      price: '40000', newClientOrderId: clientOrderId, timestamp: String(Date.now()) }).toString()
    const sig = createHmac('sha256', demo.secretKey).update(q).digest('hex')
    const r = await fetch(`http://127.0.0.1:${apiA}/fapi/v1/order?${q}&signature=${sig}`, { method: 'POST', headers: { 'X-MBX-APIKEY': demo.apiKey } })
    t.equal(r.status, 200)
    return r.headers.get('x-exchange-seq') ?? ''
  }
  const heard = (clientOrderId: string): boolean => messages.some((m) => m.e === 'ORDER_TRADE_UPDATE' && m.o?.c === clientOrderId)
  await place('lk-1')
  const deadline = Date.now() + 10_000
  while (!heard('lk-1')) {
    if (Date.now() > deadline) throw new Error(`no ORDER_TRADE_UPDATE on the follower: ${JSON.stringify(messages)}`)
    await new Promise((r) => setTimeout(r, 20))
  }
  t.pass('the follower streams the key made on the sequencer')

  t.same((await keyed(apiB, 'PUT')).body, { listenKey: key }, 'kept alive through the follower')
  const closedAt = await keyed(apiA, 'DELETE')
  t.same(closedAt.body, {}, 'closed through the sequencer')
  await caughtUp(closedAt.seq)
  await caughtUp(await place('lk-2'))
  await new Promise((r) => setTimeout(r, 200))
  t.notOk(heard('lk-2'), 'the follower delivers nothing more for the closed key')
  t.same((await keyed(apiB, 'PUT')).body, { code: -1125, msg: 'This listenKey does not exist.' }, 'and knows it is gone')
  ws.close()

  // The spot stream: a key made on the sequencer's gateway, and a WebSocket API subscription, both on the follower.
  const spotMade = await fetch(`http://127.0.0.1:${apiA}/api/v3/userDataStream`, { method: 'POST', headers: { 'X-MBX-APIKEY': demo.apiKey } })
  const spotKey = (await spotMade.json() as { listenKey: string }).listenKey
  t.not(spotKey, key, 'the spot key is another key')
  await caughtUp(spotMade.headers.get('x-exchange-seq') ?? '')
  const opened = async (url: string): Promise<{ ws: WebSocket; got: any[] }> => {
    const c = new WebSocket(url)
    const got: any[] = []
    c.on('message', (d) => got.push(JSON.parse(d.toString())))
    await new Promise((r, j) => { c.once('open', r); c.once('error', j) })
    return { ws: c, got }
  }
  const spot = await opened(`ws://127.0.0.1:${apiB}/ws/${spotKey}`)
  const api = await opened(`ws://127.0.0.1:${apiB}/ws-api/v3`)
  const params: Record<string, string> = { apiKey: demo.apiKey, timestamp: String(Date.now()) }
  const payload = Object.keys(params).sort().map((k) => `${k}=${params[k]}`).join('&')
  api.ws.send(JSON.stringify({ id: 1, method: 'userDataStream.subscribe.signature',
    params: { ...params, signature: createHmac('sha256', demo.secretKey).update(payload).digest('hex') } }))
  const waitFor = async (got: any[], ok: (m: any) => boolean, what: string): Promise<any> => {
    const until = Date.now() + 10_000
    for (;;) {
      const m = got.find(ok)
      if (m !== undefined) return m
      if (Date.now() > until) throw new Error(`no ${what}: ${JSON.stringify(got)}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  t.match(await waitFor(api.got, (m) => m.id === 1, 'subscription answer'), { status: 200, result: { subscriptionId: 0 } })
  const q = new URLSearchParams({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100',
    price: '20000.00', newClientOrderId: 'spot-1', timestamp: String(Date.now()) }).toString()
  const sig = createHmac('sha256', demo.secretKey).update(q).digest('hex')
  const r = await fetch(`http://127.0.0.1:${apiA}/api/v3/order?${q}&signature=${sig}`, { method: 'POST', headers: { 'X-MBX-APIKEY': demo.apiKey } })
  t.equal(r.status, 200)
  t.match(await waitFor(spot.got, (m) => m.e === 'executionReport', 'executionReport on the spot key'), { c: 'spot-1', x: 'NEW' })
  t.match(await waitFor(api.got, (m) => m.event?.e === 'executionReport', 'executionReport on the subscription'),
    { subscriptionId: 0, event: { c: 'spot-1', x: 'NEW' } })
  spot.ws.close()
  api.ws.close()
})
