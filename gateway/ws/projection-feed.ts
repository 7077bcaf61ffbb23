// Streams read from the projections, so they match REST exactly: aggregate trades (ids as
// /fapi/v1/aggTrades gives them), klines, the 24 h tickers, and the spot markets' rolling
// window tickers and average prices. A market's trades mark it
// dirty; an emitter handles it once the projections can read past its last trade (at once for
// the projections' worker, whose queries write what is pending first; once flushed for the
// store in the main thread).

import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { Market, State } from '../../core/state.js'
import { KLINE_INTERVALS, zonedBucketClose, zonedBucketOpen, type KlineInterval, type Projections } from '../../replica/projections/index.js'
import { AVG_PRICE_MINS, averagePrice } from '../avg-price.js'
import type { StreamHub } from './hub.js'
import { aggTradeEvent, continuousKlineEvent, klineEvent, miniTickerEvent, tickerEvent, windowTickerEvent } from './format-stream.js'
import { allMarketsStream, KLINE_OFFSETS, parseStream, streamName, TICKER_WINDOWS, type TickerWindow } from './streams.js'

interface Traded {
  /** Seq and time of the market's last trade the feed saw. */
  seq: number
  time: number
}

/** Where the aggregate stream of a market resumes. */
interface AggCursor {
  /** Next aggregate id to send, or null: start from the first trade since `fromTime`. */
  nextAggId: number | null
  fromTradeId: number
  fromTime: number
}

interface KlineSent {
  openTime: number
  closeTime: number
  closed: boolean
}

const AGG_BATCH = 200
const HOUR_MS = 3_600_000
const WINDOW_MS: Record<TickerWindow, number> = { '1h': HOUR_MS, '4h': 4 * HOUR_MS, '1d': 24 * HOUR_MS }

export class ProjectionFeed {
  private readonly traded = new Map<number, Traded>()
  private readonly aggDirty = new Set<number>()
  private readonly agg = new Map<number, AggCursor>()
  private readonly klineDirty = new Set<number>()
  private readonly klines = new Map<string, KlineSent>()
  /** Markets traded since the last ticker / miniTicker event, per form (symbol, array). */
  private readonly tickerDirty = { ticker: [new Set<number>(), new Set<number>()], miniTicker: [new Set<number>(), new Set<number>()] }
  /** Each `<s>@avgPrice` stream's last event, as `w|T`: one is sent when either changes. */
  private readonly avgSent = new Map<string, string>()
  /** Markets traded since the last rolling window ticker event, per window and form (symbol, array). */
  private readonly windowDirty = new Map<TickerWindow, Set<number>[]>(TICKER_WINDOWS.map((w) => [w, [new Set<number>(), new Set<number>()]]))

  constructor(private readonly hub: StreamHub, private readonly projections: Projections,
    private readonly state: () => State, private readonly now: () => number, private readonly lastEntryTime: () => number) {}

  onTrade(marketId: number, seq: number, time: number, tradeId: number): void {
    this.traded.set(marketId, { seq, time })
    this.aggDirty.add(marketId)
    if (!this.agg.has(marketId)) this.agg.set(marketId, { nextAggId: null, fromTradeId: tradeId, fromTime: time })
    this.klineDirty.add(marketId)
    for (const sets of Object.values(this.tickerDirty)) for (const s of sets) s.add(marketId)
    for (const sets of this.windowDirty.values()) for (const s of sets) s.add(marketId)
  }

  private readable(marketId: number): boolean {
    return this.projections.readableSeq >= (this.traded.get(marketId)?.seq ?? 0)
  }

  private symbolOf(marketId: number): { m: Market; symbol: string } | undefined {
    const m = this.state().markets[marketId]
    return m && { m, symbol: m.symbol.toLowerCase() }
  }

  /**
   * Sends every aggregate that can no longer grow: one followed by another, or whose window
   * has passed (entry times never go back, so no later trade can join it).
   */
  async aggTick(): Promise<void> {
    for (const id of [...this.aggDirty]) {
      const s = this.symbolOf(id)
      const cursor = this.agg.get(id)
      if (s === undefined || cursor === undefined) { this.aggDirty.delete(id); continue }
      const name = streamName.aggTrade(s.symbol)
      if (!this.hub.has(name)) {
        // Nobody listens: forget the position; a later subscriber starts at the next trade.
        this.aggDirty.delete(id)
        this.agg.delete(id)
        continue
      }
      if (!this.readable(id)) continue
      const rows = cursor.nextAggId !== null
        ? await this.projections.aggTrades(id, { fromId: cursor.nextAggId, limit: AGG_BATCH })
        : (await this.projections.aggTrades(id, {
            startTime: Math.max(0, cursor.fromTime - PROJECTION_LIMITS.aggregateWindowMs), limit: AGG_BATCH,
          })).filter((a) => a.lastTradeId >= cursor.fromTradeId)
      const settled = Math.max(this.lastEntryTime(), this.now() - 1000)
      let open = false
      for (let i = 0; i < rows.length; i++) {
        const a = rows[i]!
        if (i === rows.length - 1 && settled <= a.time + PROJECTION_LIMITS.aggregateWindowMs) { open = true; break }
        this.hub.publish(name, aggTradeEvent(s.m, a, this.now()), s.m.kind === 'SPOT')
        cursor.nextAggId = a.aggId + 1
      }
      if (!open && rows.length < AGG_BATCH) this.aggDirty.delete(id)
    }
  }

