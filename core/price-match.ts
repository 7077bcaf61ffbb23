// Binance's priceMatch: an order's price taken from the book as the command is applied, so
// every replica resolves it to the same ticks. OPPONENT is the best level of the side the
// order would trade against, OPPONENT_5/10/20 that side's 5th/10th/20th level (its last when
// it has fewer); QUEUE and QUEUE_n the same levels of the order's own side.

import type { Code } from './codes.js'
import type { PriceMatch, Side } from './commands.js'
import type { Market } from './state.js'

const MODES: Record<PriceMatch, [opponent: boolean, level: number]> = {
  NONE: [false, 0],
  OPPONENT: [true, 1], OPPONENT_5: [true, 5], OPPONENT_10: [true, 10], OPPONENT_20: [true, 20],
  QUEUE: [false, 1], QUEUE_5: [false, 5], QUEUE_10: [false, 10], QUEUE_20: [false, 20],
}

export function isPriceMatch(v: unknown): v is PriceMatch {
  return typeof v === 'string' && Object.prototype.hasOwnProperty.call(MODES, v)
}

const MODE_NAMES = Object.keys(MODES) as PriceMatch[]

/** The core's own literal for a valid mode, for an order to keep (core/filters.ts says why). */
export function priceMatchLiteral(mode: PriceMatch): PriceMatch {
  return MODE_NAMES.find((name) => name === mode)!
}

/** The price in ticks a priceMatch mode names for an order on `side`, or why there is none. */
export function resolvePriceMatch(m: Market, side: Side, mode: PriceMatch): number | Code {
  if (!isPriceMatch(mode) || mode === 'NONE') return 'PRICE_MATCH_INVALID'
  const [opponent, n] = MODES[mode]
  const isBuy = side === 'BUY'
  // Levels are kept worst first, best last.
  const levels = m.book.side(opponent ? !isBuy : isBuy).levels
  if (levels.length === 0) return 'PRICE_MATCH_NO_DEPTH'
  return levels[Math.max(0, levels.length - n)]!.priceTicks
}
