// The reference liquidation engine, written from docs/CORE.md "Liquidation" rather than from
// core/liquidation: after every accepted order command in a perpetual market, scan every
// sub-account, take the smallest (address, sub-account) whose cross margin balance is below
// its maintenance, liquidate it, and scan again, until none is left (or none can be helped:
// its markets are halted). No caches, no triggers: this is what the core's watch must equal.
// The model streams trade cross positions only (no isolated margin).

import type { PositionSide, Side } from '../../core/commands.js'
import type { OrderStatus } from '../../core/events.js'
import { remainingLots, type RefOrder } from './reference-book.js'
import { ceilDiv, movePosition, PPM, type RefMarket, type RefSub } from './reference-ledger.js'
import type { Observed } from './observe.js'

/** What the exchange lends this module (its sweep and order bookkeeping). */
export interface LiquidationHooks {
  markets: Map<number, RefMarket>
  subs: Map<string, RefSub>
  insurance: Map<string, bigint>
  sweep(m: RefMarket, taker: RefOrder, out: Observed[]): void
  /** The sub-account's resting orders in rest order. */
  openOrders(key: string): RefOrder[]
  cancel(o: RefOrder, out: Observed[]): void
  observe(o: RefOrder, execType: string): Observed
}

const big = BigInt
const SIDES: readonly PositionSide[] = ['BOTH', 'LONG', 'SHORT']
const absB = (n: bigint): bigint => (n < 0n ? -n : n)

function notional(m: RefMarket, qty: number, cost: bigint): bigint {
  return (m.markPriceTicks > 0 ? absB(big(qty)) * big(m.markPriceTicks) : absB(cost)) * m.quotePerTickLot
}

/** Bracket maintenance: ceil((N × mmr − cum) / 1e6), cum making the rate steps continuous. */
function maintenance(m: RefMarket, n: bigint): bigint {
  let cum = 0n
  for (let i = 0; i < m.brackets.length; i++) {
    const b = m.brackets[i]!
    if (i > 0) cum += m.brackets[i - 1]!.notionalCap * (b.mmrPpm - m.brackets[i - 1]!.mmrPpm)
    if (n <= b.notionalCap || i === m.brackets.length - 1) {
      const x = n * b.mmrPpm - cum
      return x <= 0n ? 0n : ceilDiv(x, PPM)
    }
  }
  return 0n
}

function pnl(m: RefMarket, qty: number, cost: bigint): bigint {
  return m.markPriceTicks === 0 || qty === 0 ? 0n : (big(qty) * big(m.markPriceTicks) - cost) * m.quotePerTickLot
}

interface Held { m: RefMarket; side: PositionSide; qty: number; cost: bigint }

function held(h: LiquidationHooks, s: RefSub): Held[] {
  const out: Held[] = []
  for (const marketId of s.leverage.keys()) {
    const m = h.markets.get(marketId)!
    for (const side of SIDES) {
      const p = s.positions.get(`${marketId}:${side}`)
      if (p !== undefined && p.qtyLots !== 0) out.push({ m, side, qty: p.qtyLots, cost: p.costTicksLots })
    }
  }
  return out
}

function risk(h: LiquidationHooks, s: RefSub): { balance: bigint; maintenance: bigint } {
  let balance = s.perpWallet
  let mm = 0n
  for (const p of held(h, s)) {
    balance += pnl(p.m, p.qty, p.cost)
    mm += maintenance(p.m, notional(p.m, p.qty, p.cost))
  }
  return { balance, maintenance: mm }
}

function byKey(a: RefSub, b: RefSub): number {
  return a.account !== b.account ? (a.account < b.account ? -1 : 1) : a.sub - b.sub
}

export function refLiquidations(h: LiquidationHooks, out: Observed[]): void {
  const stuck = new Set<string>()
  for (;;) {
    const due = [...h.subs.values()].filter((s) => {
      if (stuck.has(s.key)) return false
      const r = risk(h, s)
      return r.maintenance > 0n && r.balance < r.maintenance
    }).sort(byKey)[0]
    if (due === undefined) return
    if (!liquidate(h, due, out)) stuck.add(due.key)
  }
}

