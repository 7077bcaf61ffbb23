// Binance spot's pegged orders: a limit price taken from the book as the order enters it.
// PRIMARY_PEG is the best price of the order's own side (it joins the back of that level),
// MARKET_PEG the best of the side it would trade against (it takes that level, and only
// prices as good); an offset (Binance's pegOffsetValue, pegOffsetType PRICE_LEVEL) names a
// level that many deeper instead. Levels are the book's existing prices, so every replica
// resolves the same ticks; without such a level the order is refused (Binance's "Order book
// liquidity is too low for this pegged order.").
//
// LIMIT and POST_ONLY (LIMIT_MAKER) orders take their price as they are placed; the limit forms
// of stops as they trigger, and an OTO list's pending orders as they are placed, so until then
// their priceTicks is 0. Once priced, a pegged order is a plain limit order: the peg does not
// follow the book. A price sent with the peg is checked by the filters and recorded as the
// order's price, not traded at.

import type { Code } from './codes.js'
import type { PegPriceType, PlaceOrder, Side } from './commands.js'
import { LIMITS } from './limits.js'
import type { Market, Order, Peg } from './state.js'

/** The core's own literal for a valid type, for the order to keep (core/filters.ts says why). */
function pegTypeOf(v: unknown): PegPriceType | null {
  return v === 'PRIMARY_PEG' ? 'PRIMARY_PEG' : v === 'MARKET_PEG' ? 'MARKET_PEG' : null
}

/**
 * The peg a command asks for (null: none), or why it is refused: spot LIMIT, POST_ONLY and the
 * limit stop forms only; POST_ONLY joins its own side only (PRIMARY_PEG), and a PRIMARY_PEG
 * limit order must be GTC (it could not trade as it enters, so an IOC or FOK would only expire).
 */
export function pegOf(m: Market, cmd: PlaceOrder): Peg | null | Code {
  if (cmd.pegPriceType === undefined && cmd.pegOffsetLevels === undefined) return null
  if (m.kind !== 'SPOT') return 'COMMAND_INVALID'
  const type = pegTypeOf(cmd.pegPriceType)
  const offset = cmd.pegOffsetLevels ?? 0
  if (type === null || !Number.isSafeInteger(offset) || offset < 0 || offset > LIMITS.pegOffsetLevelsMax) return 'PEG_INVALID'
  const t = cmd.orderType
  if (t !== 'LIMIT' && t !== 'POST_ONLY' && t !== 'STOP' && t !== 'TAKE_PROFIT') return 'PEG_ORDER_TYPE'
  if (t === 'POST_ONLY' ? type !== 'PRIMARY_PEG' : type === 'PRIMARY_PEG' && (cmd.timeInForce ?? 'GTC') !== 'GTC') return 'PEG_TYPE_MISMATCH'
  return { type, offsetLevels: offset, sentPriceTicks: cmd.priceTicks ?? 0 }
}

/** The price a peg gives an order on `side` now, or PEG_NO_DEPTH when the book has no such level. */
export function peggedPrice(m: Market, side: Side, peg: Peg): number | Code {
  const isBuy = side === 'BUY'
  // Levels are kept worst first, best last.
  const levels = m.book.side(peg.type === 'MARKET_PEG' ? !isBuy : isBuy).levels
  const i = levels.length - 1 - peg.offsetLevels
  return i >= 0 ? levels[i]!.priceTicks : 'PEG_NO_DEPTH'
}

/**
 * A pegged stop's limit order entering the book at its trigger: its price from the book, held
 * to the filter that price could fail (the notional), or why not.
 */
export function priceAtEntry(m: Market, o: Order): Code | null {
  const price = peggedPrice(m, o.side, o.peg!)
  if (typeof price === 'string') return price
  if (price * (o.origQtyLots - o.executedQtyLots) * m.quotePerTickLot < m.minNotional) return 'NOTIONAL_TOO_SMALL'
  o.priceTicks = price
  return null
}
