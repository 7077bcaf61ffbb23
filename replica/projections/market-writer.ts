// Market read models from fills: trades, aggregate trades, klines of every interval, open
// interest and how many sub-accounts are net long and net short. Each market's open aggregate,
// current klines, open interest and account counts live in a cursor in memory (and on disk,
// written with each batch), so applying never reads the store. The counts need each
// sub-account's position sides, kept in memory too and written as they change.

import { addExact } from '../../core/arith.js'
import { assert, assertSafe } from '../../core/assert.js'
import type { PerpFillSide, PerpTradeEvent, SpotTradeEvent } from '../../core/events.js'
import type { PendingBatch } from './batch.js'
import { aggTradeCodec, klineCodec, numberCodec, openInterestCodec, plainCodec, tradeCodec } from './codec.js'
import { bucketClose, bucketOpen, KLINE_INTERVALS, PERP_INTERVAL_COUNT } from './intervals.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { AggTradeRecord, KlineRecord, OpenInterestRecord } from './records.js'
import {
  aggIdKey, aggTradeKey, klineKey, marketPrefix, openInterestKey, sidesKey, tradeKey, type Stores,
} from './stores.js'

/** A market's rolling state: everything the next fill updates in place. */
export interface MarketCursor {
  marketId: number
  perp: boolean
  lastTradeId: number
  lastPriceTicks: number
  lastQtyLots: number
  lastTime: number
  /** The newest aggregate; the next fill may still merge into it. */
  agg: AggTradeRecord | null
  /** The current kline of each interval, by interval index. */
  klines: (KlineRecord | null)[]
  openInterestLots: number
  /** Time of the last change of the open interest or the account counts (0 before any). */
  openInterestTime: number
  /** Sub-accounts whose net position (BOTH + LONG + SHORT) is long, and short (absent in older cursors). */
  longAccounts?: number
  shortAccounts?: number
}

/** One sub-account's position sides in one market, signed lots: BOTH, LONG, SHORT. */
type Sides = [number, number, number]
const SIDE_INDEX = { BOTH: 0, LONG: 1, SHORT: 2 } as const

/** Stored form of a sub-account's sides: [marketId, owner, BOTH, LONG, SHORT]. */
const sidesCodec = plainCodec<[number, string, number, number, number]>()

export const cursorCodec = plainCodec<MarketCursor>()

type TradeEvent = PerpTradeEvent | SpotTradeEvent

function newCursor(marketId: number, perp: boolean): MarketCursor {
  return {
    marketId, perp, lastTradeId: 0, lastPriceTicks: 0, lastQtyLots: 0, lastTime: 0, agg: null,
    klines: KLINE_INTERVALS.map(() => null), openInterestLots: 0, openInterestTime: 0, longAccounts: 0, shortAccounts: 0,
  }
}

const netSign = (s: Sides): number => Math.sign(s[0] + s[1] + s[2])

/** How a fill moved one side's long lots: after the fill minus before (the position before is after − the fill). */
function longDelta(s: PerpFillSide, lots: number): number {
  const after = s.positionQtyLots
  const before = after - (s.side === 'BUY' ? lots : -lots)
  return Math.max(after, 0) - Math.max(before, 0)
}

function oiBucket(time: number): number {
  return time - (time % PROJECTION_LIMITS.openInterestBucketMs)
}

export class MarketWriter {
  readonly cursors = new Map<number, MarketCursor>()
  /** Markets whose cursor changed since the last batch was taken. */
  private dirty = new Set<number>()
  /** Position sides by market, then owner ("account:sub"); flat sub-accounts are left out. */
  private readonly positions = new Map<number, Map<string, Sides>>()
  /** Sides changed since the last batch was taken: market → owners. */
  private dirtySides = new Map<number, Set<string>>()

  constructor(private readonly stores: Stores) {}

  async load(cursors: MarketCursor[]): Promise<void> {
    this.cursors.clear()
    this.dirty.clear()
    this.positions.clear()
    this.dirtySides.clear()
    for (const c of cursors) this.cursors.set(c.marketId, c)
    for await (const v of this.stores.positionSides.values()) {
      const [marketId, owner, ...sides] = sidesCodec.decode(v)
      this.marketPositions(marketId).set(owner, sides)
    }
  }

