// Configured rate limits (`--weight-limit`, `--sapi-weight-limit`, `--order-limit-10s`, `--order-limit-1m`, `--ws-connection-limit`: its own test in ws/connection-attempts): the
// gateway enforces them and exchangeInfo reports them; Binance's defaults otherwise. And the
// signed payload: wherever `signature` sits among the parameters, the rest is what is signed.

import t from 'tap'
import { loadConfig } from '../../bin/config.js'
import { buildGateway } from '../../gateway/app.js'
import { gatewayRig, hmac, signedInject, type GatewayRig, type Keys, fundedTrader } from '../helpers/gateway.js'

const trader = async (rig: GatewayRig): Promise<Keys> => (await fundedTrader(rig, 100_000)).keys

const order = (price: string) => ({ symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price })

t.test('configured limits are enforced and reported', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const keys = await trader(rig)
  const app = await buildGateway({ ...rig.ctx, rateLimits: { weight1m: 50, sapiWeight1m: 180_000, orders10s: 2, orders1m: 3, wsConnections5m: 300 } })
  t.teardown(() => app.close())
  const limited: GatewayRig = { ...rig, app }

  const info = (await app.inject({ method: 'GET', url: '/fapi/v1/exchangeInfo' })).json()
  t.same(info.rateLimits, [
    { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 50 },
    { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: 3 },
    { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 2 },
  ])
  const defaults = (await rig.app.inject({ method: 'GET', url: '/fapi/v1/exchangeInfo' })).json()
  t.same(defaults.rateLimits.map((l: { limit: number }) => l.limit), [2400, 1200, 300], "Binance's limits when none are configured")

  for (const price of ['49000.0', '49000.1']) t.equal((await signedInject(limited, keys, 'POST', '/fapi/v1/order', order(price))).statusCode, 200)
  const third = await signedInject(limited, keys, 'POST', '/fapi/v1/order', order('49000.2'))
  t.equal(third.statusCode, 429)
  t.equal(third.json().code, -1015)
  t.same([third.headers['x-mbx-order-count-10s'], third.headers['x-mbx-order-count-1m']], ['3', '3'],
    'the refusal carries the counts that refused it')
  const open = await signedInject(rig, keys, 'GET', '/fapi/v1/openOrders', { symbol: 'BTCUSDTPERP' })
  t.equal(open.json().length, 2, 'the refused order changed nothing')

  // exchangeInfo weighs 20 and 50 are allowed per minute: the 3rd request of the minute is refused.
  const seen: number[] = []
  for (let i = 0; i < 3; i++) seen.push((await app.inject({ method: 'GET', url: '/fapi/v1/exchangeInfo' })).statusCode)
  t.same(seen, [200, 429, 429], 'the weight limit counts the first exchangeInfo above too')
})

t.test('the /sapi weight per account is configured apart from the per-IP weight', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const keys = await trader(rig)
  const app = await buildGateway({ ...rig.ctx, rateLimits: { weight1m: 1_000_000, sapiWeight1m: 25, orders10s: 300, orders1m: 1200, wsConnections5m: 300 } })
  t.teardown(() => app.close())
  const limited: GatewayRig = { ...rig, app }
  // GET /sapi/v1/asset/transfer weighs 1 to the IP and 1 to the account; GET futures/transfer 10 to the account.
  const history = { type: 'MAIN_UMFUTURE' }
  const seen: number[] = []
  for (let i = 0; i < 2; i++) seen.push((await signedInject(limited, keys, 'GET', '/sapi/v1/futures/transfer', { asset: 'USDT', startTime: rig.ex.time - 1000 })).statusCode)
  for (let i = 0; i < 6; i++) seen.push((await signedInject(limited, keys, 'GET', '/sapi/v1/asset/transfer', history)).statusCode)
  t.same(seen, [200, 200, 200, 200, 200, 200, 200, 429], '25 a minute: the 26th unit of weight is refused')
  const refused = await signedInject(limited, keys, 'GET', '/sapi/v1/asset/transfer', history)
  t.equal(refused.json().code, -1003)
  t.equal((await signedInject(limited, keys, 'GET', '/fapi/v2/balance', {})).statusCode, 200, 'the per-IP weight is not what ran out')
})

