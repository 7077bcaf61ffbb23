// Pre-trade risk for perpetual orders: the order is accepted only if the sub-account's
// margin still covers the initial margin of its positions and open orders with the order
// added (or the order lowers that requirement), and the position stays within the bracket
// its leverage allows.

import type { Code } from './codes.js'
import type { Side } from './commands.js'
import { exposure, holdingPnl, initialMargin, maxNotionalAt, NO_DELTA, type OrderDelta } from './margin.js'
import { newHolding, type PerpHolding, type PerpMarket, type State, type SubAccount } from './state.js'

const scratch: OrderDelta = { buyLots: 0, buyNotional: 0, sellLots: 0, sellNotional: 0 }

export function checkOrderMargin(state: State, sub: SubAccount, m: PerpMarket, side: Side,
  lots: number, notional: number): Code | null {
  const d = scratch
  d.buyLots = side === 'BUY' ? lots : 0
  d.buyNotional = side === 'BUY' ? notional : 0
  d.sellLots = side === 'SELL' ? lots : 0
  d.sellNotional = side === 'SELL' ? notional : 0

  let pnl = 0
  let imBefore = 0
  let imAfter = 0
  let target: PerpHolding | undefined
  for (const h of sub.perp.values()) {
    const hm = state.markets[h.marketId] as PerpMarket
    pnl += holdingPnl(hm, h)
    const im = initialMargin(hm, exposure(hm, h, sub.dualSide, NO_DELTA), h.leverage)
    imBefore += im
    if (h.marketId === m.marketId) target = h
    else imAfter += im
  }
  const h = target ?? newHolding(m.marketId, m.defaultLeverage)
  const before = target ? exposure(m, h, sub.dualSide, NO_DELTA) : 0
  const after = exposure(m, h, sub.dualSide, d)
  imAfter += initialMargin(m, after, h.leverage)
  if (after > before && after * m.quotePerTickLot > maxNotionalAt(m, h.leverage)) return 'POSITION_LIMIT'
  if (imAfter > imBefore && sub.perpWallet + pnl - imAfter < 0) return 'MARGIN_INSUFFICIENT'
  return null
}
