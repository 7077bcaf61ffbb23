// Binance's price band on perpetual orders, around the mark price: a limit price may be at
// most the PERCENT_PRICE cap above it (buy) or the floor below it (sell), and a market order
// takes liquidity only as far as `marketTakeBound` from it; one whose best counterparty price
// is already beyond that is refused. Per market (`percentPricePpm`, `marketTakeBoundPpm`;
// 0 turns either off), printed by exchangeInfo. A market with no mark yet (no trade, no
// index) has no band.
//
// Besides sparing a trader a fat-finger price, the band bounds how far from the mark a
// trader's own order can close a position: past its bankruptcy price, the debt lands on the
// insurance fund (core/liquidation/debt.ts).

import { mulDivCeil, mulDivFloor } from './arith.js'
import type { Code } from './codes.js'
import type { Side } from './commands.js'
import type { PerpMarket } from './state.js'

const PPM = 1_000_000

/** mark × (1 ± ppm), rounded toward the mark (0: no mark or no band): an edge of the band. */
function edge(m: PerpMarket, ppm: number, above: boolean): number {
  const mark = m.markPriceTicks
  if (mark === 0 || ppm === 0) return 0
  return above ? mulDivFloor(mark, PPM + ppm, PPM) : mulDivCeil(mark, PPM - ppm, PPM)
}

/** The highest limit price a buy may have now (0: no band). */
export function buyCap(m: PerpMarket): number {
  return edge(m, m.percentPricePpm, true)
}

/** The lowest limit price a sell may have now (0: no band). */
export function sellFloor(m: PerpMarket): number {
  return edge(m, m.percentPricePpm, false)
}

/** Why a limit price is outside the band, or null. */
export function bandCode(m: PerpMarket, side: Side, priceTicks: number): Code | null {
  if (side === 'BUY') {
    const cap = buyCap(m)
    return cap !== 0 && priceTicks > cap ? 'PRICE_ABOVE_BAND' : null
  }
  const floor = sellFloor(m)
  return floor !== 0 && priceTicks < floor ? 'PRICE_BELOW_BAND' : null
}

/** The worst price a market order may fill at now: its limit for the sweep (0: none). */
export function takeBound(m: PerpMarket, isBuy: boolean): number {
  return edge(m, m.marketTakeBoundPpm, isBuy)
}

/** A market order whose best counterparty price is already beyond its bound is refused. */
export function marketBandCode(m: PerpMarket, side: Side): Code | null {
  const isBuy = side === 'BUY'
  const bound = takeBound(m, isBuy)
  const best = m.book.side(!isBuy).best()
  if (bound === 0 || best === undefined) return null
  return (isBuy ? best.priceTicks > bound : best.priceTicks < bound) ? 'MARKET_BEYOND_BAND' : null
}
