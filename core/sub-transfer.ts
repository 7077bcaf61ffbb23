// Sub-accounts of one account: money between two of them (rules 3), a bot's sub-account funded
// from the master's wallet and swept back without a withdrawal and a deposit on chain (the
// account's total does not change, so neither do the exchange's totals the audit checks against
// the Vault), and a new one made for the master (rules 4).

import { ensureSub, findSub, spotBalance, validIssuer, validSub } from './accounts.js'
import type { CreateSubAccount, SubAccountTransfer, WalletKind } from './commands.js'
import type { Result } from './events.js'
import { LIMITS } from './limits.js'
import { maxWithdrawable } from './margin.js'
import { accept, reject } from './results.js'
import { rulesOf, SUB_ACCOUNT_CREATION, SUB_ACCOUNT_TRANSFERS } from './rules.js'
import type { State, SubAccount } from './state.js'
import { changeBalance, marginAsset, validAmount, walletBalance } from './wallet.js'

const validWallet = (w: unknown): w is WalletKind => w === 'SPOT' || w === 'PERP'

/** What `wallet` of `sub` holds of `asset` that may leave: a spot balance's free part, or what a withdrawal could take from the perp wallet. */
function movable(state: State, sub: SubAccount, wallet: WalletKind, asset: string): number {
  return wallet === 'SPOT' ? spotBalance(sub, asset).free : maxWithdrawable(state, sub)
}

export function subAccountTransfer(state: State, cmd: SubAccountTransfer, time: number): Result {
  // Older builds knew no such command: under older rules it stays unknown.
  if (rulesOf(state) < SUB_ACCOUNT_TRANSFERS) return reject('COMMAND_UNKNOWN')
  if (!validIssuer(cmd) || !validSub(cmd.fromSub) || !validSub(cmd.toSub)) return reject('ACCOUNT_INVALID')
  // Only the source itself or the account's master (sub-account 0) moves the source's money.
  if (cmd.sub !== 0 && cmd.sub !== cmd.fromSub) return reject('ACCOUNT_INVALID')
  if (cmd.fromSub === cmd.toSub || !validWallet(cmd.fromWallet) || !validWallet(cmd.toWallet)) return reject('COMMAND_INVALID')
  const ref = cmd.clientTranId ?? ''
  if (typeof ref !== 'string' || ref.length > LIMITS.withdrawRefLengthMax) return reject('COMMAND_INVALID')
  if (typeof cmd.asset !== 'string' || !state.assets.has(cmd.asset)) return reject('ASSET_UNKNOWN')
  const margin = marginAsset(state)
  if ((cmd.fromWallet === 'PERP' || cmd.toWallet === 'PERP') && cmd.asset !== margin) return reject('ASSET_UNKNOWN')
  if (!validAmount(cmd.amount)) return reject('AMOUNT_INVALID')
  const from = findSub(state, { account: cmd.account, sub: cmd.fromSub })
  if (from === undefined || movable(state, from, cmd.fromWallet, cmd.asset) < cmd.amount) return reject('BALANCE_INSUFFICIENT')
  const toIssuer = { account: cmd.account, sub: cmd.toSub }
  if (walletBalance(findSub(state, toIssuer), cmd.toWallet, cmd.asset) + cmd.amount > LIMITS.ledgerAmountMax) return reject('OVERFLOW')

  const to = ensureSub(state, toIssuer)
  return accept([
    { type: 'subTransfer', account: from.address, fromSub: from.sub, toSub: to.sub, fromWallet: cmd.fromWallet,
      toWallet: cmd.toWallet, asset: cmd.asset, amount: cmd.amount, clientTranId: ref, time },
    changeBalance(from, cmd.fromWallet, cmd.asset, -cmd.amount, 'TRANSFER', time),
    changeBalance(to, cmd.toWallet, cmd.asset, cmd.amount, 'TRANSFER', time),
  ])
}

/**
 * A new, empty sub-account for the account's master: the lowest number in 1 … subAccountsMax − 1
 * that no sub-account of the account holds (a sub-account exists from its first use: money,
 * a session, a setting), so two masters' requests in a row get two numbers.
 */
export function createSubAccount(state: State, cmd: CreateSubAccount, time: number): Result {
  if (rulesOf(state) < SUB_ACCOUNT_CREATION) return reject('COMMAND_UNKNOWN')
  if (!validIssuer(cmd) || cmd.sub !== 0) return reject('ACCOUNT_INVALID')
  const subs = state.accounts.get(cmd.account)?.subs ?? []
  let n = 1
  while (n < LIMITS.subAccountsMax && subs[n] !== undefined) n++
  if (n === LIMITS.subAccountsMax) return reject('LIMIT_REACHED')
  ensureSub(state, { account: cmd.account, sub: n })
  return accept([{ type: 'subAccountCreated', account: cmd.account, sub: n, time }])
}
