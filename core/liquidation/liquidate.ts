// Liquidating one target: a cross account (all its cross positions) or one isolated position.
// The sequence (docs/CORE.md "Liquidation"):
//
//   1. Cancel the target's open orders: every perp order of a cross account (conditional ones
//      too), the market's orders for an isolated position.
//   2. Per position, an IOC order of type LIQUIDATION (client id autoclose-<market>-<orderId>)
//      for the whole position, limit the bankruptcy price: the book takes what it can at that
//      price or better. No trading fee.
//   3. If lots remain and the insurance fund has money, the same order sweeps on down to the
//      price at which the fund's whole balance would cover the loss (fund-backed close).
//   4. Clearance fee: ceil(filled notional × liquidationFeePpm / 1e6), capped by the margin
//      balance left (never below zero), from the wallet to the fund.
//   5. Shortfall: a margin balance below zero is paid by the fund, as far as it goes.
//   6. Lots still left are auto-deleveraged at the bankruptcy price recomputed now (adl.ts),
//      and a shortfall left by price clamping is offered to the fund once more.
//
// The bankruptcy price is where closing the position leaves the margin balance at zero:
//   P = (cost × k − E) / (qty × k)   (E: the margin balance without this position's PnL;
//   k: quote units per tick·lot), rounded up for a long (the sale must fetch at least it),
//   down for a short, within the market's price filter. A cross position's E is the perp
//   wallet plus the other cross positions' PnL; an isolated position's, its isolated wallet
//   and (rules 7) what the book's partial closes of it returned to the cross wallet since the
//   liquidation began.

import { abs, mulDivCeil } from '../arith.js'
import { cancelConditionals } from '../conditional.js'
import type { Event } from '../events.js'
import { unrealizedPnl } from '../margin.js'
import { crossRisk, isolatedRisk } from '../margin-risk.js'
import { sweep } from '../match.js'
import { orderEvent } from '../records.js'
import { retire } from '../resting.js'
import { ISOLATED_LIQUIDATION_MARGIN, rulesOf } from '../rules.js'
import { positionOf, type Order, type PerpHolding, type PerpMarket, type State, type SubAccount } from '../state.js'
import type { PositionSide } from '../commands.js'
import { autoDeleverage } from './adl.js'
import { dropBudget } from './budget.js'
import { IN_LIQUIDATION, setFlag, targetKey, type Target } from './check.js'
import { insuranceBalance, moveFund } from './insurance.js'
import { forceOrderEvent } from './records.js'

const PPM = 1_000_000

/** One position being closed, and how its margin is read and moved. */
interface Closing {
  sub: SubAccount
  m: PerpMarket
  h: PerpHolding
  side: PositionSide
  isolated: boolean
  /** The cross wallet when an isolated position's liquidation began (what it returned since counts as its margin). */
  crossBefore: number
}

/**
 * Liquidates the target. Adds every sub-account whose money or positions moved to `touched`
 * and every market that traded to `traded`.
 */
export function liquidate(state: State, sub: SubAccount, t: Target, time: number, events: Event[],
  touched: Set<SubAccount>, traded: Set<PerpMarket>): void {
  setFlag(state, sub, targetKey(t), IN_LIQUIDATION, true)
  touched.add(sub)
  cancelOrders(state, sub, t.kind === 'CROSS' ? -1 : t.m.marketId, time, events)
  const closings: Closing[] = []
  if (t.kind === 'ISOLATED') {
    closings.push({ sub, m: t.m, h: t.h, side: t.side, isolated: true, crossBefore: sub.perpWallet })
  } else {
    for (const h of sub.perp.values()) {
      if (h.marginType === 'ISOLATED') continue
      const m = state.markets[h.marketId] as PerpMarket
      for (const side of ['BOTH', 'LONG', 'SHORT'] as const) {
        if (positionOf(h, side).qtyLots !== 0) closings.push({ sub, m, h, side, isolated: false, crossBefore: 0 })
      }
    }
  }
  for (const c of closings) {
    // A halted market cannot trade: its position waits, in liquidation, for the market to reopen.
    if (c.m.status !== 'TRADING') continue
    // Flat already: in hedge mode an earlier closing's auto-deleveraging can take this very
    // sub-account's opposite side as its counterparty.
    if (positionOf(c.h, c.side).qtyLots === 0) continue
    // Only a close that filled something counts as progress: lots no one can take (an empty
    // book, no fund, no solvent counterparty) wait, flagged, for the next price move rather
    // than being offered again and again within this one.
    if (closePosition(state, c, time, events, touched)) traded.add(c.m)
  }
}

