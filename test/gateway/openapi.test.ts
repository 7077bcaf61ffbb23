// The OpenAPI document and Swagger UI, over a loopback socket: /openapi.json is OpenAPI 3.0
// and lists every route the gateway registered, with its parameters, its security as the
// route actually enforces it, and its 200 and error bodies; /docs serves the UI and its
// assets offline; none of it is charged. Signed responses keep every field now that their
// schemas also serialize them.

import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import Fastify from 'fastify'
import { Wallet } from 'ethers'
import { checkResponses } from '../../gateway/response-check.js'
import { ROOT } from '../helpers/paths.js'
import { gatewayRig, openSession, signedInject, type GatewayRig, type Keys } from '../helpers/gateway.js'

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }

type Route = [method: string, path: string]

/** [method, path] of every route in fastify's printRoutes tree; HEAD (fastify's own) left out. */
function registeredRoutes(tree: string): Route[] {
  const out: Route[] = []
  const stack: string[] = []
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line)
    if (!m) continue
    const depth = m[1]!.length / 4
    const path = (depth === 0 ? '' : stack[depth - 1]!) + m[2]!
    stack.length = depth
    stack.push(path)
    for (const method of m[3]?.split(', ') ?? []) if (method !== 'HEAD') out.push([method, path])
  }
  return out
}

/** Routes of the API itself: the document and the UI do not list themselves. */
// Not API routes: the document, its UI, and the CORS preflights' catch-all (gateway/cors.ts).
const isApi = ([method, path]: Route): boolean => path !== '/openapi.json' && !path.startsWith('/docs') && !(method === 'OPTIONS' && path === '*')

interface Parameter { name: string; in: string; required?: boolean; schema: { type: string } }
interface Operation {
  summary?: string
  description?: string
  tags?: string[]
  security?: Record<string, string[]>[]
  parameters?: Parameter[]
  responses: Record<string, { description: string; content?: Record<string, { schema: Record<string, unknown> }> }>
}
interface Document {
  openapi: string
  info: { title: string; version: string }
  servers: { url: string }[]
  tags: { name: string }[]
  components: { securitySchemes: Record<string, unknown> }
  paths: Record<string, Record<string, Operation>>
}

async function listening(rig: GatewayRig): Promise<string> {
  await rig.app.listen({ host: '127.0.0.1', port: 0 })
  const address = rig.app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return `http://127.0.0.1:${address.port}`
}

async function fetchJson(url: string, init: RequestInit = {}): Promise<{ status: number; body: any; weight: string | null }> {
  const res = await fetch(url, init)
  return { status: res.status, body: await res.json(), weight: res.headers.get('x-mbx-used-weight-1m') }
}

/** Every schema object in the document, anywhere. */
function* schemaNodes(node: unknown): Generator<Record<string, unknown>> {
  if (node === null || typeof node !== 'object') return
  if (!Array.isArray(node)) yield node as Record<string, unknown>
  for (const v of Object.values(node)) yield* schemaNodes(v)
}

