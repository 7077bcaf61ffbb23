// The futures user data stream's events, in Binance USD-M's forms, built from one committed
// entry's core events: ORDER_TRADE_UPDATE for every order change and fill (each fill led by
// its TRADE_LITE), ALGO_UPDATE for conditional orders, ACCOUNT_UPDATE for
// perp wallet, position and isolated margin changes (`mt`, `iw`), ACCOUNT_CONFIG_UPDATE for
// leverage. Spot trading and the spot wallet's balances are the spot stream's
// (spot-events.ts); the deposit and withdrawal records are on both (wallet-events.ts).
//
// A fill carries the order's new quantities but not its static fields (type, price, time in
// force...): those come from the cache of the orders that can still trade (order-cache.ts),
// so no fill waits on a history read.

import type { PositionSide } from '../../core/commands.js'
import type { Event, OrderRecordFields as CoreOrderFields, PerpFillSide, PerpTradeEvent } from '../../core/events.js'
import { isolatedWalletTotal, unrealizedPnl } from '../../core/margin.js'
import { isTerminal } from '../../core/records.js'
import { positionOf, type PerpMarket, type Position, type State } from '../../core/state.js'
import { formatAvgPrice, formatBalance, formatPrice, formatQty } from '../decimal.js'
import { breakEvenPrice } from '../format-account.js'
import { algoUpdate } from '../format-algo.js'
import { formatCallbackRate, shownTimeInForce } from '../format-order.js'
import { insurancePayload, marginCallPayload } from './liquidation-events.js'
import { OrderCache } from './order-cache.js'
import { walletStep } from './wallet-events.js'

export type Payload = Record<string, unknown>
/** Receives one event for one sub-account. */
export type Emit = (account: string, sub: number, payload: Payload) => void
/** Whether anyone listens to a sub-account (payloads are built only for those). */
export type Wants = (account: string, sub: number) => boolean


/** One position as an ACCOUNT_UPDATE shows it; isolatedWallet only for an isolated one. */
interface PositionUpdate {
  m: PerpMarket
  positionSide: PositionSide
  qtyLots: number
  costTicksLots: number
  isolatedWallet?: number
  /** Accumulated realized PnL (`cr`); read from the state where the event does not carry it. */
  realizedPnl?: number
  /** Realized PnL since the position opened (its break-even price, `bep`); likewise. */
  realizedSinceOpen?: number
}

const fromFill = (m: PerpMarket, side: PerpFillSide): PositionUpdate => ({ m, positionSide: side.positionSide,
  qtyLots: side.positionQtyLots, costTicksLots: side.positionCostTicksLots, isolatedWallet: side.isolatedWallet,
  realizedPnl: side.positionRealizedPnl, realizedSinceOpen: side.positionRealizedSinceOpen })

/** What an ACCOUNT_UPDATE after fills reports for one sub-account. */
interface FillSummary {
  wallet: number
  positions: Map<string, PositionUpdate>
}

export class UserEvents {
  private readonly orders = new OrderCache('PERP')

  /** Caches every perp order resting in `state` (call once, before the first entry). */
  seed(state: State): void {
    this.orders.seed(state)
  }

