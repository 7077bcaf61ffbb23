// Stream paths, the control protocol's exact replies, and the per-connection limits, over real
// WebSocket connections on loopback.

import net from 'node:net'
import t from 'tap'
import { WebSocket } from 'ws'
import { limit } from '../helpers/commands.js'
import { ALICE, BOB } from '../helpers/exchange.js'
import { connect, ok, sleep, streamRig } from './client.js'

/** The HTTP status an upgrade to `url` is refused with (0: accepted). */
const refusal = (url: string): Promise<number> =>
  connect(url).then((c) => { c.close(); return 0 }, (e: { status: number }) => e.status)

t.test('every path form serves streams, raw or combined', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  const forms: [string, boolean][] = [
    ['/ws/btcusdtperp@trade', false],
    ['/ws/btcusdtperp@trade/ethusdtperp@trade', false],
    ['/public/ws/btcusdtperp@trade', false],
    ['/market/ws/btcusdtperp@trade', false],
    ['/stream?streams=btcusdtperp@trade', true],
    ['/stream?streams=btcusdtperp@trade/ethusdtperp@trade', true],
    ['/public/stream?streams=btcusdtperp@trade', true],
    ['/market/stream?streams=btcusdtperp@trade', true],
  ]
  const clients = await Promise.all(forms.map(([p]) => connect(rig.base + p)))
  for (const c of clients) t.same(await c.request({ method: 'LIST_SUBSCRIPTIONS', id: 1 }), { result: [
    'btcusdtperp@trade', ...(c === clients[1] || c === clients[5] ? ['ethusdtperp@trade'] : []),
  ], id: 1 })
  await ok(rig, limit(ALICE, 'SELL', 500_000, 1000))
  await ok(rig, limit(BOB, 'BUY', 500_000, 400))
  for (let i = 0; i < forms.length; i++) {
    const msg = await clients[i]!.next()
    const data = forms[i]![1] ? msg.data : msg
    if (forms[i]![1]) t.equal(msg.stream, 'btcusdtperp@trade', `${forms[i]![0]} wraps the stream name`)
    t.match(data, { e: 'trade', s: 'BTCUSDTPERP', p: '50000.0', q: '0.400', m: false }, forms[i]![0])
  }
  for (const c of clients) c.close()
})

t.test('bare and routed paths with no stream, trailing segments, and refused paths', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  // /ws/0: ccxt's spot client numbers its connections so, then SUBSCRIBEs.
  for (const p of ['/ws', '/stream', '/public/ws', '/market/ws', '/market/ws/anything/at/all', '/public/stream', '/ws/0', '/ws/17']) {
    const c = await connect(rig.base + p)
    t.same(await c.request({ method: 'LIST_SUBSCRIPTIONS', id: 7 }), { result: [], id: 7 }, p)
    c.close()
  }
  t.equal(await refusal(rig.base + '/nope'), 404)
  t.equal(await refusal(rig.base + '/ws/btcusdtperp@bogus'), 400)
  t.equal(await refusal(rig.base + '/ws/' + '0'.repeat(64)), 400, 'a long number is a (dead) listen key, not a counter')
  const err = await connect(rig.base + '/stream?streams=btcusdtperp@depth7').catch((e: { body: string }) => e)
  t.same(JSON.parse((err as { body: string }).body), { code: 2, msg: 'Invalid request: invalid stream name "btcusdtperp@depth7"' })
})

/** The status line, headers and JSON body an upgrade request written by hand is answered with. */
function handshake(base: string, lines: string[]): Promise<{ status: string; headers: string[]; body: unknown }> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write([...lines, 'Host: x', '', ''].join('\r\n')))
    let got = ''
    socket.on('data', (b: Buffer) => { got += b.toString() })
    socket.on('error', reject)
    socket.on('close', () => {
      const [head, body] = got.split('\r\n\r\n') as [string, string]
      const [status, ...headers] = head.split('\r\n')
      resolve({ status: status!, headers, body: JSON.parse(body) })
    })
  })
}

