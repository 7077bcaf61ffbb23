// Requests refused for their size or form, on a real loopback socket: a body past the limit
// (fastify's error), headers past Node's limit and bytes that are not HTTP (Node's clientError),
// a CONNECT, an Expect other than 100-continue and an HTTP/1.1 request without Host (Node's own
// answers) are each answered in Binance's {code, msg} with their HTTP status, and the gateway
// serves on.

import net from 'node:net'
import t from 'tap'
import { gatewayRig } from '../helpers/gateway.js'

/** Writes `bytes` on a fresh connection; what comes back until the server closes it. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes))
    let got = ''
    socket.on('data', (b: Buffer) => { got += b.toString() })
    socket.on('close', () => resolve(got))
    socket.on('error', reject)
  })
}

/** A raw response's status line and JSON body. */
function parsed(response: string): { status: string; body: unknown } {
  const [head, body] = response.split('\r\n\r\n') as [string, string]
  return { status: head.split('\r\n')[0]!, body: JSON.parse(body) }
}

t.test('too large or not HTTP: refused in Binance\'s shape, and the gateway serves on', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const base = await rig.app.listen({ port: 0, host: '127.0.0.1' })
  const port = Number(new URL(base).port)

  const big = await fetch(`${base}/fapi/v1/order`, { method: 'POST', body: 'a='.padEnd(100_000, 'x'),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })
  t.same([big.status, await big.json()], [413, { code: -1101, msg: 'Request body too large.' }], 'a body past 64 KiB')

  const header = parsed(await raw(port, `GET /fapi/v1/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`))
  t.same(header, { status: 'HTTP/1.1 431 Request Header Fields Too Large', body: { code: -1101, msg: 'Request header fields too large.' } },
    'headers past Node\'s limit')
  const url = parsed(await raw(port, `GET /fapi/v1/depth?symbol=${'A'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`))
  t.same(url.body, { code: -1101, msg: 'Request header fields too large.' }, 'a request line past it')
  const garbage = parsed(await raw(port, 'HELLO THERE\r\n\r\n'))
  t.same(garbage, { status: 'HTTP/1.1 400 Bad Request', body: { code: -1100, msg: 'Malformed HTTP request.' } }, 'bytes that are not HTTP')

  const ping = await fetch(`${base}/fapi/v1/ping`)
  t.same([ping.status, await ping.json()], [200, {}], 'and it serves on')
})

// Found by exploratory testing: a signed order followed on the same connection by bytes that are
// not HTTP got one answer, the refusal, though the order was placed; a client retrying it would
// place it twice. The order's answer now comes first, then the refusal, then the close.
t.test('pipelined: the requests before the bad bytes are answered first, in order', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const base = await rig.app.listen({ port: 0, host: '127.0.0.1' })
  const port = Number(new URL(base).port)
  const ping = 'GET /fapi/v1/ping HTTP/1.1\r\nHost: x\r\n\r\n'
  const time = 'GET /fapi/v1/time HTTP/1.1\r\nHost: x\r\n\r\n'
  for (const bad of ['BAD REQUEST\r\n\r\n', `GET /fapi/v1/ping?x=${'a'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`]) {
    const got = await raw(port, ping + time + bad)
    const statuses = got.match(/HTTP\/1\.1 \d+/g)
    t.same(statuses, ['HTTP/1.1 200', 'HTTP/1.1 200', bad.startsWith('BAD') ? 'HTTP/1.1 400' : 'HTTP/1.1 431'])
    t.match(got, /\{\}[\s\S]*"serverTime":\d+[\s\S]*"code":-110[01]/, 'ping, time, then the refusal')
  }
})

// Found by review: Node answered these itself, 400 and 417 with an empty body, and a CONNECT
// with a silent close, which a Binance client reads as an error with no code.
t.test('no Host, an unknown Expect, a CONNECT: refused in Binance\'s shape, and the gateway serves on', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const base = await rig.app.listen({ port: 0, host: '127.0.0.1' })
  const port = Number(new URL(base).port)

  const noHost = parsed(await raw(port, 'GET /fapi/v1/ping HTTP/1.1\r\nConnection: close\r\n\r\n'))
  t.same(noHost, { status: 'HTTP/1.1 400 Bad Request', body: { code: -1100, msg: 'Malformed HTTP request: no Host header.' } },
    'an HTTP/1.1 request without Host')
  const old = parsed(await raw(port, 'GET /fapi/v1/ping HTTP/1.0\r\n\r\n'))
  t.same(old, { status: 'HTTP/1.1 200 OK', body: {} }, 'HTTP/1.0 needs none')
  const expect = parsed(await raw(port, 'POST /fapi/v1/order HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n'
    + 'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n\r\na=b'))
  t.same(expect, { status: 'HTTP/1.1 417 Expectation Failed', body: { code: -1100, msg: 'Expectation not supported: only 100-continue is.' } },
    'an Expect other than 100-continue')
  const connect = parsed(await raw(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'))
  t.same(connect, { status: 'HTTP/1.1 400 Bad Request', body: { code: -1100, msg: 'Malformed HTTP request: CONNECT is not supported.' } },
    'a CONNECT')

  // Pipelined: each refusal answers its own request, in order, and what follows is answered too
  // (after a CONNECT nothing is: the connection is closed, as after bytes that are not HTTP).
  const ping = 'GET /fapi/v1/ping HTTP/1.1\r\nHost: x\r\n\r\n'
  const last = 'GET /fapi/v1/time HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
  const kept = await raw(port, ping + 'GET /fapi/v1/ping HTTP/1.1\r\n\r\n' + 'GET /fapi/v1/ping HTTP/1.1\r\nHost: x\r\nExpect: x\r\n\r\n' + last)
  t.same(kept.match(/HTTP\/1\.1 \d+/g), ['HTTP/1.1 200', 'HTTP/1.1 400', 'HTTP/1.1 417', 'HTTP/1.1 200'])
  t.match(kept, /\{\}[\s\S]*no Host header[\s\S]*only 100-continue[\s\S]*"serverTime":\d+/, 'ping, the two refusals, then time')
  const closed = await raw(port, ping + 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n' + last)
  t.same(closed.match(/HTTP\/1\.1 \d+/g), ['HTTP/1.1 200', 'HTTP/1.1 400'], 'ping, then the CONNECT\'s refusal and the close')

  // CONNECTs reset by their clients: nothing throws, no connection is left open.
  await Promise.all(Array.from({ length: 20 }, () => new Promise<void>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')
      socket.resetAndDestroy()
    })
    socket.on('error', () => {})
    socket.on('close', () => resolve())
  })))
  const open = async (): Promise<number> => new Promise((resolve, reject) =>
    rig.app.server.getConnections((err, n) => { if (err) reject(err); else resolve(n) }))
  for (let i = 0; i < 50 && await open() > 0; i++) await new Promise((r) => setTimeout(r, 20))
  t.equal(await open(), 0, 'every refused connection closed')
  const served = await fetch(`${base}/fapi/v1/ping`)
  t.same([served.status, await served.json()], [200, {}], 'and it serves on')
})
