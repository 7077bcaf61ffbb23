// What the property tests compare between the real core and the reference model: the
// observable part of each result (order updates, trades, withdrawals), each book as price
// levels with their FIFO queues, and every sub-account's money, all in one plain shape.

import type { Event, Result } from '../../core/events.js'
import type { State } from '../../core/state.js'

export type Observed =
  | { type: 'order'; marketId: number; orderId: number; clientOrderId: string; execType: string; status: string;
      executedQtyLots: number; cumQuoteTicksLots: number; expiryReason?: string; preventedLots?: number }
  | { type: 'trade'; marketId: number; tradeId: number; priceTicks: number; qtyLots: number; buyerIsMaker: boolean;
      makerOrderId: number; takerOrderId: number; makerFee: bigint; takerFee: bigint; makerPnl: bigint; takerPnl: bigint }
  | { type: 'withdrawal'; withdrawalId: number; status: string; amount: bigint }

export interface ObservedResult {
  ok: boolean
  code?: string
  /** The id an accepted PlaceOrder was given. */
  orderId?: number
  /** The id an accepted WithdrawalRequest was given. */
  withdrawalId?: number
  events: Observed[]
}

export interface LevelView {
  priceTicks: number
  qtyLots: number
  /** [orderId, remaining lots], head of the queue first. */
  orders: [number, number][]
}

export interface BookView {
  marketId: number
  /** Best first. */
  bids: LevelView[]
  asks: LevelView[]
}

export interface SubView {
  key: string
  perpWallet: bigint
  dualSide: boolean
  pendingWithdrawals: number
  /** asset → [free, locked]; all-zero balances left out. */
  spot: Record<string, [bigint, bigint]>
  /** `marketId:side` → [qtyLots, costTicksLots]; flat positions left out. */
  positions: Record<string, [number, bigint]>
  /** marketId → leverage, for every perp market the sub-account holds. */
  leverage: Record<string, number>
  /** `marketId:side` → isolated wallet, for every position of an isolated market; cross markets left out. */
  isolated: Record<string, bigint>
}

export interface LedgerView {
  subs: SubView[]
  /** asset → amount; zero totals left out. */
  fees: Record<string, bigint>
  /** The insurance fund per asset (liquidation). */
  insurance: Record<string, bigint>
  deposited: Record<string, bigint>
  withdrawn: Record<string, bigint>
}

function observeEvent(e: Event): Observed | null {
  switch (e.type) {
    case 'order': {
      const o: Observed = { type: 'order', marketId: e.marketId, orderId: e.orderId, clientOrderId: e.clientOrderId, execType: e.execType,
        status: e.status, executedQtyLots: e.executedQtyLots, cumQuoteTicksLots: e.cumQuoteTicksLots }
      if (e.expiryReason !== undefined) o.expiryReason = e.expiryReason
      if (e.preventedLots !== undefined) o.preventedLots = e.preventedLots
      return o
    }
    case 'trade':
      return { type: 'trade', marketId: e.marketId, tradeId: e.tradeId, priceTicks: e.priceTicks, qtyLots: e.qtyLots,
        buyerIsMaker: e.buyerIsMaker, makerOrderId: e.maker.orderId, takerOrderId: e.taker.orderId,
        makerFee: BigInt(e.maker.fee), takerFee: BigInt(e.taker.fee),
        makerPnl: BigInt(e.maker.realizedPnl), takerPnl: BigInt(e.taker.realizedPnl) }
    case 'spotTrade':
      return { type: 'trade', marketId: e.marketId, tradeId: e.tradeId, priceTicks: e.priceTicks, qtyLots: e.qtyLots,
        buyerIsMaker: e.buyerIsMaker, makerOrderId: e.maker.orderId, takerOrderId: e.taker.orderId,
        makerFee: BigInt(e.maker.fee), takerFee: BigInt(e.taker.fee), makerPnl: 0n, takerPnl: 0n }
    case 'withdrawal':
      return { type: 'withdrawal', withdrawalId: e.withdrawalId, status: e.status, amount: BigInt(e.amount) }
    default:
      return null
  }
}

export function observeResult(r: Result): ObservedResult {
  const events: Observed[] = []
  for (const e of r.events) {
    const o = observeEvent(e)
    if (o !== null) events.push(o)
  }
  if (!r.ok) return { ok: false, code: r.code, events }
  const out: ObservedResult = { ok: true, events }
  if (r.orderId !== undefined) out.orderId = r.orderId
  if (r.withdrawalId !== undefined) out.withdrawalId = r.withdrawalId
  return out
}

export function coreBooks(state: State): BookView[] {
  const out: BookView[] = []
  for (const m of state.markets) {
    if (m === undefined) continue
    const side = (levels: typeof m.book.bids.levels): LevelView[] => {
      const views: LevelView[] = []
      for (let i = levels.length - 1; i >= 0; i--) {
        const level = levels[i]!
        const orders: [number, number][] = []
        for (let o = level.head; o !== null; o = o.next) orders.push([o.orderId, o.origQtyLots - o.executedQtyLots])
        views.push({ priceTicks: level.priceTicks, qtyLots: level.qtyLots, orders })
      }
      return views
    }
    out.push({ marketId: m.marketId, bids: side(m.book.bids.levels), asks: side(m.book.asks.levels) })
  }
  return out
}

function sorted<T>(rec: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {}
  for (const k of Object.keys(rec).sort()) out[k] = rec[k]!
  return out
}

export function totals(map: Map<string, number | bigint>): Record<string, bigint> {
  const out: Record<string, bigint> = {}
  for (const [k, v] of map) if (BigInt(v) !== 0n) out[k] = BigInt(v)
  return sorted(out)
}

export function coreLedger(state: State): LedgerView {
  const subs: SubView[] = []
  for (const account of state.accounts.values()) {
    for (const s of account.subs) {
      if (s === undefined) continue
      const spot: Record<string, [bigint, bigint]> = {}
      for (const [asset, b] of s.spot) if (b.free !== 0 || b.locked !== 0) spot[asset] = [BigInt(b.free), BigInt(b.locked)]
      const positions: Record<string, [number, bigint]> = {}
      const leverage: Record<string, number> = {}
      const isolated: Record<string, bigint> = {}
      for (const h of s.perp.values()) {
        leverage[String(h.marketId)] = h.leverage
        if (h.marginType === 'ISOLATED') {
          for (const [side, p] of [['BOTH', h.both], ['LONG', h.long], ['SHORT', h.short]] as const) {
            isolated[`${h.marketId}:${side}`] = BigInt(p.isolatedWallet)
          }
        }
        for (const [side, p] of [['BOTH', h.both], ['LONG', h.long], ['SHORT', h.short]] as const) {
          if (p.qtyLots !== 0 || p.costTicksLots !== 0) positions[`${h.marketId}:${side}`] = [p.qtyLots, BigInt(p.costTicksLots)]
        }
      }
      subs.push({ key: `${s.address}/${s.sub}`, perpWallet: BigInt(s.perpWallet), dualSide: s.dualSide,
        pendingWithdrawals: s.pendingWithdrawals, spot: sorted(spot), positions: sorted(positions), leverage: sorted(leverage),
        isolated: sorted(isolated) })
    }
  }
  subs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return { subs, fees: totals(state.fees), insurance: totals(state.insurance), deposited: totals(state.deposited),
    withdrawn: totals(state.withdrawn) }
}
