// RSA and Ed25519 API keys: a session holder registers a public key (POST /fapi/v1/apiKey/rsa),
// then signs requests with the private key (base64, URL-encoded: PKCS#1 v1.5 SHA-256 for RSA,
// Ed25519 of the bytes themselves) in place of HMAC; HMAC keeps working; bad keys and bad
// signatures get Binance's errors and change nothing. Each test runs for both kinds of key.

import t from 'tap'
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { USDMClient } from 'binance'
import { Wallet } from 'ethers'
import { buildGateway } from '../../gateway/app.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { RSA_SESSION_TYPES, sessionDomain } from '../../gateway/session-signature.js'
import { gatewayRig, openSession, signedInject, TEST_CHAIN_ID, type GatewayRig, type Keys } from '../helpers/gateway.js'

const rsaPair = (bits: number) => generateKeyPairSync('rsa', { modulusLength: bits })
// RSA key generation is slow: one pair of each use for the whole file.
const MAIN = rsaPair(2048)
const OTHER = rsaPair(2048)
const KINDS = [
  { kind: 'RSA', main: MAIN, other: OTHER },
  { kind: 'Ed25519', main: generateKeyPairSync('ed25519'), other: generateKeyPairSync('ed25519') },
]

const pem = (key: KeyObject): string => key.export({ type: 'spki', format: 'pem' }).toString()
const pkcs8 = (k: KeyObject): string => k.export({ type: 'pkcs8', format: 'pem' }).toString()

/**
 * Base64 signature over query + body, as Binance's clients sign: RSASSA-PKCS1-v1_5 SHA-256 with
 * an RSA key, Ed25519 (no digest named) with an Ed25519 one.
 */
function keySign(privateKey: KeyObject, payload: string): string {
  return sign(privateKey.asymmetricKeyType === 'ed25519' ? null : 'sha256', Buffer.from(payload), privateKey).toString('base64')
}

/** A request signed with a private key, the signature URL-encoded at the end of the query. */
function keyInject(rig: GatewayRig, apiKey: string, privateKey: KeyObject, method: 'GET' | 'POST' | 'DELETE', path: string,
  params: Record<string, string | number> = {}) {
  const q = new URLSearchParams({ ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])),
    timestamp: String(rig.ex.time) }).toString()
  return rig.app.inject({ method, url: `${path}?${q}&signature=${encodeURIComponent(keySign(privateKey, q))}`,
    headers: { 'x-mbx-apikey': apiKey } })
}

async function setup(t: { teardown(fn: () => unknown): void }) {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet)).json() as Keys
  await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 100_000_000_000, wallet: 'PERP', ref: 'd1' })
  return { rig, wallet, keys }
}

const ORDER = { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '40000.0' }

