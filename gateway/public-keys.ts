// Request signing by a public key (API.md "Requests"; GATEWAY.md "Sessions and signing"): a
// session may register an RSA or Ed25519 public key, after which a request may carry a base64
// signature over the same bytes an HMAC would cover: RSASSA-PKCS1-v1_5 SHA-256 for RSA,
// Ed25519 (RFC 8032, of the bytes themselves) for Ed25519, as Binance's clients sign with
// either kind of key. Keys are parsed once and cached; verification never throws.

import { createPublicKey, verify, type KeyObject } from 'node:crypto'
import { invalidParam } from './errors.js'

/** Smaller keys are breakable; larger ones make every request slow to verify. */
export const RSA_MODULUS_BITS_MIN = 2048
export const RSA_MODULUS_BITS_MAX = 4096
/** Parsed keys kept; past this the cache starts over (keys re-parse on their next use). */
const KEY_CACHE_MAX = 10_000
/** PEM text accepted for parsing (a 4096-bit key is about 800 characters, more with CRLFs). */
const PEM_INPUT_LENGTH_MAX = 4096
/** A base64 signature of a 4096-bit key is 684 characters (an Ed25519 one 88). */
const SIGNATURE_LENGTH_MAX = 1024
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

/**
 * The SPKI PEM of an RSA or Ed25519 public key sent as PEM (SPKI "PUBLIC KEY", or PKCS#1 "RSA
 * PUBLIC KEY"), in the one canonical form the log keeps; -1130 naming `publicKey` for anything
 * else: text that does not parse, a private key, another algorithm, or an RSA modulus out of
 * bounds.
 */
export function canonicalPublicKey(pem: string): string {
  // A private key would parse (Node derives its public half); refuse it rather than touch it.
  if (pem.length > PEM_INPUT_LENGTH_MAX || pem.includes('PRIVATE KEY') || !pem.includes('PUBLIC KEY-----')) throw invalidParam('publicKey')
  let key: KeyObject
  try { key = createPublicKey({ key: pem, format: 'pem' }) } catch { throw invalidParam('publicKey') }
  if (key.asymmetricKeyType !== 'ed25519') {
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0
    if (key.asymmetricKeyType !== 'rsa' || bits < RSA_MODULUS_BITS_MIN || bits > RSA_MODULUS_BITS_MAX) {
      throw invalidParam('publicKey')
    }
  }
  return key.export({ type: 'spki', format: 'pem' }).toString()
}

const keys = new Map<string, KeyObject>()

function keyOf(pem: string): KeyObject {
  let key = keys.get(pem)
  if (key === undefined) {
    if (keys.size >= KEY_CACHE_MAX) keys.clear()
    key = createPublicKey(pem)
    keys.set(pem, key)
  }
  return key
}

/**
 * Whether `signature` (base64, already URL-decoded) is the signature of `pem`'s private key
 * over `payload`. A '+' a client forgot to percent-encode arrives as a space; base64 has none,
 * so it is restored.
 */
export function publicKeySignatureValid(pem: string, payload: string, signature: string): boolean {
  if (signature.length > SIGNATURE_LENGTH_MAX) return false
  const text = signature.replaceAll(' ', '+')
  if (!BASE64.test(text)) return false
  try {
    const key = keyOf(pem)
    // Ed25519 signs the message itself: no digest is named.
    return verify(key.asymmetricKeyType === 'ed25519' ? null : 'sha256', Buffer.from(payload), key, Buffer.from(text, 'base64'))
  } catch {
    return false
  }
}
