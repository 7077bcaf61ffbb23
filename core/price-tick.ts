// What a Tick and a book-changing command do to prices (DESIGN.md §4): on every Tick each
// perpetual with an index takes its basis and premium samples, refreshes its mark, and
// settles funding when the Tick's time reached the boundary; after an accepted order,
// cancel, amendment or oracle price the market's mark is refreshed. Either way what the
// move triggers follows (core/price-moves.ts).

import type { Command } from './commands.js'
import type { Event, PricesEvent, Result } from './events.js'
import { activateLists } from './oto-lists.js'
import { settleFunding } from './funding.js'
import { perpOfPair } from './oracle.js'
import { afterPriceMove } from './price-moves.js'
import { marginMoved } from './liquidation/watch.js'
import { PREMIUM_SAMPLE_MS, refreshMark, sampleBasis, samplePremium } from './prices.js'
import { ONE_SIDED_BASIS_ZERO, rulesOf } from './rules.js'
import type { Market, State } from './state.js'
import { runSpotStops } from './spot-stops.js'
import { TOP_TRADERS_BUCKET_MS, topTraders } from './top-traders.js'

export function pricesOnTick(state: State, time: number, events: Event[]): void {
  const oneSidedZero = rulesOf(state) >= ONE_SIDED_BASIS_ZERO
  for (const m of state.markets) {
    if (m === undefined || m.kind !== 'PERP' || m.prices.indexE8 === 0) continue
    sampleBasis(m, time, oneSidedZero)
    const slotBefore = m.prices.premiumSlot
    const sampled = samplePremium(m, time)
    refreshMark(m, time)
    if (time >= m.prices.nextFundingTime) settleFunding(state, m, time, events)
    const e: PricesEvent = { type: 'prices', marketId: m.marketId, indexE8: m.prices.indexE8, markPriceTicks: m.markPriceTicks, time }
    if (sampled) e.premiumE8 = m.prices.lastPremiumE8
    // The first sample of a 5-minute bucket (slots are 5 s) also takes the top traders'.
    if (sampled && Math.floor(slotBefore * PREMIUM_SAMPLE_MS / TOP_TRADERS_BUCKET_MS) !== Math.floor(time / TOP_TRADERS_BUCKET_MS)) {
      e.topTraders = topTraders(state, m)
    }
    events.push(e)
    afterPriceMove(state, m, time, events)
  }
}

/**
 * After an accepted command that may have traded, changed a book or set an index: the mark
 * follows, then what the move triggers (core/price-moves.ts), its events added to the result.
 */
export function pricesAfterCommand(state: State, c: Command, result: Result, time: number): void {
  if (!result.ok) return
  // Margin that left without a price move is checked at its markets' next move (liquidation/watch.ts).
  if (c.type === 'Transfer' || c.type === 'AdjustPositionMargin') marginMoved(state, c)
  else if (c.type === 'SubAccountTransfer' && c.fromWallet === 'PERP') marginMoved(state, { account: c.account, sub: c.fromSub })
  let m: Market | undefined
  if (c.type === 'OraclePrice') m = perpOfPair(state, c.pair)
  else if (c.type === 'PlaceOrder' || c.type === 'CancelOrder' || c.type === 'CancelAll' || c.type === 'ModifyOrder'
    || c.type === 'PlaceOtoList') m = state.markets[c.marketId]
  if (m === undefined) return
  if (m.kind === 'SPOT') {
    // Only a placement trades on a spot book: the stops its last price reached fire, and the
    // OTO lists whose working order filled have their pending orders placed, until neither
    // has more to do (each may trade).
    if (c.type !== 'PlaceOrder' && c.type !== 'PlaceOtoList') return
    do {
      activateLists(state, m, time, result.events)
      runSpotStops(state, m, time, result.events)
    } while (m.stops.activations.length > 0)
    return
  }
  if (m.prices.indexE8 !== 0 && c.type !== 'OraclePrice') refreshMark(m, time)
  afterPriceMove(state, m, time, result.events)
}
