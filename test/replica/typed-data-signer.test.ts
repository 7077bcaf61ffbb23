// typedDataSigner recovers EIP-712 signers with libsecp256k1 in place of ethers' verifyTypedData:
// it must name the same signer for every signature, and refuse the same ones, or the audit
// would judge the log's oracle prices and sessions otherwise than the ingress and gateway did.

import t from 'tap'
import fc from 'fast-check'
import { Signature, TypedDataEncoder, Wallet, getBytes, hexlify, verifyTypedData, type TypedDataDomain, type TypedDataField } from 'ethers'
import { ORACLE_DOMAIN, ORACLE_TYPES, signOraclePriceNow, verifyOraclePrice } from '../../replica/oracle-signature.js'
import { SESSION_TYPES, sessionDomain } from '../../gateway/session-signature.js'
import { typedDataSigner } from '../../replica/typed-data-signer.js'
import { runs } from '../helpers/property.js'

/** What a signer function gives: the address, or 'refused' when it throws. */
function outcome(f: () => string): string {
  try { return f() } catch { return 'refused' }
}

const privateKey = fc.uint8Array({ minLength: 32, maxLength: 32 })
  .filter((b) => b.some((x) => x !== 0) && b[0] !== 0xff) // nonzero and below the curve order
const oracleMessage = fc.record({
  pair: fc.constantFrom('BTCUSDT', 'ETHUSDT', ''),
  priceE8: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  time: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
})
const sessionMessage = fc.record({
  subAccount: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  permissions: fc.constantFrom('TRADE,USER_DATA', 'USER_DATA', 'TRADE,USER_DATA,WITHDRAW'),
  expiresAt: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  nonce: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
})
const chainId = fc.constantFrom(1, 31337, 11155111)

/** One message to sign: an oracle price or a session request, with its domain and types. */
const message = fc.oneof(
  oracleMessage.map((v) => ({ domain: ORACLE_DOMAIN, types: ORACLE_TYPES, value: v as Record<string, unknown> })),
  fc.tuple(sessionMessage, chainId).map(([v, id]) => ({ domain: sessionDomain(id), types: SESSION_TYPES, value: v as Record<string, unknown> })),
)

interface Signed { wallet: Wallet; domain: TypedDataDomain; types: Record<string, TypedDataField[]>; value: Record<string, unknown>; signature: string }

const signed = fc.tuple(privateKey, message).map(([key, m]): Signed => {
  const wallet = new Wallet(hexlify(key))
  // Sessions name their signer's address: the signature covers it as a real request's does.
  const value = 'subAccount' in m.value ? { address: wallet.address, ...m.value } : m.value
  // Signed over ethers' own digest, as ethers' wallets sign typed data.
  const signature = wallet.signingKey.sign(TypedDataEncoder.hash(m.domain, m.types, value)).serialized
  return { wallet, domain: m.domain, types: m.types, value, signature }
})

t.test('a genuine signature: the signer, as verifyTypedData names it', async (t) => {
  fc.assert(fc.property(signed, (s) => {
    const ours = typedDataSigner(s.domain, s.types, s.value, s.signature)
    return ours === s.wallet.address && ours === verifyTypedData(s.domain, s.types, s.value, s.signature)
  }), runs(100))
  t.pass('100 signatures')
})

t.test('a damaged signature: the same signer or the same refusal as verifyTypedData', async (t) => {
  const damage = fc.tuple(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 255 }))
  fc.assert(fc.property(signed, damage, (s, [at, byte]) => {
    const bytes = getBytes(s.signature)
    bytes[at] = byte
    const sig = hexlify(bytes)
    return outcome(() => typedDataSigner(s.domain, s.types, s.value, sig)) === outcome(() => verifyTypedData(s.domain, s.types, s.value, sig))
  }), runs(150))
  t.pass('150 damaged signatures')
})

t.test('signatures ethers refuses or reads its own way', async (t) => {
  const wallet = new Wallet('0x' + '11'.repeat(32))
  const value = { pair: 'BTCUSDT', priceE8: 3_000_000_000_000, time: 1_700_000_000_000 }
  const sig = Signature.from(signOraclePriceNow(wallet, value).signature)
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
  const cases: [string, string][] = [
    ['the signature as signed', sig.serialized],
    ['its EIP-2098 compact form', sig.compactSerialized],
    ['v as 0 or 1 instead of 27 or 28', hexlify(new Uint8Array([...getBytes(sig.r), ...getBytes(sig.s), sig.yParity]))],
    ['the other y parity', hexlify(new Uint8Array([...getBytes(sig.r), ...getBytes(sig.s), 27 + (1 - sig.yParity)]))],
    ['the high-s twin', hexlify(new Uint8Array([...getBytes(sig.r), ...getBytes('0x' + (n - BigInt(sig.s)).toString(16).padStart(64, '0')), 27 + (1 - sig.yParity)]))],
    ['r of zero', hexlify(new Uint8Array([...new Uint8Array(32), ...getBytes(sig.s), sig.v]))],
    ['r of the curve order', hexlify(new Uint8Array([...getBytes('0x' + n.toString(16)), ...getBytes(sig.s), sig.v]))],
    ['too short', sig.serialized.slice(0, 100)],
    ['not hex', '0x' + 'zz'.repeat(65)],
  ]
  for (const [what, signature] of cases) {
    t.equal(outcome(() => typedDataSigner(ORACLE_DOMAIN, ORACLE_TYPES, value, signature)),
      outcome(() => verifyTypedData(ORACLE_DOMAIN, ORACLE_TYPES, value, signature)), what)
  }
  t.equal(typedDataSigner(ORACLE_DOMAIN, ORACLE_TYPES, value, sig.serialized), wallet.address, 'the signer is named')
  t.ok(verifyOraclePrice({ type: 'OraclePrice', ...value, oracle: wallet.address, signature: sig.serialized }), 'an oracle price it signed verifies')
  t.notOk(verifyOraclePrice({ type: 'OraclePrice', ...value, priceE8: value.priceE8 + 1, oracle: wallet.address, signature: sig.serialized }),
    'and not with another price')
})
