// A web page as a trader's client, in a real browser (headless Chromium), served from an origin
// of its own, against a real exchange process: what a web app built on the API does. It reads
// market data, has the wallet sign a session as the exchange describes it (ethers in the page,
// as a browser wallet's eth_signTypedData_v4 signs), signs requests with WebCrypto's HMAC,
// follows its user data and depth streams, places and cancels an order (over REST and over the
// WebSocket API) and reads a refusal's code. Each REST request crosses origins, so each works
// only because the gateway answers CORS (gateway/cors.ts).

import t from 'tap'
import { startLiveExchange } from '../helpers/live-exchange.js'
import { signedRequest } from '../helpers/processes.js'
import { browserSkip, runPage } from '../helpers/browser.js'

// The page: its settings arrive as JSON in the document; it reports `out` to /result.
const SCRIPT = `
import { Wallet } from '/ethers.js'
const C = JSON.parse(document.getElementById('config').textContent)
const out = {}
try {
  const info = await fetch(C.base + '/fapi/v1/exchangeInfo')
  out.symbols = (await info.json()).symbols.map((s) => s.symbol)
  out.weightHeader = info.headers.get('X-MBX-USED-WEIGHT-1M')

  // The wallet signs the session as the exchange describes it; the page keeps the keys it is given.
  const typed = await (await fetch(C.base + '/fapi/v1/session/typedData')).json()
  const wallet = new Wallet(C.privateKey)
  const now = Date.now()
  const request = { address: wallet.address, subAccount: 0, permissions: 'TRADE,USER_DATA', expiresAt: now + 3600000, nonce: now }
  const signature = await wallet.signTypedData(typed.domain, { Session: typed.types.Session }, request)
  const form = new URLSearchParams({ ...Object.fromEntries(Object.entries(request).map(([k, v]) => [k, String(v)])), signature })
  const opened = await fetch(C.base + '/fapi/v1/session', { method: 'POST', body: form })
  const session = await opened.json()
  out.session = { status: opened.status, address: session.address, apiKey: session.apiKey, secretKey: session.secretKey }

  const enc = new TextEncoder()
  const key = await crypto.subtle.importKey('raw', enc.encode(session.secretKey), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('')
  const call = async (method, path, params, inBody) => {
    const q = new URLSearchParams({ ...params, timestamp: String(Date.now()) }).toString()
    const signed = q + '&signature=' + hex(await crypto.subtle.sign('HMAC', key, enc.encode(q)))
    const headers = { 'X-MBX-APIKEY': session.apiKey }
    const r = inBody ? await fetch(C.base + path, { method, headers, body: new URLSearchParams(signed) })
      : await fetch(C.base + path + '?' + signed, { method, headers })
    return { status: r.status, body: await r.json(), orders10s: r.headers.get('X-MBX-ORDER-COUNT-10S') }
  }
  const account = await call('GET', '/fapi/v1/account', {})
  out.account = { status: account.status, availableBalance: account.body.availableBalance }

  const listen = await (await fetch(C.base + '/fapi/v1/listenKey', { method: 'POST', headers: { 'X-MBX-APIKEY': session.apiKey } })).json()
  const events = []
  const sockets = [new WebSocket(C.ws + '/ws/' + listen.listenKey), new WebSocket(C.ws + '/ws/btcusdtperp@depth@100ms')]
  await Promise.all(sockets.map((s) => new Promise((resolve, reject) => {
    s.onmessage = (m) => events.push(JSON.parse(m.data))
    s.onopen = resolve
    s.onerror = () => reject(new Error('a WebSocket did not open: ' + s.url))
  })))
  const until = async (matches) => {
    for (let i = 0; i < 400; i++) {
      const e = events.find(matches)
      if (e) return e
      await new Promise((r) => setTimeout(r, 50))
    }
    return null
  }

  const placed = await call('POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
    quantity: '0.010', price: '20000', newClientOrderId: 'from-a-page', newOrderRespType: 'RESULT' }, true)
  out.placed = { status: placed.status, orderStatus: placed.body.status, orders10s: placed.orders10s }
  const update = await until((e) => e.e === 'ORDER_TRADE_UPDATE' && e.o.c === 'from-a-page')
  out.update = update && { x: update.o.x, X: update.o.X, p: update.o.p }
  const depth = await until((e) => e.e === 'depthUpdate' && e.b.some(([p]) => p === '20000.0'))
  out.depthBid = depth && depth.b.find(([p]) => p === '20000.0')

  const canceled = await call('DELETE', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', origClientOrderId: 'from-a-page' })
  out.canceled = { status: canceled.status, orderStatus: canceled.body.status }
  // The WebSocket API: an order placed and cancelled, each request signed over its sorted parameters.
  const api = new WebSocket(C.ws + '/ws-fapi/v1')
  const answers = new Map()
  api.onmessage = (m) => { const r = JSON.parse(m.data); answers.set(r.id, r) }
  await new Promise((resolve, reject) => { api.onopen = resolve; api.onerror = () => reject(new Error('the WebSocket API did not open')) })
  const wsCall = async (id, method, params) => {
    const p = { ...params, apiKey: session.apiKey, timestamp: Date.now() }
    const text = Object.keys(p).sort().map((k) => k + '=' + p[k]).join('&')
    api.send(JSON.stringify({ id, method, params: { ...p, signature: hex(await crypto.subtle.sign('HMAC', key, enc.encode(text))) } }))
    for (let i = 0; i < 200 && !answers.has(id); i++) await new Promise((r) => setTimeout(r, 25))
    return answers.get(id)
  }
  const wsPlaced = await wsCall('place', 'order.place', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
    quantity: '0.010', price: '19000', newClientOrderId: 'from-a-page-ws' })
  const wsCanceled = await wsCall('cancel', 'order.cancel', { symbol: 'BTCUSDTPERP', origClientOrderId: 'from-a-page-ws' })
  out.wsApi = [wsPlaced && wsPlaced.status, wsPlaced && wsPlaced.result.status, wsCanceled && wsCanceled.result.status]
  api.close()

  const refused = await call('POST', '/fapi/v1/order', { symbol: 'NOPE', side: 'BUY', type: 'MARKET', quantity: '1' }, true)
  out.refused = { status: refused.status, body: refused.body }
  for (const s of sockets) s.close()
} catch (e) {
  out.error = String((e && e.stack) || e)
}
await fetch('/result', { method: 'POST', body: JSON.stringify(out) })
`

