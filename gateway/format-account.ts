// Account and position figures as Binance's account, balance and positionRisk responses show
// them, computed from the replica state with the core's margin arithmetic.

import { exposure, initialMargin, maintenanceMargin, marginView, maxNotionalAt, maxWithdrawable, NO_DELTA,
  positionInitialMargin, positionNotional, unrealizedPnl } from '../core/margin.js'
import { liquidationPrice, positionMaintenance } from '../core/margin-risk.js'
import { adlQuantiles } from '../core/liquidation/adl.js'
import type { PerpHolding, PerpMarket, Position, State, SubAccount } from '../core/state.js'
import { newHolding, positionOf } from '../core/state.js'
import { marginAsset } from '../core/wallet.js'
import { formatAvgPrice, formatBalance, formatPrice, formatQty, formatUnits } from './decimal.js'

export interface PositionRow {
  m: PerpMarket
  h: PerpHolding
  side: 'BOTH' | 'LONG' | 'SHORT'
  p: Position
  /** The owner (undefined for an account that never traded: every row flat). */
  sub: SubAccount | undefined
}

/** Every position row Binance lists: one per market in one-way mode, two in hedge mode. */
export function positionRows(state: State, sub: SubAccount | undefined, only?: PerpMarket): PositionRow[] {
  const rows: PositionRow[] = []
  const perps = state.markets.filter((m): m is PerpMarket => m?.kind === 'PERP' && (only === undefined || m === only))
  for (const m of perps) {
    const h = sub?.perp.get(m.marketId) ?? newHolding(m.marketId, m.defaultLeverage)
    const sides = sub?.dualSide ? (['LONG', 'SHORT'] as const) : (['BOTH'] as const)
    for (const side of sides) rows.push({ m, h, side, p: positionOf(h, side), sub })
  }
  return rows
}

const isIsolated = (r: PositionRow): boolean => r.h.marginType === 'ISOLATED'

/**
 * Whether a row's symbol has a position (either side) or open orders: the v3 account and
 * positionRisk list only those symbols, as Binance's v3 do.
 */
export function symbolHeld(r: PositionRow): boolean {
  const h = r.h
  return h.both.qtyLots !== 0 || h.long.qtyLots !== 0 || h.short.qtyLots !== 0 || (r.sub?.openByMarket.get(r.m.marketId) ?? 0) > 0
}

/** Binance's liquidation price: 8 decimals, "0" when there is none. */
function liquidationPriceText(state: State, r: PositionRow): string {
  const e8 = r.sub ? liquidationPrice(state, r.sub, r.m, r.p) : 0n
  return e8 === 0n ? '0' : formatUnits(e8, 8)
}

/**
 * Initial margin of a row's position and of the open orders that would add to it. In hedge mode
 * each row has its own side's position, and the holding's order margin is split by the side the
 * orders are for (their positionSide), so the two rows add up to the holding's total.
 */
function rowInitialMargins(r: PositionRow): { position: number; orders: number } {
  const lev = r.h.leverage
  const position = positionInitialMargin(r.m, r.p, lev)
  const dual = r.side !== 'BOTH'
  const total = initialMargin(r.m, exposure(r.m, r.h, dual, NO_DELTA), lev)
  if (!dual) return { position, orders: Math.max(0, total - position) }
  const orders = Math.max(0, total - positionInitialMargin(r.m, r.h.long, lev) - positionInitialMargin(r.m, r.h.short, lev))
  const shortOrders = Math.min(orders, initialMargin(r.m, sideOrdersNotional(r, 'SHORT'), lev))
  return { position, orders: r.side === 'SHORT' ? shortOrders : orders - shortOrders }
}

/** Notional (tick·lots) of the resting lots of a sub-account's orders in the row's market for one position side. */
function sideOrdersNotional(r: PositionRow, side: 'LONG' | 'SHORT'): number {
  let notional = 0
  for (const o of r.sub?.orders.values() ?? []) {
    if (o.market === r.m && o.positionSide === side && o.marginCounted) notional += (o.origQtyLots - o.executedQtyLots) * o.priceTicks
  }
  return notional
}

