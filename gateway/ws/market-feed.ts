// Turns the replica's committed batches into market stream events. Everything comes from
// core events (and the state and projections they built) on the replica the gateway reads:
// trades as they commit, book tickers after each batch, depth at its cadences, mark and index
// prices on timers, and the projection-backed streams once their rows are readable.

import type { Event, ForceOrderEvent, MarketEvent } from '../../core/events.js'
import type { State } from '../../core/state.js'
import type { CommittedBatch, GatewayContext } from '../context.js'
import { DepthBook } from './depth-book.js'
import { DepthFeed, type FeedPosition } from './depth-feed.js'
import { bestKey, bookTickerEvent, contractInfoEvent, forceOrderEvent, indexPriceEvent, markPriceEvent, tradeEvent } from './format-stream.js'
import type { StreamHub } from './hub.js'
import { ProjectionFeed } from './projection-feed.js'
import { leverageBrackets } from '../format-market.js'
import { referencePriceEvent } from '../reference-price.js'
import { allMarketsStream, DEPTH_SPEEDS, streamName } from './streams.js'

export interface FeedCadences {
  /** Mark and index price: the default and the `@1s` forms. */
  markPriceMs: number
  markPriceFastMs: number
  aggTradeMs: number
  klineMs: number
  tickerMs: number
  tickerArrMs: number
  miniTickerMs: number
  miniTickerArrMs: number
  /** Spot `<s>@avgPrice` and the rolling window tickers (Binance spot: 1 s). */
  avgPriceMs: number
  windowTickerMs: number
  /** Spot `<s>@referencePrice` (Binance spot: 1 s). */
  referencePriceMs: number
}

/** Binance USD-M's update speeds (and Binance spot's for the average price). */
export const BINANCE_CADENCES: FeedCadences = {
  markPriceMs: 3000, markPriceFastMs: 1000, aggTradeMs: 100, klineMs: 250,
  tickerMs: 2000, tickerArrMs: 1000, miniTickerMs: 2000, miniTickerArrMs: 1000, avgPriceMs: 1000,
  windowTickerMs: 1000, referencePriceMs: 1000,
}

export class MarketFeed {
  private readonly position: FeedPosition
  private readonly depthBook: DepthBook
  private readonly depth: DepthFeed
  private readonly projected: ProjectionFeed
  /** Best bid and ask last sent per market, to send book tickers only on a change. */
  private readonly lastBest = new Map<number, string>()
  private readonly timers: NodeJS.Timeout[] = []
  private unsubscribe: (() => void) | null = null

  constructor(private readonly ctx: GatewayContext, private readonly hub: StreamHub,
    private readonly cadences: FeedCadences, private readonly onError: (err: unknown) => void) {
    const state = ctx.state()
    // The feed starts from the replica as it is; entries up to its seq are already in it.
    this.position = { seq: state.seq, time: state.time }
    this.depthBook = new DepthBook(state, DEPTH_SPEEDS.length)
    const now = () => ctx.now()
    this.depth = new DepthFeed(hub, this.depthBook, () => ctx.state(), () => this.position, now, state.seq)
    this.projected = new ProjectionFeed(hub, ctx.projections, () => ctx.state(), now, () => this.position.time)
    for (const m of state.markets) if (m) this.lastBest.set(m.marketId, bestKey(m.book.bids) + '|' + bestKey(m.book.asks))
  }

  start(): void {
    if (this.ctx.onCommitted === undefined) throw new Error('market streams need the context to publish committed batches')
    this.unsubscribe = this.ctx.onCommitted((c) => {
      try {
        this.onBatch(c)
      } catch (err) {
        this.onError(err)
      }
    })
    const every = (ms: number, fn: () => void | Promise<void>) => {
      let busy = false
      this.timers.push(setInterval(() => {
        if (busy) return
        busy = true
        Promise.resolve().then(fn).catch(this.onError).finally(() => { busy = false })
      }, ms))
    }
    DEPTH_SPEEDS.forEach((ms, i) => every(ms, () => this.depth.tick(i)))
    const c = this.cadences
    every(c.markPriceMs, () => this.prices(false))
    every(c.markPriceFastMs, () => this.prices(true))
    every(c.aggTradeMs, () => this.projected.aggTick())
    every(c.klineMs, () => this.projected.klineTick())
    every(c.tickerMs, () => this.projected.tickerTick('ticker', false))
    every(c.tickerArrMs, () => this.projected.tickerTick('ticker', true))
    every(c.miniTickerMs, () => this.projected.tickerTick('miniTicker', false))
    every(c.miniTickerArrMs, () => this.projected.tickerTick('miniTicker', true))
    every(c.avgPriceMs, () => this.projected.avgPriceTick())
    every(c.windowTickerMs, () => this.projected.windowTickerTick())
    every(c.referencePriceMs, () => this.referencePrices())
  }

  stop(): void {
    this.unsubscribe?.()
    this.unsubscribe = null
    for (const t of this.timers) clearInterval(t)
    this.timers.length = 0
  }

