// The state machine's one entry point: apply a sequenced entry to the state. Synchronous,
// total and deterministic; a rejection is a result, an exception a broken invariant.

import { lead } from './term.js'
import { assert } from './assert.js'
import { declareChain } from './chain-declaration.js'
import type { Entry } from './commands.js'
import { fireCountdowns, setCountdown } from './countdown.js'
import type { Event, Result } from './events.js'
import { createAsset, createPerpMarket, createSpotMarket, setMarketStatus } from './genesis.js'
import { cancelAll, cancelOrder, expireGoodTillDate, placeOrder } from './orders.js'
import { adjustPositionMargin, changeMarginType } from './isolated.js'
import { modifyOrder } from './modify.js'
import { amendKeepPriority } from './amend-quantity.js'
import { cancelOrderList, placeOrderList } from './order-lists.js'
import { placeOtoList } from './oto-lists.js'
import { oraclePrice, setOracle } from './oracle.js'
import { changeLeverage, changePositionMode } from './positions.js'
import { pricesAfterCommand, pricesOnTick } from './price-tick.js'
import { trimClosingOrders } from './reduce-only.js'
import { accept, reject } from './results.js'
import { setRules } from './rules.js'
import { createSubAccount, subAccountTransfer } from './sub-transfer.js'
import { createSession, listenKey, registerRsaKey, revokeSession } from './sessions.js'
import type { State } from './state.js'
import { completeWithdrawal, deposit, depositPending, failWithdrawal, requestFeeWithdrawal, requestWithdrawal, transfer } from './wallet.js'

export function apply(state: State, entry: Entry): Result {
  // Messages are built only on failure: this runs for every command.
  if (entry.seq !== state.seq + 1) assert(false, `entry seq ${entry.seq} after ${state.seq}`)
  if (!(entry.time >= state.time) || !Number.isSafeInteger(entry.time)) assert(false, `entry time ${entry.time} before ${state.time}`)
  state.seq = entry.seq
  state.time = entry.time
  const result = dispatch(state, entry)
  pricesAfterCommand(state, entry.command, result, entry.time)
  trimClosingOrders(state, result, entry.time)
  return result
}

function dispatch(state: State, entry: Entry): Result {
  const c = entry.command
  const time = entry.time
  if (c === null || typeof c !== 'object') return reject('COMMAND_INVALID')
  switch (c.type) {
    case 'PlaceOrder': return placeOrder(state, c, time)
    case 'CancelOrder': return cancelOrder(state, c, time)
    case 'CancelAll': return cancelAll(state, c, time)
    case 'CountdownCancelAll': return setCountdown(state, c, time)
    case 'ModifyOrder': return modifyOrder(state, c, time)
    case 'AmendKeepPriority': return amendKeepPriority(state, c, time)
    case 'PlaceOrderList': return placeOrderList(state, c, time)
    case 'PlaceOtoList': return placeOtoList(state, c, time)
    case 'CancelOrderList': return cancelOrderList(state, c, time)
    case 'Tick': return tick(state, time)
    case 'Deposit': return deposit(state, c, time)
    case 'DepositPending': return depositPending(state, c, time)
    case 'Transfer': return transfer(state, c, time)
    case 'SubAccountTransfer': return subAccountTransfer(state, c, time)
    case 'CreateSubAccount': return createSubAccount(state, c, time)
    case 'WithdrawalRequest': return requestWithdrawal(state, c, time)
    case 'FeeWithdrawal': return requestFeeWithdrawal(state, c, time)
    case 'WithdrawalComplete': return completeWithdrawal(state, c, time)
    case 'WithdrawalFail': return failWithdrawal(state, c, time)
    case 'ChangeLeverage': return changeLeverage(state, c, time)
    case 'ChangePositionMode': return changePositionMode(state, c, time)
    case 'ChangeMarginType': return changeMarginType(state, c, time)
    case 'AdjustPositionMargin': return adjustPositionMargin(state, c, time)
    case 'CreateSession': return createSession(state, c, time)
    case 'RevokeSession': return revokeSession(state, c, time)
    case 'RegisterRsaKey': return registerRsaKey(state, c, time)
    case 'ListenKey': return listenKey(state, c, time)
    case 'CreateAsset': return createAsset(state, c)
    case 'CreatePerpMarket': return createPerpMarket(state, c, time)
    case 'CreateSpotMarket': return createSpotMarket(state, c, time)
    case 'SetMarketStatus': return setMarketStatus(state, c, time)
    case 'SetRules': return setRules(state, c)
    case 'DeclareChain': return declareChain(state, c)
    case 'Lead': return lead(state, c)
    case 'SetOracle': return setOracle(state, c, time)
    case 'OraclePrice': return oraclePrice(state, c, time)
    default: return reject('COMMAND_UNKNOWN')
  }
}

function tick(state: State, time: number): Result {
  const events: Event[] = []
  expireGoodTillDate(state, time, events)
  fireCountdowns(state, time, events)
  pricesOnTick(state, time, events)
  return accept(events)
}
