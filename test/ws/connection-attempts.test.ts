// WebSocket connection attempts per IP (Binance's 300 per 5 minutes, `--ws-connection-limit`):
// one count over every WebSocket path of the gateway; past it, an upgrade is answered 429
// -1003 with Retry-After and open connections carry on; the next 5-minute window admits again.
// And the connections one address holds open (`--connections-per-ip`), every path together.

import t from 'tap'
import type { AddressInfo } from 'node:net'
import { buildGateway } from '../../gateway/app.js'
import { DEFAULT_RATE_LIMITS } from '../../gateway/rate-limits.js'
import { ATTEMPTS_PER_5M, ConnectionAttempts } from '../../gateway/ws/connection-attempts.js'
import { attachStreams } from '../../gateway/ws/attach.js'
import { gatewayRig } from '../helpers/gateway.js'
import { connect, FAN_OUT } from './client.js'

type Refusal = { status: number; headers: Record<string, string>; body: string }
const refusal = (url: string): Promise<Refusal | null> =>
  connect(url).then((c) => { c.close(); return null }, (e: Refusal) => e)

t.test('past the limit every WebSocket path is refused with 429 until the window turns', async (t) => {
  const rig = await gatewayRig()
  attachStreams(rig.app, { ...rig.ctx, rateLimits: { ...DEFAULT_RATE_LIMITS, wsConnections5m: 4 } }, { fanOut: FAN_OUT })
  await rig.app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => rig.close())
  const base = `ws://127.0.0.1:${(rig.app.server.address() as AddressInfo).port}`

  // Four attempts on four kinds of path, a refused stream name among them.
  const market = await connect(`${base}/ws`)
  t.teardown(() => market.close())
  const api = await connect(`${base}/ws-fapi/v1`)
  t.teardown(() => api.close())
  t.equal((await refusal(`${base}/stream?streams=btcusdtperp@trade`)), null)
  t.equal((await refusal(`${base}/ws/not-a-stream`))?.status, 400, 'a refused route counts as an attempt too')

  const windowEnd = (Math.floor(rig.ex.time / 300_000) + 1) * 300_000
  for (const path of ['/ws', '/ws-fapi/v1', '/stream?streams=btcusdtperp@trade']) {
    const r = await refusal(base + path)
    t.equal(r?.status, 429, `${path}: 429`)
    t.same(JSON.parse(r!.body), { code: -1003, msg: `Too many connection attempts; current limit is 4 per 5 minutes per IP. Retry after ${Math.ceil((windowEnd - rig.ex.time) / 1000)} s.` })
    t.equal(r!.headers['retry-after'], String(Math.ceil((windowEnd - rig.ex.time) / 1000)))
  }
  t.same(await market.request({ method: 'LIST_SUBSCRIPTIONS', id: 1 }), { result: [], id: 1 }, 'open connections carry on')
  t.match(await api.request({ id: 'p', method: 'ticker.price', params: { symbol: 'BTCUSDTPERP' } }), { id: 'p', status: 200 })

  // The operator sees them among the WebSocket refusals (/metrics): the bad stream name (2) and the three 429s.
  t.same(rig.app.refusals.byCode('ws'), [[-1003, 3], [2, 1]])

  await rig.run({ type: 'Tick' }, windowEnd - rig.ex.time)
  t.equal(await refusal(`${base}/ws`), null, 'the next window admits again')
})

t.test('the count: per IP, by window, Binance\'s 300 by default', async (t) => {
  let now = 1_000
  const a = new ConnectionAttempts(() => now, 2)
  t.same([a.admit('1.1.1.1'), a.admit('1.1.1.1'), a.admit('2.2.2.2')], [undefined, undefined, undefined])
  t.equal(a.admit('1.1.1.1'), 299, 'the third from one IP waits for the window')
  now = 300_000
  t.equal(a.admit('1.1.1.1'), undefined, 'a new window')
  t.equal(new ConnectionAttempts(() => 0).limit, ATTEMPTS_PER_5M)
  t.equal(ATTEMPTS_PER_5M, 300)
})

t.test('the connections one client holds open, streams and WebSocket APIs together; others are served', async (t) => {
  // Behind a trusted proxy, as clients on a network reach it: the proxy's own TCP connections are
  // not held to one address's bound, each client's WebSocket connections are (by its forwarded address).
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const ctx = { ...rig.ctx, trustProxy: ['127.0.0.1'], rateLimits: { ...DEFAULT_RATE_LIMITS, connectionsPerIp: 3 } }
  const app = await buildGateway(ctx)
  attachStreams(app, ctx, { fanOut: FAN_OUT })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const base = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const from = (client: string) => ({ headers: { 'x-forwarded-for': client } })
  const A = '203.0.113.5'

  const held = [await connect(`${base}/ws`, from(A)), await connect(`${base}/ws-fapi/v1`, from(A)),
    await connect(`${base}/stream?streams=btcusdtperp@trade`, from(A))]
  t.teardown(() => { for (const c of held) c.close() })
  for (const path of ['/ws', '/ws-fapi/v1']) {
    const r = await connect(base + path, from(A)).then((c) => { c.close(); return null }, (e: Refusal) => e)
    t.equal(r?.status, 429, `${path}: 429`)
    t.same(JSON.parse(r!.body), { code: -1003, msg: 'Too many open connections; current limit is 3 per IP. Close some, or subscribe to more streams on one.' })
  }
  const other = await connect(`${base}/ws-fapi/v1`, from('203.0.113.6'))
  t.match(await other.request({ id: 'p', method: 'ticker.price', params: { symbol: 'BTCUSDTPERP' } }), { id: 'p', status: 200 }, 'another client is served')
  other.close()

  held.shift()!.close()
  // The server counts it closed once its close handshake ends.
  let again: Awaited<ReturnType<typeof connect>> | undefined
  for (let i = 0; i < 100 && again === undefined; i++) {
    again = await connect(`${base}/ws-fapi/v1`, from(A)).catch(async () => { await new Promise((r) => setTimeout(r, 20)); return undefined })
  }
  t.ok(again, 'one closed, the client may open another')
  again?.close()
})