for (const { kind, main: MAIN, other: OTHER } of KINDS) {
  t.test(`${kind}: register a key, then trade with its signatures; HMAC still works; the key survives a snapshot`, async (t) => {
    const { rig, wallet, keys } = await setup(t)
    const publicKey = pem(MAIN.publicKey)
    const reg = await signedInject(rig, keys, 'POST', '/fapi/v1/apiKey/rsa', { publicKey })
    t.equal(reg.statusCode, 200)
    t.match(reg.json(), { apiKey: keys.apiKey, address: wallet.address, subAccount: 0, permissions: ['TRADE', 'USER_DATA'], publicKey })
    t.equal(rig.ex.state.sessions.get(keys.apiKey)!.rsaPublicKey, publicKey, 'the public key is in the replicated state')

    const placed = await keyInject(rig, keys.apiKey, MAIN.privateKey, 'POST', '/fapi/v1/order', { ...ORDER, newClientOrderId: 'rsa-1' })
    t.equal(placed.statusCode, 200)
    t.match(placed.json(), { symbol: 'BTCUSDTPERP', orderId: 1, clientOrderId: 'rsa-1' })
    const query = await keyInject(rig, keys.apiKey, MAIN.privateKey, 'GET', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: 1 })
    t.match(query.json(), { orderId: 1, status: 'NEW', price: '40000.0', origQty: '0.010', clientOrderId: 'rsa-1' })

    const hmac = await signedInject(rig, keys, 'POST', '/fapi/v1/order', { ...ORDER, newClientOrderId: 'hmac-1' })
    t.equal(hmac.statusCode, 200, 'the HMAC secret still signs')
    t.match(hmac.json(), { orderId: 2, clientOrderId: 'hmac-1' })

    // An unencoded signature ('+' arriving as a space) still verifies; a body-signed DELETE too.
    const q = `symbol=BTCUSDTPERP&orderId=2&timestamp=${rig.ex.time}`
    const raw = await rig.app.inject({ method: 'DELETE', url: `/fapi/v1/order?${q}&signature=${keySign(MAIN.privateKey, q)}`,
      headers: { 'x-mbx-apikey': keys.apiKey } })
    t.equal(raw.statusCode, 200)
    t.match(raw.json(), { orderId: 2, status: 'CANCELED' })
    const body = `symbol=BTCUSDTPERP&orderId=1&timestamp=${rig.ex.time}`
    const inBody = await rig.app.inject({ method: 'DELETE', url: '/fapi/v1/order', headers: { 'x-mbx-apikey': keys.apiKey,
      'content-type': 'application/x-www-form-urlencoded' }, payload: `${body}&signature=${encodeURIComponent(keySign(MAIN.privateKey, body))}` })
    t.match(inBody.json(), { orderId: 1, status: 'CANCELED' })

    const restored = decodeSnapshot(encodeSnapshot(rig.ex.state))
    t.equal(restored.sessions.get(keys.apiKey)!.rsaPublicKey, publicKey)
    t.equal(stateRoot(restored), stateRoot(rig.ex.state))
  })

  t.test(`${kind}: signatures are refused before a key is registered and from the wrong key`, async (t) => {
    const { rig, keys } = await setup(t)
    const invalid = { code: -1022, msg: 'Signature for this request is not valid.' }
    const before = await keyInject(rig, keys.apiKey, MAIN.privateKey, 'POST', '/fapi/v1/order', ORDER)
    t.equal(before.statusCode, 400)
    t.same(before.json(), invalid, 'no key registered: an RSA signature is just a bad signature')

    await signedInject(rig, keys, 'POST', '/fapi/v1/apiKey/rsa', { publicKey: pem(MAIN.publicKey) })
    const root = stateRoot(rig.ex.state)
    const seq = rig.ex.state.seq
    const q = `symbol=BTCUSDTPERP&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.010&price=40000.0&timestamp=${rig.ex.time}`
    const good = keySign(MAIN.privateKey, q)
    const flipped = (good[0] === 'A' ? 'B' : 'A') + good.slice(1)
    const rows: [string, string][] = [
      ['the wrong private key', keySign(OTHER.privateKey, q)],
      ['a signature of other params', keySign(MAIN.privateKey, q.replace('0.010', '0.020'))],
      ['one character changed', flipped],
      ['not base64', 'not*base64'],
      ['truncated', good.slice(0, 40)],
      ['far too long', 'A'.repeat(5000)],
      ['a wrong HMAC', '0'.repeat(64)],
    ]
    for (const [name, sig] of rows) {
      const r = await rig.app.inject({ method: 'POST', url: `/fapi/v1/order?${q}&signature=${encodeURIComponent(sig)}`,
        headers: { 'x-mbx-apikey': keys.apiKey } })
      t.equal(r.statusCode, 400, name)
      t.same(r.json(), invalid, name)
    }
    t.equal(rig.ex.state.seq, seq, 'nothing was sequenced')
    t.equal(stateRoot(rig.ex.state), root, 'the state root is unchanged')
    const ok = await rig.app.inject({ method: 'POST', url: `/fapi/v1/order?${q}&signature=${encodeURIComponent(good)}`,
      headers: { 'x-mbx-apikey': keys.apiKey } })
    t.equal(ok.statusCode, 200, 'the right signature of the same request passes')
  })

  t.test(`${kind}: a new session does not inherit the key of the one it replaces`, async (t) => {
    const { rig, wallet, keys } = await setup(t)
    await signedInject(rig, keys, 'POST', '/fapi/v1/apiKey/rsa', { publicKey: pem(MAIN.publicKey) })
    const next = (await openSession(rig, wallet, { nonce: rig.ex.time + 1 })).json() as Keys
    const r = await keyInject(rig, next.apiKey, MAIN.privateKey, 'GET', '/fapi/v2/balance')
    t.same(r.json(), { code: -1022, msg: 'Signature for this request is not valid.' })
    const old = await keyInject(rig, keys.apiKey, MAIN.privateKey, 'GET', '/fapi/v2/balance')
    t.same(old.json(), { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' }, 'the replaced session is gone')
  })

  t.test(`${kind}: the binance package signs with the private key over real HTTP`, async (t) => {
    // The client stamps requests with its own clock: the exchange's clock starts at the wall
    // clock, and the gateway it talks to reads the wall clock, over the same state.
    const rig = await gatewayRig()
    t.teardown(() => rig.close())
    rig.ex.time = Date.now()
    const wallet = Wallet.createRandom()
    const keys = (await openSession(rig, wallet)).json() as Keys
    await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 100_000_000_000, wallet: 'PERP', ref: 'd1' })
    await signedInject(rig, keys, 'POST', '/fapi/v1/apiKey/rsa', { publicKey: pem(MAIN.publicKey) })
    const live = await buildGateway({ ...rig.ctx, now: () => Date.now() })
    t.teardown(() => live.close())
    const baseUrl = await live.listen({ host: '127.0.0.1', port: 0 })

    const client = new USDMClient({ api_key: keys.apiKey, api_secret: pkcs8(MAIN.privateKey), baseUrl })
    const order = await client.submitNewOrder({ symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
      quantity: 0.01, price: 40000, newClientOrderId: 'key-client', newOrderRespType: 'RESULT' })
    t.match(order, { symbol: 'BTCUSDTPERP', orderId: 1, clientOrderId: 'key-client', status: 'NEW', price: '40000.0', origQty: '0.010' })
    const balances = await client.getBalanceV3()
    t.match(balances, [{ asset: 'USDT', balance: '100000.00000000' }])

    const wrong = new USDMClient({ api_key: keys.apiKey, api_secret: pkcs8(OTHER.privateKey), baseUrl })
    await t.rejects(wrong.getBalanceV3(), { code: -1022 }, "another key's signature")
    const hmacClient = new USDMClient({ api_key: keys.apiKey, api_secret: keys.secretKey, baseUrl })
    t.match(await hmacClient.getOrder({ symbol: 'BTCUSDTPERP', orderId: 1 }), { clientOrderId: 'key-client' }, 'HMAC alongside')
  })

  t.test(`${kind}: a wallet-signed request opens a key-signed session (API.md): no secret, the key in the signed message`, async (t) => {
    const rig = await gatewayRig()
    t.teardown(() => rig.close())
    const wallet = Wallet.createRandom()
    const publicKey = pem(MAIN.publicKey)
    const request = { address: wallet.address, subAccount: 0, permissions: 'TRADE,USER_DATA', expiresAt: rig.ex.time + 86_400_000, nonce: rig.ex.time }
    const post = async (key: string, signedKey: string, nonce: number) => {
      const fields = { ...request, nonce }
      const signature = await wallet.signTypedData(sessionDomain(TEST_CHAIN_ID), RSA_SESSION_TYPES, { ...fields, publicKey: signedKey })
      const body = new URLSearchParams({ ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])), publicKey: key, signature })
      return rig.app.inject({ method: 'POST', url: '/fapi/v1/apiKey/rsa', payload: body.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    }
    const root = stateRoot(rig.ex.state)
    const swapped = await post(pem(OTHER.publicKey), publicKey, request.nonce)
    t.equal(swapped.statusCode, 400, 'a key other than the one the wallet signed is refused')
    t.same(swapped.json(), { code: -1022, msg: 'Signature for this request is not valid.' })
    t.equal(stateRoot(rig.ex.state), root, 'nothing changed')

    const opened = await post(publicKey, publicKey, request.nonce)
    t.equal(opened.statusCode, 200, opened.body)
    const r = opened.json()
    t.same(Object.keys(r).sort(), ['address', 'apiKey', 'expiresAt', 'permissions', 'publicKey', 'subAccount'], 'no secret is returned')
    t.match(r, { address: wallet.address, subAccount: 0, permissions: ['TRADE', 'USER_DATA'], publicKey })
    await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 100_000_000_000, wallet: 'PERP', ref: 'd1' })
    const placed = await keyInject(rig, r.apiKey, MAIN.privateKey, 'POST', '/fapi/v1/order', ORDER)
    t.equal(placed.statusCode, 200, placed.body)
    t.match(placed.json(), { symbol: 'BTCUSDTPERP', orderId: 1 })

    const replayed = await post(publicKey, publicKey, request.nonce)
    t.equal(replayed.statusCode, 400, 'a reused nonce is refused')
    t.same(replayed.json(), { code: -1130, msg: "Data sent for parameter 'nonce' is not valid." })
  })
}

