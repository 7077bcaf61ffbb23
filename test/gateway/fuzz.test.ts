// fast-check over every route fastify registers (enumerated from the app itself, so a new
// route is fuzzed without touching this file): random parameter sets, correctly signed,
// never yield a 5xx, and a rejected request leaves the state root unchanged.

import t from 'tap'
import fc from 'fast-check'
import { Wallet } from 'ethers'
import type { FastifyInstance } from 'fastify'
import { stateRoot } from '../../core/root.js'
import { PARAMS } from '../helpers/fuzz-params.js'
import { gatewayRig, hmac, openSession, type GatewayRig, type Keys } from '../helpers/gateway.js'
import { runs } from '../helpers/property.js'

/** [method, path] of every route in printRoutes()'s tree (HEAD mirrors GET; wildcards skipped). */
function routesOf(app: FastifyInstance): [string, string][] {
  const out: [string, string][] = []
  const stack: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│├└─ ]*)(\S.*?) \(([A-Z, ]+)\)$/.exec(line)
    if (m === null) continue
    // Each tree level indents by four characters; a child's segment continues its parent's path.
    const depth = m[1]!.length / 4
    stack.length = depth
    stack[depth] = m[2]!
    const path = stack.join('')
    if (path.includes('*')) continue
    for (const method of m[3]!.split(', ')) if (method !== 'HEAD') out.push([method, path])
  }
  return out
}

/** Ends the session the fuzzer signs with: swept last, never drawn at random. */
const SESSION_END = 'DELETE /fapi/v1/session'

async function fuzzRig(): Promise<{ rig: GatewayRig, keys: Keys }> {
  const rig = await gatewayRig()
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet, { permissions: 'TRADE,USER_DATA,WITHDRAW' })).json() as Keys
  await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 1_000_000_000, wallet: 'PERP', ref: 'f' })
  return { rig, keys }
}

/** Sends one signed request; throws on a 5xx, a malformed error body, or a rejection that changed state. */
async function probe(rig: GatewayRig, keys: Keys, method: string, path: string, params: Record<string, string>,
  remoteAddress?: string): Promise<number> {
  const q = new URLSearchParams({ ...params, timestamp: String(rig.ex.time) }).toString()
  const before = stateRoot(rig.ex.state)
  const r = await rig.app.inject({ method: method as 'GET', url: `${path}?${q}&signature=${hmac(keys.secretKey, q)}`,
    headers: { 'x-mbx-apikey': keys.apiKey }, ...(remoteAddress === undefined ? {} : { remoteAddress }) })
  if (r.statusCode >= 500) throw new Error(`${method} ${path}?${q} → ${r.statusCode} ${r.body}`)
  if (r.statusCode >= 400) {
    const body = r.json() as { code: number; msg: string }
    if (typeof body.code !== 'number' || body.code >= 0 || typeof body.msg !== 'string') throw new Error(`${method} ${path}: bad error body ${r.body}`)
    if (stateRoot(rig.ex.state) !== before) throw new Error(`${method} ${path}?${q} was rejected but changed state`)
  }
  return r.statusCode
}

t.test('every registered route, swept with random signed parameters', async (t) => {
  const { rig, keys } = await fuzzRig()
  t.teardown(() => rig.close())
  const routes = routesOf(rig.app)
  const names = routes.map(([m, p]) => `${m} ${p}`)
  for (const expected of ['POST /fapi/v1/order', 'PUT /fapi/v1/order', 'DELETE /fapi/v1/batchOrders', 'GET /fapi/v1/leverageBracket',
    'POST /sapi/v1/asset/transferQuoteFromSpotToPerp', 'GET /api/v3/depth', SESSION_END]) {
    t.ok(names.includes(expected), `${expected} is enumerated`)
  }
  // Each route with a few parameter sets drawn from a fixed seed; the session ends last.
  const ordered = [...routes.filter(([m, p]) => `${m} ${p}` !== SESSION_END), ...routes.filter(([m, p]) => `${m} ${p}` === SESSION_END)]
  const samples = fc.sample(PARAMS, runs(4 * ordered.length))
  let sent = 0
  for (let i = 0; i < ordered.length; i++) {
    const [method, path] = ordered[i]!
    for (let k = 0; k < 4; k++) {
      await probe(rig, keys, method, path, samples[4 * i + k]!)
      sent++
    }
  }
  t.equal(sent, 4 * routes.length, `${routes.length} routes, ${sent} requests, no 5xx, no state change on rejection`)
})

t.test('every GET route at the limits lists are cut at: a 2xx or a refusal, never a 5xx', async (t) => {
  // A route whose own bound on `limit` (or `size`) is above what the query behind it takes
  // answered 500 (spot historicalTrades asked the trade tape for up to 1,000, which took 500).
  const { rig, keys } = await fuzzRig()
  t.teardown(() => rig.close())
  const gets = routesOf(rig.app).filter(([m]) => m === 'GET')
  const common = { interval: '1m', period: '5m', pair: 'BTCUSDT', contractType: 'PERPETUAL' }
  const statuses = new Map<number, number>()
  let sent = 0
  for (const [method, path] of gets) {
    for (const symbol of ['BTCUSDTPERP', 'BTCUSDT']) {
      for (const n of ['1', '5', '10', '20', '50', '100', '500', '501', '1000', '1001', '1500', '5000', '5001']) {
        // Each from an address of its own, so the per-IP request weight never refuses one first.
        const status = await probe(rig, keys, method, path, { ...common, symbol, limit: n, size: n }, `10.0.${sent >> 8}.${sent & 255}`)
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
        sent++
      }
    }
  }
  t.equal(sent, gets.length * 26, `${gets.length} GET routes, ${sent} requests, no 5xx`)
  t.notOk(statuses.has(429) || statuses.has(418), 'none refused for weight: each reached its route')
  t.ok((statuses.get(200) ?? 0) > sent / 3, `answers: ${JSON.stringify(Object.fromEntries(statuses))}`)
})

t.test('random routes and signed parameters never yield a 5xx or change state on rejection', async (t) => {
  const { rig, keys } = await fuzzRig()
  t.teardown(() => rig.close())
  const routes = routesOf(rig.app).filter(([m, p]) => `${m} ${p}` !== SESSION_END)
  let checked = 0
  await fc.assert(fc.asyncProperty(fc.constantFrom(...routes), PARAMS, async ([method, path], params) => {
    await probe(rig, keys, method, path, params)
    checked++
  }), runs(400))
  t.ok(checked >= 400, `${checked} requests`)
})
