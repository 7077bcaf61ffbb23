// Account and position figures as Binance's account, balance and positionRisk responses show
// them, computed from the replica state with the core's margin arithmetic.

import { exposure, initialMargin, maintenanceMargin, marginView, maxNotionalAt, maxWithdrawable, NO_DELTA,
  positionNotional, unrealizedPnl } from '../core/margin.js'
import type { PerpHolding, PerpMarket, Position, State, SubAccount } from '../core/state.js'
import { positionOf } from '../core/state.js'
import { marginAsset } from '../core/wallet.js'
import { formatAvgPrice, formatBalance, formatPrice, formatQty, formatUnits } from './decimal.js'

export interface PositionRow {
  m: PerpMarket
  h: PerpHolding
  side: 'BOTH' | 'LONG' | 'SHORT'
  p: Position
}

/** Every position row Binance lists: one per market in one-way mode, two in hedge mode. */
export function positionRows(state: State, sub: SubAccount | undefined, only?: PerpMarket): PositionRow[] {
  const rows: PositionRow[] = []
  const perps = state.markets.filter((m): m is PerpMarket => m?.kind === 'PERP' && (only === undefined || m === only))
  for (const m of perps) {
    const h = sub?.perp.get(m.marketId)
    const sides = sub?.dualSide ? (['LONG', 'SHORT'] as const) : (['BOTH'] as const)
    for (const side of sides) {
      const holding = h ?? { marketId: m.marketId, leverage: m.defaultLeverage, both: zero(), long: zero(), short: zero(),
        buyLots: 0, buyNotional: 0, sellLots: 0, sellNotional: 0 }
      rows.push({ m, h: holding, side, p: positionOf(holding, side) })
    }
  }
  return rows
}

function zero(): Position {
  return { qtyLots: 0, costTicksLots: 0, updateTime: 0 }
}

function quoteScale(state: State, m: PerpMarket): number {
  return state.assets.get(m.quote)!.scale
}

export function entryPrice(r: PositionRow): string {
  return formatAvgPrice(r.m, Math.abs(r.p.costTicksLots), Math.abs(r.p.qtyLots), r.m.pricePrecision)
}

/** positionRisk's row. Liquidation price arrives with the liquidation engine. */
export function positionRiskJson(state: State, r: PositionRow): object {
  const scale = quoteScale(state, r.m)
  const notional = positionNotional(r.m, r.p) * r.m.quotePerTickLot
  const signedNotional = r.p.qtyLots < 0 ? -notional : notional
  return {
    symbol: r.m.symbol, positionSide: r.side, positionAmt: formatQty(r.m, r.p.qtyLots),
    entryPrice: entryPrice(r), breakEvenPrice: entryPrice(r),
    markPrice: formatPrice(r.m, r.m.markPriceTicks), unRealizedProfit: formatBalance(unrealizedPnl(r.m, r.p), scale),
    liquidationPrice: '0', leverage: String(r.h.leverage), maxNotionalValue: formatUnits(BigInt(maxNotionalAt(r.m, r.h.leverage)) / 10n ** BigInt(scale), 0),
    marginType: 'cross', isolatedMargin: formatBalance(0, scale), isAutoAddMargin: 'false',
    notional: formatBalance(signedNotional, scale), isolatedWallet: '0', updateTime: r.p.updateTime,
  }
}

/** The account response's position row (spec: symbol, positionAmt, marginAmt; Binance's others). */
export function accountPositionJson(state: State, sub: SubAccount | undefined, r: PositionRow): object {
  const scale = quoteScale(state, r.m)
  const notional = positionNotional(r.m, r.p) * r.m.quotePerTickLot
  const positionIm = Math.ceil(notional / r.h.leverage)
  const totalIm = initialMargin(r.m, exposure(r.m, r.h, sub?.dualSide ?? false, NO_DELTA), r.h.leverage)
  const orderIm = r.side === 'SHORT' ? 0 : Math.max(0, totalIm - positionIm)
  return {
    symbol: r.m.symbol, positionSide: r.side, positionAmt: formatQty(r.m, r.p.qtyLots),
    marginAmt: formatBalance(positionIm, scale),
    initialMargin: formatBalance(positionIm + orderIm, scale), maintMargin: formatBalance(maintenanceMargin(r.m, notional), scale),
    unrealizedProfit: formatBalance(unrealizedPnl(r.m, r.p), scale), positionInitialMargin: formatBalance(positionIm, scale),
    openOrderInitialMargin: formatBalance(orderIm, scale), leverage: String(r.h.leverage), isolated: false,
    entryPrice: entryPrice(r), breakEvenPrice: entryPrice(r),
    maxNotional: formatUnits(BigInt(maxNotionalAt(r.m, r.h.leverage)) / 10n ** BigInt(scale), 0),
    notional: formatBalance(r.p.qtyLots < 0 ? -notional : notional, scale), isolatedWallet: '0', updateTime: r.p.updateTime,
    bidNotional: formatBalance(r.h.buyNotional * r.m.quotePerTickLot, scale), askNotional: formatBalance(r.h.sellNotional * r.m.quotePerTickLot, scale),
  }
}

/** The account response (v1, v2, v3 share it). */
export function accountJson(state: State, sub: SubAccount | undefined): object {
  const asset = marginAsset(state) ?? 'USDT'
  const scale = state.assets.get(asset)?.scale ?? 6
  const v = sub ? marginView(state, sub) : { wallet: 0, unrealizedPnl: 0, initialMargin: 0, available: 0 }
  const rows = positionRows(state, sub)
  let maint = 0
  let positionIm = 0
  for (const r of rows) {
    const notional = positionNotional(r.m, r.p) * r.m.quotePerTickLot
    maint += maintenanceMargin(r.m, notional)
    positionIm += Math.ceil(notional / r.h.leverage)
  }
  const f = (n: number): string => formatBalance(n, scale)
  const maxWithdraw = sub ? maxWithdrawable(state, sub) : 0
  const available = Math.max(0, v.available)
  return {
    feeTier: 0, canTrade: true, canDeposit: true, canWithdraw: true, updateTime: 0, multiAssetsMargin: false, tradeGroupId: -1,
    totalInitialMargin: f(v.initialMargin), totalMaintMargin: f(maint), totalWalletBalance: f(v.wallet),
    totalUnrealizedProfit: f(v.unrealizedPnl), totalMarginBalance: f(v.wallet + v.unrealizedPnl),
    totalPositionInitialMargin: f(positionIm), totalOpenOrderInitialMargin: f(Math.max(0, v.initialMargin - positionIm)),
    totalCrossWalletBalance: f(v.wallet), totalCrossUnPnl: f(v.unrealizedPnl), availableBalance: f(available),
    maxWithdrawAmount: f(maxWithdraw),
    assets: [{
      asset, walletBalance: f(v.wallet), unrealizedProfit: f(v.unrealizedPnl), marginBalance: f(v.wallet + v.unrealizedPnl),
      maintMargin: f(maint), initialMargin: f(v.initialMargin), positionInitialMargin: f(positionIm),
      openOrderInitialMargin: f(Math.max(0, v.initialMargin - positionIm)), crossWalletBalance: f(v.wallet),
      crossUnPnl: f(v.unrealizedPnl), availableBalance: f(available), maxWithdrawAmount: f(maxWithdraw),
      marginAvailable: true, updateTime: state.time,
    }],
    positions: rows.map((r) => accountPositionJson(state, sub, r)),
  }
}
