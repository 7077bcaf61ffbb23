// Invariants of the core's state that must hold after every command (DESIGN.md §8), for the
// property tests and the simulator's checkers. Each check returns the violations it finds as
// text, so a failing run says everything that is wrong at once.

import type { Entry } from '../../core/commands.js'
import type { Result } from '../../core/events.js'
import type { BookSide } from '../../core/book.js'
import { positionOf, type Market, type Order, type PerpMarket, type State, type SubAccount } from '../../core/state.js'
import { openOrderOf } from '../../core/resting.js'
import { lockFor } from '../../core/spot.js'
import { CROSS, IN_LIQUIDATION } from '../../core/liquidation/check.js'
import { belowMaintenance, crossRisk, isolatedRisk } from '../../core/margin-risk.js'
import { rising } from '../../core/conditional.js'
import { BIPS_CALLBACK, type ConditionalState } from '../../core/trailing.js'

/** Books: sorted levels, never crossed, level totals and FIFO links consistent, maps in step. */
export function bookViolations(state: State): string[] {
  const out: string[] = []
  for (const m of state.markets) {
    if (m === undefined) continue
    let linked = 0
    for (const side of [m.book.bids, m.book.asks]) linked += sideViolations(m, side, out)
    if (linked !== m.book.orders.size) out.push(`market ${m.marketId}: ${linked} orders linked, ${m.book.orders.size} in the id map`)
    const bid = m.book.bids.best()?.priceTicks
    const ask = m.book.asks.best()?.priceTicks
    if (bid !== undefined && ask !== undefined && bid >= ask) out.push(`market ${m.marketId}: crossed, bid ${bid} >= ask ${ask}`)
    for (const o of m.book.orders.values()) {
      if (o.orderId <= 0 || o.orderId >= m.nextOrderId) out.push(`market ${m.marketId}: order id ${o.orderId} outside 1..${m.nextOrderId - 1}`)
      if (o.market !== m) out.push(`market ${m.marketId}: order ${o.orderId} names market ${o.market.marketId}`)
    }
  }
  return out
}

function sideViolations(m: Market, side: BookSide, out: string[]): number {
  const where = `market ${m.marketId} ${side.isBid ? 'bids' : 'asks'}`
  let linked = 0
  for (let i = 0; i < side.levels.length; i++) {
    const level = side.levels[i]!
    // Worst first, best last: bids ascend, asks descend, strictly.
    const prev = side.levels[i - 1]
    if (prev && !(side.isBid ? prev.priceTicks < level.priceTicks : prev.priceTicks > level.priceTicks)) {
      out.push(`${where}: levels out of order at ${prev.priceTicks}, ${level.priceTicks}`)
    }
    let lots = 0
    let count = 0
    let before: Order | null = null
    for (let o = level.head; o !== null; o = o.next) {
      if (o.prev !== before) out.push(`${where} ${level.priceTicks}: broken back link at order ${o.orderId}`)
      if (o.priceTicks !== level.priceTicks || (o.side === 'BUY') !== side.isBid) out.push(`${where}: order ${o.orderId} in the wrong level`)
      const left = o.origQtyLots - o.executedQtyLots
      if (left <= 0) out.push(`${where}: order ${o.orderId} rests with ${left} lots`)
      if (o.status !== 'NEW' && o.status !== 'PARTIALLY_FILLED') out.push(`${where}: order ${o.orderId} rests as ${o.status}`)
      if (m.book.orders.get(o.orderId) !== o) out.push(`${where}: order ${o.orderId} missing from the id map`)
      const shows = o.icebergLots === 0 ? o.visibleLots === left : o.visibleLots > 0 && o.visibleLots <= Math.min(o.icebergLots, left)
      if (!shows) out.push(`${where}: order ${o.orderId} shows ${o.visibleLots} of ${left} left, slices of ${o.icebergLots}`)
      lots += o.visibleLots
      count += 1
      before = o
    }
    if (level.tail !== before) out.push(`${where} ${level.priceTicks}: tail is not the last order`)
    if (count === 0) out.push(`${where}: empty level ${level.priceTicks}`)
    if (lots !== level.qtyLots) out.push(`${where} ${level.priceTicks}: qtyLots ${level.qtyLots}, orders hold ${lots}`)
    if (count !== level.count) out.push(`${where} ${level.priceTicks}: count ${level.count}, ${count} linked`)
    linked += count
  }
  return linked
}

