// What a Tick and a book-changing command do to prices (DESIGN.md §4): on every Tick each
// perpetual with an index takes its basis and premium samples, refreshes its mark, and
// settles funding when the Tick's time reached the boundary; after an accepted order,
// cancel or amendment the market's mark is refreshed (trades and the book moved it).

import type { Command } from './commands.js'
import type { Event, Result } from './events.js'
import { settleFunding } from './funding.js'
import { refreshMark, sampleBasis, samplePremium } from './prices.js'
import type { State } from './state.js'

export function pricesOnTick(state: State, time: number, events: Event[]): void {
  for (const m of state.markets) {
    if (m === undefined || m.kind !== 'PERP' || m.prices.indexE8 === 0) continue
    sampleBasis(m, time)
    samplePremium(m, time)
    refreshMark(m, time)
    if (time >= m.prices.nextFundingTime) settleFunding(state, m, time, events)
    events.push({ type: 'prices', marketId: m.marketId, indexE8: m.prices.indexE8, markPriceTicks: m.markPriceTicks, time })
  }
}

/** After an accepted command that may have traded or changed a book: the mark follows. */
export function pricesAfterCommand(state: State, c: Command, result: Result, time: number): void {
  if (!result.ok) return
  if (c.type !== 'PlaceOrder' && c.type !== 'CancelOrder' && c.type !== 'CancelAll' && c.type !== 'ModifyOrder') return
  const m = state.markets[c.marketId]
  if (m !== undefined && m.kind === 'PERP' && m.prices.indexE8 !== 0) refreshMark(m, time)
}
