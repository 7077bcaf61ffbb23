// Wallet read models: deposits, spot ⇄ perp transfers, transfers between sub-accounts and
// withdrawals (one record per withdrawal, rewritten as it moves PROCESSING → COMPLETED |
// FAILED), plus the TRANSFER income rows that money entering or leaving the perp wallet causes.

import type { DepositEvent, DepositPendingEvent, SubTransferEvent, TransferEvent, WithdrawalEvent } from '../../core/events.js'
import type { PendingBatch } from './batch.js'
import { putIncome } from './account-writer.js'
import { depositCodec, pendingDepositCodec, subTransferCodec, transferCodec, withdrawalCodec, withdrawalLocatorCodec } from './codec.js'
import { ownerTimeKey, pendingDepositKey, withdrawalIdKey, type Stores } from './stores.js'

/**
 * A deposit not yet deep enough: one row per ref, rewritten by each note, deleted by the
 * credit, or by a note of 0 confirmations (its block left the chain).
 */
export function onDepositPending(stores: Stores, batch: PendingBatch, e: DepositPendingEvent): void {
  if (e.confirmations === 0) return batch.del(stores.pendingDeposits, pendingDepositKey(e, e.ref))
  batch.put(stores.pendingDeposits, pendingDepositKey(e, e.ref), pendingDepositCodec.encode({
    asset: e.asset, amount: e.amount, txId: e.ref, address: e.account, confirmations: e.confirmations,
    required: e.required, time: e.time,
  }))
}

export function onDeposit(stores: Stores, batch: PendingBatch, e: DepositEvent, id: number): void {
  // The core refuses a note after the credit, so deleting here leaves no pending row behind.
  batch.del(stores.pendingDeposits, pendingDepositKey(e, e.ref))
  batch.put(stores.deposits, ownerTimeKey(e, e.time, id), depositCodec.encode({
    id, asset: e.asset, amount: e.amount, wallet: e.wallet, txId: e.ref, status: 'SUCCESS', address: e.account,
    time: e.time,
  }))
  // Money straight into the perp wallet is income there, as a transfer in would be.
  if (e.wallet === 'PERP') {
    putIncome(stores, batch, e, {
      tranId: id, incomeType: 'TRANSFER', marketId: null, income: e.amount, asset: e.asset, info: 'DEPOSIT',
      time: e.time, tradeId: null,
    })
  }
}

export function onTransfer(stores: Stores, batch: PendingBatch, e: TransferEvent, tranId: number): void {
  batch.put(stores.transfers, ownerTimeKey(e, e.time, tranId), transferCodec.encode({
    tranId, direction: e.direction, asset: e.asset, amount: e.amount, spotBalance: e.spotBalance,
    perpBalance: e.perpBalance, time: e.time,
  }))
  putIncome(stores, batch, e, {
    tranId, incomeType: 'TRANSFER', marketId: null, income: e.direction === 'SPOT_TO_PERP' ? e.amount : -e.amount,
    asset: e.asset, info: e.direction, time: e.time, tradeId: null,
  })
}

/**
 * A move between two sub-accounts: its row under each of them (a sub-account's history, and
 * the master's view of every sub-account's), and the TRANSFER income of each perp wallet it moved.
 */
export function onSubTransfer(stores: Stores, batch: PendingBatch, e: SubTransferEvent, tranId: number): void {
  const row = subTransferCodec.encode({
    tranId, fromSub: e.fromSub, toSub: e.toSub, fromWallet: e.fromWallet, toWallet: e.toWallet, asset: e.asset,
    amount: e.amount, clientTranId: e.clientTranId, time: e.time,
  })
  const from = { account: e.account, sub: e.fromSub }
  const to = { account: e.account, sub: e.toSub }
  batch.put(stores.subTransfers, ownerTimeKey(from, e.time, tranId), row)
  batch.put(stores.subTransfers, ownerTimeKey(to, e.time, tranId), row)
  const income = (owner: typeof from, amount: number, info: string): void => putIncome(stores, batch, owner, {
    tranId, incomeType: 'TRANSFER', marketId: null, income: amount, asset: e.asset, info, time: e.time, tradeId: null,
  })
  if (e.fromWallet === 'PERP') income(from, -e.amount, `TO_SUB_ACCOUNT_${e.toSub}`)
  if (e.toWallet === 'PERP') income(to, e.amount, `FROM_SUB_ACCOUNT_${e.fromSub}`)
}

export function onWithdrawal(stores: Stores, batch: PendingBatch, e: WithdrawalEvent): void {
  // Keyed by the request time, which every status event repeats, so an update overwrites in place.
  batch.put(stores.withdrawals, ownerTimeKey(e, e.applyTime, e.withdrawalId), withdrawalCodec.encode({
    withdrawalId: e.withdrawalId, asset: e.asset, amount: e.amount, address: e.address,
    withdrawOrderId: e.withdrawOrderId, status: e.status, txId: e.txId, reason: e.reason,
    applyTime: e.applyTime, updateTime: e.time,
  }))
  if (e.status === 'PROCESSING') {
    batch.put(stores.withdrawalIds, withdrawalIdKey(e.withdrawalId),
      withdrawalLocatorCodec.encode({ account: e.account, sub: e.sub, applyTime: e.applyTime }))
  }
}
