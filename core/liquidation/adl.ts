// Auto-deleveraging: what the book and the insurance fund could not take of a liquidation is
// closed against opposite positions at the bankruptcy price, off the book. Opposite positions
// are ranked as Binance ranks them:
//
//   score = PnL% × effective leverage   when PnL% > 0
//         = PnL% / effective leverage   otherwise
//   PnL% = unrealized PnL / entry notional; effective leverage = notional at the mark /
//   margin balance (of the cross account, or of the isolated position)
//
// highest first, ties by account, sub-account and position side. Scores are compared as exact
// fractions in bigint. Each counterparty gets an order of its own (client id `adl_autoclose`,
// type LIQUIDATION, no fee), filled in one `trade` event marked `adl`.

import { abs } from '../arith.js'
import type { PositionSide } from '../commands.js'
import type { Event } from '../events.js'
import { positionNotional, unrealizedPnl } from '../margin.js'
import { crossRisk, isolatedRisk } from '../margin-risk.js'
import { orderEvent } from '../records.js'
import { settlePerpSide } from '../settle.js'
import { positionOf, type Order, type PerpMarket, type State, type SubAccount } from '../state.js'
import { forceOrderEvent } from './records.js'
import { holdersOf } from './watch.js'

export const ADL_CLIENT_ID = 'adl_autoclose'

export interface Ranked {
  sub: SubAccount
  side: PositionSide
  /** score = num / den, den > 0. */
  num: bigint
  den: bigint
}

const SIDES: readonly PositionSide[] = ['BOTH', 'LONG', 'SHORT']

/** The ranking score of one position (see the top of this file). */
function score(state: State, m: PerpMarket, sub: SubAccount, side: PositionSide): { num: bigint; den: bigint } {
  const h = sub.perp.get(m.marketId)!
  const p = positionOf(h, side)
  const upnl = BigInt(unrealizedPnl(m, p))
  const entry = BigInt(abs(p.costTicksLots)) * BigInt(m.quotePerTickLot)
  const notional = BigInt(positionNotional(m, p)) * BigInt(m.quotePerTickLot)
  const r = h.marginType === 'ISOLATED' ? isolatedRisk(m, h, side) : crossRisk(state, sub)
  // An account with nothing left behind it counts as infinitely leveraged: balance one unit.
  const balance = BigInt(r.marginBalance > 0 ? r.marginBalance : 1)
  const safe = (n: bigint): bigint => (n > 0n ? n : 1n)
  if (upnl > 0n) return { num: upnl * notional, den: safe(entry * balance) }
  return { num: upnl * balance, den: safe(entry * notional) }
}

function compareKey(a: SubAccount, b: SubAccount): number {
  if (a.address !== b.address) return a.address < b.address ? -1 : 1
  return a.sub - b.sub
}

/** Positions in `m` on the long side (long = true) or the short side, ranked highest score first. */
export function rankPositions(state: State, m: PerpMarket, long: boolean): Ranked[] {
  const out: Ranked[] = []
  for (const sub of holdersOf(state, m)) {
    const h = sub.perp.get(m.marketId)
    if (h === undefined) continue
    for (const side of SIDES) {
      const q = positionOf(h, side).qtyLots
      if (q === 0 || (q > 0) !== long) continue
      out.push({ sub, side, ...score(state, m, sub, side) })
    }
  }
  return out.sort((a, b) => {
    const l = a.num * b.den
    const r = b.num * a.den
    if (l !== r) return l > r ? -1 : 1
    return compareKey(a.sub, b.sub) || SIDES.indexOf(a.side) - SIDES.indexOf(b.side)
  })
}

/**
 * The most lots of a counterparty's position that can be closed at `priceTicks` without
 * taking its margin balance (cross, or the isolated position's) below zero: a losing
 * position ranked for ADL is closed only as far as it can pay for, and one with no margin
 * balance left not at all. Closing at a price worse
 * than the mark costs (price − mark) per lot beyond the unrealized PnL already counted, plus
 * at most one tick·lot of rounding in the cost the close removes.
 */
