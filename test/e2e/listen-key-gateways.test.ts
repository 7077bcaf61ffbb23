// A listen key lives in the log (the ListenKey command), so any gateway serves it: made on the
// sequencer's gateway, streamed from a follower's, kept alive there, closed on the first —
// and the follower's stream hears nothing more. Real processes, real WebSockets.

import t from 'tap'
import { createHmac } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import WebSocket from 'ws'
import { freePort, startExchange } from '../helpers/processes.js'

interface Account { address: string; apiKey: string; secretKey: string }

const SECRET = '22'.repeat(32)

t.test('a listen key made on one gateway streams, extends and closes on another', { timeout: 90_000 }, async (t) => {
  const [dirA, dirB] = [await mkdtemp(path.join(os.tmpdir(), 'lk-a-')), await mkdtemp(path.join(os.tmpdir(), 'lk-b-'))]
  const [apiA, apiB, repl, metA, metB] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()]
  const common = ['--master-secret', SECRET, '--tick-ms', '100']
  const seq = startExchange(['start', '--data', dirA, '--port', String(apiA), '--replication-port', String(repl),
    '--metrics-port', String(metA), '--chain', 'off', '--price-feed', 'off', ...common])
  const fol = startExchange(['replica', '--data', dirB, '--port', String(apiB), '--metrics-port', String(metB),
    '--follow', `ws://127.0.0.1:${repl}/replication`, ...common])
  t.teardown(async () => {
    await Promise.all([seq.kill(), fol.kill()])
    await Promise.all([rm(dirA, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }), rm(dirB, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })])
  })
  await seq.waitFor((l) => l.msg === 'demo account funded')
  await fol.waitFor((l) => l.msg === 'follower running')
  const demo = JSON.parse(await readFile(path.join(dirA, 'demo-account.json'), 'utf8')) as Account

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
