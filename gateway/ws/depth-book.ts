// Every market's price levels as of the last entry the feed received, rebuilt from core events
// alone. The replica's book may already be an entry or two ahead of the committed feed (the
// sequencer applies before it commits), so diff events cannot read it: a level sent with
// `u` = N must hold its quantity as of seq N exactly, or a client whose snapshot falls between
// would keep a wrong level. Order events carry each order's full record; trade events the
// maker's fill; a new or amended order that neither filled completely nor ended rests its
// remainder: at the end of the entry, or as soon as a later taker of the same entry (a stop its
// trade set off) meets it. A spot iceberg counts in its level only for the slice it shows, which the same
// events replay: each fill comes out of the slice, and a used-up slice shows the next.

import type { Event, OrderEvent } from '../../core/events.js'
import type { Market, State } from '../../core/state.js'
import { isConditionalType } from '../../core/trigger-index.js'

/** Prices per side waiting for the next check against the book; past this, some go unchecked. */
const UNCHECKED_MAX = 100_000

interface Resting {
  isBid: boolean
  priceTicks: number
  lots: number
  /** An iceberg's slice (0: not an iceberg). */
  icebergLots: number
  /** What its level counts of it: all its lots, an iceberg's slice only. */
  shown: number
}

/** An iceberg's next slice: the slice, or what is left when less. */
function slice(icebergLots: number, lots: number): number {
  return icebergLots === 0 || lots < icebergLots ? lots : icebergLots
}

/** An order placed in the current entry: it may still take liquidity, then rest or end. */
interface Placed {
  event: OrderEvent
  executedLots: number
  ended: boolean
  /** Rested already: a later taker of the entry met it as a maker. */
  rested: boolean
}

export class MarketLevels {
  readonly bids = new Map<number, number>()
  readonly asks = new Map<number, number>()
  readonly orders = new Map<number, Resting>()
  /** Levels changed since each consumer last took them, by consumer index. */
  readonly changed: { bids: Set<number>; asks: Set<number> }[]
  /** Levels changed since the last check against the replica's book. */
  readonly unchecked = { bids: new Set<number>(), asks: new Set<number>() }

  constructor(consumers: number) {
    this.changed = Array.from({ length: consumers }, () => ({ bids: new Set<number>(), asks: new Set<number>() }))
  }

  qty(isBid: boolean, priceTicks: number): number {
    return (isBid ? this.bids : this.asks).get(priceTicks) ?? 0
  }

  move(isBid: boolean, priceTicks: number, deltaLots: number): void {
    const side = isBid ? this.bids : this.asks
    const q = (side.get(priceTicks) ?? 0) + deltaLots
    if (q === 0) side.delete(priceTicks)
    else side.set(priceTicks, q)
    this.touch(isBid, priceTicks)
  }

  checkLater(isBid: boolean, priceTicks: number): void {
    const set = isBid ? this.unchecked.bids : this.unchecked.asks
    // A replica that never catches up with its feed would otherwise grow this without end.
    if (set.size < UNCHECKED_MAX) set.add(priceTicks)
  }

  touch(isBid: boolean, priceTicks: number): void {
    for (const c of this.changed) (isBid ? c.bids : c.asks).add(priceTicks)
    this.checkLater(isBid, priceTicks)
  }

  /** Replaces everything with the replica's book, marking every level that moved as changed. */
  reset(m: Market): void {
    const before = [...this.bids.keys()].map((p): [boolean, number] => [true, p])
      .concat([...this.asks.keys()].map((p): [boolean, number] => [false, p]))
    this.bids.clear()
    this.asks.clear()
    this.orders.clear()
    for (const o of m.book.orders.values()) {
      const lots = o.origQtyLots - o.executedQtyLots
      const shown = o.visibleLots
      this.orders.set(o.orderId, { isBid: o.side === 'BUY', priceTicks: o.priceTicks, lots, icebergLots: o.icebergLots, shown })
      const side = o.side === 'BUY' ? this.bids : this.asks
      side.set(o.priceTicks, (side.get(o.priceTicks) ?? 0) + shown)
    }
    for (const [isBid, p] of before) this.touch(isBid, p)
    for (const p of this.bids.keys()) this.touch(true, p)
    for (const p of this.asks.keys()) this.touch(false, p)
  }

  /**
   * Compares the levels changed since the last check with the replica's book, which must be
   * at the same seq. False when one differs: core events this model does not understand.
   */
  matches(m: Market): boolean {
    const u = this.unchecked
    let ok = true
    for (const p of u.bids) if ((m.book.bids.level(p)?.qtyLots ?? 0) !== this.qty(true, p)) ok = false
    for (const p of u.asks) if ((m.book.asks.level(p)?.qtyLots ?? 0) !== this.qty(false, p)) ok = false
    u.bids.clear()
    u.asks.clear()
    return ok
  }
}

export class DepthBook {
  readonly markets = new Map<number, MarketLevels>()

  /** Copies the replica's books; `consumers` feeds each take their own change sets. */
  constructor(state: State, private readonly consumers: number) {
    for (const m of state.markets) {
      if (m === undefined) continue
      const levels = this.market(m.marketId)
      levels.reset(m)
      for (const c of levels.changed) { c.bids.clear(); c.asks.clear() }
      levels.unchecked.bids.clear()
      levels.unchecked.asks.clear()
    }
  }