// Found by review: /sapi answers carried no usage header of their own, so a client pacing itself
// by Binance's X-SAPI-USED-*-WEIGHT-1M saw nothing until the 429.
t.test('/sapi answers report the weight used: the IP\'s and, once a UID-weighted route charged it, the account\'s', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const keys = await trader(rig)
  const app = await buildGateway({ ...rig.ctx, rateLimits: { weight1m: 1_000_000, sapiWeight1m: 35, orders10s: 300, orders1m: 1200, wsConnections5m: 300 } })
  t.teardown(() => app.close())
  const limited: GatewayRig = { ...rig, app }
  const usage = (r: { headers: Record<string, unknown> }): unknown[] =>
    [r.headers['x-sapi-used-ip-weight-1m'], r.headers['x-sapi-used-uid-weight-1m'], r.headers['x-mbx-used-weight-1m']]

  // UID-weighted: GET futures/transfer weighs 10 to the account, 1 to the IP (one IP budget for the whole API here).
  const transfers = { asset: 'USDT', startTime: rig.ex.time - 1000 }
  const first = await signedInject(limited, keys, 'GET', '/sapi/v1/futures/transfer', transfers)
  t.same([first.statusCode, ...usage(first)], [200, '1', '10', '1'])
  const second = await signedInject(limited, keys, 'GET', '/sapi/v1/futures/transfer', transfers)
  t.same(usage(second), ['2', '20', '2'], 'both add up')
  const missing = await signedInject(limited, keys, 'GET', '/sapi/v1/futures/transfer', { asset: 'USDT' })
  t.same([missing.json().code, ...usage(missing)], [-1102, '3', '30', '3'], 'a refusal that consumed weight reports it')
  const refused = await signedInject(limited, keys, 'GET', '/sapi/v1/futures/transfer', transfers)
  t.same([refused.statusCode, ...usage(refused)], [429, '4', '40', '4'], 'so does the 429 past the account\'s limit')
  const unsigned = await app.inject({ method: 'GET', url: '/sapi/v1/futures/transfer?asset=USDT' })
  t.same([unsigned.json().code, ...usage(unsigned)], [-2014, '5', undefined, '5'], 'no account known: the IP\'s weight alone')

  // IP-weighted: capital/config/getall weighs 10 to the IP and nothing to the account.
  const config = await signedInject(limited, keys, 'GET', '/sapi/v1/capital/config/getall', {})
  t.same([config.statusCode, ...usage(config)], [200, '15', undefined, '15'])
  const status = await app.inject({ method: 'GET', url: '/sapi/v1/system/status' })
  t.same(usage(status), ['16', undefined, '16'], 'unsigned too')
  const time = await app.inject({ method: 'GET', url: '/fapi/v1/time' })
  t.same(usage(time), [undefined, undefined, '17'], 'no SAPI header outside /sapi')
})

t.test('the flags and their checks', async (t) => {
  t.same(loadConfig(['start'], {}).rateLimits, { weight1m: 2400, sapiWeight1m: 180_000, orders10s: 300, orders1m: 1200, wsConnections5m: 300,
    connectionsPerIp: 1000, newAccounts1h: 20 }, 'the total of connections left to the descriptor limit')
  t.same(loadConfig(['start', '--weight-limit', '100000', '--sapi-weight-limit', '7', '--order-limit-10s', '5000', '--order-limit-1m', '20000',
    '--ws-connection-limit', '5000', '--connections-per-ip', '20', '--max-connections', '300', '--new-account-limit', '3'], {}).rateLimits,
    { weight1m: 100_000, sapiWeight1m: 7, orders10s: 5000, orders1m: 20_000, wsConnections5m: 5000, connectionsPerIp: 20, connectionsMax: 300, newAccounts1h: 3 })
  t.equal(loadConfig(['start'], { EXCHANGE_MAX_CONNECTIONS: '40', EXCHANGE_CONNECTIONS_PER_IP: '4' }).rateLimits.connectionsMax, 40)
  t.throws(() => loadConfig(['start', '--max-connections', 'lots'], {}), /--max-connections must be an integer in \[1, 10000000\], got lots/)
  t.same(loadConfig(['start'], { EXCHANGE_SAPI_WEIGHT_LIMIT: '9000' }).rateLimits.sapiWeight1m, 9000)
  t.same(loadConfig(['start'], { EXCHANGE_WS_CONNECTION_LIMIT: '9' }).rateLimits.wsConnections5m, 9)
  t.same(loadConfig(['start'], { EXCHANGE_ORDER_LIMIT_1M: '7' }).rateLimits.orders1m, 7)
  t.throws(() => loadConfig(['start', '--order-limit-10s', '0'], {}), /--order-limit-10s must be an integer in \[1, 1000000000\], got 0/)
  t.throws(() => loadConfig(['start', '--weight-limit', '1.5'], {}), /--weight-limit must be an integer/)
})

t.test('the signed payload is everything but the signature, wherever it is sent', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const keys = await trader(rig)
  const headers = { 'x-mbx-apikey': keys.apiKey, 'content-type': 'application/x-www-form-urlencoded' }
  const params = (price: string) => new URLSearchParams({ ...order(price), timestamp: String(rig.ex.time) }).toString()

  const body = params('48000.0')
  const inBody = await rig.app.inject({ method: 'POST', url: '/fapi/v1/order', headers, payload: `${body}&signature=${hmac(keys.secretKey, body)}` })
  t.equal(inBody.statusCode, 200, 'signature last in the body')

  const q = params('48000.1')
  const [first, ...rest] = q.split('&')
  const middle = `${first}&signature=${hmac(keys.secretKey, q)}&${rest.join('&')}`
  t.equal((await rig.app.inject({ method: 'POST', url: `/fapi/v1/order?${middle}`, headers })).statusCode, 200, 'signature among the query parameters')

  const leading = `signature=${hmac(keys.secretKey, q)}&${q}`
  const again = await rig.app.inject({ method: 'POST', url: `/fapi/v1/order?${leading}`, headers })
  t.equal(again.statusCode, 200, 'signature first')

  const wrong = await rig.app.inject({ method: 'POST', url: '/fapi/v1/order', headers, payload: `${body}&signature=${hmac(keys.secretKey, body + 'x')}` })
  t.same(wrong.json(), { code: -1022, msg: 'Signature for this request is not valid.' })
  const open = await signedInject(rig, keys, 'GET', '/fapi/v1/openOrders', { symbol: 'BTCUSDTPERP' })
  t.same(open.json().map((o: { price: string }) => o.price).sort(), ['48000.0', '48000.1', '48000.1'])
})