function solventLots(state: State, m: PerpMarket, r: Ranked, qtyLots: number, priceTicks: number): number {
  const h = r.sub.perp.get(m.marketId)!
  const balance = (h.marginType === 'ISOLATED' ? isolatedRisk(m, h, r.side) : crossRisk(state, r.sub)).marginBalance - m.quotePerTickLot
  // A counterparty already past its own bankruptcy (itself waiting in liquidation) takes nothing.
  if (balance <= 0) return 0
  const adverseTicks = qtyLots > 0 ? m.markPriceTicks - priceTicks : priceTicks - m.markPriceTicks
  if (adverseTicks <= 0) return abs(qtyLots)
  return Math.min(abs(qtyLots), Math.floor(balance / (adverseTicks * m.quotePerTickLot)))
}

/**
 * Fills what is left of liquidation order `o` against the ranked opposite positions at
 * `priceTicks`. Adds every counterparty to `touched`. Returns the lots filled.
 */
export function autoDeleverage(state: State, m: PerpMarket, o: Order, priceTicks: number, time: number, events: Event[],
  touched: Set<SubAccount>): number {
  let filled = 0
  // A SELL closes a long, so the counterparties are shorts, and the other way round.
  for (const r of rankPositions(state, m, o.side === 'BUY')) {
    const left = o.origQtyLots - o.executedQtyLots
    if (left === 0) break
    const p = positionOf(r.sub.perp.get(m.marketId)!, r.side)
    if (p === positionOf(o.owner.perp.get(m.marketId)!, o.positionSide)) continue
    const lots = Math.min(left, abs(p.qtyLots), solventLots(state, m, r, p.qtyLots, priceTicks))
    if (lots === 0) continue
    const c: Order = {
      orderId: m.nextOrderId++, market: m, owner: r.sub, clientOrderId: ADL_CLIENT_ID,
      side: o.side === 'BUY' ? 'SELL' : 'BUY', orderType: 'LIQUIDATION', timeInForce: 'IOC', priceTicks,
      origQtyLots: lots, executedQtyLots: 0, cumQuoteTicksLots: 0, status: 'NEW', positionSide: r.side,
      reduceOnly: r.side === 'BOTH', stp: 'NONE', goodTillDate: 0, time, updateTime: time,
      marginCounted: false, lockedRemaining: 0, level: null, prev: null, next: null, cond: null, amendCount: 0, priceMatch: undefined, quoteQty: 0, quoteShort: false, list: null, icebergLots: 0, visibleLots: 0, peg: null, preventedLots: 0, preventedMatchId: -1, strategyId: -1, strategyType: 0,
    }
    events.push(orderEvent(c, 'NEW'))
    const tradeId = m.nextTradeId++
    const maker = settlePerpSide(state, m, c, lots, priceTicks, true, time)
    const taker = settlePerpSide(state, m, o, lots, priceTicks, false, time)
    events.push({ type: 'trade', marketId: m.marketId, tradeId, time, priceTicks, qtyLots: lots,
      buyerIsMaker: c.side === 'BUY', maker, taker, adl: true })
    events.push(forceOrderEvent(c, 'ADL', lots))
    touched.add(r.sub)
    filled += lots
  }
  return filled
}

/**
 * Binance's ADL quantile of each position of a sub-account in `m`: 0 (last in the queue) to
 * 4 (first), by the position's rank among the positions on its side: ceil(5 × (n − i) / n) − 1
 * for the i-th highest (0-based) of n. Flat sides read 0.
 */
export function adlQuantiles(state: State, m: PerpMarket, sub: SubAccount): Record<PositionSide, number> {
  const out: Record<PositionSide, number> = { BOTH: 0, LONG: 0, SHORT: 0 }
  const h = sub.perp.get(m.marketId)
  if (h === undefined) return out
  for (const long of [true, false]) {
    const ranked = rankPositions(state, m, long)
    const n = ranked.length
    ranked.forEach((r, i) => {
      if (r.sub === sub) out[r.side] = Math.ceil((5 * (n - i)) / n) - 1
    })
  }
  return out
}