t.test('a request that is no WebSocket handshake is refused in Binance\'s shape', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  const upgrade = ['Upgrade: websocket', 'Connection: Upgrade']
  const key = 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='
  const badKey = await handshake(rig.base, ['GET /ws/btcusdtperp@trade HTTP/1.1', ...upgrade, 'Sec-WebSocket-Key: abc', 'Sec-WebSocket-Version: 13'])
  t.same([badKey.status, badKey.body], ['HTTP/1.1 400 Bad Request', { code: -1100, msg: 'Missing or invalid Sec-WebSocket-Key header.' }])
  const badVersion = await handshake(rig.base, ['GET /ws/btcusdtperp@trade HTTP/1.1', ...upgrade, key, 'Sec-WebSocket-Version: 99'])
  t.same([badVersion.status, badVersion.body], ['HTTP/1.1 400 Bad Request', { code: -1100, msg: 'Missing or invalid Sec-WebSocket-Version header: 13 or 8.' }])
  t.ok(badVersion.headers.includes('Sec-WebSocket-Version: 13, 8'), 'naming the versions served')
  const post = await handshake(rig.base, ['POST /stream?streams=btcusdtperp@trade HTTP/1.1', ...upgrade, key, 'Sec-WebSocket-Version: 13', 'Content-Length: 0'])
  t.same([post.status, post.body], ['HTTP/1.1 405 Method Not Allowed', { code: -1100, msg: 'A WebSocket handshake is a GET request.' }])
  const other = await handshake(rig.base, ['GET /ws HTTP/1.1', 'Upgrade: h2c', 'Connection: Upgrade', key, 'Sec-WebSocket-Version: 13'])
  t.same([other.status, other.body], ['HTTP/1.1 400 Bad Request', { code: -1100, msg: 'Invalid Upgrade header: only websocket is served.' }])
  const c = await connect(rig.base + '/ws/btcusdtperp@trade')
  t.same(await c.request({ method: 'LIST_SUBSCRIPTIONS', id: 1 }), { result: ['btcusdtperp@trade'], id: 1 }, 'a real handshake still opens')
  c.close()
})