  onTrade(batch: PendingBatch, e: TradeEvent): void {
    const c = this.cursor(e.marketId, e.type === 'trade')
    if (!(e.tradeId > c.lastTradeId)) assert(false, `trade ${e.tradeId} of market ${e.marketId} after ${c.lastTradeId}`)
    assert(e.time >= c.lastTime, 'trade time went backwards')
    const quote = assertSafe(e.priceTicks * e.qtyLots, 'trade quote quantity')
    batch.put(this.stores.trades, tradeKey(e.marketId, e.tradeId), tradeCodec.encode({
      tradeId: e.tradeId, priceTicks: e.priceTicks, qtyLots: e.qtyLots, quoteQtyTicksLots: quote,
      time: e.time, buyerIsMaker: e.buyerIsMaker,
    }))
    this.aggregate(batch, c, e)
    for (let i = 0, n = c.perp ? PERP_INTERVAL_COUNT : KLINE_INTERVALS.length; i < n; i++) this.kline(batch, c, i, e, quote)
    c.lastTradeId = e.tradeId
    c.lastPriceTicks = e.priceTicks
    c.lastQtyLots = e.qtyLots
    c.lastTime = e.time
    this.dirty.add(c.marketId)
  }

  /** Writes the dirty cursors and what they hold open into `batch`; encodes now, so later fills cannot leak in. */
  takeDirty(batch: PendingBatch): void {
    for (const id of this.dirty) {
      const c = this.cursors.get(id)!
      if (c.agg) batch.put(this.stores.aggTrades, aggTradeKey(id, c.agg.time, c.agg.aggId), aggTradeCodec.encode(c.agg))
      for (let i = 0; i < c.klines.length; i++) {
        const k = c.klines[i]
        if (k) batch.put(this.stores.klines, klineKey(id, i, k.openTime), klineCodec.encode(k))
      }
      if (c.openInterestTime > 0) this.putOpenInterest(batch, c)
      batch.put(this.stores.cursors, marketPrefix(id), cursorCodec.encode(c))
    }
    this.dirty = new Set()
    for (const [marketId, owners] of this.dirtySides) {
      const held = this.marketPositions(marketId)
      for (const owner of owners) {
        const sides = held.get(owner)
        const k = sidesKey(marketId, owner)
        if (sides === undefined) batch.del(this.stores.positionSides, k)
        else batch.put(this.stores.positionSides, k, sidesCodec.encode([marketId, owner, ...sides]))
      }
    }
    this.dirtySides = new Map()
  }

  /**
   * Every perpetual fill, auto-deleveraging ones too (they move positions off the book): the
   * open interest moves by the change in long lots of both sides, and the account counts by
   * the sides whose net position changed sign.
   */
  onPositions(batch: PendingBatch, e: PerpTradeEvent): void {
    const c = this.cursor(e.marketId, true)
    const oiDelta = longDelta(e.maker, e.qtyLots) + longDelta(e.taker, e.qtyLots)
    const longBefore = c.longAccounts ??= 0
    const shortBefore = c.shortAccounts ??= 0
    this.moveSides(c, e.maker)
    this.moveSides(c, e.taker)
    if (oiDelta === 0 && c.longAccounts === longBefore && c.shortAccounts === shortBefore) return
    // Leaving a bucket: its last value is final (the counts already moved: write the old ones).
    if (c.openInterestTime > 0 && oiBucket(c.openInterestTime) !== oiBucket(e.time)) {
      this.putOpenInterest(batch, { ...c, longAccounts: longBefore, shortAccounts: shortBefore })
    }
    c.openInterestLots += oiDelta
    assert(c.openInterestLots >= 0, 'open interest went negative')
    c.openInterestTime = e.time
    this.dirty.add(c.marketId)
  }

  private moveSides(c: MarketCursor, s: PerpFillSide): void {
    const held = this.marketPositions(c.marketId)
    const owner = `${s.account}:${s.sub}`
    // Updated in place: a fill allocates nothing here but for a sub-account's first position.
    let sides = held.get(owner)
    if (sides === undefined) held.set(owner, sides = [0, 0, 0])
    const from = netSign(sides)
    sides[SIDE_INDEX[s.positionSide]] = s.positionQtyLots
    const to = netSign(sides)
    if (from !== to) {
      c.longAccounts! += (to > 0 ? 1 : 0) - (from > 0 ? 1 : 0)
      c.shortAccounts! += (to < 0 ? 1 : 0) - (from < 0 ? 1 : 0)
    }
    if (sides[0] === 0 && sides[1] === 0 && sides[2] === 0) held.delete(owner)
    let owners = this.dirtySides.get(c.marketId)
    if (owners === undefined) this.dirtySides.set(c.marketId, owners = new Set())
    owners.add(owner)
  }

