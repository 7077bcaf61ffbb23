// Schemas of the session routes: open a session from a wallet's EIP-712 signature, show it,
// revoke it, register an RSA or Ed25519 key on it.

import { arrayOf, int, object, route, str, strings } from './common.js'

const sessionFields = { apiKey: str, address: str, subAccount: int, permissions: strings, expiresAt: int }
const typeFields = arrayOf(object({ name: str, type: str }))

export const sessionDocs = {
  open: route({
    family: 'session', summary: 'Open a session: API key and secret from a wallet signature',
    description: 'signature: the EIP-712 signature of Session {address, subAccount, permissions, expiresAt, nonce} '
      + 'in the domain {name: "PerpExchange", version: "1", chainId}; nonce is ms and must be inside recvWindow. '
      + 'No API key is sent. permissions: comma-separated TRADE, USER_DATA, WITHDRAW (default TRADE,USER_DATA).',
    security: 'NONE', weight: 1,
    params: ['address', 'subAccount', 'permissions', 'expiresAt', 'nonce', 'recvWindow', 'signature'],
    required: ['address', 'expiresAt', 'nonce', 'signature'],
    response: object({ apiKey: str, secretKey: str, address: str, subAccount: int, permissions: strings, expiresAt: int }),
  }),
  typedData: route({
    family: 'session', summary: 'What a wallet signs to open a session: the EIP-712 domain and types',
    description: 'eth_signTypedData_v4\'s parameter less its message: {types: {EIP712Domain, Session, RsaSession}, '
      + 'domain: {name, version, chainId}, primaryType: "Session"}. A web page adds the message (address, subAccount, '
      + 'permissions, expiresAt, nonce) and has the wallet sign it; the chain id is this exchange\'s.',
    security: 'NONE', weight: 1,
    response: object({
      types: object({ EIP712Domain: typeFields, Session: typeFields, RsaSession: typeFields }),
      domain: object({ name: str, version: str, chainId: int }),
      primaryType: str,
    }),
  }),
  show: route({
    family: 'session', summary: "The caller's session", security: 'USER_DATA', weight: 1, response: object(sessionFields),
  }),
  revoke: route({
    family: 'session', summary: "Revoke the caller's session", security: 'USER_DATA', weight: 1, response: object({}),
  }),
  rsaKey: route({
    family: 'session', summary: 'RSA and Ed25519 keys: open a key-signed session from a wallet signature, or add a key to yours',
    description: 'Without X-MBX-APIKEY: the session fields (address, subAccount, permissions, expiresAt, nonce) and '
      + 'publicKey (an RSA key of 2048 to 4096 bits or an Ed25519 key), with signature = the EIP-712 signature of RsaSession {address, subAccount, permissions, expiresAt, '
      + 'nonce, publicKey} (publicKey as SPKI PEM, 64-character lines, final newline); opens a session whose requests are '
      + 'signed with the private key (base64: RSA PKCS#1 v1.5 SHA-256, or Ed25519) and returns its apiKey. With X-MBX-APIKEY: a '
      + 'signed request (timestamp, signature) that adds publicKey to the caller\'s session; HMAC keeps working.',
    security: 'NONE', weight: 1,
    params: ['address', 'subAccount', 'permissions', 'expiresAt', 'nonce', 'publicKey', 'timestamp', 'recvWindow', 'signature'],
    required: ['publicKey', 'signature'],
    response: object({ apiKey: str, address: str, subAccount: int, permissions: strings, expiresAt: int, publicKey: str }),
  }),
}
