// Matching a taker against the book, price-time priority, with self-trade prevention and
// reduce-only caps. `simulate` walks the book the same way without changing anything, so
// FOK, market-order margin and market-buy holds know exactly what `sweep` will fill.

import { floorDiv, max, min } from './arith.js'
import type { Event, PreventedMatchEvent } from './events.js'
import { crosses } from './filters.js'
import { LIMITS } from './limits.js'
import { takeBound } from './price-band.js'
import { outsideRange, recordTradePrice, takerRange, type PriceBounds } from './price-range.js'
import { isClosing } from './records.js'
import { listFill } from './order-lists.js'
import { retire, unrest } from './resting.js'
import { settlePerpSide } from './settle.js'
import { settleSpotSide } from './spot.js'
import { decrementLots, decrementMatch, decrements } from './prevention.js'
import { positionOf, type Market, type Order, type Position, type SpotMarket, type State } from './state.js'

/**
 * Why a sweep stopped with lots left: the rest of the taker expires (or rests if 'DONE');
 * 'RANGE': the next price is outside the spot market's Price Range rule (core/price-range.ts).
 */
export type SweepEnd = 'DONE' | 'STP' | 'CAPPED' | 'LIMIT' | 'RANGE'

function closingPosition(o: Order): Position {
  return positionOf(o.owner.perp.get(o.market.marketId)!, o.positionSide)
}

/** Lots a closing order may still fill before it would flip its position. */
function reducible(p: Position, o: Order, pending: number): number {
  const q = p.qtyLots + pending
  return o.side === 'SELL' ? max(q, 0) : max(-q, 0)
}

/**
 * The record of a match self-trade prevention stopped (off the sweep's hot path: it is rare):
 * each order's lots it prevents (all either has left; in DECREMENT mode the smaller's, for both),
 * and the mode in effect: the taker's, but TRANSFER only when the maker's is TRANSFER too
 * (DECREMENT otherwise), as Binance's STP FAQ tabulates.
 */
function preventedMatch(m: Market, taker: Order, maker: Order, time: number): PreventedMatchEvent {
  const decrement = decrements(taker.stp)
  const lots = decrement ? decrementLots(taker, maker) : 0
  return { type: 'preventedMatch', marketId: m.marketId, preventedMatchId: m.nextPreventedMatchId++, account: taker.owner.address,
    sub: taker.owner.sub, takerOrderId: taker.orderId, makerOrderId: maker.orderId, priceTicks: maker.priceTicks,
    makerLots: decrement ? lots : maker.origQtyLots - maker.executedQtyLots, takerLots: decrement ? lots : taker.origQtyLots - taker.executedQtyLots,
    mode: taker.stp === 'TRANSFER' && maker.stp !== 'TRANSFER' ? 'DECREMENT' : taker.stp, time }
}

/** The worst price the taker may fill at (0: any): its own, or a perpetual market order's band. */
function limitOf(m: Market, taker: Order, isBuy: boolean): number {
  if (taker.orderType !== 'MARKET') return taker.priceTicks
  return m.kind === 'PERP' ? takeBound(m, isBuy) : 0
}