t.test('control messages answer exactly as Binance does', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  const c = await connect(rig.base + '/ws')
  const ask = async (msg: unknown) => {
    c.send(msg)
    const r = await c.next()
    await sleep(110) // stay under 10 messages per second
    return r
  }
  t.same(await ask({ method: 'SUBSCRIBE', params: ['btcusdtperp@aggTrade', 'btcusdtperp@depth'], id: 1 }), { result: null, id: 1 })
  t.same(await ask({ method: 'LIST_SUBSCRIPTIONS', id: 3 }), { result: ['btcusdtperp@aggTrade', 'btcusdtperp@depth'], id: 3 })
  t.same(await ask({ method: 'UNSUBSCRIBE', params: ['btcusdtperp@depth'], id: 312 }), { result: null, id: 312 })
  t.same(await ask({ method: 'LIST_SUBSCRIPTIONS', id: 'list' }), { result: ['btcusdtperp@aggTrade'], id: 'list' }, 'string ids')
  t.same(await ask({ method: 'GET_PROPERTY', params: ['combined'], id: 2 }), { result: false, id: 2 })
  t.same(await ask({ method: 'SET_PROPERTY', params: ['combined', true], id: 5 }), { result: null, id: 5 })
  t.same(await ask({ method: 'GET_PROPERTY', params: ['combined'], id: 6 }), { result: true, id: 6 })
  // Refusals: API.md's {code, msg}, with the id (as Binance's table of them shows it) when the request has one it takes.
  t.same(await ask({ method: 'SET_PROPERTY', params: ['combined', 'yes'], id: 8 }), { code: 1, msg: 'Invalid value type: expected Boolean', id: 8 })
  t.same(await ask({ method: 'SET_PROPERTY', params: ['compressed', true], id: 'p8' }), { code: 0, msg: 'Unknown property', id: 'p8' })
  t.same(await ask({ method: 'GET_PROPERTY', params: [5], id: null }), { code: 2, msg: 'Invalid request: property name must be a string', id: null })
  t.same(await ask({ method: 'LIST_SUBSCRIPTIONS', id: 1.5 }), { code: 2, msg: 'Invalid request: request ID must be an unsigned integer' })
  t.same(await ask({ method: 'LIST_SUBSCRIPTIONS' }), { code: 2, msg: 'Invalid request: request ID must be an unsigned integer' })
  t.same(await ask({ method: 'PING', id: 9 }), { code: 2,
    msg: 'Invalid request: unknown variant `PING`, expected one of `SUBSCRIBE`, `UNSUBSCRIBE`, `LIST_SUBSCRIPTIONS`, `SET_PROPERTY`, `GET_PROPERTY`', id: 9 })
  t.same(await ask({ params: [], id: 9 }), { code: 2, msg: 'Invalid request: missing field `method`', id: 9 })
  t.same(await ask({ params: [], id: true }), { code: 2, msg: 'Invalid request: missing field `method`' }, 'an id of no accepted form is left out')
  // An object whose own `toString` is not a function: formatting it with String() threw, and the
  // throw took the whole exchange process down.
  t.same(await ask({ method: { toString: 1 }, id: 9 }), { code: 2,
    msg: 'Invalid request: unknown variant `{"toString":1}`, expected one of `SUBSCRIBE`, `UNSUBSCRIBE`, `LIST_SUBSCRIPTIONS`, `SET_PROPERTY`, `GET_PROPERTY`', id: 9 })
  t.same(await ask({ method: 5, id: 9 }), { code: 2,
    msg: 'Invalid request: unknown variant `5`, expected one of `SUBSCRIBE`, `UNSUBSCRIBE`, `LIST_SUBSCRIPTIONS`, `SET_PROPERTY`, `GET_PROPERTY`', id: 9 })
  t.same(await ask({ method: 'SUBSCRIBE', params: ['btcusdtperp@nothing'], id: 10 }),
    { code: 2, msg: 'Invalid request: invalid stream name "btcusdtperp@nothing"', id: 10 })
  const bad = await ask('{"method":')
  t.same(Object.keys(bad), ['code', 'msg'], 'unreadable JSON: no id')
  t.equal(bad.code, 3)
  t.match(bad.msg, /^Invalid JSON: /)
  t.same(await ask({ method: 'LIST_SUBSCRIPTIONS', id: 11 }), { result: ['btcusdtperp@aggTrade'], id: 11 }, 'errors change nothing')
  c.close()
})

// Binance spot: "The id is used as an identifier to uniquely identify the messages going back and
// forth. The following formats are accepted: 64-bit signed integer, alphanumeric strings; max
// length 36, null." Found by review: negative and large ids were refused. Strings of up to 64
// characters, of any letters, are taken as API.md has always taken them.
t.test('request ids of every form Binance takes are echoed exactly; others are refused without one', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  const c = await connect(rig.base + '/ws')
  const raw: string[] = []
  c.ws.on('message', (data) => raw.push(data.toString()))
  /** The reply's text to `frame` (a text written by hand: JSON.stringify would round the large ids). */
  const ask = async (frame: string) => {
    c.send(frame)
    await c.next()
    await sleep(110) // stay under 10 messages per second
    return raw.shift()!
  }
  const list = (id: string) => ask(`{"method":"LIST_SUBSCRIPTIONS","id":${id}}`)
  const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e'
  for (const id of ['0', '-1', '9223372036854775807', '-9223372036854775808', '1700000000000000001', 'null', '"list"', '""',
    `"${uuid}"`, `"${'a'.repeat(64)}"`, '"A_b-9"', '"a b"', '"ü"']) {
    t.equal(await list(id), `{"result":[],"id":${id}}`, `id ${id}`)
  }
  const refused = '{"code":2,"msg":"Invalid request: request ID must be an unsigned integer"}'
  for (const id of ['9223372036854775808', '-9223372036854775809', '1.5', '1.0', '1e3', `"${'a'.repeat(65)}"`, 'true', '{}', '[1]']) {
    t.equal(await list(id), refused, `id ${id}`)
  }
  t.equal(await ask('{"method":"LIST_SUBSCRIPTIONS","params":{"id":7},"id":-7}'), '{"result":[],"id":-7}', 'the top-level id, not a nested one')
  t.equal(await ask('{"id":1,"method":"LIST_SUBSCRIPTIONS","id":2}'), '{"result":[],"id":2}', 'the last of two, as JSON.parse reads them')
  t.equal(await ask('{"method":"NOPE","id":9223372036854775807}'),
    '{"code":2,"msg":"Invalid request: unknown variant `NOPE`, expected one of `SUBSCRIBE`, `UNSUBSCRIBE`, `LIST_SUBSCRIPTIONS`, `SET_PROPERTY`, `GET_PROPERTY`","id":9223372036854775807}',
    'a refusal carries the id exactly too')
  t.equal(await ask(`{"method":"SUBSCRIBE","params":["btcusdtperp@trade"],"id":"${uuid}"}`), `{"result":null,"id":"${uuid}"}`)
  t.equal(await list('-1'), '{"result":["btcusdtperp@trade"],"id":-1}', 'a UUID-named SUBSCRIBE took')
  c.close()
})

