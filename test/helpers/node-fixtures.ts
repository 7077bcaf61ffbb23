// For tests that start a real node process: its log written beforehand (rules, genesis, then
// what the test needs, as a sequencer would have sequenced it), and a REST session opened as a
// wallet opens one (EIP-712), with a signed call bound to it.

import path from 'node:path'
import type { BaseWallet } from 'ethers'
import type { Command } from '../../core/commands.js'
import { DEFAULT_GENESIS, genesisCommands } from '../../core/genesis-spec.js'
import { RULES_VERSION } from '../../core/rules.js'
import { sessionDomain, SESSION_TYPES } from '../../gateway/session-signature.js'
import { GENESIS_HASH, makeEntry, type LogEntry } from '../../replica/entry.js'
import { LevelLogStore } from '../../replica/level-log.js'
import { signedRequest } from './processes.js'

/** The commands every prewritten log starts with: the rules, then the default genesis. */
export function genesisLog(): Command[] {
  return [{ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '5a'.repeat(32) }, ...genesisCommands(DEFAULT_GENESIS)]
}

/**
 * Writes `commands` as the log of data directory `dir`, the first at time `t0` and each 1 ms
 * after the one before, in appends of `batch` entries (default: one append).
 */
export async function writeLog(dir: string, commands: Command[], t0: number, batch = commands.length): Promise<void> {
  const log = new LevelLogStore(path.join(dir, 'log'))
  await log.open()
  let prev = GENESIS_HASH
  const entries: LogEntry[] = commands.map((c, i) => {
    const e = makeEntry(i + 1, t0 + i, c, prev)
    prev = e.hash
    return e
  })
  for (let i = 0; i < entries.length; i += batch) await log.append(entries.slice(i, i + batch))
  await log.close()
}

export interface RestSession {
  apiKey: string
  secretKey: string
  /** A signed request; its status and parsed body. */
  call(method: 'GET' | 'POST' | 'DELETE', p: string, params: Record<string, string>): Promise<{ status: number; body: any }>
}

/** Opens a session for `wallet`'s sub-account 0 on the node at `base` (chain id 31337, as a node without a chain declares). */
export async function restSession(base: string, wallet: BaseWallet, permissions = 'TRADE,USER_DATA'): Promise<RestSession> {
  const request = { address: wallet.address, subAccount: 0, permissions, expiresAt: Date.now() + 3_600_000, nonce: Date.now() }
  const signature = await wallet.signTypedData(sessionDomain(31337), SESSION_TYPES, request)
  const r = await fetch(`${base}/fapi/v1/session`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...Object.fromEntries(Object.entries(request).map(([k, v]) => [k, String(v)])), signature }) })
  const keys = await r.json() as { apiKey: string; secretKey: string }
  if (r.status !== 200) throw new Error(`session refused: ${JSON.stringify(keys)}`)
  return { ...keys, call: (method, p, params) => signedRequest(base, keys, method, p, params) }
}