function quoteScale(state: State, m: PerpMarket): number {
  return state.assets.get(m.quote)!.scale
}

export function entryPrice(r: PositionRow): string {
  return formatAvgPrice(r.m, Math.abs(r.p.costTicksLots), Math.abs(r.p.qtyLots), r.m.pricePrecision)
}

/**
 * Binance's break-even price (its futures FAQ): (cost of the entries − what the partial closes
 * got back) / size, which is (entry cost − realized PnL since the position opened) / size,
 * fees and funding left out as there. Until a partial close it is the entry price; a close at
 * a profit lowers a long's and raises a short's. "0" when flat, and when the realized profit
 * already exceeds what is still at stake (no price loses money then).
 */
export function breakEvenPrice(m: PerpMarket, p: Pick<Position, 'qtyLots' | 'costTicksLots' | 'realizedSinceOpen'>): string {
  const u = BigInt(m.quotePerTickLot)
  const net = BigInt(p.costTicksLots) * u - BigInt(p.realizedSinceOpen)
  const size = BigInt(p.qtyLots) * u
  if (size === 0n || net === 0n || (net > 0n) !== (size > 0n)) return formatAvgPrice(m, 0, 0, m.pricePrecision)
  return formatAvgPrice(m, net < 0n ? -net : net, size < 0n ? -size : size, m.pricePrecision)
}

/** positionRisk's row (v1, v2 and v3 share it). */
export function positionRiskJson(state: State, r: PositionRow): object {
  const scale = quoteScale(state, r.m)
  const f = (n: number): string => formatBalance(n, scale)
  const notional = positionNotional(r.m, r.p) * r.m.quotePerTickLot
  const signedNotional = r.p.qtyLots < 0 ? -notional : notional
  const pnl = unrealizedPnl(r.m, r.p)
  const isolated = isIsolated(r)
  const im = rowInitialMargins(r)
  return {
    symbol: r.m.symbol, positionSide: r.side, positionAmt: formatQty(r.m, r.p.qtyLots),
    entryPrice: entryPrice(r), breakEvenPrice: breakEvenPrice(r.m, r.p),
    markPrice: formatPrice(r.m, r.m.markPriceTicks), unRealizedProfit: f(pnl),
    liquidationPrice: liquidationPriceText(state, r), leverage: String(r.h.leverage),
    maxNotionalValue: formatUnits(BigInt(maxNotionalAt(r.m, r.h.leverage)) / 10n ** BigInt(scale), 0),
    marginType: isolated ? 'isolated' : 'cross',
    // Binance: the isolated position's margin balance, wallet plus unrealized PnL.
    isolatedMargin: f(isolated ? r.p.isolatedWallet + pnl : 0), isAutoAddMargin: 'false',
    notional: f(signedNotional), marginAsset: r.m.quote, isolatedWallet: f(r.p.isolatedWallet),
    initialMargin: f(im.position + im.orders), maintMargin: f(positionMaintenance(r.m, r.p)),
    positionInitialMargin: f(im.position), openOrderInitialMargin: f(im.orders),
    // The ADL queue quantile, as /fapi/v1/adlQuantile gives it for the row's side (0 when flat).
    adl: r.p.qtyLots === 0 || r.sub === undefined ? 0 : adlQuantiles(state, r.m, r.sub)[r.side],
    bidNotional: f(r.h.buyNotional * r.m.quotePerTickLot), askNotional: f(r.h.sellNotional * r.m.quotePerTickLot),
    updateTime: r.p.updateTime,
  }
}

