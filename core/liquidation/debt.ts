// A cross wallet in debt with no cross position to liquidate. A trader's own close of an
// isolated position below its bankruptcy price (a thin book) leaves its isolated wallet below
// zero, and the close hands that back to the cross wallet (core/isolated.ts); a cross position
// closed the same way does the same directly. When that takes the wallet below zero, the
// insurance fund pays the debt as far as it goes, as it pays a liquidation's shortfall; what
// it cannot pay stays on record, the cross side flagged in liquidation until the wallet is
// whole again (core/liquidation/check.ts).

import type { Event } from '../events.js'
import type { Risk } from '../margin-risk.js'
import type { PerpMarket, State, SubAccount } from '../state.js'
import { dropBudget } from './budget.js'
import { insuranceBalance, moveFund } from './insurance.js'

/**
 * Pays the sub-account's negative perp wallet from the fund, as far as the fund goes, and
 * returns the cross side's risk after (no maintenance: there is no cross position). The fund
 * event names the sub-account's first perp market: a debt has no market of its own.
 */
export function coverDebt(state: State, sub: SubAccount, time: number, events: Event[]): Risk {
  const first = sub.perp.values().next()
  if (first.done === true) return { marginBalance: sub.perpWallet, maintenance: 0 }
  const m = state.markets[first.value.marketId] as PerpMarket
  const cover = Math.min(-sub.perpWallet, insuranceBalance(state, m.quote))
  if (cover > 0) {
    sub.perpWallet += cover
    dropBudget(sub)
    moveFund(state, { asset: m.quote, amount: -cover, reason: 'SHORTFALL', account: sub.address, sub: sub.sub,
      marketId: m.marketId, positionSide: 'BOTH' }, sub.perpWallet, undefined, time, events)
  }
  return { marginBalance: sub.perpWallet, maintenance: 0 }
}
