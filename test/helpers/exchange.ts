// A small driver for core tests: applies commands with increasing seq and time to a state
// built from the default genesis, and names the figures tests keep needing.

import { apply } from '../../core/apply.js'
import type { Command } from '../../core/commands.js'
import type { Accepted, Result } from '../../core/events.js'
import { DEFAULT_GENESIS, genesisCommands, type GenesisSpec } from '../../core/genesis-spec.js'
import { createState, positionOf, type PerpHolding, type Position, type State, type SubAccount } from '../../core/state.js'

export const ALICE = '0x' + 'a'.repeat(40)
export const BOB = '0x' + 'b'.repeat(40)
export const CAROL = '0x' + 'c'.repeat(40)
export const DAVE = '0x' + 'd'.repeat(40)

/** Market ids of the default genesis. */
export const BTCPERP = 1
export const ETHPERP = 2
export const BTCSPOT = 3
export const ETHSPOT = 4

/** Ledger units per USDT (scale 6) and per BTC/ETH (scale 8). */
export const USDT = 1_000_000
export const COIN = 100_000_000

/** BTCUSDTPERP: tick 0.1, step 0.001, so price × 10 = ticks and qty × 1000 = lots. */
export const btcTicks = (price: number): number => Math.round(price * 10)
export const btcLots = (qty: number): number => Math.round(qty * 1000)

export const T0 = 1_700_000_000_000

/**
 * The default genesis without the price band (core/price-band.ts), for hand-computed
 * scenarios that move the mark by trades far beyond it in one step (a liquidation in one move).
 */
export const NO_BAND_GENESIS: GenesisSpec = {
  ...DEFAULT_GENESIS,
  perpMarkets: DEFAULT_GENESIS.perpMarkets.map((p) => ({ ...p, percentPrice: '0', marketTakeBound: '0' })),
}

export class TestExchange {
  readonly state: State = createState()
  time = T0

  constructor(spec: GenesisSpec = DEFAULT_GENESIS) {
    for (const c of genesisCommands(spec)) this.ok(c)
  }

  /** Applies a command `dtMs` after the previous one. */
  run(command: Command, dtMs = 1): Result {
    this.time += dtMs
    return apply(this.state, { seq: this.state.seq + 1, time: this.time, command })
  }

  ok(command: Command, dtMs = 1): Accepted {
    const r = this.run(command, dtMs)
    if (!r.ok) throw new Error(`${command.type} rejected: ${r.code}`)
    return r
  }

  /** Credits the perp wallet (and optionally spot) of an account with USDT. */
  fund(account: string, usdt: number, sub = 0, wallet: 'PERP' | 'SPOT' = 'PERP'): void {
    this.ok({ type: 'Deposit', account, sub, asset: 'USDT', amount: usdt * USDT, wallet, ref: `fund-${this.state.seq}` })
  }

  deposit(account: string, asset: string, amount: number, sub = 0): void {
    this.ok({ type: 'Deposit', account, sub, asset, amount, wallet: 'SPOT', ref: `dep-${this.state.seq}` })
  }

  sub(account: string, sub = 0): SubAccount {
    const s = this.state.accounts.get(account)?.subs[sub]
    if (!s) throw new Error(`no sub-account ${account}/${sub}`)
    return s
  }

  holding(account: string, marketId = BTCPERP, sub = 0): PerpHolding {
    const h = this.sub(account, sub).perp.get(marketId)
    if (!h) throw new Error(`no holding in market ${marketId}`)
    return h
  }

  position(account: string, marketId = BTCPERP, side: 'BOTH' | 'LONG' | 'SHORT' = 'BOTH', sub = 0): Position {
    return positionOf(this.holding(account, marketId, sub), side)
  }
}
