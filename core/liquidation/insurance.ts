// The insurance fund, one balance per quote asset (State.insurance, in the root): liquidation
// clearance fees flow in, and it covers what a liquidated account or isolated position owes
// beyond its margin. Every change moves money between the fund and one wallet, so the ledger
// total never changes, and every change is an `insurance` event.

import type { Event, InsuranceEvent } from '../events.js'
import type { PositionSide } from '../commands.js'
import type { State } from '../state.js'

export function insuranceBalance(state: State, asset: string): number {
  return state.insurance.get(asset) ?? 0
}

export interface FundMove {
  asset: string
  /** Signed change of the fund. */
  amount: number
  reason: InsuranceEvent['reason']
  account: string
  sub: number
  marketId: number
  positionSide: PositionSide
}

/** Applies a change to the fund (the caller moves the opposite amount in a wallet) and reports it. */
export function moveFund(state: State, move: FundMove, wallet: number, isolatedWallet: number | undefined, time: number,
  events: Event[]): void {
  const balance = insuranceBalance(state, move.asset) + move.amount
  state.insurance.set(move.asset, balance)
  events.push({ type: 'insurance', ...move, balance, wallet, ...(isolatedWallet !== undefined ? { isolatedWallet } : {}), time })
}
