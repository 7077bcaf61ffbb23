// The EIP-712 message an oracle signs for an OraclePrice command. The sequencer's ingress and
// the price feed verify it before a price is sequenced; the log keeps the signature, so the
// audit (bin/audit.ts) re-verifies every OraclePrice with `verifyOraclePrice`.

import { TypedDataEncoder, type BaseWallet, type TypedDataDomain, type TypedDataField } from 'ethers'
import type { OraclePrice } from '../core/commands.js'
import { typedDataSigner } from './typed-data-signer.js'

/** No chainId: an oracle's prices are about the world, not one deployment's chain. */
export const ORACLE_DOMAIN: TypedDataDomain = { name: 'PerpExchangeOracle', version: '1' }

export const ORACLE_TYPES: Record<string, TypedDataField[]> = {
  OraclePrice: [
    { name: 'pair', type: 'string' },
    { name: 'priceE8', type: 'uint256' },
    { name: 'time', type: 'uint64' },
  ],
}

export type UnsignedOraclePrice = Pick<OraclePrice, 'pair' | 'priceE8' | 'time'>

function message(p: UnsignedOraclePrice): Record<string, unknown> {
  return { pair: p.pair, priceE8: p.priceE8, time: p.time }
}

/** Signs a price with the oracle's key: the command to submit (synchronously: the simulator signs inside its event loop). */
export function signOraclePriceNow(wallet: BaseWallet, p: UnsignedOraclePrice): OraclePrice {
  const signature = wallet.signingKey.sign(TypedDataEncoder.hash(ORACLE_DOMAIN, ORACLE_TYPES, message(p))).serialized
  return { type: 'OraclePrice', pair: p.pair, priceE8: p.priceE8, time: p.time, oracle: wallet.address, signature }
}

/** Signs a price with the oracle's key: the command to submit. */
export async function signOraclePrice(wallet: BaseWallet, p: UnsignedOraclePrice): Promise<OraclePrice> {
  return signOraclePriceNow(wallet, p)
}

/**
 * True when `signature` is the `oracle` field's signature over {pair, priceE8, time}. Any
 * malformed field gives false, never a throw. It does not check that the oracle is the
 * registered one: that is the core's part, against its state.
 */
export function verifyOraclePrice(cmd: OraclePrice): boolean {
  try {
    if (typeof cmd.pair !== 'string' || !Number.isSafeInteger(cmd.priceE8) || cmd.priceE8 <= 0) return false
    if (!Number.isSafeInteger(cmd.time) || cmd.time < 0) return false
    if (typeof cmd.oracle !== 'string' || typeof cmd.signature !== 'string') return false
    return typedDataSigner(ORACLE_DOMAIN, ORACLE_TYPES, message(cmd), cmd.signature).toLowerCase() === cmd.oracle.toLowerCase()
  } catch {
    return false
  }
}
