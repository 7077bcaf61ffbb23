// Sessions and signed requests: a wallet's EIP-712 signature opens a session, the derived
// secret signs requests (query and body, query winning), the timing rule and recvWindow,
// permissions, MICROSECOND time unit, revocation; every failure in Binance's shape. Sessions that
// make new accounts, counted per IP an hour.

import t from 'tap'
import { TypedDataEncoder, Wallet } from 'ethers'
import { buildGateway } from '../../gateway/app.js'
import { DEFAULT_RATE_LIMITS } from '../../gateway/rate-limits.js'
import { gatewayRig, hmac as signed, openSession as open, TEST_CHAIN_ID } from '../helpers/gateway.js'

async function withSession(t: { teardown(fn: () => unknown): void }) {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const r = await open(rig, wallet)
  const { apiKey, secretKey } = r.json() as { apiKey: string; secretKey: string }
  return { rig, wallet, apiKey, secretKey }
}

t.test('a wallet signature opens a session; the secret signs balance requests', async (t) => {
  const { rig, wallet, apiKey, secretKey } = await withSession(t)
  t.match(apiKey, /^[A-Za-z0-9]{64}$/)
  t.match(secretKey, /^[0-9a-f]{64}$/)
  await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 1_234_500_000, wallet: 'PERP', ref: 'd1' })
  const q = `timestamp=${rig.ex.time}`
  for (const path of ['/fapi/v1/balance', '/fapi/v2/balance', '/fapi/v3/balance']) {
    const r = await rig.app.inject({ method: 'GET', url: `${path}?${q}&signature=${signed(secretKey, q)}`, headers: { 'x-mbx-apikey': apiKey } })
    t.equal(r.statusCode, 200, path)
    t.match(r.json(), [{ asset: 'USDT', balance: '1234.50000000', crossWalletBalance: '1234.50000000', availableBalance: '1234.50000000',
      maxWithdrawAmount: '1234.50000000', crossUnPnl: '0.00000000', marginAvailable: true }])
    t.equal(r.headers['x-mbx-used-weight-1m'] !== undefined, true)
  }
  const info = await rig.app.inject({ method: 'GET', url: `/fapi/v1/session?${q}&signature=${signed(secretKey, q)}`, headers: { 'x-mbx-apikey': apiKey } })
  t.match(info.json(), { apiKey, address: wallet.address, subAccount: 0, permissions: ['TRADE', 'USER_DATA'] })
})