export function sweep(state: State, m: Market, taker: Order, time: number, events: Event[]): SweepEnd {
  const isBuy = taker.side === 'BUY'
  const opp = m.book.side(!isBuy)
  const perp = m.kind === 'PERP'
  const limitPrice = limitOf(m, taker, isBuy)
  const takerCloses = perp && isClosing(taker)
  // Fixed as the taker starts, for all of its sweep (Binance's taker phase); read at the first
  // level it crosses, so an order that only rests never computes it.
  let range: PriceBounds | null | undefined = perp ? null : undefined
  let fills = 0
  for (;;) {
    const level = opp.best()
    if (level === undefined) return 'DONE'
    if (limitPrice !== 0 && !crosses(isBuy, limitPrice, level.priceTicks)) return 'DONE'
    if (range === undefined) range = m.kind === 'SPOT' ? takerRange(m, isBuy, time) : null
    if (outsideRange(range, level.priceTicks)) return 'RANGE'
    let maker = level.head
    while (maker !== null) {
      const left = taker.origQtyLots - taker.executedQtyLots
      if (left === 0) return 'DONE'
      if (fills >= LIMITS.fillsPerCommandMax) return 'LIMIT'
      const next = maker.next
      if (maker.goodTillDate !== 0 && maker.goodTillDate <= time) {
        // Past its goodTillDate but not yet reached by a Tick: it expires, it never trades.
        retire(maker, 'EXPIRED', 'EXPIRED', time, events)
        maker = next
        continue
      }
      if (maker.owner === taker.owner && taker.stp !== 'NONE') {
        const prevented = preventedMatch(m, taker, maker, time)
        events.push(prevented)
        if (decrements(taker.stp)) {
          // Both lose the smaller's lots (core/prevention.ts): the maker expired, or the taker has none left.
          if (decrementMatch(m as SpotMarket, taker, maker, prevented, time, events)) return 'STP'
          maker = next
          continue
        }
        if (taker.stp !== 'EXPIRE_TAKER') {
          maker.preventedMatchId = prevented.preventedMatchId
          retire(maker, 'EXPIRED_IN_MATCH', 'EXPIRED_IN_MATCH', time, events)
        }
        if (taker.stp !== 'EXPIRE_MAKER') {
          taker.preventedMatchId = prevented.preventedMatchId
          return 'STP'
        }
        maker = next
        continue
      }
      let lots = min(left, maker.visibleLots)
      if (perp) {
        if (isClosing(maker)) {
          const cap = reducible(closingPosition(maker), maker, 0)
          if (cap === 0) {
            retire(maker, 'EXPIRED', 'EXPIRED', time, events)
            maker = next
            continue
          }
          lots = min(lots, cap)
        }
        if (takerCloses) {
          const cap = reducible(closingPosition(taker), taker, 0)
          if (cap === 0) return 'CAPPED'
          lots = min(lots, cap)
        }
      }
      level.qtyLots -= lots
      maker.visibleLots -= lots
      fill(state, m, taker, maker, lots, level.priceTicks, time, events)
      fills += 1
      if (maker.executedQtyLots === maker.origQtyLots) {
        unrest(maker)
      } else if (maker.visibleLots === 0) {
        // An iceberg's slice is used up (a plain order shows all it has left): the next one
        // goes to the back of the level, where this taker meets it again after the orders
        // behind it (at once when there are none).
        opp.requeue(maker)
        if (next === null) continue
      } else if (perp && isClosing(maker) && reducible(closingPosition(maker), maker, 0) === 0) {
        retire(maker, 'EXPIRED', 'EXPIRED', time, events)
      } else {
        // Lots left and still allowed to trade: when a cap cut this fill short (a self-trade
        // with STP NONE can hand a reduce-only maker its position back), the maker keeps its
        // place at the head of the queue rather than let the orders behind it go first.
        continue
      }
      maker = next
    }
  }
}

function fill(state: State, m: Market, taker: Order, maker: Order, lots: number, priceTicks: number,
  time: number, events: Event[]): void {
  const tradeId = m.nextTradeId++
  const buyerIsMaker = maker.side === 'BUY'
  m.lastPriceTicks = priceTicks
  if (m.kind === 'PERP') {
    // Without an oracle price the mark is the last trade; with one it is the formula's, which
    // refreshMark recomputes after the command (a fill mid-sweep must not move it).
    if (m.prices.indexE8 === 0) m.markPriceTicks = priceTicks
    const makerSide = settlePerpSide(state, m, maker, lots, priceTicks, true, time)
    const takerSide = settlePerpSide(state, m, taker, lots, priceTicks, false, time)
    events.push({ type: 'trade', marketId: m.marketId, tradeId, time, priceTicks, qtyLots: lots, buyerIsMaker,
      maker: makerSide, taker: takerSide })
  } else {
    const makerSide = settleSpotSide(state, m, maker, lots, priceTicks, true, time)
    const takerSide = settleSpotSide(state, m, taker, lots, priceTicks, false, time)
    if (m.priceRange !== null) recordTradePrice(m, priceTicks, time)
    events.push({ type: 'spotTrade', marketId: m.marketId, tradeId, time, priceTicks, qtyLots: lots, buyerIsMaker,
      maker: makerSide, taker: takerSide })
    // An order of a list that trades moves its list on (core/order-lists.ts).
    if (maker.list !== null && !maker.list.done) listFill(maker, makerSide, lots, time, events)
    if (taker.list !== null && !taker.list.done) listFill(taker, takerSide, lots, time, events)
  }
}

export interface Simulation {
  /** Lots the taker would fill now, with those DECREMENT self-trade prevention would take off it. */
  lots: number
  /** Sum of price × lots over those fills, tick·lot units. */
  notional: number
}

/**
 * What `sweep` would fill for this (unlinked) taker, changing nothing. `budget` (spot only, tick·lot
 * units): the fills stop where one more lot would take the notional past it.
 */
export function simulate(m: Market, taker: Order, budget?: number): Simulation {
  if (m.kind !== 'PERP') return walk(m, taker, null, budget)!
  // Reduce-only caps must see how earlier fills of the walk moved positions. Keeping that
  // aside costs a Map per call, so a walk first runs without it and starts over with it
  // only if a closing order takes part.
  if (isClosing(taker)) return walk(m, taker, new Map())!
  return walk(m, taker, UNTRACKED) ?? walk(m, taker, new Map())!
}

