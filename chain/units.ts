// Token units ⇄ ledger units (bigint): a token with `decimals` and an asset whose ledger keeps
// `scale` decimals. A deposit finer than the ledger is credited rounded down, as exchanges round
// deposits to the precision they keep (Binance credits ETH to 8 decimals): the remainder, less
// than one ledger unit, stays in the Vault owned by no account, so the Vault still holds at
// least what the ledger owes. A withdrawal is never rounded: a ledger amount the token cannot
// carry is refused.

import { LIMITS } from '../core/limits.js'

/**
 * Ledger units for `tokenUnits`, rounded down; undefined when that is nothing (less than one
 * ledger unit) or beyond the ledger's maximum.
 */
export function toLedger(tokenUnits: bigint, decimals: number, scale: number): number | undefined {
  const units = decimals >= scale ? tokenUnits / 10n ** BigInt(decimals - scale) : tokenUnits * 10n ** BigInt(scale - decimals)
  if (units <= 0n || units > BigInt(LIMITS.ledgerAmountMax)) return undefined
  return Number(units)
}

/** Token units covering `ledgerUnits`, rounded up: what the Vault must hold for a debt of that many. */
export function tokenUnitsCovering(ledgerUnits: bigint, decimals: number, scale: number): bigint {
  if (decimals >= scale) return ledgerUnits * 10n ** BigInt(decimals - scale)
  const f = 10n ** BigInt(scale - decimals)
  return (ledgerUnits + f - 1n) / f
}

/** Token units for `ledgerUnits`, or undefined when the token cannot carry that precision. */
export function toTokenUnits(ledgerUnits: number, decimals: number, scale: number): bigint | undefined {
  const n = BigInt(ledgerUnits)
  if (decimals >= scale) return n * 10n ** BigInt(decimals - scale)
  const f = 10n ** BigInt(scale - decimals)
  return n % f === 0n ? n / f : undefined
}
