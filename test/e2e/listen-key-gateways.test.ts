// A listen key lives in the log (the ListenKey command), so any gateway serves it: made on the
// sequencer's gateway, streamed from a follower's, kept alive there, closed on the first —
// and the follower's stream hears nothing more. Real processes, real WebSockets.

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
})
