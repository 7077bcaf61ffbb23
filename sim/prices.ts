// Price moves for the simulator: an oracle registered at genesis signs a bounded random walk
// per pair, drawn from the seed, so runs exercise the mark price, premium sampling and a
// funding settlement (the cluster's clock starts shortly before a funding boundary).

import { Wallet } from 'ethers'
import type { Command } from '../core/commands.js'
import { signOraclePriceNow } from '../replica/oracle-signature.js'
import type { PriceMoves } from './cluster.js'
import type { Rng } from './random.js'

/** A fixed key: the simulator's oracle (deterministic, never a secret). */
export const SIM_ORACLE = new Wallet('0x' + '5a'.repeat(32))

/** Starting index prices (E8) per pair, near the workload's books. */
const START_E8: Record<string, number> = { BTCUSDT: 50_000 * 1e8, ETHUSDT: 3_000 * 1e8 }
/** Each move is at most this fraction of the price (1e-4 units), and the walk stays within BAND of its start. */
const STEP_MAX = 20
const BAND = 0.05

export function oracleGenesis(): Command[] {
  return Object.keys(START_E8).map((pair) => ({ type: 'SetOracle', pair, oracle: SIM_ORACLE.address }) as Command)
}

export function oracleWalk(): PriceMoves {
  const prices = new Map(Object.entries(START_E8))
  return ({ wallMs, rng }: { wallMs: number; rng: Rng }): Command[] => {
    const out: Command[] = []
    for (const [pair, price] of prices) {
      const start = START_E8[pair]!
      const step = Math.floor(price * (((rng.u32() % (2 * STEP_MAX + 1)) - STEP_MAX) / 10_000))
      const next = Math.min(Math.floor(start * (1 + BAND)), Math.max(Math.ceil(start * (1 - BAND)), price + step))
      prices.set(pair, next)
      out.push(signOraclePriceNow(SIM_ORACLE, { pair, priceE8: next, time: wallMs }))
    }
    return out
  }
}
