// Cross-origin access for web pages (gateway/cors.ts): every answer to an allowed origin says
// so, refusals too; preflights are answered without weight; a list of origins admits those
// alone, on HTTP and on WebSocket handshakes; `--cors-origins` is read strictly.

import t from 'tap'
import { WebSocket } from 'ws'
import { Wallet } from 'ethers'
import { buildGateway } from '../../gateway/app.js'
import { parseCorsOrigins } from '../../gateway/cors.js'
import { gatewayRig, openSession, signedInject, type Keys } from '../helpers/gateway.js'
import { streamRig } from '../ws/client.js'

const PAGE = 'https://app.example.com'
const EXPOSED = 'X-MBX-USED-WEIGHT-1M, X-MBX-ORDER-COUNT-10S, X-MBX-ORDER-COUNT-1M, X-SAPI-USED-IP-WEIGHT-1M, X-SAPI-USED-UID-WEIGHT-1M, '
  + 'X-EXCHANGE-SEQ, Retry-After'

const preflight = (origin: string, url = '/fapi/v1/order', method = 'POST', headers = 'x-mbx-apikey,content-type') => ({
  method: 'OPTIONS' as const, url,
  headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
})

t.test('any origin, by default: answers, refusals and preflights carry the CORS headers', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { app } = rig

  const time = await app.inject({ method: 'GET', url: '/fapi/v1/time', headers: { origin: PAGE } })
  t.equal(time.statusCode, 200)
  t.equal(time.headers['access-control-allow-origin'], '*')
  t.equal(time.headers['access-control-expose-headers'], EXPOSED, 'the usage counters are readable by the page')
  t.notOk(time.headers.vary, 'one answer for every origin')

  // A refusal, a 404 and a malformed read-your-writes header: the page can read each code.
  const bad = await app.inject({ method: 'GET', url: '/fapi/v1/depth?symbol=NOPE', headers: { origin: PAGE } })
  t.same([bad.statusCode, bad.json(), bad.headers['access-control-allow-origin']], [400, { code: -1121, msg: 'Invalid symbol.' }, '*'])
  const missing = await app.inject({ method: 'GET', url: '/fapi/v9/nothing', headers: { origin: PAGE } })
  t.same([missing.statusCode, missing.json().code, missing.headers['access-control-allow-origin']], [404, -1099, '*'])
  const seq = await app.inject({ method: 'GET', url: '/fapi/v1/time', headers: { origin: PAGE, 'x-exchange-seq': 'x' } })
  t.same([seq.statusCode, seq.json().code, seq.headers['access-control-allow-origin']], [400, -1100, '*'])

  // The preflight of a signed POST: granted, cached by the browser, free of weight.
  const weight = async (): Promise<number> =>
    Number((await app.inject({ method: 'GET', url: '/fapi/v1/time', headers: { origin: PAGE } })).headers['x-mbx-used-weight-1m'])
  const before = await weight()
  const pre = await app.inject(preflight(PAGE))
  t.equal(pre.statusCode, 204)
  t.equal(pre.body, '')
  t.match(pre.headers, {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE',
    'access-control-allow-headers': 'x-mbx-apikey,content-type',
    'access-control-max-age': '7200',
  })
  for (const url of ['/fapi/v1/order?symbol=BTCUSDTPERP&timestamp=1', '/sapi/v1/capital/withdraw/apply', '/api/v3/order', '/fapi/v9/nothing']) {
    t.equal((await app.inject(preflight(PAGE, url, 'DELETE', 'X-MBX-APIKEY'))).statusCode, 204, `preflight of ${url}`)
  }
  t.equal(await weight(), before + 1, 'five preflights weighed nothing; the time GET weighs 1')

  // A public page reaching a gateway on a private address: Chromium asks first.
  const local = preflight(PAGE)
  t.equal((await app.inject(local)).headers['access-control-allow-private-network'], undefined, 'not said unasked')
  const privateNetwork = await app.inject({ ...local, headers: { ...local.headers, 'access-control-request-private-network': 'true' } })
  t.equal(privateNetwork.headers['access-control-allow-private-network'], 'true')
  // Requested header names that are not a header list are not echoed.
  const odd = await app.inject(preflight(PAGE, '/fapi/v1/order', 'POST', 'x-mbx-apikey\r\nset-cookie: a'))
  t.equal(odd.statusCode, 204)
  t.notOk(odd.headers['access-control-allow-headers'])
  // OPTIONS that is no preflight says what the path takes.
  const plain = await app.inject({ method: 'OPTIONS', url: '/fapi/v1/order' })
  t.same([plain.statusCode, plain.headers.allow, plain.headers['access-control-allow-origin']], [204, 'GET, HEAD, POST, PUT, DELETE, OPTIONS', undefined])

  // A program sends no Origin: no CORS headers.
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet)).json() as Keys
  const program = await signedInject(rig, keys, 'GET', '/fapi/v1/account')
  t.equal(program.statusCode, 200)
  t.notOk(program.headers['access-control-allow-origin'])
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, object> }
  t.notOk(Object.values(doc.paths).some((ops) => 'options' in ops), 'the preflight route is not in the OpenAPI document')
})