function liveSub(state: State, sub: SubAccount): boolean {
  return state.accounts.get(sub.address)?.subs[sub.sub] === sub
}

/** Every open order belongs to a live sub-account and is indexed on both sides. */
export function ownershipViolations(state: State): string[] {
  const out: string[] = []
  const perSub = new Map<SubAccount, Map<number, number>>()
  for (const m of state.markets) {
    if (m === undefined) continue
    // Resting orders and waiting conditional ones (open orders outside the book; a spot market's stops).
    const open = [...m.book.orders.values(), ...(m.kind === 'PERP' ? m.triggers.live.values() : [...m.stops.live.values(), ...m.stops.pending.values()])]
    for (const o of open) {
      const who = `${o.owner.address}/${o.owner.sub}`
      if (!liveSub(state, o.owner)) out.push(`order ${m.marketId}/${o.orderId}: owner ${who} is not a live sub-account`)
      if (o.owner.orders.get(o.clientOrderId) !== o) out.push(`order ${m.marketId}/${o.orderId}: not indexed by ${who} as ${o.clientOrderId}`)
      // An executing list: its legs (an OCO's two; an OTO's working order and what waits on it;
      // an OTOCO's pair once placed) open, of one owner and market, this one of them; pending
      // orders (PENDING_NEW) exactly while the working order works.
      const l = o.list
      const legCount = l === null ? 0 : l.contingency === 'OTOCO' && l.working !== null ? 3 : 2
      if (l !== null && !l.done && (l.legs.length !== legCount || !l.legs.includes(o) || l.orders.length !== (l.contingency === 'OTOCO' ? 3 : 2)
        || l.legs.some((x) => x.owner !== o.owner || x.market !== m || openOrderOf(m, x.orderId) !== x
          || (x !== l.working && l.contingency !== 'OCO' && (x.status === 'PENDING_NEW') !== (l.working !== null))))) {
        out.push(`order ${m.marketId}/${o.orderId}: executing list ${l.orderListId} without its orders open`)
      }
      const counts = perSub.get(o.owner) ?? new Map<number, number>()
      counts.set(m.marketId, (counts.get(m.marketId) ?? 0) + 1)
      perSub.set(o.owner, counts)
    }
  }
  for (const account of state.accounts.values()) {
    for (const s of account.subs) {
      if (s === undefined) continue
      for (const [cid, o] of s.orders) {
        if (o.clientOrderId !== cid || o.owner !== s || openOrderOf(o.market, o.orderId) !== o) {
          out.push(`${s.address}/${s.sub}: indexed order ${cid} is not resting as that`)
        }
      }
      const counts = perSub.get(s) ?? new Map<number, number>()
      const a = [...counts].sort((x, y) => x[0] - y[0]).join(';')
      const b = [...s.openByMarket].sort((x, y) => x[0] - y[0]).join(';')
      if (a !== b) out.push(`${s.address}/${s.sub}: openByMarket ${b}, books hold ${a}`)
    }
  }
  return out
}

/**
 * Money per asset, in bigint: spot free + locked, perp wallets and isolated wallets less the
 * entry cost of open positions (what a fill moves between the two), fees and pending withdrawals add up to
 * deposits less completed withdrawals. Also: no negative spot balance, and each spot lock
 * equals what its open orders hold.
 */
