// The spot user data stream's events, in Binance spot's forms, built from one committed entry's
// core events: `executionReport` for every spot order change and fill, `listStatus` for an OCO
// list's, `balanceUpdate` for
// money that enters or leaves the spot wallet (deposits, withdrawals and their refunds,
// transfers to and from the perp wallet), and, last, one `outboundAccountPosition` per
// sub-account with the spot balances the entry changed (free and locked after it). The
// deposit and withdrawal records (depositUpdate, withdrawUpdate) come as on the futures stream.
//
// As on the futures stream (events.ts), a fill carries the order's new quantities only; its
// static fields come from the cache of the spot orders that can still trade (order-cache.ts).

import type { Event, OrderEvent, OrderListEvent, OrderRecordFields, PreventedMatchEvent, SpotFillSide, SpotTradeEvent } from '../../core/events.js'
import { decrements } from '../../core/prevention.js'
import type { SpotMarket, State } from '../../core/state.js'
import { formatBalance, formatLedger, formatNotional, formatPrice, formatQty } from '../decimal.js'
import { spotCancelId, spotOrigQtyLots, spotPreventedQtyLots, spotTimeInForce, spotType, spotWaiting, spotWorkingTime } from '../format-order.js'
import type { Emit, Payload, Wants } from './events.js'
import { OrderCache } from './order-cache.js'
import { walletStep } from './wallet-events.js'

/** Spot balance changes that move money in or out of the spot wallet (balanceUpdate). */
const MOVES = new Set(['DEPOSIT', 'WITHDRAW', 'WITHDRAW_REJECT', 'TRANSFER'])

/** One sub-account's spot balances changed by the entry, by asset (the last state wins). */
type Changed = Map<string, { free: number; locked: number }>

export class SpotUserEvents {
  private readonly orders = new OrderCache('SPOT')

  /** Caches every spot order resting in `state` (call once, before the first entry). */
  seed(state: State): void {
    this.orders.seed(state)
  }

  /** Builds and emits the payloads of one committed entry's events. */
  entry(state: State, time: number, events: readonly Event[], wants: Wants, emit: Emit): void {
    // Made only when a listened sub-account's balance moves: most entries allocate nothing here.
    let changed: Map<string, Changed> | undefined
    // The match self-trade prevention stopped last: the orders it expired come right after it.
    let prevented: PreventedMatchEvent | undefined
    for (const e of events) {
      switch (e.type) {
        case 'order': {
          const m = state.markets[e.marketId]
          if (m?.kind !== 'SPOT') break
          const fields = this.orders.record(e)
          const match = e.preventedMatchId !== undefined && prevented?.preventedMatchId === e.preventedMatchId ? prevented : undefined
          if (wants(e.account, e.sub)) emit(e.account, e.sub, executionReport(state, m, fields, e.execType, time, undefined, e, match))
          break
        }
        case 'preventedMatch':
          prevented = e
          break
        case 'spotTrade': {
          const m = state.markets[e.marketId]
          if (m?.kind !== 'SPOT') break
          for (const side of [e.maker, e.taker]) {
            const fields = this.orders.fill(e.marketId, e.time, side)
            if (!wants(side.account, side.sub)) continue
            if (fields) emit(side.account, side.sub, executionReport(state, m, fields, 'TRADE', time, { e, side }))
            changed = touch(changed, side.account, side.sub, side.base)
            changed = touch(changed, side.account, side.sub, side.quote)
          }
          break
        }
        case 'balance': {
          if (e.wallet !== 'SPOT' || !wants(e.account, e.sub)) break
          if (MOVES.has(e.reason)) {
            emit(e.account, e.sub, { e: 'balanceUpdate', E: time, a: e.asset,
              d: formatBalance(e.delta, state.assets.get(e.asset)?.scale ?? 0), T: time })
          }
          changed = touch(changed, e.account, e.sub, e)
          break
        }
        case 'orderList': {
          const m = state.markets[e.marketId]
          if (m?.kind !== 'SPOT' || !wants(e.account, e.sub)) break
          emit(e.account, e.sub, listStatus(m, e, time))
          break
        }
        case 'depositPending':
        case 'deposit':
        case 'withdrawal': {
          const step = walletStep(state, time, e)
          if (step !== undefined && wants(step.account, step.sub)) emit(step.account, step.sub, step.payload)
          break
        }
        default:
          break
      }
    }
    if (changed === undefined) return
    for (const [k, assets] of changed) {
      const i = k.lastIndexOf(':')
      const B = [...assets].map(([a, b]) => {
        const scale = state.assets.get(a)?.scale ?? 0
        return { a, f: formatBalance(b.free, scale), l: formatBalance(b.locked, scale) }
      })
      emit(k.slice(0, i), Number(k.slice(i + 1)), { e: 'outboundAccountPosition', E: time, u: time, B })
    }
  }
}

/** Notes a sub-account's balance of an asset after a change (the last one wins); the map, made if need be. */
function touch(changed: Map<string, Changed> | undefined, account: string, sub: number,
  b: { asset: string; free: number; locked: number }): Map<string, Changed> {
  changed ??= new Map()
  const k = account + ':' + sub
  let c = changed.get(k)
  if (c === undefined) changed.set(k, c = new Map())
  c.set(b.asset, { free: b.free, locked: b.locked })
  return changed
}

/** An order list's status (Binance's listStatus): its orders, and when the status came about. */
function listStatus(m: SpotMarket, e: OrderListEvent, time: number): Payload {
  return {
    e: 'listStatus', E: time, s: m.symbol, g: e.orderListId, c: e.contingencyType, l: e.listStatusType, L: e.listOrderStatus, r: 'NONE',
    C: e.listClientOrderId, T: e.updateTime, O: e.orders.map((o) => ({ s: m.symbol, i: o.orderId, c: o.clientOrderId })),
  }
}