interface PageReport {
  error?: string
  symbols: string[]
  weightHeader: string | null
  session: { status: number; address: string; apiKey: string; secretKey: string }
  account: { status: number; availableBalance: string }
  placed: { status: number; orderStatus: string; orders10s: string | null }
  update: { x: string; X: string; p: string } | null
  depthBid: [string, string] | null
  canceled: { status: number; orderStatus: string }
  wsApi: [number, string, string]
  refused: { status: number; body: unknown }
}

// ccxt's browser build, unmodified, its base URLs moved to the exchange: a web app built on ccxt.
const CCXT_SCRIPT = `
const C = JSON.parse(document.getElementById('config').textContent)
const out = {}
try {
  const defaults = new ccxt.binanceusdm().urls.api
  const api = Object.fromEntries(Object.entries(defaults).map(([k, url]) => [k, url.replace(/^https:\\/\\/[^/]+/, C.base)]))
  const ex = new ccxt.binanceusdm({ apiKey: C.apiKey, secret: C.secretKey, urls: { api } })
  out.markets = Object.keys(await ex.loadMarkets()).sort()
  out.balance = (await ex.fetchBalance()).USDT
  const order = await ex.createOrder('BTC/USDT:USDT', 'limit', 'buy', 0.01, 21000, { clientOrderId: 'ccxt-in-a-page' })
  out.placed = [order.clientOrderId, order.status, order.price]
  out.open = (await ex.fetchOpenOrders('BTC/USDT:USDT')).map((o) => o.clientOrderId)
  out.canceled = (await ex.cancelOrder(order.id, 'BTC/USDT:USDT')).status
} catch (e) {
  out.error = String((e && e.stack) || e)
}
await fetch('/result', { method: 'POST', body: JSON.stringify(out) })
`