/** Step 1: the open orders go, conditional ones first (they sit outside the book). */
function cancelOrders(state: State, sub: SubAccount, marketId: number, time: number, events: Event[]): void {
  cancelConditionals(state, sub, marketId, time, events)
  const mine: Order[] = []
  for (const o of sub.orders.values()) {
    if (o.market.kind === 'PERP' && (marketId === -1 || o.market.marketId === marketId)) mine.push(o)
  }
  for (const o of mine) retire(o, 'CANCELED', 'CANCELED', time, events)
}

/** Margin balance behind the position now (may be negative). */
function marginLeft(state: State, c: Closing): number {
  if (!c.isolated) return crossRisk(state, c.sub).marginBalance
  return isolatedRisk(c.m, c.h, c.side).marginBalance + returned(c)
}

/** What an isolated position's partial closes returned to the cross wallet since its liquidation began (still its margin). */
function returned(c: Closing): number {
  return c.sub.perpWallet - c.crossBefore
}

/** Moves `amount` into (negative: out of) the wallet backing the position; returns [cross, isolated?] after. */
function adjust(c: Closing, amount: number): [number, number | undefined] {
  const p = positionOf(c.h, c.side)
  dropBudget(c.sub)
  if (c.isolated && p.qtyLots !== 0) {
    p.isolatedWallet += amount
    return [c.sub.perpWallet, p.isolatedWallet]
  }
  c.sub.perpWallet += amount
  return [c.sub.perpWallet, undefined]
}

/** The price at which closing the position leaves `extra` + its margin balance at zero (see the top). */
export function bankruptcyPrice(state: State, c: Closing, extra: number): number {
  const { m } = c
  const p = positionOf(c.h, c.side)
  const k = BigInt(m.quotePerTickLot)
  const isolated = rulesOf(state) >= ISOLATED_LIQUIDATION_MARGIN ? p.isolatedWallet + returned(c) : p.isolatedWallet
  const e = BigInt(c.isolated ? isolated : crossRisk(state, c.sub).marginBalance - unrealizedPnl(m, p)) + BigInt(extra)
  const num = BigInt(p.costTicksLots) * k - e
  const den = BigInt(p.qtyLots) * k
  // Long: ceil(num / den), den > 0. Short: floor(num / den) with den < 0, i.e. floor(-num / -den).
  let ticks: bigint
  if (den > 0n) ticks = num <= 0n ? 0n : (num + den - 1n) / den
  else ticks = -num <= 0n ? 0n : -num / -den
  const clamped = ticks < BigInt(m.minPriceTicks) ? m.minPriceTicks : ticks > BigInt(m.maxPriceTicks) ? m.maxPriceTicks : Number(ticks)
  return clamped
}