  private marketPositions(marketId: number): Map<string, Sides> {
    let held = this.positions.get(marketId)
    if (held === undefined) this.positions.set(marketId, held = new Map())
    return held
  }

  private cursor(marketId: number, perp: boolean): MarketCursor {
    let c = this.cursors.get(marketId)
    if (c === undefined) {
      c = newCursor(marketId, perp)
      this.cursors.set(marketId, c)
    }
    if (c.perp !== perp) assert(false, `market ${marketId} traded as both perp and spot`)
    return c
  }

  /** Merges into the open aggregate when the price and taker side match within the window. */
  private aggregate(batch: PendingBatch, c: MarketCursor, e: TradeEvent): void {
    const a = c.agg
    if (a && a.priceTicks === e.priceTicks && a.buyerIsMaker === e.buyerIsMaker
      && e.time - a.time <= PROJECTION_LIMITS.aggregateWindowMs) {
      a.qtyLots += e.qtyLots
      a.lastTradeId = e.tradeId
      return
    }
    // The closed aggregate never changes again: write its final form now.
    if (a) batch.put(this.stores.aggTrades, aggTradeKey(c.marketId, a.time, a.aggId), aggTradeCodec.encode(a))
    const aggId = (a?.aggId ?? 0) + 1
    c.agg = {
      aggId, priceTicks: e.priceTicks, qtyLots: e.qtyLots, firstTradeId: e.tradeId, lastTradeId: e.tradeId,
      time: e.time, buyerIsMaker: e.buyerIsMaker,
    }
    batch.put(this.stores.aggIds, aggIdKey(c.marketId, aggId), numberCodec.encode(e.time))
  }

  private kline(batch: PendingBatch, c: MarketCursor, i: number, e: TradeEvent, quote: number): void {
    const interval = KLINE_INTERVALS[i]!
    const openTime = bucketOpen(interval, e.time)
    let k = c.klines[i] ?? null
    if (k === null || k.openTime !== openTime) {
      if (k) batch.put(this.stores.klines, klineKey(c.marketId, i, k.openTime), klineCodec.encode(k))
      k = {
        openTime, closeTime: bucketClose(interval, openTime),
        openPriceTicks: e.priceTicks, highPriceTicks: e.priceTicks, lowPriceTicks: e.priceTicks,
        closePriceTicks: e.priceTicks, volumeLots: 0, quoteVolumeTicksLots: 0, count: 0,
        takerBuyVolumeLots: 0, takerBuyQuoteVolumeTicksLots: 0, firstTradeId: e.tradeId, lastTradeId: e.tradeId,
      }
      c.klines[i] = k
    }
    if (e.priceTicks > k.highPriceTicks) k.highPriceTicks = e.priceTicks
    if (e.priceTicks < k.lowPriceTicks) k.lowPriceTicks = e.priceTicks
    k.closePriceTicks = e.priceTicks
    k.volumeLots += e.qtyLots
    k.quoteVolumeTicksLots = addExact(k.quoteVolumeTicksLots, quote)
    k.count += 1
    if (!e.buyerIsMaker) {
      k.takerBuyVolumeLots += e.qtyLots
      k.takerBuyQuoteVolumeTicksLots = addExact(k.takerBuyQuoteVolumeTicksLots, quote)
    }
    k.lastTradeId = e.tradeId
  }

  private putOpenInterest(batch: PendingBatch, c: MarketCursor): void {
    const r: OpenInterestRecord = {
      marketId: c.marketId, openInterestLots: c.openInterestLots, time: c.openInterestTime,
      longAccounts: c.longAccounts ?? 0, shortAccounts: c.shortAccounts ?? 0,
    }
    batch.put(this.stores.openInterest, openInterestKey(c.marketId, oiBucket(c.openInterestTime)), openInterestCodec.encode(r))
  }
}