t.test('/openapi.json over HTTP: OpenAPI 3.0, every registered route with parameters and bodies', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const base = await listening(rig)
  const res = await fetchJson(`${base}/openapi.json`)
  t.equal(res.status, 200)
  t.equal(res.weight, '10', 'the document weighs 10 against the IP')
  const doc = res.body as Document

  t.equal(doc.openapi, '3.0.3')
  t.same(doc.info.title, 'perp-exchange')
  t.equal(doc.info.version, pkg.version, 'version from package.json')
  t.same(doc.servers, [{ url: '/' }], 'relative: right for any host serving it')
  t.same(doc.tags.map((x) => x.name), ['general', 'market', 'session', 'account', 'trade', 'wallet', 'spot'])
  t.same(doc.components.securitySchemes, { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-MBX-APIKEY' } })

  const routes = registeredRoutes(rig.app.printRoutes({ commonPrefix: false })).filter(isApi)
  t.ok(routes.length >= 85, `${routes.length} routes registered`)
  const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
  t.same(documented.sort(), routes.map(([m, p]) => `${m} ${p}`).sort(), 'exactly the registered routes, every alias included')
  // Serializers are built on first use (gateway/lazy-serializers.ts): every route's must build.
  let serializers = 0
  t.doesNotThrow(() => { serializers = rig.app.compileSerializers() }, 'every response serializer builds')
  t.ok(serializers >= routes.length, `${serializers} response serializers`)

  const tags = new Set(doc.tags.map((x) => x.name))
  for (const [method, path] of routes) {
    const op = doc.paths[path]![method.toLowerCase()]!
    const name = `${method} ${path}`
    t.ok(typeof op.summary === 'string' && op.summary.length > 0, `${name}: summary`)
    t.ok(op.tags?.length === 1 && tags.has(op.tags[0]!), `${name}: one declared tag`)
    const ok = op.responses['200']?.content?.['application/json']?.schema
    t.ok(ok !== undefined && (ok.type !== undefined || ok.anyOf !== undefined), `${name}: 200 body schema`)
    const errorBody = op.responses['4XX']?.content?.['application/json']?.schema?.properties as Record<string, unknown> | undefined
    // cancelReplace's refusals carry each half's result in `data`, as Binance's do.
    const data = name.endsWith('/order/cancelReplace') ? { data: errorBody?.data } : {}
    t.same(errorBody, { code: { type: 'integer' }, msg: { type: 'string' }, ...data }, `${name}: 4xx error body`)
    if (name.endsWith('/order/cancelReplace')) t.match(errorBody?.data, { properties: { cancelResult: { type: 'string' } } })
    for (const p of op.parameters ?? []) {
      t.ok(p.in === 'query' && p.schema.type === 'string', `${name}: ${p.name} is a string in the query`)
    }
    const names = (op.parameters ?? []).map((p) => p.name)
    t.equal(new Set(names).size, names.length, `${name}: parameters listed once`)
  }

  // Parameters exactly as the handlers read them, for a few routes.
  const params = (method: string, path: string): string[] =>
    (doc.paths[path]![method]!.parameters ?? []).map((p) => `${p.name}${p.required ? '*' : ''}`)
  t.same(params('post', '/fapi/v1/order'), ['symbol*', 'side*', 'positionSide', 'type*', 'timeInForce', 'quantity',
    'reduceOnly', 'price', 'newClientOrderId', 'closePosition', 'newOrderRespType', 'selfTradePreventionMode',
    'goodTillDate', 'stopPrice', 'activationPrice', 'callbackRate', 'workingType', 'priceProtect', 'priceMatch', 'timestamp*', 'recvWindow',
    'signature*'])
  t.same(params('get', '/fapi/v1/depth'), ['symbol*', 'limit'])
  t.same(params('get', '/fapi/v3/myTrades'), params('get', '/fapi/v1/userTrades'), 'aliases share their parameters')
  t.same(params('post', '/fapi/v1/session'), ['address*', 'subAccount', 'permissions', 'expiresAt*', 'nonce*',
    'recvWindow', 'signature*'], 'the session is opened by a wallet signature, not HMAC')

  // OpenAPI 3.0 schema objects: no tuple form of items, no draft-07 additionalItems.
  const not30 = [...schemaNodes(doc.paths)].filter((n) => Array.isArray(n.items) || 'additionalItems' in n || 'if' in n)
  t.same(not30, [], 'tuples and conditionals written in OpenAPI 3.0 terms')
  const placed = doc.paths['/fapi/v1/order']!.post!.responses['200']!.content!['application/json']!.schema
  t.same((placed.anyOf as { properties: object }[]).map((s) => Object.keys(s.properties).length), [27, 5], 'RESULT or ACK')
  const klines = doc.paths['/fapi/v1/klines']!.get!.responses['200']!.content!['application/json']!.schema
  t.same(klines.items, { type: 'array', items: { anyOf: [{ type: 'integer' }, { type: 'string' }] }, minItems: 12, maxItems: 12 })

  const again = await fetchJson(`${base}/openapi.json`)
  t.same(again.body, doc, 'the same document (made once)')
  t.equal(again.weight, '20')
})

t.test('each route is documented with the security it enforces', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const base = await listening(rig)
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet)).json() as Keys
  const doc = (await fetchJson(`${base}/openapi.json`)).body as Document
  const routes = registeredRoutes(rig.app.printRoutes({ commonPrefix: false })).filter(isApi)
  // A fresh minute of weight for each pass: one pass charges every route once.
  const nextMinute = () => rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 1, wallet: 'PERP', ref: 'tick' }, 61_000)

  // A route as heavy as a third of the minute's budget (the history downloads' 1000) gets a minute of its own.
  const heavy = (op: Operation): boolean => Number(/Weight: (\d+)\./.exec(op.description ?? '')?.[1] ?? 0) >= 800

  const keyed: Route[] = []
  for (const [method, path] of routes) {
    const op = doc.paths[path]![method.toLowerCase()]!
    if (heavy(op)) await nextMinute()
    const { status, body } = await fetchJson(base + path, { method })
    t.ok(status < 500 && body.code !== -1003, `${method} ${path} without a key: ${status} ${body.code}`)
    const needsKey = body.code === -2014 || body.code === -2015
    t.equal(op.security !== undefined, needsKey, `${method} ${path}: API key ${needsKey ? 'required' : 'not required'}`)
    if (needsKey) keyed.push([method, path])
  }
  t.ok(keyed.length >= 40, `${keyed.length} routes need a key`)

  await nextMinute()
  for (const [method, path] of keyed) {
    const op = doc.paths[path]![method.toLowerCase()]!
    if (heavy(op)) await nextMinute()
    const { status, body } = await fetchJson(base + path, { method, headers: { 'X-MBX-APIKEY': keys.apiKey } })
    t.ok(status < 500 && body.code !== -1003, `${method} ${path} with a key, unsigned: ${status} ${body.code}`)
    const signed = body.code === -1102 && String(body.msg).includes("'signature'")
    const required = (op.parameters ?? []).filter((p) => p.required).map((p) => p.name)
    t.equal(required.includes('timestamp') && required.includes('signature'), signed,
      `${method} ${path}: ${signed ? 'signed' : 'key only'}`)
  }
})