t.test('SET_PROPERTY combined switches the payload wrapping', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  const c = await connect(rig.base + '/ws/btcusdtperp@trade')
  await ok(rig, limit(ALICE, 'SELL', 500_000, 1000))
  await ok(rig, limit(BOB, 'BUY', 500_000, 10))
  t.match(await c.next(), { e: 'trade', t: 1 })
  t.same(await c.request({ method: 'SET_PROPERTY', params: ['combined', true], id: 1 }), { result: null, id: 1 })
  await ok(rig, limit(BOB, 'BUY', 500_000, 10))
  t.match(await c.next(), { stream: 'btcusdtperp@trade', data: { e: 'trade', t: 2 } })
  c.close()
})

t.test('more than 10 incoming messages in a second closes the connection', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  const c = await connect(rig.base + '/ws')
  for (let i = 0; i < 11; i++) c.send({ method: 'LIST_SUBSCRIPTIONS', id: i })
  t.same(await c.closedWith(), { code: 1008, reason: 'Too many messages' })
  t.equal(c.messages.length, 10, 'the first ten were answered')
  t.equal(rig.streams.connections.size, 0)
})

t.test('at most 1024 streams per connection', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  const c = await connect(rig.base + '/ws')
  const names = Array.from({ length: 1024 }, (_, i) => `s${i}@trade`)
  t.same(await c.request({ method: 'SUBSCRIBE', params: names, id: 1 }), { result: null, id: 1 })
  t.same(await c.request({ method: 'SUBSCRIBE', params: ['s0@trade'], id: 2 }), { result: null, id: 2 }, 'already held: no change')
  t.same(await c.request({ method: 'SUBSCRIBE', params: ['one@trade'], id: 3 }),
    { code: 2, msg: 'Invalid request: too many streams; at most 1024 per connection', id: 3 })
  const list = await c.request({ method: 'LIST_SUBSCRIPTIONS', id: 4 })
  t.equal(list.result.length, 1024)
  c.close()
  const url = rig.base + '/stream?streams=' + [...names, 'one@trade'].join('/')
  t.equal(await refusal(url), 400, 'a URL naming 1025 streams is refused')
})

t.test('connections past the gateway\'s maximum are refused with 503', async (t) => {
  const rig = await streamRig({ connectionsMax: 2 })
  t.teardown(() => rig.close())
  const a = await connect(rig.base + '/ws')
  const b = await connect(rig.base + '/ws')
  t.equal(await refusal(rig.base + '/ws'), 503)
  a.close()
  await a.closedWith()
  await sleep(50)
  t.equal(await refusal(rig.base + '/ws'), 0, 'a freed slot is usable again')
  b.close()
})

t.test('server pings; a client that never answers is dropped, one that does stays', async (t) => {
  const rig = await streamRig({ pingIntervalMs: 200, pongTimeoutMs: 1000 })
  t.teardown(() => rig.close())
  const live = await connect(rig.base + '/ws')
  const dead = await connect(rig.base + '/ws', { autoPong: false })
  let pings = 0
  dead.ws.on('ping', () => { pings++ })
  t.ok((await dead.closedWith(8000)).code === 1006, 'dropped without a close frame')
  t.ok(pings >= 3, 'it was pinged first')
  t.equal(live.closed, null)
  t.same(await live.request({ method: 'LIST_SUBSCRIPTIONS', id: 1 }), { result: [], id: 1 })
  live.close()
})

