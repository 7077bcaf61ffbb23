// The futures user data stream's events, in Binance USD-M's forms, built from one committed
// entry's core events: ORDER_TRADE_UPDATE for every order change and fill, ACCOUNT_UPDATE for
// perp wallet and position changes, ACCOUNT_CONFIG_UPDATE for leverage. Spot activity is not
// part of the futures stream.
//
// A fill carries the order's new quantities but not its static fields (type, price, time in
// force...): those come from a cache of the orders that can still trade, seeded from the
// state and kept current from order events, so no fill waits on a history read.

import type { Event, OrderRecordFields as CoreOrderFields, PerpFillSide, PerpTradeEvent } from '../../core/events.js'
import { unrealizedPnl } from '../../core/margin.js'
import type { PerpMarket, State } from '../../core/state.js'
import { formatAvgPrice, formatBalance, formatPrice, formatQty } from '../decimal.js'
import { fieldsOfOrder } from '../format-order.js'

export type Payload = Record<string, unknown>
/** Receives one event for one sub-account. */
export type Emit = (account: string, sub: number, payload: Payload) => void
/** Whether anyone listens to a sub-account (payloads are built only for those). */
export type Wants = (account: string, sub: number) => boolean

const TERMINAL = new Set(['FILLED', 'CANCELED', 'EXPIRED', 'EXPIRED_IN_MATCH'])

const orderKey = (marketId: number, orderId: number): string => marketId + ':' + orderId

/** What an ACCOUNT_UPDATE after fills reports for one sub-account. */
interface FillSummary {
  wallet: number
  positions: Map<string, { m: PerpMarket; side: PerpFillSide }>
}

export class UserEvents {
  private readonly orders = new Map<string, CoreOrderFields>()

  /** Caches every perp order resting in `state` (call once, before the first entry). */
  seed(state: State): void {
    for (const m of state.markets) {
      if (m?.kind !== 'PERP') continue
      for (const o of m.book.orders.values()) this.orders.set(orderKey(m.marketId, o.orderId), fieldsOfOrder(o))
    }
  }

  /** Builds and emits the payloads of one committed entry's events. */
  entry(state: State, time: number, events: readonly Event[], wants: Wants, emit: Emit): void {
    let fills: Map<string, FillSummary> | undefined
    for (const e of events) {
      switch (e.type) {
        case 'order': {
          const m = state.markets[e.marketId]
          if (m?.kind !== 'PERP') break
          const { type: _t, execType, ...fields } = e
          const key = orderKey(e.marketId, e.orderId)
          if (TERMINAL.has(e.status)) this.orders.delete(key)
          else this.orders.set(key, fields)
          if (wants(e.account, e.sub)) emit(e.account, e.sub, orderUpdate(state, m, fields, execType, time, undefined))
          break
        }
        case 'trade': {
          const m = state.markets[e.marketId]
          if (m?.kind !== 'PERP') break
          for (const side of [e.maker, e.taker]) {
            const fields = this.fill(e, side)
            if (!wants(side.account, side.sub)) continue
            if (fields) emit(side.account, side.sub, orderUpdate(state, m, fields, 'TRADE', time, { e, side }))
            fills ??= new Map()
            const k = side.account + ':' + side.sub
            let f = fills.get(k)
            if (!f) fills.set(k, f = { wallet: side.wallet, positions: new Map() })
            f.wallet = side.wallet
            f.positions.set(m.marketId + ':' + side.positionSide, { m, side })
          }
          break
        }
        case 'balance': {
          if (e.wallet !== 'PERP' || !wants(e.account, e.sub)) break
          const reason = e.reason === 'TRANSFER' ? (e.delta >= 0 ? 'DEPOSIT' : 'WITHDRAW') : e.reason
          emit(e.account, e.sub, accountUpdate(state, time, reason, e.asset, e.free + e.locked, e.delta, []))
          break
        }
        case 'funding': {
          // Binance: a cross position's funding fee pushes the balance alone, with no positions.
          const m = state.markets[e.marketId]
          if (m === undefined || !wants(e.account, e.sub)) break
          emit(e.account, e.sub, accountUpdate(state, time, 'FUNDING_FEE', m.quote, e.wallet, e.amount, []))
          break
        }
        case 'leverage': {
          const m = state.markets[e.marketId]
          if (m === undefined || !wants(e.account, e.sub)) break
          emit(e.account, e.sub, { e: 'ACCOUNT_CONFIG_UPDATE', E: time, T: time, ac: { s: m.symbol, l: e.leverage } })
          break
        }
        default:
          break
      }
    }
    if (fills === undefined) return
    for (const [k, f] of fills) {
      const i = k.lastIndexOf(':')
      const rows = [...f.positions.values()]
      const asset = rows[0]!.m.quote
      emit(k.slice(0, i), Number(k.slice(i + 1)), accountUpdate(state, time, 'ORDER', asset, f.wallet, 0, rows))
    }
  }

