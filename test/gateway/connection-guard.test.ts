// The API port's TCP connections (gateway/connection-guard.ts), over real sockets on loopback
// addresses of their own: one address holding its connections idle gets a 429 for the next one
// while other addresses are served; a trusted proxy is not held to it; past the total every
// newcomer gets a 503; a connection that sends no request head, or goes silent, is closed by the server.

import t from 'tap'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { buildGateway, type GatewayOptions } from '../../gateway/app.js'
import { connectionsMaxFor, defaultConnectionsMax } from '../../gateway/connection-guard.js'
import type { GatewayContext } from '../../gateway/context.js'
import { DEFAULT_RATE_LIMITS } from '../../gateway/rate-limits.js'
import { gatewayRig } from '../helpers/gateway.js'
import { openIdle } from '../helpers/sockets.js'

async function listening(t: { teardown(fn: () => unknown): void }, ctx: GatewayContext, o: GatewayOptions = {}) {
  const app = await buildGateway(ctx, o)
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  return { app, port: (app.server.address() as AddressInfo).port }
}

/** GET /fapi/v1/time over a fresh connection from `from`: the raw answer, read to the server's close. */
function time(port: number, from: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ port, host: '127.0.0.1', localAddress: from })
    let text = ''
    s.on('connect', () => s.write('GET /fapi/v1/time HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'))
    s.on('data', (b) => { text += b.toString() })
    s.on('close', () => resolve(text))
    s.on('error', reject)
  })
}

/** Until the server has counted the connections it holds (their accept runs after the client's connect). */
async function held(app: { connectionGuard: { open: number } }, n: number): Promise<void> {
  for (let i = 0; i < 200 && app.connectionGuard.open !== n; i++) await new Promise((r) => setTimeout(r, 5))
}

t.test('one address is held to its connections; the others are served', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { app, port } = await listening(t, { ...rig.ctx, rateLimits: { ...DEFAULT_RATE_LIMITS, connectionsPerIp: 3 } })
  const sockets = [await openIdle(t, port, '127.0.0.1'), await openIdle(t, port, '127.0.0.1'), await openIdle(t, port, '127.0.0.1')]
  await held(app, 3)
  t.equal(app.connectionGuard.open, 3)

  const refused = await time(port, '127.0.0.1')
  t.match(refused, /^HTTP\/1\.1 429 Too Many Requests\r\n/)
  t.same(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4)),
    { code: -1003, msg: 'Too many connections from this address: at most 3 at once. Reuse connections (keep-alive) or close some.' })
  t.match(await time(port, '127.0.0.2'), /^HTTP\/1\.1 200 OK\r\n[^]*"serverTime":\d+/, 'another address is served meanwhile')
  t.same(app.refusals.byCode('rest'), [[-1003, 1]], 'the refusal is counted for /metrics')

  sockets[0]!.destroy()
  await held(app, 2)
  t.match(await time(port, '127.0.0.1'), /^HTTP\/1\.1 200 OK\r\n/, 'one closed, the address is served again')
})

t.test('a trusted proxy carries many clients: its connections are not held to one address\'s bound', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { app, port } = await listening(t, { ...rig.ctx, trustProxy: ['127.0.0.1'], rateLimits: { ...DEFAULT_RATE_LIMITS, connectionsPerIp: 2 } })
  for (let i = 0; i < 5; i++) await openIdle(t, port, '127.0.0.1')
  await held(app, 5)
  t.equal(app.connectionGuard.open, 5)
  t.match(await time(port, '127.0.0.1'), /^HTTP\/1\.1 200 OK\r\n/)
  await openIdle(t, port, '127.0.0.3')
  await openIdle(t, port, '127.0.0.3')
  t.match(await time(port, '127.0.0.3'), /^HTTP\/1\.1 429 /, 'an untrusted address is')
})

t.test('past the total, every newcomer is told the server is busy', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { app, port } = await listening(t, { ...rig.ctx, rateLimits: { ...DEFAULT_RATE_LIMITS, connectionsPerIp: 10, connectionsMax: 4 } })
  for (const from of ['127.0.0.1', '127.0.0.1', '127.0.0.2', '127.0.0.2']) await openIdle(t, port, from)
  await held(app, 4)
  const busy = await time(port, '127.0.0.3')
  t.match(busy, /^HTTP\/1\.1 503 Service Unavailable\r\n/)
  t.match(busy, /\{"code":-1008,"msg":"Server is currently overloaded with other requests\. Please try again in a few minutes\."\}$/)
})

t.test('a connection that sends no request head is closed by the server; one that asks is answered', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { app, port } = await listening(t, rig.ctx, { headersTimeoutMs: 300 })
  const silent = await openIdle(t, port, '127.0.0.1')
  const closed = new Promise<string>((resolve) => {
    let text = ''
    silent.on('data', (b) => { text += b.toString() })
    silent.on('close', () => resolve(text))
  })
  t.match(await time(port, '127.0.0.1'), /^HTTP\/1\.1 200 OK\r\n/)
  t.match(await closed, /^HTTP\/1\.1 408 Request Timeout\r\n/, 'the silent one is told and closed')
  await held(app, 0)
  t.equal(app.connectionGuard.open, 0, 'and no longer counted')
})

t.test('the default total: the descriptor limit less what the exchange keeps for itself', async (t) => {
  const limits = (soft: string): string => `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}                ${soft}                files\n`
  t.equal(connectionsMaxFor(limits('20000')), 17_500)
  t.equal(connectionsMaxFor(limits('1048576')), 1_046_076)
  t.equal(connectionsMaxFor(limits('1024')), 512, 'half of a small limit')
  t.equal(connectionsMaxFor(limits('unlimited')), 997_500)
  t.equal(connectionsMaxFor(undefined), 10_000, 'no /proc: a fixed bound')
  t.ok(defaultConnectionsMax() > 0, 'this machine\'s')
})

t.test('a connection with nothing sent or received for the idle time is closed, answered or not', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { app, port } = await listening(t, rig.ctx, { idleTimeoutMs: 300 })
  // Keep-alive: answered, then silent (a client that stopped reading looks the same from here).
  const s = await openIdle(t, port, '127.0.0.1')
  let text = ''
  s.on('data', (b) => { text += b.toString() })
  const closed = new Promise<void>((resolve) => s.on('close', () => resolve()))
  s.write('GET /fapi/v1/time HTTP/1.1\r\nHost: x\r\n\r\n')
  await closed
  t.match(text, /^HTTP\/1\.1 200 OK\r\n[^]*"serverTime":\d+/, 'answered first')
  t.notMatch(text, /[Cc]onnection: close/, 'as a connection kept alive: the server closed it for its silence')
  await held(app, 0)
  t.equal(app.connectionGuard.open, 0)
})
