// Isolated margin (Binance USD-M): a market's margin type, the moves between the cross wallet
// and an isolated position's wallet, and where an isolated fill's money goes. Every move is
// between two integers of the same sub-account, so the ledger total never changes.
//
// A fill on an isolated position, in this order:
//   1. its realized PnL less its fee lands in the isolated wallet;
//   2. a fill that reduces the position returns floor(wallet × closed / size before) to the
//      cross wallet when the wallet is positive (nothing when it is not); one that closes the
//      position (or flips it) returns all of it, whatever its sign;
//   3. a fill that opens or adds size moves that size's initial margin at the fill price,
//      ceil(lots × price × quotePerTickLot / leverage), from the cross wallet in.

import { ensureHolding, ensureSub, findSub, validIssuer } from './accounts.js'
import { abs, min, mulDivFloor } from './arith.js'
import { assertSafe } from './assert.js'
import type { AdjustPositionMargin, ChangeMarginType } from './commands.js'
import type { Result } from './events.js'
import { LIMITS } from './limits.js'
import { dropBudget } from './liquidation/budget.js'
import { initialMargin, marginView, maxRemovable } from './margin.js'
import { marketOf } from './resting.js'
import { accept, reject } from './results.js'
import { positionOf, type PerpHolding, type PerpMarket, type Position, type State, type SubAccount } from './state.js'

export function changeMarginType(state: State, cmd: ChangeMarginType, time: number): Result {
  const m = marketOf(state, cmd.marketId)
  if (m === undefined) return reject('MARKET_UNKNOWN')
  if (!validIssuer(cmd)) return reject('ACCOUNT_INVALID')
  if (cmd.marginType !== 'CROSSED' && cmd.marginType !== 'ISOLATED') return reject('COMMAND_INVALID')
  const existing = findSub(state, cmd)
  const h = existing?.perp.get(m.marketId)
  if ((h?.marginType ?? 'CROSSED') === cmd.marginType) return reject('MARGIN_TYPE_UNCHANGED')
  if ((existing?.openByMarket.get(m.marketId) ?? 0) > 0) return reject('MARGIN_TYPE_OPEN_ORDERS')
  if (h && (h.both.qtyLots !== 0 || h.long.qtyLots !== 0 || h.short.qtyLots !== 0)) return reject('MARGIN_TYPE_OPEN_POSITION')
  const sub = ensureSub(state, cmd)
  ensureHolding(sub, m).marginType = cmd.marginType === 'ISOLATED' ? 'ISOLATED' : 'CROSSED'
  // The fill budget assumed a cross-only sub-account (core/liquidation/budget.ts).
  dropBudget(sub)
  return accept([{ type: 'marginType', account: sub.address, sub: sub.sub, marketId: m.marketId,
    marginType: cmd.marginType, time }])
}

export function adjustPositionMargin(state: State, cmd: AdjustPositionMargin, time: number): Result {
  const m = marketOf(state, cmd.marketId)
  if (m === undefined) return reject('MARKET_UNKNOWN')
  if (!validIssuer(cmd)) return reject('ACCOUNT_INVALID')
  if (cmd.direction !== 'ADD' && cmd.direction !== 'REDUCE') return reject('COMMAND_INVALID')
  const amount = cmd.amount
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0 || amount > LIMITS.ledgerAmountMax) {
    return reject('AMOUNT_INVALID')
  }
  const sub = findSub(state, cmd)
  const h = sub?.perp.get(m.marketId)
  if (sub === undefined || h === undefined || h.marginType !== 'ISOLATED') return reject('MARGIN_NOT_ISOLATED')
  // One-way mode has the BOTH position only; hedge mode LONG and SHORT.
  const side = cmd.positionSide ?? 'BOTH'
  const fits = sub.dualSide ? side === 'LONG' || side === 'SHORT' : side === 'BOTH'
  if (!fits) return reject('POSITION_SIDE_INVALID')
  const p = positionOf(h, side)
  if (p.qtyLots === 0) return reject('MARGIN_NO_POSITION')
  const add = cmd.direction === 'ADD'
  if (add) {
    const v = marginView(state, sub)
    if (amount > min(v.wallet, v.available)) return reject('CROSS_BALANCE_INSUFFICIENT')
    if (p.isolatedWallet + amount > LIMITS.ledgerAmountMax) return reject('OVERFLOW')
  } else if (amount > maxRemovable(m, h, p)) {
    return reject('ISOLATED_BALANCE_INSUFFICIENT')
  }
  const signed = add ? amount : -amount
  sub.perpWallet -= signed
  p.isolatedWallet += signed
  return accept([{ type: 'positionMargin', account: sub.address, sub: sub.sub, marketId: m.marketId, positionSide: side,
    direction: cmd.direction, amount, wallet: sub.perpWallet, isolatedWallet: p.isolatedWallet,
    positionQtyLots: p.qtyLots, positionCostTicksLots: p.costTicksLots, time }])
}

/**
 * Settles one isolated fill's money (see the top of this file). `qtyBefore` is the position's
 * signed size before the fill; `pnl` and `fee` are in ledger units. Returns the isolated
 * wallet after.
 */
export function settleIsolatedFill(sub: SubAccount, h: PerpHolding, m: PerpMarket, p: Position, qtyBefore: number,
  lots: number, priceTicks: number, pnl: number, fee: number): number {
  const before = abs(qtyBefore)
  const after = abs(p.qtyLots)
  const flipped = qtyBefore !== 0 && p.qtyLots !== 0 && (qtyBefore > 0) !== (p.qtyLots > 0)
  const closed = flipped ? before : before > after ? before - after : 0
  const opened = lots - closed
  let iw = p.isolatedWallet + pnl - fee
  let cross = sub.perpWallet
  if (closed > 0) {
    const back = closed === before ? iw : iw > 0 ? mulDivFloor(iw, closed, before) : 0
    cross += back
    iw -= back
  }
  if (opened > 0) {
    const margin = initialMargin(m, opened * priceTicks, h.leverage)
    cross -= margin
    iw += margin
  }
  sub.perpWallet = assertSafe(cross, 'perp wallet')
  p.isolatedWallet = assertSafe(iw, 'isolated wallet')
  return iw
}
