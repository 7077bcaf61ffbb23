// Pre-trade risk for perpetual orders: the order is accepted only if the sub-account's cross
// margin still covers the initial margin of its cross positions and of all open orders with
// the order added (or the order lowers that requirement), and the position stays within the
// bracket its leverage allows. An order on an isolated market needs only its own initial
// margin from cross available: the isolated positions are backed by their own wallets.

import type { Code } from './codes.js'
import type { Side } from './commands.js'
import { crossInitialMargin, crossInitialMarginOf, exposure, holdingPnl, maxNotionalAt, NO_DELTA, type OrderDelta } from './margin.js'
import { newHolding, type PerpHolding, type PerpMarket, type State, type SubAccount } from './state.js'

const scratch: OrderDelta = { buyLots: 0, buyNotional: 0, sellLots: 0, sellNotional: 0 }
/** Stands in for a holding the sub-account does not have yet (read only). */
const EMPTY_HOLDING: PerpHolding = newHolding(-1, 1)

export function checkOrderMargin(state: State, sub: SubAccount, m: PerpMarket, side: Side,
  lots: number, notional: number): Code | null {
  const d = scratch
  const buy = side === 'BUY'
  d.buyLots = buy ? lots : 0
  d.buyNotional = buy ? notional : 0
  d.sellLots = buy ? 0 : lots
  d.sellNotional = buy ? 0 : notional

  const target = sub.perp.get(m.marketId)
  const h = target ?? EMPTY_HOLDING
  const before = target ? exposure(m, h, sub.dualSide, NO_DELTA) : 0
  const after = exposure(m, h, sub.dualSide, d)
  // An order that adds no exposure needs nothing more, whatever the rest of the account.
  if (after <= before) return null
  const leverage = target ? target.leverage : m.defaultLeverage
  if (after * m.quotePerTickLot > maxNotionalAt(m, leverage)) return 'POSITION_LIMIT'

  // Requirements of the other markets are the same before and after; only the sum matters.
  let pnl = target ? holdingPnl(m, target, sub.dualSide) : 0
  let imOthers = 0
  for (const other of sub.perp.values()) {
    if (other === target) continue
    const om = state.markets[other.marketId] as PerpMarket
    pnl += holdingPnl(om, other, sub.dualSide)
    imOthers += crossInitialMargin(om, other, sub.dualSide, NO_DELTA, other.leverage)
  }
  // The target's exposure with the order is `after`, computed above.
  const imAfter = imOthers + crossInitialMarginOf(m, h, sub.dualSide, after, leverage)
  if (sub.perpWallet + pnl - imAfter < 0) return 'MARGIN_INSUFFICIENT'
  return null
}
