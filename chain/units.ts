// Token units ⇄ ledger units, exactly (bigint): a token with `decimals` and an asset whose
// ledger keeps `scale` decimals. An amount the ledger cannot hold exactly is refused, never
// rounded: rounding would create or destroy money.

import { LIMITS } from '../core/limits.js'

/** Ledger units for `tokenUnits`, or undefined when not exactly representable or too large. */
export function toLedger(tokenUnits: bigint, decimals: number, scale: number): number | undefined {
  let units: bigint
  if (decimals >= scale) {
    const f = 10n ** BigInt(decimals - scale)
    if (tokenUnits % f !== 0n) return undefined
    units = tokenUnits / f
  } else {
    units = tokenUnits * 10n ** BigInt(scale - decimals)
  }
  if (units <= 0n || units > BigInt(LIMITS.ledgerAmountMax)) return undefined
  return Number(units)
}

/** Token units for `ledgerUnits`, or undefined when the token cannot carry that precision. */
export function toTokenUnits(ledgerUnits: number, decimals: number, scale: number): bigint | undefined {
  const n = BigInt(ledgerUnits)
  if (decimals >= scale) return n * 10n ** BigInt(decimals - scale)
  const f = 10n ** BigInt(scale - decimals)
  return n % f === 0n ? n / f : undefined
}