  market(marketId: number): MarketLevels {
    let l = this.markets.get(marketId)
    if (l === undefined) this.markets.set(marketId, l = new MarketLevels(this.consumers))
    return l
  }

  /** Orders placed in the entry being applied, by orderId (one command places in one market). */
  private readonly placed = new Map<number, Placed>()

  /** Applies one entry's events, adding the markets they concern to `touched`. */
  applyEntry(events: readonly Event[], touched: Set<number>): void {
    const placed = this.placed
    placed.clear()
    const placedIn = (marketId: number, orderId: number): Placed | undefined => {
      const p = placed.get(orderId)
      return p !== undefined && p.event.marketId === marketId ? p : undefined
    }
    for (const e of events) {
      if (e.type === 'order') {
        // A conditional order waiting for its trigger is in no book; once triggered it comes
        // back as a NEW LIMIT or MARKET record like any placement.
        if (isConditionalType(e.orderType)) continue
        // Nor is an OTO list's pending order; placed, it comes back as a NEW record.
        if (e.status === 'PENDING_NEW') continue
        // Every price an order event names is checked against the book, moved or not.
        touched.add(e.marketId)
        if (e.orderType !== 'MARKET') this.market(e.marketId).checkLater(e.side === 'BUY', e.priceTicks)
        if (e.execType === 'AMENDMENT') {
          // A modified order leaves its level and comes back as a taker at its new price.
          this.unrest(e.marketId, e.orderId, touched)
        }
        if (e.execType === 'NEW' || e.execType === 'AMENDMENT') {
          placed.set(e.orderId, { event: e, executedLots: e.executedQtyLots, ended: false, rested: false })
          continue
        }
        // A spot order amended in place, or cut by self-trade prevention (DECREMENT), keeps its
        // level with fewer lots; one placed in this entry and not yet resting rests with fewer.
        if (e.execType === 'REPLACED' || e.execType === 'TRADE_PREVENTION') {
          const p = placedIn(e.marketId, e.orderId)
          if (p !== undefined && !p.rested) p.event = e
          else this.shrink(e.marketId, e.orderId, e.origQtyLots - e.executedQtyLots, touched)
          continue
        }
        // A record still open changes nothing on the book (its fills come as trades); an ended
        // one leaves it (cancel, expiry, self-trade prevention).
        if (e.status === 'NEW' || e.status === 'PARTIALLY_FILLED') continue
        const p = placedIn(e.marketId, e.orderId)
        if (p !== undefined) p.ended = true
        if (p === undefined || p.rested) this.unrest(e.marketId, e.orderId, touched)
      } else if (e.type === 'trade' || e.type === 'spotTrade') {
        const levels = this.market(e.marketId)
        let r = levels.orders.get(e.maker.orderId)
        if (r === undefined) {
          // A maker placed earlier in this entry: its taker phase is over, so it rests now.
          const p = placedIn(e.marketId, e.maker.orderId)
          if (p !== undefined && !p.ended && !p.rested) r = this.rest(p, touched)
        }
        if (r !== undefined) {
          const before = r.shown
          r.lots -= e.qtyLots
          r.shown -= e.qtyLots
          if (r.lots === 0) levels.orders.delete(e.maker.orderId)
          else if (r.shown === 0) r.shown = slice(r.icebergLots, r.lots)
          levels.move(r.isBid, r.priceTicks, r.shown - before)
          touched.add(e.marketId)
        }
        const p = placedIn(e.marketId, e.taker.orderId)
        if (p !== undefined) p.executedLots = e.taker.executedQtyLots
      }
    }
    this.restPlaced(touched)
  }

  private shrink(marketId: number, orderId: number, lots: number, touched: Set<number>): void {
    const levels = this.market(marketId)
    const r = levels.orders.get(orderId)
    if (r === undefined) return
    // An iceberg's slice shrinks only when less than it is left.
    const shown = r.shown < lots ? r.shown : lots
    levels.move(r.isBid, r.priceTicks, shown - r.shown)
    r.lots = lots
    r.shown = shown
    touched.add(marketId)
  }

  private unrest(marketId: number, orderId: number, touched: Set<number>): void {
    const levels = this.market(marketId)
    const r = levels.orders.get(orderId)
    if (r === undefined) return
    levels.orders.delete(orderId)
    levels.move(r.isBid, r.priceTicks, -r.shown)
    touched.add(marketId)
  }

  private restPlaced(touched: Set<number>): void {
    // What is left of a new (or amended) order that was not ended rests (IOC, FOK and market
    // remainders are always ended with an EXPIRED event).
    for (const p of this.placed.values()) {
      if (!p.ended && !p.rested && p.event.origQtyLots > p.executedLots && p.event.orderType !== 'MARKET') this.rest(p, touched)
    }
  }

  /** A placed order's remainder on its level: all of it, an iceberg's first slice. */
  private rest(p: Placed, touched: Set<number>): Resting {
    const o = p.event
    const lots = o.origQtyLots - p.executedLots
    const levels = this.market(o.marketId)
    const isBid = o.side === 'BUY'
    const icebergLots = o.icebergLots ?? 0
    const r: Resting = { isBid, priceTicks: o.priceTicks, lots, icebergLots, shown: slice(icebergLots, lots) }
    levels.orders.set(o.orderId, r)
    levels.move(isBid, o.priceTicks, r.shown)
    touched.add(o.marketId)
    p.rested = true
    return r
  }
}
