// fast-check against the WebSocket endpoints over real loopback, as test/gateway/fuzz.test.ts
// does for REST. On the WebSocket APIs (/ws-fapi/v1, spot's /ws-api/v3): every method with random signed params,
// and random frames of any shape, each get one reply in Binance's shape, never a 5xx (nor at the
// limits lists are cut at, method by method); a refused
// request leaves the state root unchanged; the connection goes on serving. On the market
// streams (/ws): random control frames each get a reply in Binance's stream shape, the socket
// stays open, and LIST_SUBSCRIPTIONS always lists what the accepted SUBSCRIBEs and UNSUBSCRIBEs left.

import t from 'tap'
import fc from 'fast-check'
import { stateRoot } from '../../core/root.js'
import { METHODS } from '../../gateway/ws-api/methods.js'
import { SPOT_METHODS } from '../../gateway/ws-api/spot-methods.js'
import { PARAMS } from '../helpers/fuzz-params.js'
import { runs } from '../helpers/property.js'
import type { Client } from './client.js'
import { signed, wsApiRig } from './ws-api-rig.js'

// Every permission; the streams' limit of 10 frames a second would close the fuzzer's socket,
// which is not what is tested here.
const RIG = { permissions: 'TRADE,USER_DATA,WITHDRAW', messagesPerSecond: 1_000_000 }

/** A WebSocket API reply; throws when it is not one in Binance's shape, or is a 5xx. */
function checkReply(r: any, sent: string): number {
  const where = `${sent} → ${JSON.stringify(r)}`
  if (typeof r.status !== 'number' || r.status >= 500) throw new Error(`a 5xx or no status: ${where}`)
  if (!Array.isArray(r.rateLimits) || r.rateLimits[0]?.rateLimitType !== 'REQUEST_WEIGHT') throw new Error(`no rateLimits: ${where}`)
  if (r.status >= 400) {
    if (typeof r.error?.code !== 'number' || r.error.code >= 0 || typeof r.error.msg !== 'string') throw new Error(`bad error: ${where}`)
  } else if (!('result' in r)) {
    throw new Error(`neither result nor error: ${where}`)
  }
  return r.status
}

/** Sends one frame and waits for its reply: the next message with a status. */
async function exchange(ws: Client, frame: string): Promise<any> {
  ws.send(frame)
  return ws.next((m) => m !== null && typeof m === 'object' && 'status' in m)
}

for (const [path, table, symbol] of [['/ws-fapi/v1', METHODS, 'BTCUSDTPERP'], ['/ws-api/v3', SPOT_METHODS, 'BTCUSDT']] as const) {
  t.test(`the WebSocket API ${path}: every method with random signed params`, async (t) => {
    const { rig, open, keys, address } = await wsApiRig(t, RIG)
    // Spot balances too, so spot orders can be accepted.
    await rig.run({ type: 'Deposit', account: address, sub: 0, asset: 'USDT', amount: 100_000_000_000, wallet: 'SPOT', ref: 'fuzz' })
    const ws = await open(path)
    const methods = [...Object.keys(table).filter((m) => m !== 'session.logout'), 'order.explode', 'constructor', 'toString']
    const statuses = new Map<number, number>()
    let id = 0
    await fc.assert(fc.asyncProperty(fc.constantFrom(...methods), PARAMS, fc.boolean(), async (method, params, sign) => {
      // A new minute before the weight budget runs out (spot's weights are heavy): the limit is not what is tested here.
      if (rig.app.weights.used('127.0.0.1') > 1500) await rig.run({ type: 'Tick' }, 60_000)
      const before = stateRoot(rig.ex.state)
      const frame = JSON.stringify({ id: ++id, method, params: sign ? signed(rig, keys, params) : params })
      const r = await exchange(ws, frame)
      if (r.id !== id) throw new Error(`reply to ${id} came with id ${r.id}`)
      const status = checkReply(r, frame)
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
      // (409: a cancel-replace whose one half was done, by design.)
      if (status >= 400 && status !== 409 && stateRoot(rig.ex.state) !== before) throw new Error(`${frame} was refused but changed state`)
    }), runs(400))
    t.comment(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`)
    t.ok((statuses.get(200) ?? 0) > 0 && (statuses.get(400) ?? 0) > 0, 'some requests served, some refused')
    t.equal([...statuses.keys()].filter((s) => s >= 500).length, 0, 'no 5xx')
    const still = await exchange(ws, JSON.stringify({ id: 'last', method: 'ticker.price', params: { symbol } }))
    t.equal(still.status, 200, 'the connection still serves')
  })
}

for (const [path, table, symbol] of [['/ws-fapi/v1', METHODS, 'BTCUSDTPERP'], ['/ws-api/v3', SPOT_METHODS, 'BTCUSDT']] as const) {
  t.test(`the WebSocket API ${path}: every method at the limits lists are cut at, never a 5xx`, async (t) => {
    // As the REST sweep (test/gateway/fuzz.test.ts): a method's own bound above its query's answered 500.
    const { rig, open, keys } = await wsApiRig(t, RIG)
    const ws = await open(path)
    const methods = Object.keys(table).filter((m) => m !== 'session.logout')
    const statuses = new Map<number, number>()
    let id = 0
    for (const method of methods) {
      for (const limit of ['1', '5', '100', '500', '501', '1000', '1001', '1500', '5000', '5001']) {
        if (rig.app.weights.used('127.0.0.1') > 1500) await rig.run({ type: 'Tick' }, 60_000)
        const frame = JSON.stringify({ id: ++id, method, params: signed(rig, keys, { symbol, limit, interval: '1m' }) })
        const status = checkReply(await exchange(ws, frame), frame)
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    }
    t.comment(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`)
    t.notOk(statuses.has(429) || statuses.has(418), 'none refused for weight')
    t.ok((statuses.get(200) ?? 0) > id / 4, 'a quarter or more answered')
  })
}