t.test('a list of origins admits those alone; none admits no page', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const app = await buildGateway({ ...rig.ctx, corsOrigins: [PAGE, 'http://localhost:3000'] })
  t.teardown(() => app.close())

  const allowed = await app.inject({ method: 'GET', url: '/fapi/v1/time', headers: { origin: 'http://localhost:3000' } })
  t.same([allowed.headers['access-control-allow-origin'], allowed.headers.vary], ['http://localhost:3000', 'Origin'])
  const other = await app.inject({ method: 'GET', url: '/fapi/v1/time', headers: { origin: 'https://evil.example' } })
  t.equal(other.statusCode, 200, 'served (a browser keeps it from the page)')
  t.same([other.headers['access-control-allow-origin'], other.headers.vary], [undefined, 'Origin'])
  const pre = await app.inject(preflight(PAGE))
  t.same([pre.statusCode, pre.headers['access-control-allow-origin']], [204, PAGE])
  const refused = await app.inject(preflight('https://evil.example'))
  t.same([refused.statusCode, refused.json()], [403, { code: -1002, msg: 'Origin https://evil.example is not allowed to call this API.' }])
  t.notOk(refused.headers['access-control-allow-origin'])

  const none = await buildGateway({ ...rig.ctx, corsOrigins: parseCorsOrigins('none') })
  t.teardown(() => none.close())
  t.notOk((await none.inject({ method: 'GET', url: '/fapi/v1/time', headers: { origin: PAGE } })).headers['access-control-allow-origin'])
  t.equal((await none.inject(preflight(PAGE))).statusCode, 403)
})

t.test('WebSocket handshakes from a page: its origin is judged by the same list', async (t) => {
  const rig = await streamRig({}, (ctx) => ({ ...ctx, corsOrigins: [PAGE] }))
  t.teardown(() => rig.close())
  const open = (path: string, origin?: string): Promise<number | 'open'> => new Promise((resolve) => {
    const ws = new WebSocket(rig.base + path, origin === undefined ? {} : { origin })
    ws.on('open', () => { ws.close(); resolve('open') })
    ws.on('unexpected-response', (_req, res) => { res.resume(); resolve(res.statusCode!) })
    ws.on('error', () => {})
  })
  t.equal(await open('/ws/btcusdtperp@trade', PAGE), 'open', 'an allowed page')
  t.equal(await open('/ws/btcusdtperp@trade'), 'open', 'a program (no Origin)')
  t.equal(await open('/ws/btcusdtperp@trade', 'https://evil.example'), 403, 'another page')
  t.equal(await open('/stream?streams=btcusdtperp@trade', 'https://evil.example'), 403)
  t.equal(await open('/ws-fapi/v1', 'https://evil.example'), 403, 'the WebSocket API too')

  const any = await streamRig()
  t.teardown(() => any.close())
  const opened = await new Promise((resolve) => {
    const ws = new WebSocket(any.base + '/ws/btcusdtperp@trade', { origin: 'https://evil.example' })
    ws.on('open', () => { ws.close(); resolve('open') })
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode))
  })
  t.equal(opened, 'open', 'any origin by default')
})

t.test('--cors-origins is read strictly', async (t) => {
  t.equal(parseCorsOrigins('*'), '*')
  t.same(parseCorsOrigins('none'), [])
  t.same(parseCorsOrigins(' https://App.Example.com , http://localhost:3000,http://[::1]:8080'),
    ['https://app.example.com', 'http://localhost:3000', 'http://[::1]:8080'])
  for (const bad of ['', 'app.example.com', 'https://app.example.com/', 'https://app.example.com/path', 'ftp://x', '*,https://a.b',
    'https://a.b,,https://c.d', 'null']) {
    t.throws(() => parseCorsOrigins(bad), /not an origin/, JSON.stringify(bad))
  }
})