export function moneyViolations(state: State): string[] {
  const out: string[] = []
  const held = new Map<string, bigint>()
  const add = (asset: string, n: bigint): void => { held.set(asset, (held.get(asset) ?? 0n) + n) }
  const margin = state.markets.find((m) => m?.kind === 'PERP')?.quote
  for (const account of state.accounts.values()) {
    for (const s of account.subs) {
      if (s === undefined) continue
      const locks = new Map<string, number>()
      for (const o of s.orders.values()) {
        if (o.market.kind !== 'SPOT') continue
        const asset = o.side === 'BUY' ? o.market.quote : o.market.base
        locks.set(asset, (locks.get(asset) ?? 0) + o.lockedRemaining)
        // A resting order outside an executing list holds just what its lots left need at its price
        // (a list's orders share a hold: core/order-lists.ts).
        if (o.level !== null && (o.list === null || o.list.done)) {
          const need = lockFor(o.market, o, o.origQtyLots - o.executedQtyLots, o.priceTicks)
          if (o.lockedRemaining !== need) out.push(`${s.address}/${s.sub} order ${o.orderId}: holds ${o.lockedRemaining}, its lots need ${need}`)
        }
      }
      for (const [asset, b] of s.spot) {
        if (b.free < 0 || b.locked < 0) out.push(`${s.address}/${s.sub} ${asset}: negative spot balance ${b.free}/${b.locked}`)
        if (b.locked !== (locks.get(asset) ?? 0)) out.push(`${s.address}/${s.sub} ${asset}: locked ${b.locked}, orders hold ${locks.get(asset) ?? 0}`)
        add(asset, BigInt(b.free) + BigInt(b.locked))
      }
      for (const [asset, n] of locks) if (!s.spot.has(asset) && n !== 0) out.push(`${s.address}/${s.sub} ${asset}: orders hold ${n}, no balance`)
      if (margin !== undefined) {
        let wallet = BigInt(s.perpWallet)
        for (const h of s.perp.values()) {
          const m = state.markets[h.marketId]!
          for (const p of [h.both, h.long, h.short]) {
            // An isolated wallet is money of the sub-account held against one position.
            wallet += BigInt(p.isolatedWallet) - BigInt(p.costTicksLots) * BigInt(m.quotePerTickLot)
            if (p.isolatedWallet !== 0 && (p.qtyLots === 0 || h.marginType !== 'ISOLATED')) {
              out.push(`${s.address}/${s.sub} market ${h.marketId}: isolated wallet ${p.isolatedWallet} without an isolated position`)
            }
          }
        }
        add(margin, wallet)
      } else if (s.perpWallet !== 0) {
        out.push(`${s.address}/${s.sub}: perp wallet without a perp market`)
      }
    }
  }
  for (const [asset, n] of state.fees) add(asset, BigInt(n))
  for (const [asset, n] of state.insurance) add(asset, BigInt(n))
  for (const w of state.withdrawals.values()) if (w.status === 'PROCESSING') add(w.asset, BigInt(w.amount))
  const assets = new Set([...held.keys(), ...state.deposited.keys(), ...state.withdrawn.keys()])
  for (const asset of assets) {
    const expected = BigInt(state.deposited.get(asset) ?? 0) - BigInt(state.withdrawn.get(asset) ?? 0)
    const actual = held.get(asset) ?? 0n
    if (actual !== expected) out.push(`${asset}: ledger holds ${actual}, deposited - withdrawn is ${expected} (off by ${actual - expected})`)
  }
  return out
}

