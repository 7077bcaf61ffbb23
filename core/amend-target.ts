// The order an amendment names, for both kinds: a perpetual modify (core/modify.ts) and a spot
// amendment keeping priority (core/amend-quantity.ts) look it up, and refuse, alike.

import { findSub, validIssuer } from './accounts.js'
import type { Code } from './codes.js'
import type { Issuer } from './commands.js'
import { openOrderNamed } from './resting.js'
import type { Market, Order, State, SubAccount } from './state.js'

interface AmendRef extends Issuer {
  marketId: number
  orderId?: number
  clientOrderId?: string
}

export interface AmendTarget<M extends Market> {
  m: M
  sub: SubAccount
  o: Order
}

/** The market (of `kind`), sub-account and open order `cmd` names (resting.ts openOrderNamed), or why not. */
export function amendTarget<K extends Market['kind']>(state: State, cmd: AmendRef, kind: K): AmendTarget<Extract<Market, { kind: K }>> | Code {
  const m = state.markets[cmd.marketId]
  if (m === undefined || !Number.isInteger(cmd.marketId) || m.kind !== kind) return 'MARKET_UNKNOWN'
  const sub = findSub(state, cmd)
  if (sub === undefined && !validIssuer(cmd)) return 'ACCOUNT_INVALID'
  if (cmd.orderId === undefined && cmd.clientOrderId === undefined) return 'ORDER_ID_REQUIRED'
  if (sub === undefined) return 'ORDER_UNKNOWN'
  // Open orders: resting, or waiting for a trigger (a perpetual modify refuses those by type).
  const o = openOrderNamed(m, sub, cmd)
  if (o === undefined) return 'ORDER_UNKNOWN'
  return { m: m as Extract<Market, { kind: K }>, sub, o }
}