t.test('bad public keys: -1130 naming publicKey, nothing changes', async (t) => {
  const { rig, keys } = await setup(t)
  const root = stateRoot(rig.ex.state)
  const seq = rig.ex.state.seq
  const small = rsaPair(1024)
  const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const invalid = { code: -1130, msg: "Data sent for parameter 'publicKey' is not valid." }
  const rows: [string, string][] = [
    ['a 1024-bit key', pem(small.publicKey)],
    ['an EC key', pem(ec.publicKey)],
    ['an X25519 key (key agreement, not signing)', pem(generateKeyPairSync('x25519').publicKey)],
    ['an Ed448 key', pem(generateKeyPairSync('ed448').publicKey)],
    ['a private key', pkcs8(MAIN.privateKey)],
    ['an Ed25519 private key', pkcs8(KINDS[1]!.main.privateKey)],
    ['garbage', 'hello'],
    ['a broken PEM body', pem(MAIN.publicKey).replace(/\n[A-Za-z0-9+/]{10}/, '\n**********')],
  ]
  for (const [name, publicKey] of rows) {
    const r = await signedInject(rig, keys, 'POST', '/fapi/v1/apiKey/rsa', { publicKey })
    t.equal(r.statusCode, 400, name)
    t.same(r.json(), invalid, name)
  }
  const missing = await signedInject(rig, keys, 'POST', '/fapi/v1/apiKey/rsa')
  t.same(missing.json(), { code: -1102, msg: "Mandatory parameter 'publicKey' was not sent, was empty/null, or malformed." })
  const unsigned = await rig.app.inject({ method: 'POST', url: `/fapi/v1/apiKey/rsa?publicKey=x&timestamp=${rig.ex.time}`,
    headers: { 'x-mbx-apikey': keys.apiKey } })
  t.same(unsigned.json(), { code: -1102, msg: "Mandatory parameter 'signature' was not sent, was empty/null, or malformed." })
  // Without an API key the request is the wallet-signed form, and names what it lacks.
  const noKey = await rig.app.inject({ method: 'POST', url: '/fapi/v1/apiKey/rsa' })
  t.equal(noKey.statusCode, 400)
  t.same(noKey.json(), { code: -1102, msg: "Mandatory parameter 'publicKey' was not sent, was empty/null, or malformed." })
  t.equal(rig.ex.state.seq, seq, 'nothing was sequenced')
  t.equal(stateRoot(rig.ex.state), root, 'the state root is unchanged')
})

