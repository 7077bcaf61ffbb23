// Deposits, spot ⇄ perp transfers of the quote asset, and withdrawals (debit on request,
// then complete or refund). Deposits are idempotent by their chain reference.

import { ensureSpotBalance, ensureSub, findSub, spotBalance, validAddress, validIssuer } from './accounts.js'
import type { Code } from './codes.js'
import type { Deposit, DepositPending, FeeWithdrawal, Transfer, WalletKind, WithdrawalComplete, WithdrawalFail, WithdrawalRequest } from './commands.js'
import type { BalanceEvent, BalanceReason, Event, Result, WithdrawalEvent } from './events.js'
import { LIMITS } from './limits.js'
import { maxWithdrawable } from './margin.js'
import { accept, reject } from './results.js'
import { rulesOf, SALTED_LEAVES } from './rules.js'
import { addFee, addToTotal, type State, type SubAccount, type Withdrawal } from './state.js'

/** The account a fee withdrawal is recorded under: the exchange's own, not an address, so no sub-account. */
export const FEES_ACCOUNT = 'fees'

/** The first rules with FeeWithdrawal (older builds answered COMMAND_UNKNOWN). */
export const FEE_WITHDRAWAL_RULES = SALTED_LEAVES

export function validAmount(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 && n <= LIMITS.ledgerAmountMax
}

/** The asset perpetual margin is held in: the quote of the perp markets. */
export function marginAsset(state: State): string | undefined {
  for (const m of state.markets) if (m?.kind === 'PERP') return m.quote
  return undefined
}

/** What a spot balance holds free, or the perp wallet (of the margin asset); 0 for a sub-account not made yet. */
export function walletBalance(sub: SubAccount | undefined, wallet: WalletKind, asset: string): number {
  return wallet === 'PERP' ? (sub?.perpWallet ?? 0) : spotBalance(sub, asset).free
}

/** Changes a wallet's free balance by `delta` and says so as its balance event. */
export function changeBalance(sub: SubAccount, wallet: WalletKind, asset: string, delta: number, reason: BalanceReason,
  time: number): BalanceEvent {
  let free: number
  let locked = 0
  if (wallet === 'PERP') {
    sub.perpWallet += delta
    free = sub.perpWallet
  } else {
    const b = ensureSpotBalance(sub, asset)
    b.free += delta
    free = b.free
    locked = b.locked
  }
  return { type: 'balance', account: sub.address, sub: sub.sub, wallet, asset, free, locked, delta, reason, time }
}

/** What a deposit and its pending note are both refused for: issuer, asset, amount, ref, a ref already credited. */
function depositRefusal(state: State, cmd: Deposit | DepositPending): Code | null {
  if (!validIssuer(cmd)) return 'ACCOUNT_INVALID'
  if (!state.assets.has(cmd.asset)) return 'ASSET_UNKNOWN'
  if (!validAmount(cmd.amount)) return 'AMOUNT_INVALID'
  if (typeof cmd.ref !== 'string' || cmd.ref.length === 0 || cmd.ref.length > LIMITS.depositRefLengthMax) return 'COMMAND_INVALID'
  if (state.depositRefs.has(cmd.ref)) return 'DEPOSIT_DUPLICATE'
  return null
}

export function deposit(state: State, cmd: Deposit, time: number): Result {
  const refused = depositRefusal(state, cmd)
  if (refused !== null) return reject(refused)
  if (cmd.wallet !== 'SPOT' && cmd.wallet !== 'PERP') return reject('COMMAND_INVALID')
  if (cmd.wallet === 'PERP' && cmd.asset !== marginAsset(state)) return reject('ASSET_UNKNOWN')
  if (walletBalance(findSub(state, cmd), cmd.wallet, cmd.asset) + cmd.amount > LIMITS.ledgerAmountMax) return reject('OVERFLOW')

  const sub = ensureSub(state, cmd)
  state.depositRefs.add(cmd.ref)
  addToTotal(state.deposited, cmd.asset, cmd.amount)
  return accept([
    { type: 'deposit', account: sub.address, sub: sub.sub, asset: cmd.asset, amount: cmd.amount,
      wallet: cmd.wallet, ref: cmd.ref, time },
    changeBalance(sub, cmd.wallet, cmd.asset, cmd.amount, 'DEPOSIT', time),
  ])
}