/** Closes what it can of one position; true when some of it closed. */
function closePosition(state: State, c: Closing, time: number, events: Event[], touched: Set<SubAccount>): boolean {
  const { m, sub } = c
  const p = positionOf(c.h, c.side)
  const bankruptcy = bankruptcyPrice(state, c, 0)
  const o: Order = {
    orderId: m.nextOrderId++, market: m, owner: sub, clientOrderId: '',
    side: p.qtyLots > 0 ? 'SELL' : 'BUY', orderType: 'LIQUIDATION', timeInForce: 'IOC', priceTicks: bankruptcy,
    origQtyLots: abs(p.qtyLots), executedQtyLots: 0, cumQuoteTicksLots: 0, status: 'NEW', positionSide: c.side,
    reduceOnly: c.side === 'BOTH', stp: 'NONE', goodTillDate: 0, time, updateTime: time,
    marginCounted: false, lockedRemaining: 0, level: null, prev: null, next: null, cond: null, amendCount: 0, priceMatch: undefined, quoteQty: 0, quoteShort: false, list: null, icebergLots: 0, visibleLots: 0, peg: null, preventedLots: 0, preventedMatchId: -1, strategyId: -1, strategyType: 0,
  }
  o.clientOrderId = `autoclose-${m.marketId}-${o.orderId}`
  events.push(orderEvent(o, 'NEW'))

  // Steps 2 and 3: the book, at the bankruptcy price, then as far as the fund reaches.
  const first = events.length
  sweep(state, m, o, time, events)
  const fund = insuranceBalance(state, m.quote)
  if (o.executedQtyLots < o.origQtyLots && fund > 0) {
    o.priceTicks = bankruptcyPrice(state, c, fund)
    sweep(state, m, o, time, events)
    o.priceTicks = bankruptcy
  }
  for (let i = first; i < events.length; i++) {
    const e = events[i]!
    if (e.type === 'trade') touched.add(state.accounts.get(e.maker.account)!.subs[e.maker.sub]!)
  }

  // Step 4: the clearance fee, from what margin is left.
  const feeDue = mulDivCeil(o.cumQuoteTicksLots * m.quotePerTickLot, m.liquidationFeePpm, PPM)
  const fee = Math.min(feeDue, Math.max(0, marginLeft(state, c)))
  if (fee > 0) fundMove(state, c, fee, 'LIQUIDATION_FEE', time, events)
  // Step 5: a shortfall, from the fund.
  coverShortfall(state, c, time, events)

  // Step 6: what is left, against opposite positions at the bankruptcy price of now.
  if (o.executedQtyLots < o.origQtyLots) {
    const price = bankruptcyPrice(state, c, 0)
    const before = o.executedQtyLots
    autoDeleverage(state, m, o, price, time, events, touched)
    if (o.executedQtyLots > before) coverShortfall(state, c, time, events)
  }
  if (o.executedQtyLots < o.origQtyLots) {
    o.status = 'EXPIRED'
    o.updateTime = time
    events.push(orderEvent(o, 'EXPIRED'))
  }
  events.push(forceOrderEvent(o, 'LIQUIDATION', lastFillLots(events, first, o)))
  return o.executedQtyLots > 0
}

function coverShortfall(state: State, c: Closing, time: number, events: Event[]): void {
  const owed = -marginLeft(state, c)
  const cover = Math.min(owed, insuranceBalance(state, c.m.quote))
  if (cover > 0) fundMove(state, c, -cover, 'SHORTFALL', time, events)
}

/** Moves `toFund` (negative: from the fund) between the position's wallet and the fund. */
function fundMove(state: State, c: Closing, toFund: number, reason: 'LIQUIDATION_FEE' | 'SHORTFALL', time: number,
  events: Event[]): void {
  const [wallet, isolatedWallet] = adjust(c, -toFund)
  moveFund(state, { asset: c.m.quote, amount: toFund, reason, account: c.sub.address, sub: c.sub.sub,
    marketId: c.m.marketId, positionSide: c.side }, wallet, isolatedWallet, time, events)
}

/** Lots of the order's newest fill among the events since `first` (0 if none). */
function lastFillLots(events: Event[], first: number, o: Order): number {
  for (let i = events.length - 1; i >= first; i--) {
    const e = events[i]!
    if (e.type === 'trade' && e.marketId === o.market.marketId && e.taker.orderId === o.orderId) return e.qtyLots
  }
  return 0
}
