// Who signed an EIP-712 message (oracle prices, session requests): what ethers' verifyTypedData
// answers, computed for less. The public key is recovered by libsecp256k1 (tiny-secp256k1,
// built to WebAssembly) rather than by ethers' curve arithmetic in JavaScript bigints, six
// times slower; each message's types are parsed once and each domain hashed once, where
// verifyTypedData does both again for every signature. An audit recovers one key per
// OraclePrice in the log (two a second with the default feed): in ethers that was most of
// an audit's time.

import { Signature, TypedDataEncoder, concat, getAddress, getBytes, keccak256, type TypedDataDomain, type TypedDataField } from 'ethers'
import { recover } from 'tiny-secp256k1'

const encoders = new WeakMap<Record<string, TypedDataField[]>, TypedDataEncoder>()
/** Domain separators by the domain's JSON (a handful: one per chain id a node serves). */
const domainHashes = new Map<string, string>()

/** The EIP-712 digest of `value`: TypedDataEncoder.hash, with its types and domain prepared once. */
function digestOf(domain: TypedDataDomain, types: Record<string, TypedDataField[]>, value: object): Uint8Array {
  let encoder = encoders.get(types)
  if (encoder === undefined) encoders.set(types, encoder = TypedDataEncoder.from(types))
  const key = JSON.stringify(domain)
  let domainHash = domainHashes.get(key)
  if (domainHash === undefined) domainHashes.set(key, domainHash = TypedDataEncoder.hashDomain(domain))
  return getBytes(keccak256(concat(['0x1901', domainHash, encoder.hash(value as Record<string, unknown>)])))
}

/**
 * The address whose key signed `value` (checksummed, as verifyTypedData returns it). Throws on
 * a signature ethers' `Signature.from` refuses, or one no key recovers from.
 */
export function typedDataSigner(domain: TypedDataDomain, types: Record<string, TypedDataField[]>,
  value: object, signature: string): string {
  // ethers' parsing, so the signatures accepted are the ones verifyTypedData accepted.
  const sig = Signature.from(signature)
  const rs = new Uint8Array(64)
  rs.set(getBytes(sig.r), 0)
  rs.set(getBytes(sig.s), 32)
  const key = recover(digestOf(domain, types, value), rs, sig.yParity, false)
  if (key === null) throw new Error('no public key recovers from this signature')
  // An address is the last 20 bytes of the hash of the uncompressed key without its 0x04.
  return getAddress('0x' + keccak256(key.subarray(1)).slice(26))
}