t.test('/docs serves Swagger UI and its assets from the package', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const base = await listening(rig)
  const page = await fetch(`${base}/docs`)
  t.equal(page.status, 200)
  t.match(page.headers.get('content-type'), /^text\/html/)
  t.equal(page.headers.get('x-mbx-used-weight-1m'), '5', 'the page weighs 5 against the IP')
  const html = await page.text()
  const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!)
  t.same(scripts, ['/docs/static/swagger-ui-bundle.js', '/docs/static/swagger-ui-standalone-preset.js',
    '/docs/static/swagger-initializer.js'])
  for (const src of scripts) {
    const js = await fetch(base + src)
    t.equal(js.status, 200, src)
    t.match(js.headers.get('content-type'), /javascript/, src)
    const text = await js.text()
    if (src.endsWith('swagger-ui-bundle.js')) t.ok(text.length > 500_000, `the UI bundle itself (${text.length} bytes)`)
    if (src.endsWith('swagger-initializer.js')) t.match(text, /resolveUrl\('\.\/json'\)/, 'the UI loads the document beside it')
  }
  const css = await fetch(`${base}/docs/static/swagger-ui.css`)
  t.equal(css.status, 200)
  t.match(css.headers.get('content-type'), /text\/css/)
  // What the UI loads is the same document; each fetch of it weighs 10, so no client can make
  // the exchange send 500 KB documents without bound.
  const used = async (url: string): Promise<number> => Number((await fetch(url)).headers.get('x-mbx-used-weight-1m'))
  const before = await used(`${base}/fapi/v1/time`)
  t.equal(before, 5 + 3 * 5 + 5 + 1, 'the page, its three scripts and its style sheet weigh 5 each')
  t.same((await fetchJson(`${base}/docs/json`)).body, (await fetchJson(`${base}/openapi.json`)).body)
  t.equal(await used(`${base}/fapi/v1/time`), before + 10 + 10 + 1)
  t.equal(await used(`${base}/docs/yaml`), before + 21 + 10)
  const yaml = await (await fetch(`${base}/docs/yaml`)).text()
  t.match(yaml, /^openapi: 3\.0\.3\n/)
  const missing = await fetchJson(`${base}/docs/static/nothing-here.js`)
  t.same([missing.status, missing.body.code], [404, -1099], 'an unknown asset is a Binance 404, not a 5xx')
})

