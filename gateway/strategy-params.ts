// Binance spot's order strategy tags (core/strategy.ts): strategyId (a LONG) and strategyType (an
// INT, at least 1,000,000); an order list's orders prefix them (aboveStrategyId,
// workingStrategyType, pendingBelowStrategyId…; the older order/oco: limitStrategyId, stopStrategyType).

import { LIMITS } from '../core/limits.js'
import { fromCore, invalidParam } from './errors.js'
import { unsigned, type Params } from './market-params.js'

/** `strategyId` with its list prefix: `above` + `StrategyId`. */
const named = (prefix: string, name: string): string => (prefix === '' ? name[0]!.toLowerCase() + name.slice(1) : prefix + name)

/**
 * The tags a request's parameters (at `prefix`) give its order, as PlaceOrder's fields; none when
 * it sends none. Not digits: -1100 with Binance's integer range; past what we keep (a strategyId
 * above 2^53 − 1, a strategyType above 2^31 − 1): -1130; a strategyType under 1,000,000: -1134.
 */
export function strategyParams(p: Params, prefix = ''): { strategyId?: number; strategyType?: number } {
  const idName = named(prefix, 'StrategyId')
  const typeName = named(prefix, 'StrategyType')
  const id = unsigned(p, idName)
  const type = unsigned(p, typeName)
  if (id !== undefined && id > BigInt(LIMITS.strategyIdMax)) throw invalidParam(idName)
  if (type !== undefined && type > BigInt(LIMITS.strategyTypeMax)) throw invalidParam(typeName)
  if (type !== undefined && type < BigInt(LIMITS.strategyTypeMin)) throw fromCore('STRATEGY_TYPE_INVALID', { venue: 'spot', op: 'place' })
  return { ...(id !== undefined ? { strategyId: Number(id) } : {}), ...(type !== undefined ? { strategyType: Number(type) } : {}) }
}
