// The EIP-712 message a wallet signs to open a trading session (API.md "Sessions"): shared by
// the gateway, which verifies it, and clients and tests, which produce it.

import { TypedDataEncoder, type TypedDataDomain, type TypedDataField } from 'ethers'
import { typedDataSigner } from '../replica/typed-data-signer.js'

export const SESSION_DOMAIN_NAME = 'PerpExchange'
export const SESSION_DOMAIN_VERSION = '1'

export const SESSION_TYPES: Record<string, TypedDataField[]> = {
  Session: [
    { name: 'address', type: 'address' },
    { name: 'subAccount', type: 'uint32' },
    { name: 'permissions', type: 'string' },
    { name: 'expiresAt', type: 'uint64' },
    { name: 'nonce', type: 'uint64' },
  ],
}

/**
 * A session keyed by a public key, RSA or Ed25519 (POST /fapi/v1/apiKey/rsa; the type keeps the
 * name it had when RSA was the only kind): the same fields and the public key, as
 * SPKI PEM with 64-character lines and a final newline (what `openssl rsa -pubout` and
 * Node's KeyObject export write), so the wallet's signature covers the key it authorizes.
 */
export const RSA_SESSION_TYPES: Record<string, TypedDataField[]> = {
  RsaSession: [...SESSION_TYPES.Session!, { name: 'publicKey', type: 'string' }],
}

export interface RsaSessionRequest extends SessionRequest {
  publicKey: string
}

export interface SessionRequest {
  address: string
  subAccount: number
  /** Comma-separated, as sent: e.g. "TRADE,USER_DATA". */
  permissions: string
  expiresAt: number
  nonce: number
}

export function sessionDomain(chainId: number): TypedDataDomain {
  return { name: SESSION_DOMAIN_NAME, version: SESSION_DOMAIN_VERSION, chainId }
}

/** eth_signTypedData_v4's parameter for a session, less its message (GET /fapi/v1/session/typedData). */
export function sessionTypedData(chainId: number) {
  return {
    types: {
      EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'version', type: 'string' }, { name: 'chainId', type: 'uint256' }],
      ...SESSION_TYPES, ...RSA_SESSION_TYPES,
    },
    domain: { name: SESSION_DOMAIN_NAME, version: SESSION_DOMAIN_VERSION, chainId },
    primaryType: 'Session',
  }
}

/** The address that signed the session request, or null when the signature is malformed. */
export function sessionSigner(chainId: number, request: SessionRequest | RsaSessionRequest, signature: string): string | null {
  try {
    const types = 'publicKey' in request ? RSA_SESSION_TYPES : SESSION_TYPES
    return typedDataSigner(sessionDomain(chainId), types, request, signature)
  } catch {
    return null
  }
}

/** The digest a wallet signs (for clients that sign raw digests). */
export function sessionDigest(chainId: number, request: SessionRequest): string {
  return TypedDataEncoder.hash(sessionDomain(chainId), SESSION_TYPES, request)
}