t.test('signed responses keep every field under their response schemas', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const maker = Wallet.createRandom()
  const taker = Wallet.createRandom()
  const makerKeys = (await openSession(rig, maker)).json() as Keys
  const takerKeys = (await openSession(rig, taker)).json() as Keys
  for (const w of [maker, taker]) {
    await rig.run({ type: 'Deposit', account: w.address, sub: 0, asset: 'USDT', amount: 10_000_000_000, wallet: 'PERP', ref: w.address })
  }
  await rig.run({ type: 'Deposit', account: maker.address, sub: 0, asset: 'BTC', amount: 100_000_000, wallet: 'SPOT', ref: 'btc' })
  await rig.run({ type: 'Deposit', account: taker.address, sub: 0, asset: 'USDT', amount: 10_000_000_000, wallet: 'SPOT', ref: 'usdt' })

  const result = (await signedInject(rig, makerKeys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'SELL',
    type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '50000.0', newOrderRespType: 'RESULT' })).json()
  t.same(Object.keys(result), ['orderId', 'symbol', 'status', 'clientOrderId', 'price', 'avgPrice', 'origQty',
    'executedQty', 'cumQty', 'cumQuote', 'timeInForce', 'type', 'origType', 'side', 'positionSide', 'reduceOnly',
    'closePosition', 'stopPrice', 'workingType', 'priceProtect', 'selfTradePreventionMode', 'goodTillDate',
    'priceMatch', 'updateTime'], 'order RESULT')
  t.match(result, { orderId: 1, status: 'NEW', price: '50000.0', origQty: '0.010', reduceOnly: false, goodTillDate: 0 })

  const ack = (await signedInject(rig, takerKeys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY',
    type: 'MARKET', quantity: '0.004' })).json()
  t.same(Object.keys(ack), ['symbol', 'product_id', 'orderId', 'clientOrderId', 'transactTime'], 'order ACK')
  t.match(ack, { symbol: 'BTCUSDTPERP', product_id: 1, orderId: 2 })

  const account = (await signedInject(rig, makerKeys, 'GET', '/fapi/v2/account')).json()
  t.same(Object.keys(account), ['feeTier', 'canTrade', 'canDeposit', 'canWithdraw', 'updateTime', 'multiAssetsMargin',
    'tradeGroupId', 'totalInitialMargin', 'totalMaintMargin', 'totalWalletBalance', 'totalUnrealizedProfit',
    'totalMarginBalance', 'totalPositionInitialMargin', 'totalOpenOrderInitialMargin', 'totalCrossWalletBalance',
    'totalCrossUnPnl', 'availableBalance', 'maxWithdrawAmount', 'assets', 'positions'], 'account')
  t.same(Object.keys(account.assets[0]), ['asset', 'walletBalance', 'unrealizedProfit', 'marginBalance', 'maintMargin',
    'initialMargin', 'positionInitialMargin', 'openOrderInitialMargin', 'crossWalletBalance', 'crossUnPnl',
    'availableBalance', 'maxWithdrawAmount', 'marginAvailable', 'updateTime'], 'account asset')
  const btc = account.positions.find((p: { symbol: string }) => p.symbol === 'BTCUSDTPERP')
  t.same(Object.keys(btc), ['symbol', 'positionSide', 'positionAmt', 'marginAmt', 'initialMargin', 'maintMargin',
    'unrealizedProfit', 'positionInitialMargin', 'openOrderInitialMargin', 'leverage', 'isolated', 'isolatedMargin', 'entryPrice',
    'breakEvenPrice', 'maxNotional', 'notional', 'isolatedWallet', 'updateTime', 'bidNotional', 'askNotional'])
  t.match(btc, { positionAmt: '-0.004', entryPrice: '50000.0', notional: '-200.00000000', isolated: false })

  const queried = (await signedInject(rig, makerKeys, 'GET', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: 1 })).json()
  t.same(Object.keys(queried), [...Object.keys(result).filter((k) => k !== 'cumQty' && k !== 'updateTime'), 'time', 'updateTime'],
    'order record: time, no cumQty')
  t.match(queried, { status: 'PARTIALLY_FILLED', executedQty: '0.004', avgPrice: '50000.0' })

  await signedInject(rig, makerKeys, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.1000', price: '50000.00' })
  const full = (await signedInject(rig, takerKeys, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY',
    type: 'MARKET', quantity: '0.0500' })).json()
  t.same(Object.keys(full), ['symbol', 'orderId', 'orderListId', 'clientOrderId', 'transactTime', 'price', 'origQty',
    'executedQty', 'cummulativeQuoteQty', 'status', 'timeInForce', 'type', 'side', 'origQuoteOrderQty', 'workingTime',
    'selfTradePreventionMode', 'fills'], 'spot FULL')
  t.same(full.fills, [{ price: '50000.00', qty: '0.0500', commission: '0.00005000', commissionAsset: 'BTC', tradeId: 1 }])
})

t.test('with the response check on, a schema that loses a field is a 500 naming it', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  checkResponses(app)
  const schema = { response: { 200: { type: 'object', properties: { kept: { type: 'string' }, count: { type: 'integer' } } } } }
  app.get('/fine', { schema }, async () => ({ kept: 'a', count: 2 }))
  app.get('/lossy', { schema }, async () => ({ kept: 'a', count: 2, dropped: true }))
  app.get('/coerced', { schema }, async () => ({ kept: 'a', count: 2.5 }))
  t.same((await app.inject('/fine')).json(), { kept: 'a', count: 2 })
  const lossy = await app.inject('/lossy')
  t.equal(lossy.statusCode, 500)
  t.match(lossy.json().message, 'The response schema of GET /lossy loses or changes .dropped.')
  t.match((await app.inject('/coerced')).json().message, 'loses or changes .count.')
})