/** Any frame: text that is not JSON, JSON of any shape, and request-like objects with any fields. */
const FRAMES = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.record({
    id: fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.nat(), fc.string({ maxLength: 70 })),
    method: fc.oneof(fc.constantFrom(...Object.keys(METHODS), 'SUBSCRIBE'), fc.jsonValue({ maxDepth: 1 })),
    params: fc.oneof(PARAMS, fc.jsonValue({ maxDepth: 2 })),
  }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
)

t.test('the WebSocket API: random frames of any shape', async (t) => {
  const { rig, open } = await wsApiRig(t, RIG)
  const ws = await open('/ws-fapi/v1')
  const root = stateRoot(rig.ex.state)
  let replies = 0
  await fc.assert(fc.asyncProperty(fc.oneof(FRAMES, fc.uint8Array({ maxLength: 16 })), async (frame) => {
    if (typeof frame === 'string') ws.send(frame)
    else ws.ws.send(frame, { binary: true })
    checkReply(await ws.next((m) => m !== null && typeof m === 'object' && 'status' in m), String(frame))
    replies++
  }), runs(400))
  t.equal(replies, runs(400).numRuns, 'one reply in Binance\'s shape to each frame, none a 5xx')
  t.equal(stateRoot(rig.ex.state), root, 'nothing unsigned changed state')
  t.equal(ws.closed, null, 'the connection is open')
})

// Names parseStream takes (symbols need not be listed), near misses, and arbitrary values.
const STREAM_NAMES = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('btcusdtperp@aggTrade', 'btcusdtperp@depth', 'btcusdtperp@depth5@100ms',
    'ethusdtperp@kline_1m', 'btcusdtperp@markPrice@1s', '!markPrice@arr', '!ticker@arr', '!bookTicker', 'btcusdt@indexPrice',
    'zz9@trade', 'btcusdt_perpetual@continuousKline_1m', '!contractInfo', 'btcusdtperp@rpiDepth@500ms', '!assetIndex@arr') },
  fc.constantFrom('btcusdtperp@depth7', 'BTCUSDTPERP@trade', '@trade', 'btcusdtperp@', 'btcusdtperp@kline_2m',
    'btcusdt_perpetual@continuousKline_2m', 'btcusdt_weekly@continuousKline_1m', '_perpetual@continuousKline_1m', 'btcusdtperp@rpiDepth'),
  fc.string({ maxLength: 20 }),
  fc.jsonValue({ maxDepth: 1 }),
)
const CONTROL = fc.record({
  method: fc.constantFrom('SUBSCRIBE', 'UNSUBSCRIBE', 'LIST_SUBSCRIPTIONS', 'SET_PROPERTY', 'GET_PROPERTY'),
  params: fc.oneof({ weight: 6, arbitrary: fc.array(STREAM_NAMES, { maxLength: 4 }) }, fc.constant(['combined', true]), fc.constant(['combined']),
    fc.jsonValue({ maxDepth: 2 })),
  id: fc.oneof({ weight: 4, arbitrary: fc.nat() }, fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 })),
}, { requiredKeys: ['method', 'id'] })

t.test('the market streams: random control frames', async (t) => {
  const { open } = await wsApiRig(t, RIG)
  const ws = await open('/ws')
  const isReply = (m: any) => m !== null && typeof m === 'object' && ('id' in m || 'code' in m)
  const listed = new Set<string>()
  let checked = 0
  let changes = 0
  await fc.assert(fc.asyncProperty(fc.oneof({ weight: 4, arbitrary: CONTROL.map((c) => JSON.stringify(c)) },
    { weight: 1, arbitrary: FRAMES }), async (frame) => {
    ws.send(frame)
    const r = await ws.next(isReply)
    if ('code' in r) {
      if (!Number.isInteger(r.code) || r.code < 0 || r.code > 3 || typeof r.msg !== 'string') throw new Error(`${frame} → ${JSON.stringify(r)}`)
    } else {
      // Accepted: the subscriptions change as the request said.
      const req = JSON.parse(frame) as { method: string; params: string[] }
      if (req.method === 'SUBSCRIBE') for (const n of req.params) { if (!listed.has(n)) changes++; listed.add(n) }
      if (req.method === 'UNSUBSCRIBE') for (const n of req.params) { if (listed.has(n)) changes++; listed.delete(n) }
    }
    const list = await ws.request({ method: 'LIST_SUBSCRIPTIONS', id: 'list' })
    if (JSON.stringify([...list.result].sort()) !== JSON.stringify([...listed].sort())) {
      throw new Error(`after ${frame}: listed ${JSON.stringify(list.result)}, expected ${JSON.stringify([...listed])}`)
    }
    checked++
  }), runs(300))
  t.equal(checked, runs(300).numRuns, 'each frame answered in the stream shape; LIST_SUBSCRIPTIONS always right')
  t.ok(changes > 0, `${changes} subscriptions added or removed along the way`)
  t.equal(ws.closed, null, 'the socket is open')
})
