// The user data stream's liquidation events (core/liquidation): MARGIN_CALL when an account
// or isolated position reaches the warning level, and the balance change a liquidation's
// insurance-fund move makes (ACCOUNT_UPDATE, reason INSURANCE_CLEAR). A liquidation's and an
// ADL's orders and fills reach the stream as any order's do (ORDER_TRADE_UPDATE, client ids
// autoclose-… and adl_autoclose, type LIQUIDATION).

import type { InsuranceEvent, MarginCallEvent } from '../../core/events.js'
import type { PerpMarket, State } from '../../core/state.js'
import { formatBalance, formatPrice, formatQty } from '../decimal.js'

type Payload = Record<string, unknown>

/** Binance MARGIN_CALL: cw (cross wallet, cross only) and one row per position at risk. */
export function marginCallPayload(state: State, e: MarginCallEvent, time: number): Payload {
  const first = e.positions[0]
  const quote = first !== undefined ? (state.markets[first.marketId] as PerpMarket).quote : undefined
  const scale = quote !== undefined ? state.assets.get(quote)?.scale ?? 0 : 0
  const isolated = first?.marginType === 'ISOLATED'
  return {
    e: 'MARGIN_CALL', E: time,
    ...(isolated ? {} : { cw: formatBalance(e.wallet, scale) }),
    p: e.positions.map((p) => {
      const m = state.markets[p.marketId] as PerpMarket
      return {
        s: m.symbol, ps: p.positionSide, pa: formatQty(m, p.qtyLots), mt: p.marginType, iw: formatBalance(p.isolatedWallet, scale),
        mp: formatPrice(m, p.markPriceTicks), up: formatBalance(p.unrealizedPnl, scale), mm: formatBalance(p.maintenance, scale),
      }
    }),
  }
}

/** The wallet after a clearance fee (out) or a covered shortfall (in): ACCOUNT_UPDATE, INSURANCE_CLEAR. */
export function insurancePayload(state: State, e: InsuranceEvent, time: number): Payload {
  const scale = state.assets.get(e.asset)?.scale ?? 0
  const wallet = formatBalance(e.wallet, scale)
  return {
    e: 'ACCOUNT_UPDATE', E: time, T: time,
    a: { m: 'INSURANCE_CLEAR', B: [{ a: e.asset, wb: wallet, cw: wallet, bc: formatBalance(-e.amount, scale) }], P: [] },
  }
}
