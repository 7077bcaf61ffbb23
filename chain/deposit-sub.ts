// Which sub-account a Vault deposit credits. The Vault refuses a sub-account the ledger cannot
// hold (0 to LIMITS.subAccountsMax - 1), but a Vault deployed before it did takes any uint32;
// the watcher credits such a deposit to the depositor's own master account (sub-account 0)
// rather than leave the tokens in the Vault owned by no one, and the audit expects it there.

import { LIMITS } from '../core/limits.js'

/** The sub-account a deposit the Vault recorded for `sub` is credited to. */
export function creditedSub(sub: number): number {
  return sub < LIMITS.subAccountsMax ? sub : 0
}

/** True when the Vault recorded a deposit for a sub-account the ledger cannot hold. */
export function beyondSubAccounts(sub: number): boolean {
  return sub !== creditedSub(sub)
}
