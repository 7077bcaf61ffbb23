// Funded accounts for a newcomer, a second trader, a bot or a test: a fresh wallet, a real
// deposit on the embedded chain (an operator deposit where there is none), and a session
// signed by that wallet, printed and saved.

import { generateKeyPairSync } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { BaseWallet } from 'ethers'
import { randomWallet } from './random-wallet.js'
import type { Command } from '../core/commands.js'
import type { Acknowledged } from '../replica/sequencer.js'
import { newApiKey, secretFor } from '../gateway/auth.js'
import { canonicalPublicKey } from '../gateway/public-keys.js'
import { sessionDomain, SESSION_TYPES } from '../gateway/session-signature.js'

export interface DemoAccount {
  address: string
  subAccount: number
  apiKey: string
  secretKey: string
  /** The wallet's key, so the newcomer can open new sessions; demo accounts only. */
  privateKey: string
  fundedUsdt: string
  /** With `--key-type ed25519` or `rsa`: the key type registered on the session. */
  keyType?: 'ED25519' | 'RSA'
  /**
   * Its private key (PKCS#8 PEM), to sign requests with instead of `secretKey` (which still
   * works); the session holds only the public half. Binance clients take it as their private key.
   */
  apiPrivateKeyPem?: string
}

/** How a new account's session signs requests: the HMAC secret alone, or a public key registered too. */
export type KeyType = 'hmac' | 'ed25519' | 'rsa'

/** A new key pair of `type` as PEM: the public half as the session stores it, the private half for the user. */
function apiKeyPair(type: 'ed25519' | 'rsa'): { publicKey: string; privateKey: string } {
  const publicKeyEncoding = { type: 'spki', format: 'pem' } as const
  const privateKeyEncoding = { type: 'pkcs8', format: 'pem' } as const
  const pair = type === 'rsa'
    ? generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding, privateKeyEncoding })
    : generateKeyPairSync('ed25519', { publicKeyEncoding, privateKeyEncoding })
  return { publicKey: canonicalPublicKey(pair.publicKey), privateKey: pair.privateKey }
}

export async function createFundedAccount(o: {
  submit: (c: Command) => Promise<Acknowledged>
  now: () => number
  chainId: number
  masterSecret: Uint8Array
  usdt: number
  /** Funds the wallet by a real deposit on chain (credited to SPOT by the watcher); else operator deposits. */
  fundOnChain?: (wallet: BaseWallet, asset: string, units: bigint) => Promise<void>
  /**
   * Other assets deposited into the spot wallet too (the bot sells base assets on the spot
   * books): token units on chain, ledger units for an operator deposit.
   */
  assets?: { asset: string; tokenUnits: bigint; ledgerUnits: number }[]
  /** Registers a public key of this type on the session too (default hmac: none). */
  keyType?: KeyType
}): Promise<DemoAccount> {
  const wallet = randomWallet()
  for (const { asset, tokenUnits, ledgerUnits } of o.assets ?? []) {
    if (o.fundOnChain) await o.fundOnChain(wallet, asset, tokenUnits)
    else {
      const ack = await o.submit({ type: 'Deposit', account: wallet.address, sub: 0, asset, amount: ledgerUnits, wallet: 'SPOT',
        ref: `operator:${wallet.address}:${asset}` })
      if (!ack.result.ok) throw new Error(`funding refused: ${ack.result.code}`)
    }
  }
  const units = BigInt(Math.round(o.usdt * 1e6))
  const half = Number(units / 2n)
  // Half margin in the perp wallet, half in spot, so both APIs can be tried at once.
  if (o.fundOnChain) {
    await o.fundOnChain(wallet, 'USDT', units)
    // Refused for want of balance until the watcher has credited the deposit.
    for (let attempt = 1; ; attempt++) {
      const ack = await o.submit({ type: 'Transfer', account: wallet.address, sub: 0, direction: 'SPOT_TO_PERP', amount: half })
      if (ack.result.ok) break
      if (ack.result.code !== 'BALANCE_INSUFFICIENT' || attempt === 300) throw new Error(`funding transfer refused: ${ack.result.code}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  } else for (const [wallet_, amount] of [['PERP', half], ['SPOT', Number(units) - half]] as const) {
    const ack = await o.submit({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount, wallet: wallet_,
      ref: `operator:${wallet.address}:${wallet_}` })
    if (!ack.result.ok) throw new Error(`funding refused: ${ack.result.code}`)
  }
  const nonce = o.now()
  const request = { address: wallet.address, subAccount: 0, permissions: 'TRADE,USER_DATA,WITHDRAW',
    expiresAt: nonce + 30 * 86_400_000 - 60_000, nonce }
  const signature = await wallet.signTypedData(sessionDomain(o.chainId), SESSION_TYPES, request)
  const apiKey = newApiKey()
  const ack = await o.submit({ type: 'CreateSession', account: wallet.address, sub: 0, apiKey,
    permissions: ['TRADE', 'USER_DATA', 'WITHDRAW'], expiresAt: request.expiresAt, nonce, signature: signature.toLowerCase() })
  if (!ack.result.ok) throw new Error(`session refused: ${ack.result.code}`)
  const account: DemoAccount = { address: wallet.address, subAccount: 0, apiKey, secretKey: secretFor(o.masterSecret, apiKey),
    privateKey: wallet.privateKey, fundedUsdt: String(o.usdt) }
  const keyType = o.keyType ?? 'hmac'
  if (keyType === 'hmac') return account
  const pair = apiKeyPair(keyType)
  const registered = await o.submit({ type: 'RegisterRsaKey', account: wallet.address, sub: 0, apiKey, publicKey: pair.publicKey })
  if (!registered.result.ok) throw new Error(`key registration refused: ${registered.result.code}`)
  return { ...account, keyType: keyType === 'rsa' ? 'RSA' : 'ED25519', apiPrivateKeyPem: pair.privateKey }
}

export async function saveDemoAccount(dataDir: string, account: DemoAccount): Promise<string> {
  const file = path.join(dataDir, 'demo-account.json')
  await writeFile(file, JSON.stringify(account, null, 2) + '\n', { mode: 0o600 })
  return file
}
