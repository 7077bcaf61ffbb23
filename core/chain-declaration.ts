// The chain a log's money lives on, declared in the log itself (rules 2 on): the chain id, the
// Vault deposits are credited from and withdrawals paid by, and the token of each asset. With
// it a replica or an auditor learns from the log alone which contract to hold the log against,
// and a sequencer configured for another Vault refuses to run on the log (bin/chain.ts), since
// it would credit deposits the log's users never made to its Vault. Declared once, by the
// sequencer as its chain services start; a log moving to another Vault would need a rule of
// its own.

import { validAddress } from './accounts.js'
import type { DeclareChain } from './commands.js'
import type { Result } from './events.js'
import { accept, reject } from './results.js'
import { rulesOf, SALTED_LEAVES } from './rules.js'
import type { ChainDeclaration, State } from './state.js'

/** The first rules under which a log declares its chain (older builds answered COMMAND_UNKNOWN). */
export const CHAIN_DECLARED_RULES = SALTED_LEAVES

/** The declaration as the state keeps it, or null when malformed for `state` (unknown assets, repeats). */
function declarationOf(state: State, cmd: DeclareChain): ChainDeclaration | null {
  const { chainId, vault, tokens } = cmd
  if (!Number.isSafeInteger(chainId) || chainId < 1 || !validAddress(vault)) return null
  if (!Array.isArray(tokens) || tokens.length === 0 || tokens.length > state.assets.size) return null
  const assets = new Set<string>()
  const addresses = new Set<string>()
  for (const t of tokens) {
    if (t === null || typeof t !== 'object' || typeof t.asset !== 'string' || !state.assets.has(t.asset) || assets.has(t.asset)) return null
    if (!validAddress(t.address) || addresses.has(t.address.toLowerCase())) return null
    if (!Number.isSafeInteger(t.decimals) || t.decimals < 0 || t.decimals > 255) return null
    assets.add(t.asset)
    addresses.add(t.address.toLowerCase())
  }
  return { chainId, vault, tokens: tokens.map(({ asset, address, decimals }) => ({ asset, address, decimals })) }
}

export function declareChain(state: State, cmd: DeclareChain): Result {
  if (rulesOf(state) < CHAIN_DECLARED_RULES) return reject('COMMAND_UNKNOWN')
  if (state.chain !== null) return reject('ALREADY_EXISTS')
  const declared = declarationOf(state, cmd)
  if (declared === null) return reject('COMMAND_INVALID')
  state.chain = declared
  return accept([])
}

/** Whether two declarations name the same chain, Vault and tokens (addresses in any case). */
export function sameChain(a: ChainDeclaration, b: ChainDeclaration): boolean {
  const key = (d: ChainDeclaration): string => [d.chainId, d.vault.toLowerCase(),
    ...[...d.tokens].sort((x, y) => (x.asset < y.asset ? -1 : 1)).map((t) => `${t.asset}:${t.address.toLowerCase()}:${t.decimals}`)].join('|')
  return key(a) === key(b)
}