  /** Builds and emits the payloads of one committed entry's events. */
  entry(state: State, time: number, events: readonly Event[], wants: Wants, emit: Emit): void {
    let fills: Map<string, FillSummary> | undefined
    for (const e of events) {
      const step = walletStep(state, time, e)
      if (step !== undefined && wants(step.account, step.sub)) emit(step.account, step.sub, step.payload)
      switch (e.type) {
        case 'order': {
          const m = state.markets[e.marketId]
          if (m?.kind !== 'PERP') break
          const fields = this.orders.record(e)
          if (!wants(e.account, e.sub)) break
          emit(e.account, e.sub, orderUpdate(state, m, fields, e.execType, time, undefined, e))
          // Conditional orders also report as algo orders: placed, canceled, triggered, rejected, done.
          if (fields.cond) emit(e.account, e.sub, algoUpdate(m, fields, time))
          break
        }
        case 'trade': {
          const m = state.markets[e.marketId]
          if (m?.kind !== 'PERP') break
          for (const side of [e.maker, e.taker]) {
            const fields = this.orders.fill(e.marketId, e.time, side)
            if (!wants(side.account, side.sub)) continue
            if (fields) {
              // Binance pushes the short form of a fill first, then the order's full update.
              emit(side.account, side.sub, tradeLite(m, fields, e, side, time))
              emit(side.account, side.sub, orderUpdate(state, m, fields, 'TRADE', time, { e, side }, side))
            }
            // A triggered order that a fill completes: its algo order is FINISHED.
            if (fields?.cond && isTerminal(side.status)) emit(side.account, side.sub, algoUpdate(m, fields, time))
            fills ??= new Map()
            const k = side.account + ':' + side.sub
            let f = fills.get(k)
            if (!f) fills.set(k, f = { wallet: side.wallet, positions: new Map() })
            f.wallet = side.wallet
            f.positions.set(m.marketId + ':' + side.positionSide, fromFill(m, side))
          }
          break
        }
        case 'balance': {
          if (e.wallet !== 'PERP' || !wants(e.account, e.sub)) break
          const reason = e.reason === 'TRANSFER' ? (e.delta >= 0 ? 'DEPOSIT' : 'WITHDRAW') : e.reason
          emit(e.account, e.sub, accountUpdate(state, time, reason, e.asset, e.free + e.locked, e.delta, [],
            isolatedTotal(state, e.account, e.sub)))
          break
        }
        case 'funding': {
          // Binance: a cross position's funding fee pushes the balance alone, with no positions;
          // an isolated one's also the position, whose isolated wallet paid it.
          const m = state.markets[e.marketId]
          if (m?.kind !== 'PERP' || !wants(e.account, e.sub)) break
          const rows = (e.isolated ?? []).map((i): PositionUpdate => ({ m, positionSide: i.positionSide, qtyLots: i.qtyLots,
            costTicksLots: i.costTicksLots, isolatedWallet: i.isolatedWallet }))
          emit(e.account, e.sub, accountUpdate(state, time, 'FUNDING_FEE', m.quote, e.wallet, e.amount, rows,
            isolatedTotal(state, e.account, e.sub), e))
          break
        }
        case 'positionMargin': {
          const m = state.markets[e.marketId]
          if (m?.kind !== 'PERP' || !wants(e.account, e.sub)) break
          const row: PositionUpdate = { m, positionSide: e.positionSide, qtyLots: e.positionQtyLots,
            costTicksLots: e.positionCostTicksLots, isolatedWallet: e.isolatedWallet }
          const change = e.direction === 'ADD' ? -e.amount : e.amount
          emit(e.account, e.sub, accountUpdate(state, time, 'MARGIN_TRANSFER', m.quote, e.wallet, change, [row],
            isolatedTotal(state, e.account, e.sub), e))
          break
        }
        case 'marginType': {
          // Nothing was open: the balance as it stands and the market's flat positions in the new type.
          const m = state.markets[e.marketId]
          const sub = state.accounts.get(e.account)?.subs[e.sub]
          if (m?.kind !== 'PERP' || !wants(e.account, e.sub)) break
          const sides: PositionSide[] = sub?.dualSide ? ['LONG', 'SHORT'] : ['BOTH']
          const iso = e.marginType === 'ISOLATED' ? 0 : undefined
          const rows = sides.map((ps): PositionUpdate => ({ m, positionSide: ps, qtyLots: 0, costTicksLots: 0, isolatedWallet: iso }))
          emit(e.account, e.sub, accountUpdate(state, time, 'MARGIN_TYPE_CHANGE', m.quote, sub?.perpWallet ?? 0, 0, rows,
            isolatedTotal(state, e.account, e.sub), e))
          break
        }
        case 'marginCall':
          if (wants(e.account, e.sub)) emit(e.account, e.sub, marginCallPayload(state, e, time))
          break
        case 'insurance': {
          if (!wants(e.account, e.sub)) break
          emit(e.account, e.sub, insurancePayload(state, e, time))
          // The ACCOUNT_UPDATE that sums this entry's fills comes last: it shows the wallet after the fund's move.
          const f = fills?.get(e.account + ':' + e.sub)
          if (f) f.wallet = e.wallet
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
      const account = k.slice(0, i)
      const sub = Number(k.slice(i + 1))
      emit(account, sub, accountUpdate(state, time, 'ORDER', asset, f.wallet, 0, rows, isolatedTotal(state, account, sub)))
    }
  }
}

/** TRADE_LITE: one fill of one order, with the order's original quantity and price. */
function tradeLite(m: PerpMarket, o: CoreOrderFields, e: PerpTradeEvent, side: PerpFillSide, time: number): Payload {
  return {
    e: 'TRADE_LITE', E: time, T: e.time, s: m.symbol, q: formatQty(m, o.origQtyLots), p: formatPrice(m, o.priceTicks),
    m: side === e.maker, c: o.clientOrderId, S: o.side, L: formatPrice(m, e.priceTicks), l: formatQty(m, e.qtyLots),
    t: e.tradeId, i: o.orderId,
  }
}

/** ORDER_TRADE_UPDATE with Binance's letters for `owner`'s order; `fill` adds the trade's own figures. */
function orderUpdate(state: State, m: PerpMarket, o: CoreOrderFields, execType: string, time: number,
  fill: { e: PerpTradeEvent; side: PerpFillSide } | undefined, owner: { account: string; sub: number }): Payload {
  const scale = state.assets.get(m.quote)!.scale
  const zero = formatBalance(0, scale)
  // The owner's open orders' notional in the symbol (Binance's b and a), as positionRisk's
  // bidNotional and askNotional: as the state stands after the batch the event came in.
  const h = state.accounts.get(owner.account)?.subs[owner.sub]?.perp.get(m.marketId)
  const notional = (n: number | undefined): string => formatBalance((n ?? 0) * m.quotePerTickLot, scale)
  const c = o.cond
  const trailing = c?.origType === 'TRAILING_STOP_MARKET'
  return {
    e: 'ORDER_TRADE_UPDATE', E: time, T: time,
    o: {
      s: m.symbol, c: o.clientOrderId, S: o.side, o: o.orderType, f: shownTimeInForce(o),
      q: formatQty(m, o.origQtyLots), p: formatPrice(m, o.priceTicks),
      ap: formatAvgPrice(m, o.cumQuoteTicksLots, o.executedQtyLots), sp: formatPrice(m, c?.stopPriceTicks ?? 0),
      // Binance reports expiry by self-trade prevention as execution EXPIRED, status EXPIRED_IN_MATCH.
      x: execType === 'EXPIRED_IN_MATCH' ? 'EXPIRED' : execType, X: o.status, i: o.orderId,
      l: formatQty(m, fill ? fill.e.qtyLots : 0), z: formatQty(m, o.executedQtyLots),
      L: formatPrice(m, fill ? fill.e.priceTicks : 0),
      ...(fill ? { N: m.quote, n: formatBalance(fill.side.fee, scale) } : {}),
      T: fill ? fill.e.time : o.updateTime, t: fill ? fill.e.tradeId : 0,
      b: notional(h?.buyNotional), a: notional(h?.sellNotional), m: fill ? fill.side === fill.e.maker : false, R: o.reduceOnly,
      wt: c?.workingType ?? 'CONTRACT_PRICE', ot: c?.origType ?? o.orderType, ps: o.positionSide, cp: c?.closePosition ?? false,
      // Trailing stops carry their activation price and callback rate.
      ...(trailing ? { AP: formatPrice(m, c.activationPriceTicks), cr: formatCallbackRate(c.callbackPermille) } : {}),
      rp: fill ? formatBalance(fill.side.realizedPnl, scale) : zero,
      pP: c?.priceProtect ?? false, si: 0, ss: 0, V: o.stp, pm: o.priceMatch ?? 'NONE', gtd: o.goodTillDate,
      er: expiryReasonCode(o, time),
    },
  }
}

/**
 * Binance's USD-M expiry reason (`er`), from the order as the event shows it: "0" unless it
 * expired; "1" self-trade prevention expired it, "3" an IOC-like taker it stopped; "2" an IOC or
 * FOK's rest; "9" a market order's rest (a triggered stop's too); "4" a reduce-only order with
 * nothing left to reduce. A GTD order reaching its time has none of Binance's reasons: "0".
 */
function expiryReasonCode(o: CoreOrderFields, time: number): string {
  const immediate = o.orderType === 'MARKET' || o.timeInForce === 'IOC' || o.timeInForce === 'FOK'
  if (o.status === 'EXPIRED_IN_MATCH') return immediate ? '3' : '1'
  if (o.status !== 'EXPIRED') return '0'
  if (o.orderType === 'MARKET') return '9'
  if (immediate) return '2'
  if (o.timeInForce === 'GTD' && time >= o.goodTillDate) return '0'
  return o.reduceOnly ? '4' : '0'
}

/**
 * The sub-account's isolated wallets in total, as the state stands (Binance's `wb` is the whole
 * wallet, `cw` the cross part; events carry only the cross wallet).
 */
function isolatedTotal(state: State, account: string, sub: number): number {
  const s = state.accounts.get(account)?.subs[sub]
  return s === undefined ? 0 : isolatedWalletTotal(s)
}

/** A position as the state holds it, for the realized PnL of rows no fill reported. */
function stateRow(state: State, owner: { account: string; sub: number } | undefined, r: PositionUpdate): Position | undefined {
  if (owner === undefined) return undefined
  const h = state.accounts.get(owner.account)?.subs[owner.sub]?.perp.get(r.m.marketId)
  return h === undefined ? undefined : positionOf(h, r.positionSide)
}

/** ACCOUNT_UPDATE: the balance after the change (wb whole, cw cross) and the positions it touched. */
function accountUpdate(state: State, time: number, reason: string, asset: string, wallet: number, change: number,
  rows: PositionUpdate[], isolated = 0, owner?: { account: string; sub: number }): Payload {
  const scale = state.assets.get(asset)?.scale ?? 0
  return {
    e: 'ACCOUNT_UPDATE', E: time, T: time,
    a: {
      m: reason,
      B: [{ a: asset, wb: formatBalance(wallet + isolated, scale), cw: formatBalance(wallet, scale), bc: formatBalance(change, scale) }],
      P: rows.map((r) => {
        const held = r.realizedPnl === undefined || r.realizedSinceOpen === undefined ? stateRow(state, owner, r) : undefined
        const p = { qtyLots: r.qtyLots, costTicksLots: r.costTicksLots, updateTime: time, isolatedWallet: r.isolatedWallet ?? 0,
          realizedPnl: r.realizedPnl ?? held?.realizedPnl ?? 0, realizedSinceOpen: r.realizedSinceOpen ?? held?.realizedSinceOpen ?? 0 }
        const ep = formatAvgPrice(r.m, Math.abs(p.costTicksLots), Math.abs(p.qtyLots), r.m.pricePrecision)
        return {
          s: r.m.symbol, pa: formatQty(r.m, p.qtyLots), ep, bep: breakEvenPrice(r.m, p), cr: formatBalance(p.realizedPnl, scale),
          up: formatBalance(unrealizedPnl(r.m, p), scale), mt: r.isolatedWallet === undefined ? 'cross' : 'isolated',
          iw: formatBalance(p.isolatedWallet, scale), ps: r.positionSide,
        }
      }),
    },
  }
}