/** The account response's position row (spec: symbol, positionAmt, marginAmt; Binance's others). */
export function accountPositionJson(state: State, r: PositionRow): object {
  const scale = quoteScale(state, r.m)
  const notional = positionNotional(r.m, r.p) * r.m.quotePerTickLot
  const im = rowInitialMargins(r)
  return {
    symbol: r.m.symbol, positionSide: r.side, positionAmt: formatQty(r.m, r.p.qtyLots),
    marginAmt: formatBalance(im.position, scale),
    initialMargin: formatBalance(im.position + im.orders, scale), maintMargin: formatBalance(maintenanceMargin(r.m, notional), scale),
    unrealizedProfit: formatBalance(unrealizedPnl(r.m, r.p), scale), positionInitialMargin: formatBalance(im.position, scale),
    openOrderInitialMargin: formatBalance(im.orders, scale), leverage: String(r.h.leverage), isolated: isIsolated(r),
    // As positionRisk's: an isolated position's margin balance (wallet plus unrealized PnL), 0 for a cross one (v3 lists it).
    isolatedMargin: formatBalance(isIsolated(r) ? r.p.isolatedWallet + unrealizedPnl(r.m, r.p) : 0, scale),
    entryPrice: entryPrice(r), breakEvenPrice: breakEvenPrice(r.m, r.p),
    maxNotional: formatUnits(BigInt(maxNotionalAt(r.m, r.h.leverage)) / 10n ** BigInt(scale), 0),
    notional: formatBalance(r.p.qtyLots < 0 ? -notional : notional, scale), isolatedWallet: formatBalance(r.p.isolatedWallet, scale),
    updateTime: r.p.updateTime,
    bidNotional: formatBalance(r.h.buyNotional * r.m.quotePerTickLot, scale),
    askNotional: formatBalance(r.h.sellNotional * r.m.quotePerTickLot, scale),
  }
}

/** The account response (v1, v2, v3 share it; v3 lists `positions` of held symbols only). */
export function accountJson(state: State, sub: SubAccount | undefined, heldOnly = false): object {
  const asset = marginAsset(state) ?? 'USDT'
  const scale = state.assets.get(asset)?.scale ?? 6
  // The cross figures; isolated positions add their wallets, PnL and margin to the totals only.
  const v = sub ? marginView(state, sub) : { wallet: 0, unrealizedPnl: 0, initialMargin: 0, available: 0 }
  const rows = positionRows(state, sub)
  let maint = 0
  let positionIm = 0
  let isoWallet = 0
  let isoPnl = 0
  let isoIm = 0
  for (const r of rows) {
    const notional = positionNotional(r.m, r.p) * r.m.quotePerTickLot
    const im = Math.ceil(notional / r.h.leverage)
    maint += maintenanceMargin(r.m, notional)
    positionIm += im
    if (!isIsolated(r)) continue
    isoWallet += r.p.isolatedWallet
    isoPnl += unrealizedPnl(r.m, r.p)
    isoIm += im
  }
  const f = (n: number): string => formatBalance(n, scale)
  const maxWithdraw = sub ? maxWithdrawable(state, sub) : 0
  const available = Math.max(0, v.available)
  const wallet = v.wallet + isoWallet
  const pnl = v.unrealizedPnl + isoPnl
  const totalIm = v.initialMargin + isoIm
  const orderIm = Math.max(0, totalIm - positionIm)
  return {
    feeTier: 0, canTrade: true, canDeposit: true, canWithdraw: true, updateTime: 0, multiAssetsMargin: false, tradeGroupId: -1,
    totalInitialMargin: f(totalIm), totalMaintMargin: f(maint), totalWalletBalance: f(wallet),
    totalUnrealizedProfit: f(pnl), totalMarginBalance: f(wallet + pnl),
    totalPositionInitialMargin: f(positionIm), totalOpenOrderInitialMargin: f(orderIm),
    totalCrossWalletBalance: f(v.wallet), totalCrossUnPnl: f(v.unrealizedPnl), availableBalance: f(available),
    maxWithdrawAmount: f(maxWithdraw),
    assets: [{
      asset, walletBalance: f(wallet), unrealizedProfit: f(pnl), marginBalance: f(wallet + pnl),
      maintMargin: f(maint), initialMargin: f(totalIm), positionInitialMargin: f(positionIm),
      openOrderInitialMargin: f(orderIm), crossWalletBalance: f(v.wallet),
      crossUnPnl: f(v.unrealizedPnl), availableBalance: f(available), maxWithdrawAmount: f(maxWithdraw),
      marginAvailable: true, updateTime: state.time,
    }],
    positions: (heldOnly ? rows.filter(symbolHeld) : rows).map((r) => accountPositionJson(state, r)),
  }
}
