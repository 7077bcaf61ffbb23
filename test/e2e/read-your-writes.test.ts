// Read-your-writes across gateways (DESIGN.md §6) with real processes: a sequencer and a
// follower each serve the REST API; a write on either is readable on the same gateway at
// once, and on the other when the client names the seq it was answered with.

import t from 'tap'
import { signedRequest, startGatewayPair } from '../helpers/processes.js'

interface Answer { status: number; seq: number; body: any }

const SECRET = '11'.repeat(32)

t.test('a write on one gateway is readable on the other at the seq it returned', { timeout: 90_000 }, async (t) => {
  // No price feed: its band around an index of 30,000 would refuse these orders once its first price lands.
  const { apiA, apiB, seq, demo } = await startGatewayPair(t, SECRET, ['--tick-ms', '100', '--read-wait-ms', '300'],
    ['--price-feed', 'off'])

  const call = (port: number, method: string, p: string, params: Record<string, string> = {},
    headers: Record<string, string> = {}): Promise<Answer> => signedRequest(`http://127.0.0.1:${port}`, demo, method, p, params, headers)
  const place = (port: number, price: string) => call(port, 'POST', '/fapi/v1/order',
    { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.003', price })
  const openIds = async (port: number, atSeq?: number): Promise<number[]> => {
    const r = await call(port, 'GET', '/fapi/v1/openOrders', { symbol: 'BTCUSDTPERP' },
      atSeq === undefined ? {} : { 'X-EXCHANGE-SEQ': String(atSeq) })
    t.equal(r.status, 200, JSON.stringify(r.body))
    if (atSeq !== undefined) t.ok(r.seq >= atSeq, 'answered as of at least the seq asked for')
    return (r.body as { orderId: number }[]).map((o) => o.orderId)
  }

  // Alternate gateways: each write is read back at once on both, the other naming its seq.
  for (let i = 0; i < 12; i++) {
    const [writer, reader] = i % 2 === 0 ? [apiB, apiA] : [apiA, apiB]
    const r = await place(writer, String(50000 + i))
    t.equal(r.status, 200, JSON.stringify(r.body))
    t.ok(r.seq > 0, 'a write answers with its gateway seq')
    t.ok((await openIds(writer)).includes(r.body.orderId), `order ${i} visible on the gateway that took it`)
    t.ok((await openIds(reader, r.seq)).includes(r.body.orderId), `order ${i} visible on the other gateway at seq ${r.seq}`)
  }

  // A burst on the sequencer, read at once on the follower at the newest seq: all of it.
  const burst = await Promise.all(Array.from({ length: 100 }, (_, i) => place(apiA, String(45000 + i))))
  t.same(burst.filter((r) => r.status !== 200), [], 'the burst is accepted')
  const newest = Math.max(...burst.map((r) => r.seq))
  const seen = new Set(await openIds(apiB, newest))
  t.same(burst.filter((r) => !seen.has(r.body.orderId)).length, 0, 'the follower shows every order of the burst')

  // A seq this node will not reach in time: 503, not stale data; a malformed one: 400.
  const ahead = await call(apiB, 'GET', '/fapi/v1/openOrders', {}, { 'X-EXCHANGE-SEQ': '999999999' })
  t.equal(ahead.status, 503)
  t.equal(ahead.body.code, -1008)
  const bad = await call(apiB, 'GET', '/fapi/v1/openOrders', {}, { 'X-EXCHANGE-SEQ': '12x' })
  t.equal(bad.status, 400)
  t.equal(bad.body.code, -1100)

  // Without its sequencer, the follower still serves reads and answers writes with 503.
  await seq.kill()
  t.equal((await openIds(apiB)).length, 112)
  const orphan = await place(apiB, '40000')
  t.equal(orphan.status, 503, JSON.stringify(orphan.body))
  t.equal(orphan.body.code, -1008)
})