  /** The order's record after a fill (cache updated; dropped once it is done). */
  private fill(e: PerpTradeEvent, side: PerpFillSide): CoreOrderFields | undefined {
    const key = orderKey(e.marketId, side.orderId)
    const cached = this.orders.get(key)
    if (cached === undefined) return undefined
    cached.executedQtyLots = side.executedQtyLots
    cached.cumQuoteTicksLots = side.cumQuoteTicksLots
    cached.status = side.status
    cached.updateTime = e.time
    if (TERMINAL.has(side.status)) this.orders.delete(key)
    return cached
  }
}

/** ORDER_TRADE_UPDATE with Binance's letters; `fill` adds the trade's own figures. */
function orderUpdate(state: State, m: PerpMarket, o: CoreOrderFields, execType: string, time: number,
  fill: { e: PerpTradeEvent; side: PerpFillSide } | undefined): Payload {
  const scale = state.assets.get(m.quote)!.scale
  const zero = formatBalance(0, scale)
  return {
    e: 'ORDER_TRADE_UPDATE', E: time, T: time,
    o: {
      s: m.symbol, c: o.clientOrderId, S: o.side, o: o.orderType, f: o.timeInForce,
      q: formatQty(m, o.origQtyLots), p: formatPrice(m, o.priceTicks),
      ap: formatAvgPrice(m, o.cumQuoteTicksLots, o.executedQtyLots), sp: formatPrice(m, 0),
      // Binance reports expiry by self-trade prevention as execution EXPIRED, status EXPIRED_IN_MATCH.
      x: execType === 'EXPIRED_IN_MATCH' ? 'EXPIRED' : execType, X: o.status, i: o.orderId,
      l: formatQty(m, fill ? fill.e.qtyLots : 0), z: formatQty(m, o.executedQtyLots),
      L: formatPrice(m, fill ? fill.e.priceTicks : 0),
      ...(fill ? { N: m.quote, n: formatBalance(fill.side.fee, scale) } : {}),
      T: fill ? fill.e.time : o.updateTime, t: fill ? fill.e.tradeId : 0,
      b: '0', a: '0', m: fill ? fill.side === fill.e.maker : false, R: o.reduceOnly,
      wt: 'CONTRACT_PRICE', ot: o.orderType, ps: o.positionSide, cp: false,
      rp: fill ? formatBalance(fill.side.realizedPnl, scale) : zero,
      pP: false, si: 0, ss: 0, V: o.stp, pm: 'NONE', gtd: o.goodTillDate,
    },
  }
}

/** ACCOUNT_UPDATE: the quote balance after the change and the positions it touched. */
function accountUpdate(state: State, time: number, reason: string, asset: string, wallet: number, change: number,
  rows: { m: PerpMarket; side: PerpFillSide }[]): Payload {
  const scale = state.assets.get(asset)?.scale ?? 0
  return {
    e: 'ACCOUNT_UPDATE', E: time, T: time,
    a: {
      m: reason,
      B: [{ a: asset, wb: formatBalance(wallet, scale), cw: formatBalance(wallet, scale), bc: formatBalance(change, scale) }],
      P: rows.map(({ m, side }) => {
        const p = { qtyLots: side.positionQtyLots, costTicksLots: side.positionCostTicksLots, updateTime: time }
        const ep = formatAvgPrice(m, Math.abs(p.costTicksLots), Math.abs(p.qtyLots), m.pricePrecision)
        return {
          s: m.symbol, pa: formatQty(m, p.qtyLots), ep, bep: ep, cr: formatBalance(0, scale),
          up: formatBalance(unrealizedPnl(m, p), scale), mt: 'cross', iw: formatBalance(0, scale), ps: side.positionSide,
        }
      }),
    },
  }
}
