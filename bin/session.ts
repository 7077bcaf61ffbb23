// `exchange session`: a session for one of your sub-accounts, opened the way a wallet in a web
// page opens one: the typed data from the exchange's API (GET /fapi/v1/session/typedData),
// signed with the wallet's key, posted back (POST /fapi/v1/session). A bot on a sub-account of
// its own gets its keys this way; only the wallet's key is needed, not the operator's secret.

import { Wallet } from 'ethers'
import { OperatorError } from './operator-error.js'

interface TypedData {
  domain: { name: string; version: string; chainId: number }
  types: Record<string, { name: string; type: string }[]>
}

/** What POST /fapi/v1/session answers. */
export interface SessionKeys {
  apiKey: string
  secretKey: string
  address: string
  subAccount: number
  permissions: string[]
  expiresAt: number
}

/** How long a session opened here lasts: as `exchange account`'s, 30 days less a minute. */
const LIFETIME_MS = 30 * 86_400_000 - 60_000

export async function openSession(o: { api: string; privateKey: string; sub: number; permissions?: string }): Promise<SessionKeys> {
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(o.privateKey)) throw new OperatorError('the keys file needs the wallet\'s privateKey (as exchange account prints it)')
  const wallet = new Wallet(o.privateKey)
  const typed = await fetch(`${o.api}/fapi/v1/session/typedData`).then((r) => r.json() as Promise<TypedData>, () => {
    throw new OperatorError(`nothing answers at ${o.api}: is the exchange running there (--api)?`)
  })
  const now = Date.now()
  const message = { address: wallet.address, subAccount: o.sub, permissions: o.permissions ?? 'TRADE,USER_DATA', expiresAt: now + LIFETIME_MS, nonce: now }
  const signature = await wallet.signTypedData(typed.domain, { Session: typed.types.Session! }, message)
  const body = new URLSearchParams({ ...Object.fromEntries(Object.entries(message).map(([k, v]) => [k, String(v)])), signature })
  const res = await fetch(`${o.api}/fapi/v1/session`, { method: 'POST', body,
    headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  const answer = await res.json() as SessionKeys & { code?: number; msg?: string }
  if (!res.ok) throw new OperatorError(`the exchange refused the session: ${answer.code} ${answer.msg}`)
  return answer
}
