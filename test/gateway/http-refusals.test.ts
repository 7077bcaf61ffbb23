// Requests refused for their size or form, on a real loopback socket: a body past the limit
// (fastify's error), headers past Node's limit and bytes that are not HTTP (Node's clientError)
// are each answered in Binance's {code, msg} with their HTTP status, and the gateway serves on.

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