t.test('a PKCS#1 PEM and a 4096-bit key are accepted and stored as SPKI; the key survives a snapshot', async (t) => {
  const { rig, keys } = await setup(t)
  const pkcs1 = MAIN.publicKey.export({ type: 'pkcs1', format: 'pem' }).toString()
  const reg = await signedInject(rig, keys, 'POST', '/fapi/v1/apiKey/rsa', { publicKey: pkcs1 })
  t.equal(reg.statusCode, 200)
  t.equal(reg.json().publicKey, pem(MAIN.publicKey), 'kept in its one canonical form')

  const big = rsaPair(4096)
  const again = await signedInject(rig, keys, 'POST', '/fapi/v1/apiKey/rsa', { publicKey: pem(big.publicKey) })
  t.equal(again.statusCode, 200, 'a later key replaces the earlier one')
  const old = await keyInject(rig, keys.apiKey, MAIN.privateKey, 'GET', '/fapi/v2/balance')
  t.same(old.json(), { code: -1022, msg: 'Signature for this request is not valid.' }, 'the replaced key no longer signs')
  const now = await keyInject(rig, keys.apiKey, big.privateKey, 'GET', '/fapi/v2/balance')
  t.equal(now.statusCode, 200)
  t.match(now.json(), [{ asset: 'USDT', balance: '100000.00000000' }])

  const restored = decodeSnapshot(encodeSnapshot(rig.ex.state))
  t.equal(restored.sessions.get(keys.apiKey)!.rsaPublicKey, pem(big.publicKey))
  t.equal(stateRoot(restored), stateRoot(rig.ex.state))
})

t.test('the core checks the command itself: owner and PEM shape', async (t) => {
  const { rig, keys } = await setup(t)
  const s = rig.ex.state.sessions.get(keys.apiKey)!
  const cmd = { type: 'RegisterRsaKey' as const, account: s.account, sub: s.sub, apiKey: keys.apiKey, publicKey: pem(MAIN.publicKey) }
  const code = (c: object): string => { const r = rig.ex.run(c as never); return r.ok ? 'OK' : r.code }
  t.equal(code({ ...cmd, account: '0x' + 'b'.repeat(40) }), 'SESSION_UNKNOWN', 'only the session owner registers a key')
  t.equal(code({ ...cmd, apiKey: 'Z'.repeat(64) }), 'SESSION_UNKNOWN')
  t.equal(code({ ...cmd, publicKey: 'x'.repeat(100) }), 'SESSION_INVALID')
  t.equal(code({ ...cmd, publicKey: pem(MAIN.publicKey).replace('PUBLIC', 'PRIVATE') }), 'SESSION_INVALID')
  t.equal(code({ ...cmd, publicKey: 42 }), 'SESSION_INVALID')
  t.equal(s.rsaPublicKey, undefined)
  t.equal(code(cmd), 'OK')
  t.equal(s.rsaPublicKey, cmd.publicKey)
})
