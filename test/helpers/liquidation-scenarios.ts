// The liquidation scenarios of test/core/liquidation.test.ts (hand-computed there), for other
// tests that need a liquidation, a shortfall or an ADL to happen: ALICE liquidated into the book
// (A), ERIN beyond her margin with the fund covering it (B).

import type { Event } from '../../core/events.js'
import { limit } from './commands.js'
import { ALICE, BOB, CAROL, DAVE, NO_BAND_GENESIS, TestExchange } from './exchange.js'

export const ERIN = '0x' + 'e'.repeat(40)
export const FRANK = '0x' + 'f'.repeat(40)

/** Moves the mark (the last trade, no oracle) to `priceTicks`: CAROL rests 5 lots (over the 100 USDT minimum), DAVE takes them. */
export function tradeAt(ex: TestExchange, priceTicks: number): Event[] {
  ex.ok(limit(CAROL, 'SELL', priceTicks, 5))
  return ex.ok(limit(DAVE, 'BUY', priceTicks, 5)).events
}

/** The scenarios move the mark by 5–10 % in one trade to reach maintenance: without the price band. */
export function fresh(): TestExchange {
  const ex = new TestExchange(NO_BAND_GENESIS)
  ex.fund(BOB, 100_000)
  ex.fund(CAROL, 10_000)
  ex.fund(DAVE, 10_000)
  return ex
}

/** `who` goes long 0.5 BTC at `priceTicks` as the maker (fee 0.02 %), BOB selling. */
export function openLong(ex: TestExchange, who: string, priceTicks: number, usdt = 1_000): void {
  ex.fund(who, usdt)
  ex.ok(limit(who, 'BUY', priceTicks, 500))
  ex.ok(limit(BOB, 'SELL', priceTicks, 500))
}

/** Scenario A: ALICE long 0.5 at 30,000.0, wallet 997; the book absorbs her at 28,050.0. */
export function scenarioA(ex: TestExchange): Event[] {
  openLong(ex, ALICE, 300_000)
  // An open order of hers, which the liquidation cancels.
  ex.ok(limit(ALICE, 'SELL', 310_000, 100))
  ex.ok(limit(BOB, 'BUY', 280_500, 500))
  return tradeAt(ex, 281_000)
}

/** Scenario B (after A, fund 22): ERIN long 0.5 at 28,050.0; the only bid is below her bankruptcy price. */
export function scenarioB(ex: TestExchange): Event[] {
  openLong(ex, ERIN, 280_500)
  ex.ok(limit(BOB, 'BUY', 260_200, 500))
  return tradeAt(ex, 261_000)
}
