// Binance spot's pegged-order parameters (core/peg.ts): pegPriceType, and pegOffsetType with
// pegOffsetValue, sent together; an order list's orders prefix them (abovePegPriceType,
// workingPegOffsetValue, pendingBelowPegOffsetType...). Which orders take a peg the core says.

import type { PegPriceType } from '../core/commands.js'
import { LIMITS } from '../core/limits.js'
import { invalidParam, mandatoryParam } from './errors.js'
import { idParam, optional, type Params } from './market-params.js'

/** `pegPriceType` with its list prefix: `above` + `PegPriceType`. */
const named = (prefix: string, name: string): string => (prefix === '' ? name[0]!.toLowerCase() + name.slice(1) : prefix + name)

/** The peg a request's parameters (at `prefix`) ask for, as PlaceOrder's fields; none when it sends none. */
export function pegParams(p: Params, prefix = ''): { pegPriceType?: PegPriceType; pegOffsetLevels?: number } {
  const typeName = named(prefix, 'PegPriceType')
  const offsetTypeName = named(prefix, 'PegOffsetType')
  const offsetName = named(prefix, 'PegOffsetValue')
  const type = optional(p, typeName)
  const offsetType = optional(p, offsetTypeName)
  const offsetRaw = optional(p, offsetName)
  if (type === undefined && offsetType === undefined && offsetRaw === undefined) return {}
  if (type === undefined) throw mandatoryParam(typeName)
  if (type !== 'PRIMARY_PEG' && type !== 'MARKET_PEG') throw invalidParam(typeName)
  // The offset's two parameters come together.
  if ((offsetType === undefined) !== (offsetRaw === undefined)) throw mandatoryParam(offsetType === undefined ? offsetTypeName : offsetName)
  if (offsetType === undefined) return { pegPriceType: type }
  if (offsetType !== 'PRICE_LEVEL') throw invalidParam(offsetTypeName)
  const offset = idParam(p, offsetName)
  if (offset === undefined || offset > LIMITS.pegOffsetLevelsMax) throw invalidParam(offsetName)
  return { pegPriceType: type, pegOffsetLevels: offset }
}