t.test('a client ping is answered with a pong carrying its payload', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  const c = await connect(rig.base + '/ws')
  const pong = new Promise<string>((resolve) => c.ws.once('pong', (d: Buffer) => resolve(d.toString())))
  c.ws.ping('hello')
  t.equal(await pong, 'hello')
  c.close()
})

t.test('connections end at their lifetime', async (t) => {
  const rig = await streamRig({ lifetimeMs: 300 })
  t.teardown(() => rig.close())
  const c = await connect(rig.base + '/ws')
  t.same(await c.closedWith(3000), { code: 1000, reason: 'Connection lifetime reached' })
})

t.test('closing the gateway closes its stream connections', async (t) => {
  const rig = await streamRig()
  const c = await connect(rig.base + '/ws')
  await rig.close()
  t.equal((await c.closedWith()).code, 1001)
  t.equal(c.ws.readyState, WebSocket.CLOSED)
})

t.test('other feeds plug in their own stream names (listen keys) on the same paths and hub', async (t) => {
  const subscribed: string[] = []
  const rig = await streamRig({ extraStreams: { accepts: (n) => n === 'k3y', subscribed: (n) => { subscribed.push(n) } } })
  t.teardown(() => rig.close())
  const forms = ['/ws/k3y', '/private/ws?listenKey=k3y', '/private/stream?listenKey=k3y', '/stream?streams=k3y/btcusdtperp@trade']
  const clients = await Promise.all(forms.map((p) => connect(rig.base + p)))
  t.same(subscribed, ['k3y', 'k3y', 'k3y', 'k3y'])
  rig.streams.hub.publish('k3y', { e: 'listenKeyExpired', E: 1, listenKey: 'k3y' })
  t.same(await clients[0]!.next(), { e: 'listenKeyExpired', E: 1, listenKey: 'k3y' })
  t.same(await clients[1]!.next(), { e: 'listenKeyExpired', E: 1, listenKey: 'k3y' })
  t.same(await clients[2]!.next(), { stream: 'k3y', data: { e: 'listenKeyExpired', E: 1, listenKey: 'k3y' } })
  t.same(await clients[3]!.next(), { stream: 'k3y', data: { e: 'listenKeyExpired', E: 1, listenKey: 'k3y' } })
  const c = await connect(rig.base + '/ws')
  t.same(await c.request({ method: 'SUBSCRIBE', params: ['k3y'], id: 1 }), { result: null, id: 1 })
  t.same(await c.request({ method: 'SUBSCRIBE', params: ['n0pe'], id: 2 }), { code: 2, msg: 'Invalid request: invalid stream name "n0pe"', id: 2 })
  t.equal(await refusal(rig.base + '/ws/n0pe'), 400)
  for (const x of [...clients, c]) x.close()
})

t.test('a fault of ours while handling a frame closes that connection with 1011 and is reported; the rest go on', async (t) => {
  // A plugged-in stream check that throws stands for any bug on the frame's path.
  const rig = await streamRig({ extraStreams: { accepts: (n) => { if (n === 'b00m') throw new Error('the check failed'); return false } } })
  t.teardown(() => rig.close())
  const other = await connect(rig.base + '/ws')
  const c = await connect(rig.base + '/ws')
  c.send({ method: 'SUBSCRIBE', params: ['b00m'], id: 1 })
  t.same(await c.closedWith(), { code: 1011, reason: 'Internal error' })
  t.match(rig.feedErrors, [/the check failed/], 'reported to the gateway\'s error handler')
  t.same(await other.request({ method: 'LIST_SUBSCRIPTIONS', id: 2 }), { result: [], id: 2 }, 'another connection still served')
  const again = await connect(rig.base + '/ws')
  t.same(await again.request({ method: 'LIST_SUBSCRIPTIONS', id: 3 }), { result: [], id: 3 }, 'and new ones accepted')
  for (const x of [other, again]) x.close()
})
