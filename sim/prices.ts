// Price moves for the simulator: an oracle registered at genesis signs a random walk per pair,
// drawn from the seed, so runs exercise the mark price, premium sampling, conditional
// triggers and a funding settlement (the cluster's clock starts shortly before a funding
// boundary). Now and then a pair jumps several per cent at once — more than a highly
// leveraged position's margin — so accounts are liquidated, and when the book cannot take a
// liquidation at its bankruptcy price and the insurance fund is short, positions are
// auto-deleveraged.

import { Wallet } from 'ethers'
import type { Command } from '../core/commands.js'
import { signOraclePriceNow } from '../replica/oracle-signature.js'
import type { PriceMoves } from './cluster.js'
import type { Rng } from './random.js'

/** A fixed key: the simulator's oracle (deterministic, never a secret). */
export const SIM_ORACLE = new Wallet('0x' + '5a'.repeat(32))

/** Starting index prices (E8) per pair: the workload's mids (sim/model/commands.ts PROFILES). */
const START_E8: Record<string, number> = { BTCUSDT: 30_000 * 1e8, ETHUSDT: 2_000 * 1e8 }
/** A step moves at most STEP_MAX × 1e-4 of the price; the walk stays within BAND of its start. */
const STEP_MAX = 20
const BAND = 0.3
/**
 * A jump moves 4–15 % either way. Each pair jumps with JUMP_CHANCE per step, and surely at the
 * FORCED steps, each forced jump against the pair's last one, so longs and shorts both suffer.
 */
const JUMP_MIN = 400
const JUMP_MAX = 1_500
const JUMP_CHANCE = 0.1
const FORCED = [4, 8]

export function oracleGenesis(): Command[] {
  return Object.keys(START_E8).map((pair) => ({ type: 'SetOracle', pair, oracle: SIM_ORACLE.address }) as Command)
}

export function oracleWalk(): PriceMoves {
  const prices = new Map(Object.entries(START_E8))
  const lastJump = new Map<string, number>()
  let steps = 0
  return ({ wallMs, rng }: { wallMs: number; rng: Rng }): Command[] => {
    const out: Command[] = []
    steps++
    for (const [pair, price] of prices) {
      const start = START_E8[pair]!
      let moveE4 = (rng.u32() % (2 * STEP_MAX + 1)) - STEP_MAX
      const forced = FORCED.includes(steps)
      if (rng.chance(JUMP_CHANCE) || forced) {
        const size = JUMP_MIN + rng.below(JUMP_MAX - JUMP_MIN + 1)
        const up = forced && lastJump.has(pair) ? lastJump.get(pair)! < 0 : rng.chance(0.5)
        moveE4 = up ? size : -size
        lastJump.set(pair, moveE4)
      }
      const next = Math.min(Math.floor(start * (1 + BAND)), Math.max(Math.ceil(start * (1 - BAND)), price + Math.floor(price * moveE4 / 10_000)))
      prices.set(pair, next)
      out.push(signOraclePriceNow(SIM_ORACLE, { pair, priceE8: next, time: wallMs }))
    }
    return out
  }
}