/** Positions: signs and costs agree, long lots = short lots = open interest, order aggregates exact. */
export function positionViolations(state: State): string[] {
  const out: string[] = []
  const longs = new Map<number, number>()
  const shorts = new Map<number, number>()
  for (const account of state.accounts.values()) {
    for (const s of account.subs) {
      if (s === undefined) continue
      const who = `${s.address}/${s.sub}`
      let pending = 0
      for (const w of state.withdrawals.values()) if (w.account === s.address && w.sub === s.sub && w.status === 'PROCESSING') pending++
      if (pending !== s.pendingWithdrawals) out.push(`${who}: pendingWithdrawals ${s.pendingWithdrawals}, ${pending} processing`)
      for (const h of s.perp.values()) {
        const sides = [['BOTH', h.both], ['LONG', h.long], ['SHORT', h.short]] as const
        for (const [name, p] of sides) {
          if (Math.sign(p.qtyLots) !== Math.sign(p.costTicksLots)) out.push(`${who} ${h.marketId} ${name}: qty ${p.qtyLots} with cost ${p.costTicksLots}`)
          if (p.qtyLots > 0) longs.set(h.marketId, (longs.get(h.marketId) ?? 0) + p.qtyLots)
          else shorts.set(h.marketId, (shorts.get(h.marketId) ?? 0) - p.qtyLots)
        }
        if (h.long.qtyLots < 0 || h.short.qtyLots > 0) out.push(`${who} ${h.marketId}: hedge sides have the wrong sign`)
        if (!s.dualSide && (h.long.qtyLots !== 0 || h.short.qtyLots !== 0)) out.push(`${who} ${h.marketId}: hedge position in one-way mode`)
        if (s.dualSide && h.both.qtyLots !== 0) out.push(`${who} ${h.marketId}: one-way position in hedge mode`)
        let buyLots = 0, buyNotional = 0, sellLots = 0, sellNotional = 0
        for (const o of s.orders.values()) {
          if (o.market.marketId !== h.marketId || !o.marginCounted) continue
          const left = o.origQtyLots - o.executedQtyLots
          if (o.side === 'BUY') { buyLots += left; buyNotional += left * o.priceTicks } else { sellLots += left; sellNotional += left * o.priceTicks }
        }
        if (buyLots !== h.buyLots || buyNotional !== h.buyNotional || sellLots !== h.sellLots || sellNotional !== h.sellNotional) {
          out.push(`${who} ${h.marketId}: order aggregates ${h.buyLots}/${h.buyNotional}/${h.sellLots}/${h.sellNotional}, ` +
            `orders hold ${buyLots}/${buyNotional}/${sellLots}/${sellNotional}`)
        }
      }
    }
  }
  for (const m of state.markets) {
    if (m?.kind !== 'PERP') continue
    const l = longs.get(m.marketId) ?? 0
    const sh = shorts.get(m.marketId) ?? 0
    if (l !== sh || l !== m.openInterestLots) out.push(`market ${m.marketId}: long ${l}, short ${sh}, open interest ${m.openInterestLots}`)
  }
  return out
}

/**
 * Liquidation: no cross account and no isolated position is below maintenance, and no cross
 * margin balance is below zero, unless it is flagged as in liquidation (which it stays while
 * its market is halted).
 */
export function maintenanceViolations(state: State): string[] {
  const out: string[] = []
  for (const account of state.accounts.values()) {
    for (const sub of account.subs) {
      if (sub === undefined) continue
      const who = `${sub.address}/${sub.sub}`
      const cross = crossRisk(state, sub)
      const crossFlagged = ((sub.riskFlags.get(CROSS) ?? 0) & IN_LIQUIDATION) !== 0
      if (belowMaintenance(cross) && !crossFlagged) out.push(`${who}: cross below maintenance ${JSON.stringify(cross)}, not in liquidation`)
      if (cross.marginBalance < 0 && !crossFlagged) out.push(`${who}: cross margin balance ${cross.marginBalance} < 0, not in liquidation`)
      for (const h of sub.perp.values()) {
        if (h.marginType !== 'ISOLATED') continue
        const m = state.markets[h.marketId] as PerpMarket
        for (const side of ['BOTH', 'LONG', 'SHORT'] as const) {
          if (positionOf(h, side).qtyLots === 0) continue
          const r = isolatedRisk(m, h, side)
          const flagged = ((sub.riskFlags.get(`${h.marketId}:${side}`) ?? 0) & IN_LIQUIDATION) !== 0
          if (belowMaintenance(r) && !flagged) out.push(`${who} isolated ${h.marketId} ${side}: below maintenance ${JSON.stringify(r)}, not in liquidation`)
        }
      }
    }
  }
  return out
}