t.test('the typed data a wallet signs is served, and what a wallet signs from it opens a session', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const r = await rig.app.inject({ method: 'GET', url: '/fapi/v1/session/typedData' })
  t.equal(r.statusCode, 200)
  const typed = r.json() as { types: Record<string, { name: string; type: string }[]>; domain: { chainId: number }; primaryType: string }
  t.same(typed.domain, { name: 'PerpExchange', version: '1', chainId: TEST_CHAIN_ID })
  t.equal(typed.primaryType, 'Session')
  const { EIP712Domain, ...types } = typed.types
  const wallet = Wallet.createRandom()
  const message = { address: wallet.address, subAccount: 0, permissions: 'TRADE,USER_DATA', expiresAt: rig.ex.time + 60_000, nonce: rig.ex.time }
  // What eth_signTypedData_v4 is given: the served parameter plus the message, as ethers builds it for these fields.
  const payload = TypedDataEncoder.getPayload(typed.domain, { Session: types.Session! }, message)
  t.same(EIP712Domain, payload.types.EIP712Domain, 'the domain type a v4 wallet hashes')
  const signature = await wallet.signTypedData(typed.domain, { Session: types.Session! }, message)
  const body = new URLSearchParams({ ...Object.fromEntries(Object.entries(message).map(([k, v]) => [k, String(v)])), signature }).toString()
  const opened = await rig.app.inject({ method: 'POST', url: '/fapi/v1/session', payload: body,
    headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(opened.statusCode, 200, opened.body)
  t.ok(types.RsaSession!.some((f) => f.name === 'publicKey'), 'the key-signed session\'s type too')
})

t.test('signature over query then body, with the signature in either place', async (t) => {
  const { rig, apiKey, secretKey } = await withSession(t)
  const q = 'recvWindow=5000'
  const body = `timestamp=${rig.ex.time}`
  const upper = await rig.app.inject({ method: 'GET', url: `/fapi/v2/balance?${body}&signature=${signed(secretKey, body).toUpperCase()}`, headers: { 'x-mbx-apikey': apiKey } })
  t.equal(upper.statusCode, 200, 'the signature is not case sensitive')
  // GET requests carry no body; a DELETE does, and the payload is query then body.
  const inBody = await rig.app.inject({ method: 'DELETE', url: `/fapi/v1/session?${q}`, headers: { 'x-mbx-apikey': apiKey,
    'content-type': 'application/x-www-form-urlencoded' }, payload: `${body}&signature=${signed(secretKey, q, body)}` })
  t.equal(inBody.statusCode, 200, 'signature at the end of the body')
})

t.test('authentication failures', async (t) => {
  const { rig, apiKey, secretKey } = await withSession(t)
  const now = rig.ex.time
  const get = (url: string, key: string | null = apiKey, headers: Record<string, string> = {}) =>
    rig.app.inject({ method: 'GET', url, headers: key === null ? headers : { 'x-mbx-apikey': key, ...headers } })
  const sig = (q: string): string => `${q}&signature=${signed(secretKey, q)}`
  const rows: [string, Promise<{ statusCode: number; json(): unknown }>, number, number][] = [
    ['no API key', get(`/fapi/v2/balance?${sig(`timestamp=${now}`)}`, null), 401, -2014],
    ['a malformed key', get(`/fapi/v2/balance?${sig(`timestamp=${now}`)}`, 'abc'), 401, -2014],
    ['an unknown key', get(`/fapi/v2/balance?${sig(`timestamp=${now}`)}`, 'Z'.repeat(64)), 401, -2015],
    ['no signature', get(`/fapi/v2/balance?timestamp=${now}`), 400, -1102],
    ['a wrong signature', get(`/fapi/v2/balance?timestamp=${now}&signature=${'0'.repeat(64)}`), 400, -1022],
    ['a signature of other params', get(`/fapi/v2/balance?timestamp=${now}&signature=${signed(secretKey, 'timestamp=1')}`), 400, -1022],
    ['no timestamp', get(`/fapi/v2/balance?${sig('recvWindow=5000')}`), 400, -1102],
    ['an old timestamp', get(`/fapi/v2/balance?${sig(`timestamp=${now - 5001}`)}`), 400, -1021],
    ['a timestamp 1 s ahead', get(`/fapi/v2/balance?${sig(`timestamp=${now + 1000}`)}`), 400, -1021],
    ['recvWindow over 60000', get(`/fapi/v2/balance?${sig(`timestamp=${now}&recvWindow=60001`)}`), 400, -1130],
  ]
  for (const [name, p, status, code] of rows) {
    const r = await p
    t.equal(r.statusCode, status, `${name}: status`)
    t.equal((r.json() as { code: number }).code, code, `${name}: code`)
  }
  const wide = await get(`/fapi/v2/balance?${sig(`timestamp=${now - 9000}&recvWindow=10000`)}`)
  t.equal(wide.statusCode, 200, 'a wider recvWindow admits an older timestamp')
  const micro = await get(`/fapi/v2/balance?${sig(`timestamp=${now * 1000}`)}`, apiKey, { 'x-mbx-time-unit': 'MICROSECOND' })
  t.equal(micro.statusCode, 200, 'timestamps in microseconds with X-MBX-TIME-UNIT')
})

t.test('opening a session: bad signatures, stale nonces, permissions, revocation', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const other = Wallet.createRandom()
  const forged = await open(rig, wallet, { sign: other })
  t.equal(forged.statusCode, 400)
  t.equal(forged.json().code, -1022, 'signed by another wallet')
  const stale = await open(rig, wallet, { nonce: rig.ex.time - 10_000 })
  t.equal(stale.json().code, -1021, 'nonce outside recvWindow')
  const badPerm = await open(rig, wallet, { permissions: 'TRADE,ADMIN' })
  t.equal(badPerm.json().code, -1130)

  const tradeOnly = (await open(rig, wallet, { permissions: 'TRADE' })).json() as { apiKey: string; secretKey: string }
  const q = `timestamp=${rig.ex.time}`
  const denied = await rig.app.inject({ method: 'GET', url: `/fapi/v2/balance?${q}&signature=${signed(tradeOnly.secretKey, q)}`,
    headers: { 'x-mbx-apikey': tradeOnly.apiKey } })
  t.equal(denied.statusCode, 403, 'a TRADE-only key cannot read USER_DATA')

  rig.ex.time += 10
  const full = (await open(rig, wallet)).json() as { apiKey: string; secretKey: string }
  const old = await rig.app.inject({ method: 'GET', url: `/fapi/v2/balance?${q}&signature=${signed(tradeOnly.secretKey, q)}`,
    headers: { 'x-mbx-apikey': tradeOnly.apiKey } })
  t.equal(old.json().code, -2015, 'a new session replaces the old one')
  const q2 = `timestamp=${rig.ex.time}`
  const del = await rig.app.inject({ method: 'DELETE', url: `/fapi/v1/session?${q2}&signature=${signed(full.secretKey, q2)}`,
    headers: { 'x-mbx-apikey': full.apiKey } })
  t.equal(del.statusCode, 200)
  const after = await rig.app.inject({ method: 'GET', url: `/fapi/v2/balance?${q2}&signature=${signed(full.secretKey, q2)}`,
    headers: { 'x-mbx-apikey': full.apiKey } })
  t.equal(after.json().code, -2015, 'revoked')
})

