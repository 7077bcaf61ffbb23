// Queries of the wallet read models: deposits, withdrawals and transfers of a sub-account.
// Wallet history takes the spec's defaults (endTime now, startTime 90 days before endTime)
// and its 90-day maximum, which the gateway refuses first and the projections assert.

import { assert } from '../../core/assert.js'
import { depositCodec, pendingDepositCodec, subTransferCodec, transferCodec, withdrawalCodec, withdrawalLocatorCodec } from './codec.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { DepositRecord, Owner, PendingDepositRecord, SubTransferRecord, TransferRecord, WithdrawalRecord } from './records.js'
import { ownerPrefix, ownerTimeKey, withdrawalIdKey, type Store, type Stores } from './stores.js'
import { checkLimit, fromBounds, scan, timeRangeBounds, type TimeRange } from './time-range.js'

export interface WalletQuery extends TimeRange {
  /** Asset filter (the spec's coin). */
  coin?: string | undefined
  limit: number
  /** The newest `limit` rows of the range rather than the oldest (the time-range rule without startTime). */
  newest?: boolean
}

/** The range wallet history reads: absent ends take the spec's defaults from `nowMs`. */
export function walletRange(q: TimeRange, nowMs: number): TimeRange {
  const endTime = q.endTime ?? nowMs
  const startTime = q.startTime ?? Math.max(0, endTime - PROJECTION_LIMITS.walletRangeMs)
  assert(endTime - startTime <= PROJECTION_LIMITS.walletRangeMs, 'wallet history range over 90 days')
  return { startTime, endTime }
}

/** A sub-account's rows of the range, oldest first: the oldest `limit`, or with `newest` the newest `limit`. */
async function history<T extends { asset: string }>(store: Store, owner: Owner, q: WalletQuery, nowMs: number,
  decode: (b: Buffer) => T, newest = false): Promise<T[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.walletHistoryMax)
  const bounds = timeRangeBounds(ownerPrefix(owner), walletRange(q, nowMs))
  return scan(store, bounds !== null && newest ? { ...bounds, reverse: true } : bounds, q.limit, (_k, v) => {
    const r = decode(v)
    return q.coin === undefined || r.asset === q.coin ? r : undefined
  })
}

/** The sub-account's deposits seen on chain and not yet credited, by ref (few: they last a few blocks). */
export function pendingDeposits(stores: Stores, owner: Owner, coin: string | undefined): Promise<PendingDepositRecord[]> {
  return scan(stores.pendingDeposits, fromBounds(ownerPrefix(owner), Buffer.alloc(0)), PROJECTION_LIMITS.walletHistoryMax, (_k, v) => {
    const r = pendingDepositCodec.decode(v)
    return coin === undefined || r.asset === coin ? r : undefined
  })
}

export function deposits(stores: Stores, owner: Owner, q: WalletQuery, nowMs: number): Promise<DepositRecord[]> {
  return history(stores.deposits, owner, q, nowMs, depositCodec.decode, q.newest === true)
}

/** Withdrawals by request time, each in its latest status. */
export function withdrawals(stores: Stores, owner: Owner, q: WalletQuery, nowMs: number): Promise<WithdrawalRecord[]> {
  return history(stores.withdrawals, owner, q, nowMs, withdrawalCodec.decode, q.newest === true)
}

export function transfers(stores: Stores, owner: Owner, q: WalletQuery, nowMs: number): Promise<TransferRecord[]> {
  return history(stores.transfers, owner, q, nowMs, transferCodec.decode)
}

/**
 * The sub-account's transfers to and from its account's other sub-accounts: the newest
 * `limit` of the range (the sub-account APIs list newest first), oldest first.
 */
export function subTransfers(stores: Stores, owner: Owner, q: WalletQuery, nowMs: number): Promise<SubTransferRecord[]> {
  return history(stores.subTransfers, owner, q, nowMs, subTransferCodec.decode, true)
}

export async function withdrawal(stores: Stores, withdrawalId: number): Promise<(WithdrawalRecord & Owner) | undefined> {
  const loc = await stores.withdrawalIds.get(withdrawalIdKey(withdrawalId))
  if (loc === undefined) return undefined
  const { account, sub, applyTime } = withdrawalLocatorCodec.decode(loc)
  const v = await stores.withdrawals.get(ownerTimeKey({ account, sub }, applyTime, withdrawalId))
  return v === undefined ? undefined : { ...withdrawalCodec.decode(v), account, sub }
}
