// Binance spot's order strategy tags (rules 7): strategyId, the client's number for the order
// within a strategy, and strategyType, the strategy's (below 1,000,000 reserved). The core only
// keeps them on the order and its records; nothing trades otherwise for them.

import type { Code } from './codes.js'
import type { PlaceOrder } from './commands.js'
import { LIMITS } from './limits.js'
import { ORDER_STRATEGIES, rulesOf } from './rules.js'
import type { Market, Order, State } from './state.js'

/** An order's tags as the Order keeps them: -1 and 0 for none. */
export interface Strategy {
  id: number
  type: number
}

const NONE: Strategy = Object.freeze({ id: -1, type: 0 })

/**
 * The tags `cmd` gives its order, or why not: under rules below 7 none (the fields are ignored,
 * as older builds did); a perpetual's are COMMAND_INVALID (Binance USD-M has none); a strategyId
 * must be an integer 0..2^53 − 1, a strategyType one up to 2^31 − 1 (COMMAND_INVALID) and at
 * least 1,000,000 (STRATEGY_TYPE_INVALID, Binance's -1134).
 */
export function strategyOf(state: State, m: Market, cmd: PlaceOrder): Strategy | Code {
  const { strategyId: id, strategyType: type } = cmd
  if ((id === undefined && type === undefined) || rulesOf(state) < ORDER_STRATEGIES) return NONE
  if (m.kind !== 'SPOT') return 'COMMAND_INVALID'
  if (id !== undefined && (!Number.isSafeInteger(id) || id < 0 || id > LIMITS.strategyIdMax)) return 'COMMAND_INVALID'
  if (type !== undefined && (!Number.isSafeInteger(type) || type > LIMITS.strategyTypeMax)) return 'COMMAND_INVALID'
  if (type !== undefined && type < LIMITS.strategyTypeMin) return 'STRATEGY_TYPE_INVALID'
  return { id: id ?? -1, type: type ?? 0 }
}

/** Puts the tags on a built order (every new order has none). */
export function tag(o: Order, s: Strategy): Order {
  o.strategyId = s.id
  o.strategyType = s.type
  return o
}
