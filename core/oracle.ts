// Oracle commands: registering a pair's oracle key and applying its signed prices. The
// signature was verified before sequencing (replica/oracle-signature.ts) and stays in the log
// for the audit; here only the shape, the registered signer and the price's freshness count.

import { validAddress } from './accounts.js'
import type { OraclePrice, SetOracle } from './commands.js'
import type { Result } from './events.js'
import { LIMITS } from './limits.js'
import { boundaryAfter, refreshMark } from './prices.js'
import { accept, reject } from './results.js'
import type { PerpMarket, State } from './state.js'

const SIGNATURE = /^0x[0-9a-fA-F]{130}$/

/** The perpetual of a pair (one per pair), or undefined. */
export function perpOfPair(state: State, pair: unknown): PerpMarket | undefined {
  if (typeof pair !== 'string') return undefined
  for (const m of state.markets) if (m !== undefined && m.kind === 'PERP' && m.pair === pair) return m
  return undefined
}

export function setOracle(state: State, cmd: SetOracle, time: number): Result {
  if (!validAddress(cmd.oracle)) return reject('COMMAND_INVALID')
  const m = perpOfPair(state, cmd.pair)
  if (m === undefined) return reject('MARKET_UNKNOWN')
  m.prices.oracle = cmd.oracle.toLowerCase()
  return accept([{ type: 'oracle', pair: m.pair, oracle: m.prices.oracle, time }])
}

export function oraclePrice(state: State, cmd: OraclePrice, time: number): Result {
  if (!Number.isSafeInteger(cmd.priceE8) || cmd.priceE8 <= 0 || cmd.priceE8 > LIMITS.oraclePriceE8Max) return reject('COMMAND_INVALID')
  if (!Number.isSafeInteger(cmd.time) || cmd.time < 0) return reject('COMMAND_INVALID')
  if (!validAddress(cmd.oracle)) return reject('COMMAND_INVALID')
  if (typeof cmd.signature !== 'string' || !SIGNATURE.test(cmd.signature)) return reject('COMMAND_INVALID')
  const m = perpOfPair(state, cmd.pair)
  if (m === undefined) return reject('MARKET_UNKNOWN')
  const p = m.prices
  if (p.oracle === '' || cmd.oracle.toLowerCase() !== p.oracle) return reject('ORACLE_UNKNOWN')
  // Out of order, replayed, too old, or from a clock running ahead.
  if (cmd.time <= p.indexTime || cmd.time < time - LIMITS.oraclePriceMaxAgeMs || cmd.time > time + LIMITS.oraclePriceMaxAheadMs) {
    return reject('ORACLE_STALE')
  }
  p.indexE8 = cmd.priceE8
  p.indexTime = cmd.time
  if (p.nextFundingTime === 0) p.nextFundingTime = boundaryAfter(time, p.fundingIntervalMs)
  refreshMark(m, time)
  return accept([{ type: 'prices', marketId: m.marketId, indexE8: p.indexE8, markPriceTicks: m.markPriceTicks, time }])
}
