// What follows a price move in a perpetual market (DESIGN.md §4). Called once per market
// whose index, mark or last trade price may have moved: after a Tick's refresh, after an
// OraclePrice, and after an accepted order command. The deterministic order is: conditional
// orders whose trigger the move crossed fire first (traders' own stops before the exchange
// steps in), then accounts the move left below maintenance are liquidated. Both can trade
// and so move the price again; the hooks repeat their own scans until a pass changes nothing.

import { runTriggers } from './conditional.js'
import type { Event } from './events.js'
import { liquidationSweep } from './liquidation/sweep.js'
import type { PerpMarket, State } from './state.js'

export function afterPriceMove(state: State, m: PerpMarket, time: number, events: Event[]): void {
  // Conditional triggers first (core/conditional.ts), then the liquidation sweep (core/liquidation).
  runTriggers(state, m, time, events)
  liquidationSweep(state, m, time, events)
}