function liquidate(h: LiquidationHooks, s: RefSub, out: Observed[]): boolean {
  for (const o of h.openOrders(s.key)) if (h.markets.get(o.marketId)!.kind === 'PERP') h.cancel(o, out)
  let progress = false
  for (const p of held(h, s)) {
    if (p.m.status !== 'TRADING') continue
    // An earlier close's auto-deleveraging may have taken this side (hedge mode: its own opposite).
    if ((s.positions.get(`${p.m.marketId}:${p.side}`)?.qtyLots ?? 0) === 0) continue
    if (close(h, s, p.m, p.side, out)) progress = true
  }
  return progress
}

function bankruptcy(h: LiquidationHooks, s: RefSub, m: RefMarket, side: PositionSide, extra: bigint): number {
  const p = s.positions.get(`${m.marketId}:${side}`)!
  const k = m.quotePerTickLot
  const e = risk(h, s).balance - pnl(m, p.qtyLots, p.costTicksLots) + extra
  const num = p.costTicksLots * k - e
  const den = big(p.qtyLots) * k
  let ticks = 0n
  if (den > 0n && num > 0n) ticks = ceilDiv(num, den)
  if (den < 0n && -num > 0n) ticks = -num / -den
  if (ticks < big(m.minPriceTicks)) return m.minPriceTicks
  return ticks > big(m.maxPriceTicks) ? m.maxPriceTicks : Number(ticks)
}

function order(m: RefMarket, owner: string, side: Side, positionSide: PositionSide, lots: number, priceTicks: number,
  clientOrderId: string): RefOrder {
  return {
    marketId: m.marketId, orderId: m.nextOrderId++, owner, clientOrderId, side, orderType: 'LIQUIDATION', timeInForce: 'IOC',
    priceTicks, qtyLots: lots, filledLots: 0, cumQuoteTicksLots: 0, status: 'NEW', positionSide, reduceOnly: positionSide === 'BOTH',
    stp: 'NONE', goodTillDate: 0, lockedRemaining: 0n, restedAt: -1, queuedAt: -1, icebergLots: 0, visibleLots: 0, preventedLots: 0,
  }
}

function fund(h: LiquidationHooks, asset: string): bigint {
  return h.insurance.get(asset) ?? 0n
}

function close(h: LiquidationHooks, s: RefSub, m: RefMarket, side: PositionSide, out: Observed[]): boolean {
  const qty = s.positions.get(`${m.marketId}:${side}`)!.qtyLots
  const price = bankruptcy(h, s, m, side, 0n)
  const o = order(m, s.key, qty > 0 ? 'SELL' : 'BUY', side, Math.abs(qty), price, '')
  o.clientOrderId = `autoclose-${m.marketId}-${o.orderId}`
  out.push(h.observe(o, 'NEW'))
  h.sweep(m, o, out)
  if (remainingLots(o) > 0 && fund(h, m.quote) > 0n) {
    o.priceTicks = bankruptcy(h, s, m, side, fund(h, m.quote))
    h.sweep(m, o, out)
    o.priceTicks = price
  }
  const due = ceilDiv(big(o.cumQuoteTicksLots) * m.quotePerTickLot * m.liquidationFeePpm, PPM)
  const left = risk(h, s).balance
  const fee = due < left ? due : left > 0n ? left : 0n
  s.perpWallet -= fee
  h.insurance.set(m.quote, fund(h, m.quote) + fee)
  cover(h, s, m)
  if (remainingLots(o) > 0) {
    const filled = o.filledLots
    deleverage(h, s, m, o, bankruptcy(h, s, m, side, 0n), out)
    if (o.filledLots > filled) cover(h, s, m)
  }
  if (remainingLots(o) > 0) {
    o.status = 'EXPIRED'
    out.push(h.observe(o, 'EXPIRED'))
  }
  return o.filledLots > 0
}

