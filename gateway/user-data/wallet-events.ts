// The chain steps' records on both user data streams: each deposit and withdrawal record, as
// its history row prints it, whenever it changes: `depositUpdate` (status 0 pending with
// confirmTimes "seen/required", 1 credited) and `withdrawUpdate` (status 4 processing, 6
// completed with txId, 5 refunded with info). The money they move is the spot wallet's, so
// its `balanceUpdate` is on the spot stream only (spot-events.ts): clients add a
// balanceUpdate's delta to the balance of the stream's own account.

import type { Event } from '../../core/events.js'
import type { State } from '../../core/state.js'
import { formatLedger, trimZeros } from '../decimal.js'

const WITHDRAW_STATUS = { PROCESSING: 4, COMPLETED: 6, FAILED: 5 } as const

export interface WalletStep {
  account: string
  sub: number
  payload: Record<string, unknown>
}

/** The stream event one core event makes for its owner, if it is a deposit's or withdrawal's record. */
export function walletStep(state: State, time: number, e: Event): WalletStep | undefined {
  const scale = (asset: string): number => state.assets.get(asset)?.scale ?? 0
  const amount = (asset: string, units: number): string => trimZeros(formatLedger(units, scale(asset)))
  switch (e.type) {
    case 'depositPending':
      // A note of 0 confirmations withdraws a deposit whose block left the chain: nothing to tell.
      if (e.confirmations === 0) return undefined
      return { account: e.account, sub: e.sub, payload: { e: 'depositUpdate', E: time, T: time,
        coin: e.asset, amount: amount(e.asset, e.amount), network: 'ETH', status: 0, address: e.account, txId: e.ref,
        confirmTimes: `${e.confirmations}/${e.required}` } }
    case 'deposit':
      return { account: e.account, sub: e.sub, payload: { e: 'depositUpdate', E: time, T: time,
        coin: e.asset, amount: amount(e.asset, e.amount), network: 'ETH', status: 1, address: e.account, txId: e.ref,
        confirmTimes: '1/1' } }
    case 'withdrawal':
      return { account: e.account, sub: e.sub, payload: { e: 'withdrawUpdate', E: time, T: time,
        id: String(e.withdrawalId), coin: e.asset, amount: amount(e.asset, e.amount), network: 'ETH',
        status: WITHDRAW_STATUS[e.status], address: e.address, txId: e.txId, info: e.reason,
        withdrawOrderId: e.withdrawOrderId } }
    default:
      return undefined
  }
}