/** Marks a perp walk that keeps no position moves: it gives up (null) at a closing maker. */
const UNTRACKED: Map<Position, number> = new Map()

/**
 * The walk behind `simulate`. `moved` is null for spot, UNTRACKED or a fresh Map of
 * position moves for perpetuals.
 */
function walk(m: Market, taker: Order, moved: Map<Position, number> | null, budget?: number): Simulation | null {
  const isBuy = taker.side === 'BUY'
  const opp = m.book.side(!isBuy)
  const limitPrice = limitOf(m, taker, isBuy)
  const tracked = moved !== null && moved !== UNTRACKED
  const takerHolding = tracked ? taker.owner?.perp.get(m.marketId) : undefined
  const takerPos = takerHolding ? positionOf(takerHolding, taker.positionSide) : null
  const takerCloses = tracked && isClosing(taker)
  const range = m.kind === 'PERP' || opp.levels.length === 0 ? null : takerRange(m, isBuy, taker.time)
  let lots = 0
  let notional = 0
  let fills = 0
  const levels = opp.levels
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i]!
    if (limitPrice !== 0 && !crosses(isBuy, limitPrice, level.priceTicks)) break
    if (outsideRange(range, level.priceTicks)) break
    // Icebergs whose slice this walk used up, with the lots behind it, in the order the sweep
    // moves them to the back of the level (spot only).
    let behind: { maker: Order; hidden: number }[] | null = null
    for (let maker = level.head; maker !== null; maker = maker.next) {
      const shown = maker.visibleLots
      // As in `sweep`, a maker with lots left after a fill is met again before the next one
      // (a self-trade can hand a capped reduce-only maker its position back); `used` is what
      // this walk has taken from it so far.
      let used = 0
      while (used < shown) {
        const left = taker.origQtyLots - lots
        if (left === 0 || fills >= LIMITS.fillsPerCommandMax) return { lots, notional }
        if (maker.goodTillDate !== 0 && maker.goodTillDate <= taker.time) break
        if (maker.owner === taker.owner && taker.stp !== 'NONE') {
          if (decrements(taker.stp)) {
            // The prevented lots count toward the taker's quantity, not its cost (core/prevention.ts).
            const prevented = min(left, maker.origQtyLots - maker.executedQtyLots)
            lots += prevented
            if (prevented === left) return { lots, notional }
            break
          }
          if (taker.stp !== 'EXPIRE_MAKER') return { lots, notional }
          break
        }
        let take = min(left, shown - used)
        if (budget !== undefined) {
          const affordable = floorDiv(budget - notional, level.priceTicks)
          if (affordable === 0) return { lots, notional }
          take = min(take, affordable)
        }
        if (tracked) {
          const makerPos = positionOf(maker.owner.perp.get(m.marketId)!, maker.positionSide)
          if (isClosing(maker)) {
            const cap = reducible(makerPos, maker, moved.get(makerPos) ?? 0)
            if (cap === 0) break
            take = min(take, cap)
          }
          if (takerCloses) {
            const cap = takerPos === null ? 0 : reducible(takerPos, taker, moved.get(takerPos) ?? 0)
            if (cap === 0) return { lots, notional }
            take = min(take, cap)
          }
          const makerSigned = maker.side === 'BUY' ? take : -take
          moved.set(makerPos, (moved.get(makerPos) ?? 0) + makerSigned)
          if (takerPos !== null) moved.set(takerPos, (moved.get(takerPos) ?? 0) - makerSigned)
        } else if (moved !== null && isClosing(maker)) {
          return null
        }
        lots += take
        notional += take * level.priceTicks
        fills += 1
        used += take
      }
      const hidden = maker.origQtyLots - maker.executedQtyLots - shown
      if (used === shown && hidden > 0) (behind ??= []).push({ maker, hidden })
    }
    // The requeued slices, each behind the last; a slice used up requeues the next (the
    // makers passed the checks above already, and icebergs are GTC).
    for (let k = 0; behind !== null && k < behind.length; k++) {
      const b = behind[k]!
      const slice = min(b.maker.icebergLots, b.hidden)
      const left = taker.origQtyLots - lots
      if (left === 0 || fills >= LIMITS.fillsPerCommandMax) return { lots, notional }
      let take = min(left, slice)
      if (budget !== undefined) take = min(take, floorDiv(budget - notional, level.priceTicks))
      if (take === 0) return { lots, notional }
      lots += take
      notional += take * level.priceTicks
      fills += 1
      // Short of the slice, the taker is done (its quantity or budget spent).
      if (take < slice) return { lots, notional }
      b.hidden -= slice
      if (b.hidden > 0) behind.push(b)
    }
  }
  return { lots, notional }
}