/** The history's pending row for a deposit not yet deep enough; no state changes. */
export function depositPending(state: State, cmd: DepositPending, time: number): Result {
  const refused = depositRefusal(state, cmd)
  if (refused !== null) return reject(refused)
  if (!Number.isInteger(cmd.required) || cmd.required < 1 || cmd.required > LIMITS.depositConfirmationsMax ||
    !Number.isInteger(cmd.confirmations) || cmd.confirmations < 0 || cmd.confirmations >= cmd.required) {
    return reject('COMMAND_INVALID')
  }
  return accept([{ type: 'depositPending', account: cmd.account, sub: cmd.sub, asset: cmd.asset, amount: cmd.amount,
    ref: cmd.ref, confirmations: cmd.confirmations, required: cmd.required, time }])
}

export function transfer(state: State, cmd: Transfer, time: number): Result {
  if (!validIssuer(cmd)) return reject('ACCOUNT_INVALID')
  if (!validAmount(cmd.amount)) return reject('AMOUNT_INVALID')
  if (cmd.direction !== 'SPOT_TO_PERP' && cmd.direction !== 'PERP_TO_SPOT') return reject('COMMAND_INVALID')
  const asset = marginAsset(state)
  if (asset === undefined) return reject('ASSET_UNKNOWN')
  const sub = findSub(state, cmd)
  if (sub === undefined) return reject('BALANCE_INSUFFICIENT')
  const spot = spotBalance(sub, asset)
  const toPerp = cmd.direction === 'SPOT_TO_PERP'
  if (toPerp ? spot.free < cmd.amount : maxWithdrawable(state, sub) < cmd.amount) return reject('BALANCE_INSUFFICIENT')
  if ((toPerp ? sub.perpWallet : spot.free) + cmd.amount > LIMITS.ledgerAmountMax) return reject('OVERFLOW')

  const b = ensureSpotBalance(sub, asset)
  const signed = toPerp ? cmd.amount : -cmd.amount
  b.free -= signed
  sub.perpWallet += signed
  return accept([
    { type: 'transfer', account: sub.address, sub: sub.sub, direction: cmd.direction, asset, amount: cmd.amount,
      spotBalance: b.free, perpBalance: sub.perpWallet, time },
    { type: 'balance', account: sub.address, sub: sub.sub, wallet: 'SPOT', asset, free: b.free, locked: b.locked,
      delta: -signed, reason: 'TRANSFER', time },
    { type: 'balance', account: sub.address, sub: sub.sub, wallet: 'PERP', asset, free: sub.perpWallet, locked: 0,
      delta: signed, reason: 'TRANSFER', time },
  ])
}

function withdrawalEvent(w: Withdrawal, reason: string, time: number): WithdrawalEvent {
  return {
    type: 'withdrawal', withdrawalId: w.withdrawalId, account: w.account, sub: w.sub, asset: w.asset,
    amount: w.amount, address: w.address, withdrawOrderId: w.withdrawOrderId, status: w.status,
    txId: w.txId, reason, applyTime: w.applyTime, time,
  }
}

export function requestWithdrawal(state: State, cmd: WithdrawalRequest, time: number): Result {
  if (!validIssuer(cmd)) return reject('ACCOUNT_INVALID')
  if (!state.assets.has(cmd.asset)) return reject('ASSET_UNKNOWN')
  if (!validAmount(cmd.amount)) return reject('AMOUNT_INVALID')
  if (!validAddress(cmd.address)) return reject('COMMAND_INVALID')
  const woid = cmd.withdrawOrderId ?? ''
  if (typeof woid !== 'string' || woid.length > LIMITS.withdrawRefLengthMax) return reject('COMMAND_INVALID')
  const sub = findSub(state, cmd)
  if (sub === undefined || spotBalance(sub, cmd.asset).free < cmd.amount) return reject('BALANCE_INSUFFICIENT')
  if (sub.pendingWithdrawals >= LIMITS.pendingWithdrawalsPerAccountMax) return reject('LIMIT_REACHED')

  const b = ensureSpotBalance(sub, cmd.asset)
  b.free -= cmd.amount
  sub.pendingWithdrawals += 1
  const w: Withdrawal = {
    withdrawalId: state.nextWithdrawalId++, account: sub.address, sub: sub.sub, asset: cmd.asset,
    amount: cmd.amount, address: cmd.address, withdrawOrderId: woid, status: 'PROCESSING', txId: '', applyTime: time,
  }
  state.withdrawals.set(w.withdrawalId, w)
  const result = accept([
    withdrawalEvent(w, '', time),
    { type: 'balance', account: sub.address, sub: sub.sub, wallet: 'SPOT', asset: cmd.asset, free: b.free,
      locked: b.locked, delta: -cmd.amount, reason: 'WITHDRAW', time },
  ])
  result.withdrawalId = w.withdrawalId
  return result
}