/**
 * A spot market's waiting stops, between commands: each indexed once (by stop price, or an
 * activated trailing stop in its side's groups, counted), and none the last price has reached:
 * a stop's price, or an activated trailing stop's retrace from its extreme, which the extreme
 * itself has not been passed by.
 */
export function spotStopViolations(state: State): string[] {
  const out: string[] = []
  for (const m of state.markets) {
    if (m === undefined || m.kind !== 'SPOT') continue
    const last = m.lastPriceTicks
    let trailing = 0
    for (const o of m.stops.live.values()) {
      const c = o.cond as ConditionalState
      const at = `spot stop ${m.marketId}/${o.orderId}`
      const sell = o.side === 'SELL'
      if (c.activated) {
        trailing++
        const d = c.trailingDeltaBips
        if (d === 0 || c.group === null || c.entry !== null) out.push(`${at}: activated but not a grouped trailing stop`)
        const e = c.extremeTicks
        const u = BIPS_CALLBACK.scale
        if (last > 0 && (sell ? e < last || last * u <= e * (u - d) : e > last || last * u >= e * (u + d))) {
          out.push(`${at}: extreme ${e} at last ${last}, delta ${d}: passed or retraced to`)
        }
      } else {
        if (c.entry === null || c.entry.order !== o || c.group !== null) out.push(`${at}: waiting but not in a heap`)
        if (last > 0 && (rising(o) ? last >= c.stopPriceTicks : last <= c.stopPriceTicks)) out.push(`${at}: stop ${c.stopPriceTicks} reached at ${last}`)
      }
    }
    if (trailing !== m.stops.trailing) out.push(`spot market ${m.marketId}: ${m.stops.trailing} trailing stops counted, ${trailing} activated`)
  }
  return out
}

export function stateViolations(state: State): string[] {
  return [...bookViolations(state), ...ownershipViolations(state), ...moneyViolations(state), ...positionViolations(state),
    ...spotStopViolations(state)]
}

/**
 * Follows a run's results: each market's order ids (of accepted orders) and trade ids count up
 * by one from 1. Call `see` with every entry and result in log order.
 */
export class IdMonitor {
  private readonly lastTradeId = new Map<number, number>()
  private readonly lastNewOrderId = new Map<number, number>()

  see(entry: Entry, result: Result): string[] {
    const out: string[] = []
    for (const e of result.events) {
      if (e.type === 'trade' || e.type === 'spotTrade') {
        const last = this.lastTradeId.get(e.marketId) ?? 0
        if (e.tradeId !== last + 1) out.push(`seq ${entry.seq}: market ${e.marketId} trade id ${e.tradeId} after ${last}`)
        this.lastTradeId.set(e.marketId, e.tradeId)
      } else if (e.type === 'order' && e.execType === 'NEW' && !(e.cond && e.cond.triggerTime > 0)) {
        // (A triggered conditional order's NEW record keeps the id it was given when placed, and
        // so does an OTO list's pending order placed once its working order filled.)
        const last = this.lastNewOrderId.get(e.marketId) ?? 0
        if (e.orderListId !== undefined && e.orderId <= last) continue
        if (e.orderId !== last + 1) out.push(`seq ${entry.seq}: market ${e.marketId} order id ${e.orderId} after ${last}`)
        this.lastNewOrderId.set(e.marketId, e.orderId)
      }
    }
    if (!result.ok && result.events.length > 0) out.push(`seq ${entry.seq}: rejected with events`)
    return out
  }
}