t.test('sessions that make new accounts: a budget per IP an hour; wallets with accounts are not counted', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const app = await buildGateway({ ...rig.ctx, rateLimits: { ...DEFAULT_RATE_LIMITS, newAccounts1h: 2 } })
  t.teardown(() => app.close())
  const [a, b, c, d] = [Wallet.createRandom(), Wallet.createRandom(), Wallet.createRandom(), Wallet.createRandom()]
  const accounts = () => rig.ex.state.accounts.size

  t.equal((await open(rig, a, { app })).statusCode, 200)
  t.equal((await open(rig, b, { app })).statusCode, 200)
  const before = accounts()
  const refused = await open(rig, c, { app })
  t.equal(refused.statusCode, 429)
  const hourEnd = (Math.floor(rig.ex.time / 3_600_000) + 1) * 3_600_000
  const wait = Math.ceil((hourEnd - rig.ex.time) / 1000)
  t.same(refused.json(), { code: -1003, msg: `Too many new accounts from this IP; current limit is 2 per hour. Retry after ${wait} s, or open sessions for accounts that exist.` })
  t.equal(refused.headers['retry-after'], String(wait))
  t.equal(accounts(), before, 'no account made')

  t.equal((await open(rig, a, { app, nonce: rig.ex.time + 1 })).statusCode, 200, 'a new session for an account that exists is not counted')
  t.equal((await open(rig, a, { app, subAccount: 1, nonce: rig.ex.time + 2 })).statusCode, 200, 'nor one for its sub-account')
  t.equal((await open(rig, c, { app, remoteAddress: '10.0.0.2' })).statusCode, 200, 'another address has its own budget')
  await rig.run({ type: 'Deposit', account: d.address, sub: 0, asset: 'USDT', amount: 1_000_000, wallet: 'PERP', ref: 'd-first' })
  t.equal((await open(rig, d, { app })).statusCode, 200, 'a wallet that deposited first has its account already')

  await rig.run({ type: 'Tick' }, hourEnd - rig.ex.time)
  t.equal((await open(rig, Wallet.createRandom(), { app })).statusCode, 200, 'the next hour admits again')
})