/**
 * The operator's withdrawal of collected fees: debited from them at once, then paid by the
 * withdrawal executor and completed or failed (refunded to the fees) like a user's.
 */
export function requestFeeWithdrawal(state: State, cmd: FeeWithdrawal, time: number): Result {
  if (rulesOf(state) < FEE_WITHDRAWAL_RULES) return reject('COMMAND_UNKNOWN')
  if (!state.assets.has(cmd.asset)) return reject('ASSET_UNKNOWN')
  if (!validAmount(cmd.amount)) return reject('AMOUNT_INVALID')
  if (!validAddress(cmd.address)) return reject('COMMAND_INVALID')
  if ((state.fees.get(cmd.asset) ?? 0) < cmd.amount) return reject('BALANCE_INSUFFICIENT')
  addFee(state.fees, cmd.asset, -cmd.amount)
  const w: Withdrawal = {
    withdrawalId: state.nextWithdrawalId++, account: FEES_ACCOUNT, sub: 0, asset: cmd.asset,
    amount: cmd.amount, address: cmd.address, withdrawOrderId: '', status: 'PROCESSING', txId: '', applyTime: time,
  }
  state.withdrawals.set(w.withdrawalId, w)
  const result = accept([withdrawalEvent(w, '', time)])
  result.withdrawalId = w.withdrawalId
  return result
}

function pendingWithdrawal(state: State, id: number): Withdrawal | undefined {
  const w = state.withdrawals.get(id)
  return w && w.status === 'PROCESSING' ? w : undefined
}

export function completeWithdrawal(state: State, cmd: WithdrawalComplete, time: number): Result {
  const w = pendingWithdrawal(state, cmd.withdrawalId)
  if (w === undefined) return reject('WITHDRAWAL_UNKNOWN')
  if (typeof cmd.txId !== 'string' || cmd.txId.length === 0 || cmd.txId.length > 100) return reject('COMMAND_INVALID')
  w.status = 'COMPLETED'
  w.txId = cmd.txId
  state.withdrawals.delete(w.withdrawalId)
  if (w.account !== FEES_ACCOUNT) ensureSub(state, w).pendingWithdrawals -= 1
  addToTotal(state.withdrawn, w.asset, w.amount)
  return accept([withdrawalEvent(w, '', time)])
}

export function failWithdrawal(state: State, cmd: WithdrawalFail, time: number): Result {
  const w = pendingWithdrawal(state, cmd.withdrawalId)
  if (w === undefined) return reject('WITHDRAWAL_UNKNOWN')
  if (w.account === FEES_ACCOUNT) {
    // Back to the fees it came from.
    w.status = 'FAILED'
    state.withdrawals.delete(w.withdrawalId)
    addFee(state.fees, w.asset, w.amount)
    return accept([withdrawalEvent(w, String(cmd.reason ?? '').slice(0, 200), time)])
  }
  const sub = ensureSub(state, w)
  const b = ensureSpotBalance(sub, w.asset)
  if (b.free + w.amount > LIMITS.ledgerAmountMax) return reject('OVERFLOW')
  w.status = 'FAILED'
  state.withdrawals.delete(w.withdrawalId)
  sub.pendingWithdrawals -= 1
  b.free += w.amount
  const events: Event[] = [
    withdrawalEvent(w, String(cmd.reason ?? '').slice(0, 200), time),
    { type: 'balance', account: sub.address, sub: sub.sub, wallet: 'SPOT', asset: w.asset, free: b.free,
      locked: b.locked, delta: w.amount, reason: 'WITHDRAW_REJECT', time },
  ]
  return accept(events)
}
