// An oracle for core and gateway tests: a fixed key registered for the default perpetuals,
// and prices signed with it at the exchange's next entry time.

import { Wallet } from 'ethers'
import type { OraclePrice } from '../../core/commands.js'
import type { Result } from '../../core/events.js'
import { signOraclePrice } from '../../replica/oracle-signature.js'
import type { TestExchange } from './exchange.js'

export const ORACLE_KEY = '0x' + '0123456789abcdef'.repeat(4)
export const ORACLE = new Wallet(ORACLE_KEY)
/** A key nobody registered. */
export const STRANGER = new Wallet('0x' + 'fedcba9876543210'.repeat(4))

/** E8 units (1e-8 of the quote) of a decimal price given as a string, exactly. */
export function e8(price: string): number {
  const [whole = '0', frac = ''] = price.split('.')
  return Number(whole) * 1e8 + Number((frac + '00000000').slice(0, 8))
}

export function registerOracle(ex: TestExchange, pairs = ['BTCUSDT', 'ETHUSDT']): void {
  for (const pair of pairs) ex.ok({ type: 'SetOracle', pair, oracle: ORACLE.address })
}

/** A signed price for `pair` stamped at the exchange's next entry time (dtMs ahead). */
export function signedPrice(ex: TestExchange, price: string, dtMs = 1, pair = 'BTCUSDT', wallet = ORACLE): Promise<OraclePrice> {
  return signOraclePrice(wallet, { pair, priceE8: e8(price), time: ex.time + dtMs })
}

/** Signs and applies a price `dtMs` after the previous entry. */
export async function publish(ex: TestExchange, price: string, dtMs = 1, pair = 'BTCUSDT'): Promise<Result> {
  return ex.run(await signedPrice(ex, price, dtMs, pair), dtMs)
}