/** Binance spot's execution type for a core one: self-trade prevention expires as TRADE_PREVENTION. */
function spotExecType(execType: string): string {
  return execType === 'EXPIRED_IN_MATCH' ? 'TRADE_PREVENTION' : execType
}

/** The lots one prevented match kept `o` from trading (Binance's B): DECREMENT's for both, or all it had left. */
function lastPreventedLots(o: OrderRecordFields, prevented: PreventedMatchEvent | undefined): number {
  if (prevented !== undefined && decrements(prevented.mode)) return prevented.takerLots
  return o.origQtyLots - o.executedQtyLots
}

/**
 * executionReport with Binance's letters; `fill` adds the trade's own figures, `event` (an order
 * event's report) the client ids it names beside the order's: a cancel's own, an amendment's id before.
 */
function executionReport(state: State, m: SpotMarket, o: OrderRecordFields, execType: string, time: number,
  fill: { e: SpotTradeEvent; side: SpotFillSide } | undefined, event?: OrderEvent,
  prevented?: PreventedMatchEvent): Payload {
  const open = o.status === 'NEW' || o.status === 'PARTIALLY_FILLED'
  // A waiting stop is open but not yet on the book; a LIMIT_MAKER rests like a GTC limit.
  const rests = o.orderType !== 'MARKET' && spotTimeInForce(o) === 'GTC' && !spotWaiting(o)
  const scale = (asset: string): number => state.assets.get(asset)?.scale ?? 0
  const out: Payload = {
    // A cancel's report shows the cancel's own id (Binance's c: the one it named, or one made for it), the order's as C.
    e: 'executionReport', E: time, s: m.symbol, c: execType === 'CANCELED' && event !== undefined ? spotCancelId(event) : o.clientOrderId, S: o.side,
    o: spotType(o), f: spotTimeInForce(o),
    // A pegged order's p is the price it was sent with; the book's is its gp.
    q: formatQty(m, spotOrigQtyLots(o)), p: formatPrice(m, o.peg !== undefined ? o.peg.sentPriceTicks : o.priceTicks), P: formatPrice(m, o.cond?.stopPriceTicks ?? 0), F: formatQty(m, o.icebergLots ?? 0), g: o.orderListId ?? -1,
    // The client id of the order a cancel ended, or an amended order's before (Binance's C); '' otherwise.
    C: execType === 'CANCELED' ? o.clientOrderId : event?.amendment?.clientOrderIdBefore ?? '',
    x: spotExecType(execType), X: o.status, r: 'NONE', i: o.orderId,
    l: formatQty(m, fill ? fill.e.qtyLots : 0), z: formatQty(m, o.executedQtyLots),
    L: formatPrice(m, fill ? fill.e.priceTicks : 0),
    n: fill ? formatLedger(fill.side.fee, scale(fill.side.feeAsset)) : '0', N: fill ? fill.side.feeAsset : null,
    T: fill ? fill.e.time : o.updateTime, t: fill ? fill.e.tradeId : -1,
    w: open && rests, m: fill ? fill.side === fill.e.maker : false, M: false,
    O: o.time, Z: formatNotional(m, o.cumQuoteTicksLots),
    Y: formatNotional(m, fill ? BigInt(fill.e.priceTicks) * BigInt(fill.e.qtyLots) : 0),
    // The quote a MARKET order was sized by (quoteOrderQty); zero otherwise.
    Q: formatBalance(o.quoteQty ?? 0, scale(m.quote)), W: spotWorkingTime(o), V: o.stp,
  }
  // A trailing stop's delta (d), and once it trails, since when (D), as Binance's: on trailing stops only.
  const c = o.cond
  if (c?.trailingDeltaBips !== undefined) {
    out.d = c.trailingDeltaBips
    if (c.trailingTime) out.D = c.trailingTime
  }
  // The strategy tags it was sent with (j, J), only then, as Binance's.
  if (o.strategyId !== undefined) out.j = o.strategyId
  if (o.strategyType !== undefined) out.J = o.strategyType
  // A pegged order's peg (Binance's gP, gOT and gOV with an offset, gp), on pegged orders only.
  if (o.peg !== undefined) {
    out.gP = o.peg.type
    if (o.peg.offsetLevels !== 0) Object.assign(out, { gOT: 'PRICE_LEVEL', gOV: o.peg.offsetLevels })
    out.gp = formatPrice(m, o.priceTicks)
  }
  // Self-trade prevention expired or cut it: its last match (v), what it kept from trading (A,
  // and on the report of the match itself B, this match's share), and, from the match, the other
  // order (U, Cs) and the fill it stopped (pl, pL, pY: what l, L and Y would have been).
  if (o.preventedMatchId !== undefined) {
    Object.assign(out, { v: o.preventedMatchId, A: formatQty(m, spotPreventedQtyLots(o)) })
    if (execType === 'EXPIRED_IN_MATCH' || execType === 'TRADE_PREVENTION') out.B = formatQty(m, lastPreventedLots(o, prevented))
    if (prevented !== undefined) {
      const lots = Math.min(prevented.takerLots, prevented.makerLots)
      Object.assign(out, { U: prevented.takerOrderId === o.orderId ? prevented.makerOrderId : prevented.takerOrderId, Cs: m.symbol,
        pl: formatQty(m, lots), pL: formatPrice(m, prevented.priceTicks), pY: formatNotional(m, BigInt(prevented.priceTicks) * BigInt(lots)) })
    }
  }
  // Why it expired (Binance's eR), where the core says: the Price Range execution rule.
  if (o.expiryReason !== undefined) out.eR = o.expiryReason
  return out
}
