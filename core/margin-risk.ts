// Maintenance checks (API.md "Prices, funding, liquidation"): the margin that backs a
// sub-account's cross positions, or one isolated position, against the maintenance those
// positions require, and the mark price at which the two would meet (the liquidation price).
// The liquidation engine decides with these; positionRisk shows them.

import { abs } from './arith.js'
import { maintenanceBracket, maintenanceMargin, positionNotional, unrealizedPnl } from './margin.js'
import { E8 } from './prices.js'
import type { PerpHolding, PerpMarket, Position, State, SubAccount } from './state.js'
import type { PositionSide } from './commands.js'
import { positionOf } from './state.js'

const PPM = 1_000_000n

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

/** The positions a holding can hold in the account's mode (one-way: BOTH; hedge: LONG, SHORT). */
function positionsOf(h: PerpHolding, dualSide: boolean): Position[] {
  return dualSide ? [h.long, h.short] : [h.both]
}

/** The cross side of a sub-account: its perp wallet and every cross position (isolated ones excluded). */
export function crossRisk(state: State, sub: SubAccount): Risk {
  return crossRiskExcept(state, sub, -1)
}

function crossRiskExcept(state: State, sub: SubAccount, exceptMarketId: number): Risk {
  let marginBalance = sub.perpWallet
  let maintenance = 0
  for (const h of sub.perp.values()) {
    if (h.marginType === 'ISOLATED' || h.marketId === exceptMarketId) continue
    const m = state.markets[h.marketId] as PerpMarket
    for (const p of positionsOf(h, sub.dualSide)) {
      if (p.qtyLots === 0) continue
      marginBalance += unrealizedPnl(m, p)
      maintenance += positionMaintenance(m, p)
    }
  }
  return { marginBalance, maintenance }
}

/** One isolated position: its isolated wallet plus unrealized PnL against its maintenance. */
export function isolatedRisk(m: PerpMarket, h: PerpHolding, positionSide: PositionSide): Risk {
  const p = positionOf(h, positionSide)
  if (h.marginType !== 'ISOLATED' || p.qtyLots === 0) return { marginBalance: p.isolatedWallet, maintenance: 0 }
  return { marginBalance: p.isolatedWallet + unrealizedPnl(m, p), maintenance: positionMaintenance(m, p) }
}

/** Below maintenance: the account (or isolated position) is to be liquidated. */
export function belowMaintenance(r: Risk): boolean {
  return r.maintenance > 0 && r.marginBalance < r.maintenance
}

/**
 * Binance's liquidation price of a position, E8 (1e-8 of the quote), half up; 0 when there is
 * none (flat, or a price at or below zero). A bigint: a short the wallet backs many times over
 * is liquidated only far away (a wallet of 1,000,000 behind a 0.009 BTC short: 110,528,218 USDT,
 * 1.1e16 in E8), beyond what a number holds exactly.
 *
 *   LP = (WB − TMM1 + UPNL1 + Σ cum − Σ side·size·entry) / (Σ size·MMR − Σ side·size)
 *
 * Cross: WB is the perp wallet, TMM1 and UPNL1 the maintenance and unrealized PnL of the cross
 * positions in other markets (held at today's mark), and the sums run over the market's cross
 * positions (BOTH, or LONG and SHORT, which share one price). Isolated: WB is the position's
 * isolated wallet, TMM1 = UPNL1 = 0, and the sums have that position alone. size·entry is the
 * position's cost. MMR and cum start as those of the bracket each position's notional at the
 * mark falls in; as Binance prescribes, when the notional at the price found falls in another
 * bracket, that bracket's are used and the price solved again (at most once per bracket).
 */
export function liquidationPrice(state: State, sub: SubAccount, m: PerpMarket, position: Position): bigint {
  const h = sub.perp.get(m.marketId)
  if (h === undefined || position.qtyLots === 0) return 0n
  const isolated = h.marginType === 'ISOLATED'
  const positions = (isolated ? [position] : positionsOf(h, sub.dualSide)).filter((p) => p.qtyLots !== 0)
  // WB − TMM1 + UPNL1, ledger units × 1e6 (cum is in those units too).
  let base: bigint
  if (isolated) {
    base = BigInt(position.isolatedWallet) * PPM
  } else {
    const others = crossRiskExcept(state, sub, m.marketId)
    base = BigInt(others.marginBalance - others.maintenance) * PPM
  }
  let notionals = positions.map((p) => positionNotional(m, p) * m.quotePerTickLot)
  let num = 0n
  let den = 0n
  for (let round = 0; round <= m.brackets.length; round++) {
    const brackets = notionals.map((n) => maintenanceBracket(m, n))
    num = base
    den = 0n
    positions.forEach((p, i) => {
      num += brackets[i]!.cumPpm - BigInt(p.costTicksLots) * BigInt(m.quotePerTickLot) * PPM
      den += BigInt(abs(p.qtyLots)) * brackets[i]!.mmrPpm - BigInt(p.qtyLots) * PPM
    })
    if (den < 0n) { num = -num; den = -den }
    if (den === 0n || num <= 0n) return 0n
    // The price is num / (den × quotePerTickLot) ticks, so a position's notional there is |qty| × num / den.
    const next = positions.map((p) => Number(BigInt(abs(p.qtyLots)) * num / den))
    const same = next.every((n, i) => {
      const b = maintenanceBracket(m, n)
      return b.mmrPpm === brackets[i]!.mmrPpm && b.cumPpm === brackets[i]!.cumPpm
    })
    if (same) break
    notionals = next
  }
  // Ticks × tickSize × 1e8 / 10^pricePrecision is E8.
  const n = num * BigInt(m.tickSize) * BigInt(E8)
  const d = den * BigInt(m.quotePerTickLot) * 10n ** BigInt(m.pricePrecision)
  return (2n * n + d) / (2n * d)
}
