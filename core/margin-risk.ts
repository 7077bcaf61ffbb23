// Maintenance checks (API.md "Prices, funding, liquidation"): the margin that backs a
// sub-account's cross positions, or one isolated position, against the maintenance those
// positions require. The liquidation engine decides with these; positionRisk shows them.
// Until isolated margin exists every position is cross.

import { maintenanceMargin, positionNotional, unrealizedPnl } from './margin.js'
import type { PerpMarket, Position, State, SubAccount } from './state.js'

export interface Risk {
  /** Wallet plus unrealized PnL of the positions it backs, quote ledger units. */
  marginBalance: number
  /** Maintenance margin those positions require, quote ledger units. */
  maintenance: number
}

/** Maintenance margin of one position at the mark, by its market's brackets. */
export function positionMaintenance(m: PerpMarket, p: Position): number {
  if (p.qtyLots === 0) return 0
  return maintenanceMargin(m, positionNotional(m, p) * m.quotePerTickLot)
}

/** The cross side of a sub-account: its perp wallet and every cross position. */
export function crossRisk(state: State, sub: SubAccount): Risk {
  let marginBalance = sub.perpWallet
  let maintenance = 0
  for (const h of sub.perp.values()) {
    const m = state.markets[h.marketId] as PerpMarket
    for (const p of sub.dualSide ? [h.long, h.short] : [h.both]) {
      if (p.qtyLots === 0) continue
      marginBalance += unrealizedPnl(m, p)
      maintenance += positionMaintenance(m, p)
    }
  }
  return { marginBalance, maintenance }
}

/** Below maintenance: the account (or isolated position) is to be liquidated. */
export function belowMaintenance(r: Risk): boolean {
  return r.maintenance > 0 && r.marginBalance < r.maintenance
}
