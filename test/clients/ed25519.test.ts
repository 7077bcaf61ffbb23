// Ed25519 API keys with unmodified clients against a real exchange process: the maker registers
// an Ed25519 public key on its session (POST /fapi/v1/apiKey/rsa), then ccxt's `binanceusdm`
// (an Ed25519 PEM as its secret) trades over REST, and the `binance` package's
// WebsocketAPIClient, which with an Ed25519 key logs its connection on (session.logon) and
// sends every later request unsigned, trades over the futures and spot WebSocket APIs. Accounts
// from `exchange account --key-type ed25519` and `rsa` come with their key pair registered, and
// ccxt signs with the private key printed.

import t from 'tap'
import { generateKeyPairSync } from 'node:crypto'
import ccxt from 'ccxt'
import { WebsocketAPIClient } from 'binance'
import { inbox, quiet } from '../helpers/binance-inbox.js'
import { startLiveExchange } from '../helpers/live-exchange.js'

t.test('ccxt and the binance WebSocket API client trade with an Ed25519 key', { timeout: 60_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const pair = generateKeyPairSync('ed25519')
  const publicKey = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString()
  const secret = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
  t.match(await live.signed(live.maker, 'POST', '/fapi/v1/apiKey/rsa', { publicKey }), { apiKey: live.maker.apiKey, publicKey })

  // ccxt signs with the key (its secret is the PEM): every request below is Ed25519-signed.
  const defaults = new ccxt.binanceusdm().urls.api as Record<string, string>
  const api = Object.fromEntries(Object.entries(defaults).map(([k, url]) => [k, url.replace(/^https:\/\/[^/]+/, live.base)]))
  const rest = new ccxt.binanceusdm({ apiKey: live.maker.apiKey, secret, urls: { api }, timeout: 10_000 })
  await rest.loadMarkets()
  const S = 'BTC/USDT:USDT'
  const placed = await rest.createOrder(S, 'limit', 'buy', 0.01, 20000, { clientOrderId: 'ed-ccxt' })
  t.match(placed, { id: '1', clientOrderId: 'ed-ccxt', status: 'open', price: 20000, amount: 0.01 })
  t.match(await rest.fetchOrder('1', S), { clientOrderId: 'ed-ccxt', status: 'open' })
  t.match(await rest.cancelOrder('1', S), { id: '1', status: 'canceled' })
  const balance = await rest.fetchBalance()
  t.equal(balance.USDT?.free, 50_000, 'the perp wallet, read with an Ed25519 signature')
  const wrongKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
  const impostor = new ccxt.binanceusdm({ apiKey: live.maker.apiKey, secret: wrongKey, urls: { api }, timeout: 10_000 })
  impostor.markets = rest.markets
  await t.rejects(impostor.fetchBalance(), /-1022/, "another Ed25519 key's signature is refused")

  // The binance package chooses session.logon for an Ed25519 key (HMAC and RSA sign each request).
  const ws = new WebsocketAPIClient({ api_key: live.maker.apiKey, api_secret: secret, wsUrl: live.base.replace(/^http/, 'ws') }, quiet)
  t.teardown(() => ws.getWSClient().closeAll(true))
  const events = inbox(ws.getWSClient())
  const futures = await ws.submitNewFuturesOrder('usdm', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
    quantity: '0.010', price: '20000', newClientOrderId: 'ed-ws', timestamp: Date.now() })
  t.match(futures, { status: 200, result: { orderId: 2, clientOrderId: 'ed-ws', status: 'NEW', origQty: '0.010' } })
  t.match(await ws.cancelFuturesOrder('usdm', { symbol: 'BTCUSDTPERP', orderId: 2, timestamp: Date.now() }),
    { status: 200, result: { orderId: 2, status: 'CANCELED' } })
  // Logged on, the package subscribes the spot user data with userDataStream.subscribe, unsigned.
  t.match(await ws.subscribeUserDataStream('mainWSAPI'), { status: 200, result: { subscriptionId: 0 } })
  // Logged on, requests still carry their timestamp (Binance's rule; the package's comment says
  // so, though its spot order type leaves the field out).
  const spotOrder = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.01', price: '20000',
    newClientOrderId: 'ed-spot', timestamp: Date.now() } as Parameters<WebsocketAPIClient['submitNewSpotOrder']>[0]
  const spot = await ws.submitNewSpotOrder(spotOrder)
  t.match(spot, { status: 200, result: { symbol: 'BTCUSDT', clientOrderId: 'ed-spot', status: 'NEW' } })
  const report = await events.until((e) => e.e === 'executionReport' && e.c === 'ed-spot')
  t.match(report, { s: 'BTCUSDT', S: 'BUY', x: 'NEW', X: 'NEW', q: '0.0100', p: '20000.00' }, 'the subscription streams the order')
  t.same(events.exceptions, [], 'no client exception')

  // `exchange account --key-type …`: the private key printed is the one the session holds.
  for (const [keyType, printed] of [['ed25519', 'ED25519'], ['rsa', 'RSA']]) {
    const account = await live.newAccount(['--fund', '1000', '--key-type', keyType!])
    t.match(account, { keyType: printed, apiPrivateKeyPem: /^-----BEGIN PRIVATE KEY-----\n/ }, `--key-type ${keyType}`)
    const own = new ccxt.binanceusdm({ apiKey: account.apiKey, secret: account.apiPrivateKeyPem as string, urls: { api }, timeout: 10_000 })
    own.markets = rest.markets
    t.equal((await own.fetchBalance()).USDT?.free, 500, `read with the ${printed} key: the new perp wallet`)
    const placedByKey = await own.createOrder(S, 'limit', 'buy', 0.01, 20000, { clientOrderId: `key-${keyType}` })
    t.match(placedByKey, { clientOrderId: `key-${keyType}`, status: 'open' })
  }
  t.same(live.offMachine, [], 'no connection left this machine')
})