  /**
   * Updates of the current kline of each subscribed interval (and zone), and the final form of
   * one that closed. An interval without trades is sent too, flat at the last close (volume 0,
   * trade ids -1), as Binance sends one: when it begins, or when a stream is subscribed.
   */
  async klineTick(): Promise<void> {
    const now = this.now()
    for (const id of [...this.klineDirty]) {
      if (!this.readable(id)) continue
      this.klineDirty.delete(id)
      const s = this.symbolOf(id)
      const t = this.traded.get(id)
      if (s === undefined || t === undefined) continue
      for (const interval of KLINE_INTERVALS) {
        for (const offsetMs of KLINE_OFFSETS) {
          const name = streamName.kline(s.symbol, interval, offsetMs)
          if (!this.klineListened(s.m, interval, offsetMs)) continue
          const sent = this.klines.get(name)
          const openTime = zonedBucketOpen(interval, t.time, offsetMs)
          if (sent !== undefined && sent.openTime !== openTime && !sent.closed) await this.sendKline(s.m, interval, offsetMs, sent.openTime, true, name)
          // The trade's own interval is stored: one read, not the gap filler's three.
          await this.sendKline(s.m, interval, offsetMs, openTime, now > zonedBucketClose(interval, openTime, offsetMs), name, false)
        }
      }
    }
    const listened = this.listenedKlines()
    for (const name of this.klines.keys()) if (!listened.has(name)) this.klines.delete(name)
    for (const [name, { m, interval, offsetMs }] of listened) {
      // A trade not yet readable: the loop above sends its kline once it is.
      if (this.klineDirty.has(m.marketId)) continue
      const sent = this.klines.get(name)
      if (sent !== undefined && !sent.closed) {
        if (now <= sent.closeTime) continue
        // Ended with no trade after it: its final form.
        await this.sendKline(m, interval, offsetMs, sent.openTime, true, name)
      }
      const openTime = zonedBucketOpen(interval, now, offsetMs)
      // Read once the projections have reached the interval. None there (no trade yet) once
      // they have flushed past its open: nothing to send until the next one.
      if ((this.klines.get(name)?.openTime ?? -1) >= openTime || this.projections.lastTime < openTime) continue
      if (!await this.sendKline(m, interval, offsetMs, openTime, false, name) && this.projections.flushedTime >= openTime) {
        this.klines.set(name, { openTime, closeTime: zonedBucketClose(interval, openTime, offsetMs), closed: true })
      }
    }
  }

  /** Each market kline stream someone listens to, by its name: by symbol, or a perpetual's by its pair (contract type PERPETUAL). */
  private listenedKlines(): Map<string, { m: Market; interval: KlineInterval; offsetMs: number }> {
    const out = new Map<string, { m: Market; interval: KlineInterval; offsetMs: number }>()
    const state = this.state()
    for (const stream of this.hub.streams()) {
      const spec = parseStream(stream)
      if (spec?.kind === 'kline') {
        const m = state.marketsBySymbol.get(spec.symbol.toUpperCase())
        if (m !== undefined) out.set(stream, { m, interval: spec.interval, offsetMs: spec.offsetMs })
      } else if (spec?.kind === 'continuousKline' && spec.contractType === 'perpetual') {
        const m = state.markets.find((x) => x?.kind === 'PERP' && x.pair.toLowerCase() === spec.pair)
        if (m !== undefined) out.set(streamName.kline(m.symbol.toLowerCase(), spec.interval), { m, interval: spec.interval, offsetMs: 0 })
      }
    }
    return out
  }

  /**
   * Whether anyone listens to a market's klines of `interval` in a zone: by symbol, or (UTC) a
   * perpetual's by its pair's continuous klines (contract type PERPETUAL).
   */
  private klineListened(m: Market, interval: KlineInterval, offsetMs: number): boolean {
    return this.hub.has(streamName.kline(m.symbol.toLowerCase(), interval, offsetMs))
      || (offsetMs === 0 && m.kind === 'PERP' && this.hub.has(streamName.continuousKline(m.pair.toLowerCase(), interval)))
  }

