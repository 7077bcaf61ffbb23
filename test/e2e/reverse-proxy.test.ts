// An exchange behind a real nginx, as an operator deploys one (a TLS terminator or a load
// balancer in front), started with `--trust-proxy` naming nginx's address. Two clients on
// different loopback addresses (127.0.0.2 and 127.0.0.3) reach it through nginx: each has its
// own request weight and its own WebSocket connection attempts, so one client's 429 leaves the
// other served. A client that reaches the gateway directly and writes X-Forwarded-For itself
// is counted as itself.

import t from 'tap'
import http from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { WebSocket } from 'ws'
import { freePort } from '../../replica/free-port.js'
import { nginxSkip, startNginx } from '../helpers/nginx.js'
import { startExchange } from '../helpers/processes.js'

const A = '127.0.0.2'
const B = '127.0.0.3'
const WEIGHT_LIMIT = 30
const ATTEMPTS_LIMIT = 3

interface Answer { status: number; weight: number; retryAfter: string | undefined; body: string }

/** GET `path` on `port` from the local address `from`, with any extra headers. */
function get(port: number, p: string, from: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, localAddress: from, agent: false, headers }, (res) => {
      let body = ''
      res.on('data', (b: Buffer) => { body += b.toString() })
      res.on('end', () => resolve({ status: res.statusCode!, weight: Number(res.headers['x-mbx-used-weight-1m']),
        retryAfter: res.headers['retry-after'] as string | undefined, body }))
    })
    req.on('error', reject)
  })
}

/** A WebSocket handshake from `from`: the open socket, or the status it was refused with. */
function open(url: string, from: string): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { localAddress: from })
    ws.on('open', () => resolve(ws))
    ws.on('unexpected-response', (_req, res) => { res.resume(); resolve(res.statusCode!) })
    ws.on('error', reject)
  })
}

t.test('behind nginx, each client keeps its own limits', { skip: nginxSkip(), timeout: 120_000 }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'proxied-'))
  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const proc = startExchange(['start', '--data', dir, '--port', String(port), '--replication-port', String(repl), '--metrics-port', String(metrics),
    '--price-feed', 'off', '--trust-proxy', '127.0.0.1', '--weight-limit', String(WEIGHT_LIMIT), '--ws-connection-limit', String(ATTEMPTS_LIMIT)])
  t.teardown(async () => { await proc.kill(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  await proc.waitFor((l) => l.msg === 'sequencer running')
  const nginx = await startNginx(t, port)

  // A spends its minute's weight through nginx (again if a minute begins meanwhile: the weight
  // then starts over), until refused.
  let last: Answer | undefined
  for (let i = 0; i < 3 * WEIGHT_LIMIT && last?.status !== 429; i++) last = await get(nginx.port, '/fapi/v1/time', A)
  t.equal(last?.status, 429, 'A is refused once past its limit')
  t.match(JSON.parse(last!.body), { code: -1003 })
  t.ok(Number(last!.retryAfter) > 0, 'with Retry-After')
  const b = await get(nginx.port, '/fapi/v1/time', B)
  t.same([b.status, b.weight], [200, 1], 'B, through the same nginx, is served on a budget of its own')
  const direct = await get(port, '/fapi/v1/time', A, { 'x-forwarded-for': B })
  t.equal(direct.status, 429, 'A straight to the gateway, naming B in its own X-Forwarded-For, is still A: only nginx is trusted')

  // WebSocket handshakes through nginx: A's attempts run out, B's do not.
  const wsBase = `ws://127.0.0.1:${nginx.port}`
  const sockets: WebSocket[] = []
  t.teardown(() => { for (const s of sockets) s.close() })
  let refused: number | undefined
  for (let i = 0; i < 3 * ATTEMPTS_LIMIT && refused === undefined; i++) {
    const r = await open(`${wsBase}/ws/btcusdtperp@trade`, A)
    if (typeof r === 'number') refused = r
    else sockets.push(r)
  }
  t.equal(refused, 429, 'A\'s connection attempts run out')
  const s = await open(`${wsBase}/ws/btcusdtperp@trade`, B)
  t.ok(s instanceof WebSocket, 'B connects')
  if (!(s instanceof WebSocket)) return
  sockets.push(s)
  const reply = new Promise<unknown>((resolve) => s.once('message', (m: Buffer) => resolve(JSON.parse(m.toString()))))
  s.send(JSON.stringify({ method: 'LIST_SUBSCRIPTIONS', id: 1 }))
  t.same(await reply, { result: ['btcusdtperp@trade'], id: 1 }, 'and its stream answers through nginx')
})