  private onBatch(c: CommittedBatch): void {
    const state = this.ctx.state()
    const touched = new Set<number>()
    for (let i = 0; i < c.entries.length; i++) {
      const entry = c.entries[i]!
      // Replays and entries the starting state already held; a gap would leave the levels wrong.
      if (entry.seq <= this.position.seq) continue
      if (entry.seq !== this.position.seq + 1) {
        this.onError(new Error(`market streams: entry ${entry.seq} after ${this.position.seq} (gap)`))
      }
      const events = c.results[i]!.events
      this.depthBook.applyEntry(events, touched)
      this.entryEvents(state, entry.seq, events)
      this.position.seq = entry.seq
      this.position.time = entry.time
    }
    if (state.seq === this.position.seq) this.verify(state, touched)
    for (const id of touched) this.bookTicker(state, id)
    this.hub.batchEnd()
  }

  /**
   * When the replica's state is at the feed's seq, its book must equal the levels built from
   * events. A difference means core events this feed does not model: it is reported, and the
   * market's levels are reset from the book (exact at this seq), so clients get the fix.
   */
  private verify(state: State, touched: Set<number>): void {
    for (const id of touched) {
      const m = state.markets[id]
      const levels = this.depthBook.markets.get(id)
      if (m === undefined || levels === undefined || levels.matches(m)) continue
      this.onError(new Error(`market streams: depth levels of ${m.symbol} differ from the book at seq ${state.seq}; reset`))
      levels.reset(m)
      levels.matches(m)
    }
  }

  /** An entry's trades, liquidation orders and market listings or status changes, to their streams. */
  private entryEvents(state: State, seq: number, events: readonly Event[]): void {
    for (const e of events) {
      if (e.type === 'forceOrder') {
        this.forceOrder(state, e)
        continue
      }
      if (e.type === 'market') {
        this.contractInfo(state, e)
        continue
      }
      // An ADL fill is off the book: no public trade.
      if ((e.type !== 'trade' || e.adl) && e.type !== 'spotTrade') continue
      const m = state.markets[e.marketId]
      if (m === undefined) continue
      this.projected.onTrade(e.marketId, seq, e.time, e.tradeId)
      const name = streamName.trade(m.symbol.toLowerCase())
      if (this.hub.has(name)) this.hub.publish(name, tradeEvent(m, e, this.ctx.now()), m.kind === 'SPOT')
    }
  }

  /** A liquidation order as it ends, on its market's stream and the all-market one (ADL orders are not liquidations). */
  private forceOrder(state: State, e: ForceOrderEvent): void {
    const m = state.markets[e.marketId]
    if (m === undefined || e.autoCloseType !== 'LIQUIDATION') return
    const one = streamName.forceOrder(m.symbol.toLowerCase())
    const all = streamName.forceOrder(null)
    if (!this.hub.has(one) && !this.hub.has(all)) return
    const event = JSON.stringify(forceOrderEvent(m, e, this.ctx.now()))
    this.hub.publish(one, event)
    this.hub.publish(all, event)
  }

  /** A perpetual listed (its entry's time is its onboardDate) or its status changed. */
  private contractInfo(state: State, e: MarketEvent): void {
    const m = state.markets[e.marketId]
    const name = streamName.contractInfo()
    if (m === undefined || m.kind !== 'PERP' || !this.hub.has(name)) return
    // The event's status, not the state's: a later entry of the batch may have changed it again.
    this.hub.publish(name, contractInfoEvent(m, e.status, e.time === m.onboardDate ? leverageBrackets(state, m) : null, this.ctx.now()))
  }

  /** The replica's best levels, when they differ from the last sent; u is the replica's seq. */
  private bookTicker(state: State, marketId: number): void {
    const m = state.markets[marketId]
    if (m === undefined) return
    const key = bestKey(m.book.bids) + '|' + bestKey(m.book.asks)
    if (this.lastBest.get(marketId) === key) return
    this.lastBest.set(marketId, key)
    const one = streamName.bookTicker(m.symbol.toLowerCase())
    // The all-market stream of the market's host (USD-M's for a perpetual, spot's for a spot market).
    const all = allMarketsStream(streamName.bookTicker(null), m.kind)
    if (!this.hub.has(one) && !this.hub.has(all)) return
    const event = JSON.stringify(bookTickerEvent(m, state.seq, state.time, this.ctx.now()))
    // Not `spot`: a spot market's book ticker has no time field, so no unit to follow.
    this.hub.publish(one, event)
    this.hub.publish(all, event)
  }

  /** `<s>@referencePrice` of each spot market under the Price Range rule someone listens to, every tick. */
  private referencePrices(): void {
    const state = this.ctx.state()
    const now = this.ctx.now()
    for (const m of state.markets) {
      if (m === undefined || m.kind !== 'SPOT' || m.priceRange === null) continue
      const name = streamName.referencePrice(m.symbol.toLowerCase())
      if (this.hub.has(name)) this.hub.publish(name, referencePriceEvent(state, m, now), true)
    }
  }

  private prices(fast: boolean): void {
    const now = this.ctx.now()
    const all: object[] = []
    const wantAll = this.hub.has(streamName.markPrice(null, fast))
    for (const m of this.ctx.state().markets) {
      if (m === undefined || m.kind !== 'PERP') continue
      const one = streamName.markPrice(m.symbol.toLowerCase(), fast)
      if (this.hub.has(one) || wantAll) {
        const event = markPriceEvent(m, now)
        this.hub.publish(one, event)
        if (wantAll) all.push(event)
      }
      const index = streamName.indexPrice(m.pair.toLowerCase(), fast)
      if (this.hub.has(index)) this.hub.publish(index, indexPriceEvent(m, now))
    }
    if (all.length > 0) this.hub.publish(streamName.markPrice(null, fast), all)
  }
}
