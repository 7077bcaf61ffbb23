// What one gateway records or hands out, another serves: a spot amendment made through the
// sequencer's gateway is listed by a follower's (the amendments projection, built on each
// replica from the log), and a history download id made on one gateway turns into a link on
// the other, whose file either gateway serves (ids and links are MACs under the shared master
// secret; nothing is stored). Real processes.

import t from 'tap'
import { createHmac } from 'node:crypto'
import { startGatewayPair } from '../helpers/processes.js'

const SECRET = '33'.repeat(32)

t.test('amendments and history downloads are served by any gateway', { timeout: 90_000 }, async (t) => {
  const { apiA, apiB, demo } = await startGatewayPair(t, SECRET, ['--tick-ms', '100'], ['--chain', 'off', '--price-feed', 'off', '--bot', 'off'])
  const signed = async (port: number, method: string, path: string, params: Record<string, string>) => {
    const q = new URLSearchParams({ ...params, timestamp: String(Date.now()) }).toString()
    const sig = createHmac('sha256', demo.secretKey).update(q).digest('hex')
    const r = await fetch(`http://127.0.0.1:${port}${path}?${q}&signature=${sig}`, { method, headers: { 'X-MBX-APIKEY': demo.apiKey } })
    return { status: r.status, body: await r.json() as any, seq: Number(r.headers.get('x-exchange-seq')) }
  }
  // The follower may be a moment behind a write: wait for its seq, as a client would.
  const caughtUp = async (seq: number): Promise<void> => {
    const until = Date.now() + 10_000
    while (Number((await fetch(`http://127.0.0.1:${apiB}/fapi/v1/ping`)).headers.get('x-exchange-seq')) < seq) {
      if (Date.now() > until) throw new Error('the follower did not catch up')
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  const startTime = Date.now() - 60_000
  const placed = await signed(apiA, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
    quantity: '0.0100', price: '20000.00', newClientOrderId: 'x1' })
  t.equal(placed.status, 200)
  const amended = await signed(apiA, 'PUT', '/api/v3/order/amend/keepPriority', { symbol: 'BTCUSDT', orderId: String(placed.body.orderId),
    newQty: '0.0060' })
  t.match(amended, { status: 200, body: { amendedOrder: { origClientOrderId: 'x1', qty: '0.0060' } } })
  await caughtUp(amended.seq)
  const history = { symbol: 'BTCUSDT', orderId: String(placed.body.orderId) }
  const onB = await signed(apiB, 'GET', '/api/v3/order/amendments', history)
  t.match(onB.body, [{ executionId: amended.body.executionId, origClientOrderId: 'x1', origQty: '0.0100', newQty: '0.0060' }],
    'the follower lists the amendment')
  t.same(onB.body, (await signed(apiA, 'GET', '/api/v3/order/amendments', history)).body, 'as the sequencer\'s gateway does')

  const range = { startTime: String(startTime), endTime: String(Date.now() + 1_000) }
  const id = await signed(apiA, 'GET', '/fapi/v1/income/asyn', range)
  t.equal(id.status, 200)
  const link = await signed(apiB, 'GET', '/fapi/v1/income/asyn/id', { downloadId: id.body.downloadId })
  t.match(link.body, { status: 'completed', url: new RegExp(`^http://127\\.0\\.0\\.1:${apiB}/fapi/v1/download\\?link=`) },
    'the follower turns the sequencer\'s id into a link to itself')
  const { pathname, search } = new URL(link.body.url)
  const [fromB, fromA] = await Promise.all([apiB, apiA].map((port) => fetch(`http://127.0.0.1:${port}${pathname}${search}`)))
  t.same([fromB!.status, fromA!.status], [200, 200])
  const [fileB, fileA] = await Promise.all([fromB!.text(), fromA!.text()])
  t.equal(fileA, fileB, 'either gateway serves the same file')
  t.match(fileA, /^symbol,incomeType,income,asset,info,time,tranId,tradeId\r\n,TRANSFER,50000\.00000000,USDT,/, 'the demo account\'s funding')
})