/** A page with its settings as JSON in the document and `script` as a module. */
const pageOf = (config: object, script: string, load = ''): string =>
  `<!doctype html><html><body><script id="config" type="application/json">${JSON.stringify(config)}</script>${load}` +
  `<script type="module">${script}</script></body></html>`

t.test('web pages on another origin, in a real browser', { skip: browserSkip(), timeout: 180_000 }, async (t) => {
  const live = await startLiveExchange(t)

  t.test('ccxt\'s browser build trades through the API', async (t) => {
    const r = await runPage(t, pageOf({ base: live.base, ...live.taker }, CCXT_SCRIPT, '<script src="/ccxt.js"></script>')) as {
      error?: string; markets: string[]; balance: { free: number; total: number }; placed: unknown[]; open: string[]; canceled: string }
    t.notOk(r.error, 'the page ran to its end')
    t.same(r.markets, ['BTC/USDT:USDT', 'ETH/USDT:USDT'])
    t.match(r.balance, { free: 10000, total: 10000 }, 'the taker\'s 10,000 USDT of perp margin')
    t.same(r.placed, ['ccxt-in-a-page', 'open', 21000])
    t.same(r.open, ['ccxt-in-a-page'])
    t.equal(r.canceled, 'canceled')
    const order = await live.signed(live.taker, 'GET', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', origClientOrderId: 'ccxt-in-a-page' })
    t.match(order, { status: 'CANCELED', price: '21000.0' }, 'read back outside the browser')
  })

  t.test('a page of its own: a wallet-signed session, WebCrypto signatures, streams, an order', async (t) => {
    const maker = live.maker as typeof live.maker & { privateKey: string }
    const config = { base: live.base, ws: live.base.replace('http:', 'ws:'), privateKey: maker.privateKey }
    const r = await runPage(t, pageOf(config, SCRIPT)) as PageReport
    t.notOk(r.error, 'the page ran to its end')
    t.same(r.symbols, ['BTCUSDTPERP', 'ETHUSDTPERP'], 'market data')
    t.match(r.weightHeader, /^[0-9]+$/, 'the weight header is readable by the page')
    t.same([r.session.status, r.session.address.toLowerCase()], [200, maker.address.toLowerCase()], 'a session signed by the wallet in the page')
    t.same([r.account.status, r.account.availableBalance], [200, '50000.00000000'], 'a signed read (WebCrypto HMAC)')
    t.same(r.placed, { status: 200, orderStatus: 'NEW', orders10s: '1' }, 'an order, its parameters in the body')
    t.same(r.update && [r.update.x, r.update.X, Number(r.update.p)], ['NEW', 'NEW', 20000], 'on the user data stream')
    t.same(r.depthBid, ['20000.0', '0.010'], 'on the depth stream')
    t.same(r.canceled, { status: 200, orderStatus: 'CANCELED' }, 'cancelled, its parameters in the query')
    t.same(r.wsApi, [200, 'NEW', 'CANCELED'], 'an order placed and cancelled over the WebSocket API')
    t.same(r.refused, { status: 400, body: { code: -1121, msg: 'Invalid symbol.' } }, 'a refusal\'s code is readable')

    // Read back outside the browser with the keys the page was given.
    const order = (await signedRequest(live.base, r.session, 'GET', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', origClientOrderId: 'from-a-page' })).body
    t.match(order, { clientOrderId: 'from-a-page', status: 'CANCELED', price: '20000.0', origQty: '0.010' })
    t.same(live.offMachine, [])
  })
})
