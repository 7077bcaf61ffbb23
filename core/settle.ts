// Settlement of one perpetual fill for one side: position, entry cost, realized PnL, fee,
// wallet, open interest. Rounding favors the exchange: the cost removed from a position
// on a partial close rounds so the realized PnL rounds down, and fees round up.

import { abs, min, mulDivCeil } from './arith.js'
import { assertSafe } from './assert.js'
import { ensureHolding } from './accounts.js'
import type { PerpFillSide } from './events.js'
import { settleIsolatedFill } from './isolated.js'
import { fillSettled } from './liquidation/budget.js'
import { addMarginLots } from './resting.js'
import { addFee, positionOf, type Order, type PerpMarket, type Position, type State } from './state.js'

const PPM = 1_000_000

/** Moves a position by a signed fill; returns the realized PnL in tick·lot units. */
export function movePosition(p: Position, signedLots: number, priceTicks: number): number {
  let pnl = 0
  let open = signedLots
  if (p.qtyLots !== 0 && (p.qtyLots > 0) !== (signedLots > 0)) {
    const closeLots = min(abs(signedLots), abs(p.qtyLots))
    const dir = p.qtyLots > 0 ? 1 : -1
    const removed = p.qtyLots === dir * closeLots
      ? p.costTicksLots
      : mulDivCeil(p.costTicksLots, closeLots, abs(p.qtyLots))
    pnl = dir * closeLots * priceTicks - removed
    p.qtyLots -= dir * closeLots
    p.costTicksLots -= removed
    open = signedLots + dir * closeLots
  }
  if (open !== 0) {
    p.qtyLots += open
    p.costTicksLots += open * priceTicks
  }
  assertSafe(p.costTicksLots, 'position cost')
  return pnl
}

/** Long lots of a position (what it adds to open interest). */
function longLots(p: Position): number {
  return p.qtyLots > 0 ? p.qtyLots : 0
}

/** Settles one side of a fill; for a maker the caller has taken the lots out of its level. */
export function settlePerpSide(state: State, m: PerpMarket, o: Order, lots: number, priceTicks: number,
  isMaker: boolean, time: number): PerpFillSide {
  const sub = o.owner
  const h = ensureHolding(sub, m)
  const p = positionOf(h, o.positionSide)
  const qtyBefore = p.qtyLots
  const longBefore = longLots(p)
  const pnl = movePosition(p, o.side === 'BUY' ? lots : -lots, priceTicks) * m.quotePerTickLot
  p.updateTime = time
  if (pnl !== 0) p.realizedPnl = assertSafe(p.realizedPnl + pnl, 'accumulated realized PnL')
  // A partial close keeps its PnL with the position; going flat, flipping or opening starts afresh.
  p.realizedSinceOpen = qtyBefore !== 0 && p.qtyLots !== 0 && (qtyBefore > 0) === (p.qtyLots > 0)
    ? assertSafe(p.realizedSinceOpen + pnl, 'realized PnL since open') : 0
  m.openInterestLots += longLots(p) - longBefore

  const notional = lots * priceTicks * m.quotePerTickLot
  // Liquidation and ADL orders pay no trading fee: the liquidation charges its clearance fee
  // to the insurance fund instead (core/liquidation/liquidate.ts).
  const fee = o.orderType === 'LIQUIDATION' ? 0 : mulDivCeil(notional, isMaker ? m.makerFeePpm : m.takerFeePpm, PPM)
  // An isolated position's PnL, fee and margin go through its own wallet (core/isolated.ts).
  const isolated = h.marginType === 'ISOLATED'
  if (isolated) settleIsolatedFill(sub, h, m, p, qtyBefore, lots, priceTicks, pnl, fee)
  else sub.perpWallet = assertSafe(sub.perpWallet + pnl - fee, 'perp wallet')
  // Within the sub-account's fill budget, or else checked by the market's sweep (core/liquidation/budget.ts).
  fillSettled(state, sub, m, h, p, qtyBefore, priceTicks, fee)
  if (fee !== 0) addFee(state.fees, m.quote, fee)

  o.executedQtyLots += lots
  o.cumQuoteTicksLots += lots * priceTicks
  o.updateTime = time
  if (isMaker && o.marginCounted) addMarginLots(h, o, -lots)
  o.status = o.executedQtyLots === o.origQtyLots ? 'FILLED' : 'PARTIALLY_FILLED'

  const side: PerpFillSide = {
    account: sub.address, sub: sub.sub, orderId: o.orderId, clientOrderId: o.clientOrderId,
    side: o.side, positionSide: o.positionSide,
    executedQtyLots: o.executedQtyLots, cumQuoteTicksLots: o.cumQuoteTicksLots, status: o.status,
    fee, realizedPnl: pnl, positionQtyLots: p.qtyLots, positionCostTicksLots: p.costTicksLots, positionRealizedPnl: p.realizedPnl,
    positionRealizedSinceOpen: p.realizedSinceOpen, wallet: sub.perpWallet,
  }
  // Added last, as the field it was: a literal with a spread is built slowly on every fill.
  if (isolated) side.isolatedWallet = p.isolatedWallet
  return side
}
