// The EIP-712 message a wallet signs to open a trading session (API.md "Sessions"): shared by
// the gateway, which verifies it, and clients and tests, which produce it.

import { Signature, TypedDataEncoder, verifyTypedData, type TypedDataDomain, type TypedDataField } from 'ethers'

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

/** The address that signed the session request, or null when the signature is malformed. */
export function sessionSigner(chainId: number, request: SessionRequest, signature: string): string | null {
  try {
    Signature.from(signature)
    return verifyTypedData(sessionDomain(chainId), SESSION_TYPES, request, signature)
  } catch {
    return null
  }
}

/** The digest a wallet signs (for clients that sign raw digests). */
export function sessionDigest(chainId: number, request: SessionRequest): string {
  return TypedDataEncoder.hash(sessionDomain(chainId), SESSION_TYPES, request)
}
