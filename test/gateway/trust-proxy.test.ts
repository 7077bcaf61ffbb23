// Clients behind reverse proxies (gateway/client-ip.ts): with `--trust-proxy` naming the proxy,
// each forwarded client has its own request weight, its own 429 and its own WebSocket
// connection attempts; without it, or from an address not trusted, X-Forwarded-For is ignored.

import t from 'tap'
import type { AddressInfo } from 'node:net'
import { WebSocket } from 'ws'
import { buildGateway } from '../../gateway/app.js'
import { parseTrustProxy } from '../../gateway/client-ip.js'
import type { GatewayContext } from '../../gateway/context.js'
import { DEFAULT_RATE_LIMITS } from '../../gateway/rate-limits.js'
import { gatewayRig } from '../helpers/gateway.js'
import { attachStreams } from '../../gateway/ws/attach.js'
import { FAN_OUT } from '../ws/client.js'

const A = '203.0.113.5'
const B = '203.0.113.6'

async function listening(ctx: GatewayContext): Promise<{ base: string; close(): Promise<void> }> {
  const app = await buildGateway(ctx)
  await app.listen({ host: '127.0.0.1', port: 0 })
  return { base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() }
}

/** GET /fapi/v1/time (weight 1) as forwarded for `forwardedFor`: status and the weight the answer reports. */
async function time(base: string, forwardedFor?: string): Promise<[number, number]> {
  const r = await fetch(`${base}/fapi/v1/time`, { headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } })
  await r.arrayBuffer()
  return [r.status, Number(r.headers.get('x-mbx-used-weight-1m'))]
}

t.test('behind a trusted proxy each forwarded client has its own weight and its own 429', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const gw = await listening({ ...rig.ctx, trustProxy: ['127.0.0.1'], rateLimits: { ...DEFAULT_RATE_LIMITS, weight1m: 3 } })
  t.teardown(() => gw.close())

  t.same(await time(gw.base, A), [200, 1])
  t.same(await time(gw.base, A), [200, 2])
  t.same(await time(gw.base, B), [200, 1], 'another client, its own count')
  // A client writing its own X-Forwarded-For before the proxy's entry: the proxy's entry counts.
  t.same(await time(gw.base, `198.51.100.1, ${A}`), [200, 3])
  const [status] = await time(gw.base, A)
  t.equal(status, 429, 'A is over its limit')
  t.same(await time(gw.base, B), [200, 2], 'B is not')
  t.same(await time(gw.base), [200, 1], 'the proxy itself, asking without a header, counts as itself')
})

t.test('without --trust-proxy X-Forwarded-For is ignored, and so from an untrusted peer', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const plain = await listening(rig.ctx)
  t.teardown(() => plain.close())
  t.same(await time(plain.base, A), [200, 1])
  t.same(await time(plain.base, B), [200, 2], 'one count: the header names no one')
  const other = await listening({ ...rig.ctx, trustProxy: ['10.0.0.0/8'] })
  t.teardown(() => other.close())
  t.same(await time(other.base, A), [200, 1])
  t.same(await time(other.base, B), [200, 2], 'loopback is not a trusted proxy here')
})

t.test('WebSocket connection attempts and the WebSocket API\'s weight per forwarded client', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const ctx = { ...rig.ctx, trustProxy: ['loopback'], rateLimits: { ...DEFAULT_RATE_LIMITS, wsConnections5m: 2 } }
  const app = await buildGateway(ctx)
  attachStreams(app, ctx, { fanOut: FAN_OUT })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  const host = `127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const open = (path: string, forwardedFor: string): Promise<WebSocket | number> => new Promise((resolve) => {
    const ws = new WebSocket(`ws://${host}${path}`, { headers: { 'x-forwarded-for': forwardedFor } })
    ws.on('open', () => resolve(ws))
    ws.on('unexpected-response', (_req, res) => { res.resume(); resolve(res.statusCode!) })
    ws.on('error', () => {})
  })
  const a1 = await open('/ws/btcusdtperp@trade', A)
  const a2 = await open('/ws/btcusdtperp@trade', A)
  t.ok(a1 instanceof WebSocket && a2 instanceof WebSocket, 'A: two attempts')
  t.equal(await open('/ws/btcusdtperp@trade', A), 429, 'A: the third is refused')
  const b = await open('/ws-fapi/v1', B)
  t.ok(b instanceof WebSocket, 'B: its own attempts')
  for (const ws of [a1, a2]) if (ws instanceof WebSocket) ws.close()

  // The WebSocket API charges B's weight, not the proxy's.
  const api = b as WebSocket
  const reply = new Promise<{ rateLimits: { count: number }[] }>((resolve) => api.once('message', (m: Buffer) => resolve(JSON.parse(m.toString()))))
  api.send(JSON.stringify({ id: 1, method: 'time' }))
  t.equal((await reply).rateLimits[0]!.count, 1, 'B\'s first request')
  const rest = await fetch(`http://${host}/fapi/v1/time`, { headers: { 'x-forwarded-for': B } })
  t.equal(rest.headers.get('x-mbx-used-weight-1m'), '2', 'one budget for B over REST and the WebSocket API')
  api.close()
})

t.test('--trust-proxy is read strictly', async (t) => {
  t.same(parseTrustProxy(''), [])
  t.same(parseTrustProxy('127.0.0.1, 10.0.0.0/8,loopback,::1,fd00::/8'), ['127.0.0.1', '10.0.0.0/8', 'loopback', '::1', 'fd00::/8'])
  for (const bad of ['nginx', '10.0.0.0/33', '300.1.1.1', '127.0.0.1,,10.0.0.1', 'true']) {
    t.throws(() => parseTrustProxy(bad), /not an address, a CIDR range or loopback, linklocal, uniquelocal/, bad)
  }
})