function cover(h: LiquidationHooks, s: RefSub, m: RefMarket): void {
  const owed = -risk(h, s).balance
  const f = fund(h, m.quote)
  const c = owed < f ? owed : f
  if (c <= 0n) return
  s.perpWallet += c
  h.insurance.set(m.quote, f - c)
}

/** The remainder against opposite positions, by PnL% × leverage (÷ when losing), at `price`. */
function deleverage(h: LiquidationHooks, s: RefSub, m: RefMarket, o: RefOrder, price: number, out: Observed[]): void {
  const wantLong = o.side === 'BUY'
  const ranked: { sub: RefSub; side: PositionSide; num: bigint; den: bigint }[] = []
  for (const c of h.subs.values()) {
    for (const side of SIDES) {
      const p = c.positions.get(`${m.marketId}:${side}`)
      if (p === undefined || p.qtyLots === 0 || (p.qtyLots > 0) !== wantLong) continue
      if (c === s && side === o.positionSide) continue
      const u = pnl(m, p.qtyLots, p.costTicksLots)
      const entry = absB(p.costTicksLots) * m.quotePerTickLot
      const n = notional(m, p.qtyLots, p.costTicksLots)
      const bal = risk(h, c).balance
      const b = bal > 0n ? bal : 1n
      const pos = (x: bigint): bigint => (x > 0n ? x : 1n)
      ranked.push(u > 0n ? { sub: c, side, num: u * n, den: pos(entry * b) } : { sub: c, side, num: u * b, den: pos(entry * n) })
    }
  }
  ranked.sort((a, b) => {
    const l = a.num * b.den
    const r = b.num * a.den
    if (l !== r) return l > r ? -1 : 1
    return byKey(a.sub, b.sub) || SIDES.indexOf(a.side) - SIDES.indexOf(b.side)
  })
  for (const r of ranked) {
    if (remainingLots(o) === 0) return
    const p = r.sub.positions.get(`${m.marketId}:${r.side}`)!
    // A losing counterparty is closed only as far as its margin balance pays for the price
    // beyond the mark (less one tick·lot of rounding), as core/liquidation/adl.ts does.
    const adverse = big(p.qtyLots > 0 ? m.markPriceTicks - price : price - m.markPriceTicks)
    const room = risk(h, r.sub).balance - m.quotePerTickLot
    const solvent = room <= 0n ? 0 : adverse <= 0n ? Math.abs(p.qtyLots) : Number(room / (adverse * m.quotePerTickLot))
    const lots = Math.min(remainingLots(o), Math.abs(p.qtyLots), solvent)
    if (lots === 0) continue
    const c = order(m, r.sub.key, o.side === 'BUY' ? 'SELL' : 'BUY', r.side, lots, price, 'adl_autoclose')
    out.push(h.observe(c, 'NEW'))
    const tradeId = m.nextTradeId++
    const pnls = [c, o].map((x) => {
      const owner = h.subs.get(x.owner)!
      const realized = movePosition(owner.positions.get(`${m.marketId}:${x.positionSide}`)!, x.side === 'BUY' ? lots : -lots, price) *
        m.quotePerTickLot
      owner.perpWallet += realized
      x.filledLots += lots
      x.cumQuoteTicksLots += lots * price
      x.status = (remainingLots(x) === 0 ? 'FILLED' : 'PARTIALLY_FILLED') as OrderStatus
      return realized
    })
    out.push({ type: 'trade', marketId: m.marketId, tradeId, priceTicks: price, qtyLots: lots, buyerIsMaker: c.side === 'BUY',
      makerOrderId: c.orderId, takerOrderId: o.orderId, makerFee: 0n, takerFee: 0n, makerPnl: pnls[0]!, takerPnl: pnls[1]! })
  }
}