  /**
   * Publishes the kline of `interval` opening at `openTime`, false when there is none; `gapless`
   * (an interval that may have had no trade): the flat one where none is stored.
   */
  private async sendKline(m: Market, interval: KlineInterval, offsetMs: number, openTime: number,
    closed: boolean, name: string, gapless = true): Promise<boolean> {
    const [k] = await this.projections.klines(m.marketId, interval, { startTime: openTime, endTime: openTime, limit: 1, offsetMs, gapless })
    if (k === undefined) return false
    this.klines.set(name, { openTime: k.openTime, closeTime: k.closeTime, closed })
    if (this.hub.has(name)) this.hub.publish(name, klineEvent(m, interval, k, closed, this.now()), m.kind === 'SPOT')
    if (m.kind === 'PERP' && offsetMs === 0) {
      const continuous = streamName.continuousKline(m.pair.toLowerCase(), interval)
      if (this.hub.has(continuous)) this.hub.publish(continuous, continuousKlineEvent(m, interval, k, closed, this.now()))
    }
    return true
  }

  /**
   * `<s>@ticker` / `!ticker@arr` (and the mini forms) for the markets traded since the last one;
   * the array form of the perpetuals and that of the spot markets go to each one's stream host.
   */
  async tickerTick(kind: 'ticker' | 'miniTicker', arr: boolean): Promise<void> {
    const format = kind === 'ticker' ? tickerEvent : miniTickerEvent
    await this.emitTickers(this.tickerDirty[kind][arr ? 1 : 0]!, arr, () => true,
      (symbol, m) => symbol === null ? allMarketsStream(streamName[kind](null), m.kind) : streamName[kind](symbol),
      async (m, id, now) => format(m, await this.projections.ticker24h(id, now), this.now()))
  }

  /**
   * Binance spot's rolling window tickers (`<s>@ticker_<window>`, `!ticker_<window>@arr` over the
   * spot markets) for the spot markets traded since the last one: GET /api/v3/ticker's figures
   * for the window ending now.
   */
  async windowTickerTick(): Promise<void> {
    for (const [window, sets] of this.windowDirty) {
      for (const [form, dirty] of sets.entries()) {
        await this.emitTickers(dirty, form === 1, (m) => m.kind === 'SPOT', (symbol) => streamName.windowTicker(symbol, window),
          async (m, id, now) => windowTickerEvent(m, window, await this.projections.ticker24h(id, now, WINDOW_MS[window]), now, this.now()))
      }
    }
  }

  /**
   * One ticker stream form: each `dirty` market the projections can read, of the kind `carries`,
   * to its own stream (`nameOf(symbol, m)`) or, `arr`, together with the others that name the same
   * stream to `nameOf(null, m)`, when someone listens. `now` is the REST ticker's: never before the
   * newest flushed entry.
   */
  private async emitTickers(dirty: Set<number>, arr: boolean, carries: (m: Market) => boolean,
    nameOf: (symbol: string | null, m: Market) => string, event: (m: Market, id: number, now: number) => Promise<object>): Promise<void> {
    // An array stream's markets are all of one kind (nameOf: each kind's host has its own).
    const batches = new Map<string, { spot: boolean; events: object[] }>()
    for (const id of [...dirty]) {
      if (!this.readable(id)) continue
      dirty.delete(id)
      const s = this.symbolOf(id)
      if (s === undefined || !carries(s.m)) continue
      const name = nameOf(arr ? null : s.symbol, s.m)
      if (!this.hub.has(name)) continue
      const e = await event(s.m, id, Math.max(this.now(), this.projections.flushedTime))
      const spot = s.m.kind === 'SPOT'
      if (!arr) this.hub.publish(name, e, spot)
      else if (batches.has(name)) batches.get(name)!.events.push(e)
      else batches.set(name, { spot, events: [e] })
    }
    for (const [name, batch] of batches) this.hub.publish(name, batch.events, batch.spot)
  }

  /**
   * `<s>@avgPrice` of each spot market someone listens to, when its average price or its last
   * trade changed: the window slides even without trades, so every tick looks again.
   */
  async avgPriceTick(): Promise<void> {
    for (const m of this.state().markets) {
      if (m === undefined || m.kind !== 'SPOT') continue
      const name = streamName.avgPrice(m.symbol.toLowerCase())
      if (!this.hub.has(name)) {
        this.avgSent.delete(name)
        continue
      }
      if (!this.readable(m.marketId)) continue
      // The REST average price's "now": never before the newest flushed entry.
      const now = Math.max(this.now(), this.projections.flushedTime)
      const w = await averagePrice(this.projections, m, now)
      const last = (await this.projections.recentTrades(m.marketId, 1, now))[0]
      const T = last?.time ?? 0
      const key = `${w}|${T}`
      if (this.avgSent.get(name) === key) continue
      this.avgSent.set(name, key)
      this.hub.publish(name, { e: 'avgPrice', E: this.now(), s: m.symbol, i: `${AVG_PRICE_MINS}m`, w, T }, true)
    }
  }
}
