// The history read models as one object: apply entries' events (synchronously, into a
// pending batch), flush each group as one LevelDB batch with its lastSeq, and answer the
// gateway's queries from what is flushed. Idempotent by seq; a gap is an error.

import { Level } from 'level'
import { assert, InvariantError } from '../../core/assert.js'
import type { Event } from '../../core/events.js'
import { onOrder, onPerpTrade, onSpotTrade } from './account-writer.js'
import { priceKlines, PriceKlineWriter, type PriceKind, type PriceKlineQuery, type PriceKlineRecord } from './price-klines.js'
import { fundingRates, onFunding, onFundingRate, type FundingRateQuery, type FundingRateRecord } from './funding.js'
import * as accountQueries from './account-queries.js'
import { onAmendment, orderAmendments, orderAmendmentsFrom, type AmendmentQuery, type AmendmentRecord } from './amendments.js'
import { onTopTraders, topTradersHistory, type TopTradersQuery, type TopTradersRecord } from './top-traders.js'
import { allOrderLists, onOrderList, orderList, type OrderListQuery, type OrderListRecord } from './order-lists.js'
import { onPreventedMatch, preventedMatches, type PreventedMatchQuery, type PreventedMatchRecord } from './prevented-matches.js'
import { onPositionMargin, positionMargins, type PositionMarginQuery, type PositionMarginRecord } from './position-margin.js'
import { forceOrders, onForceOrder, onInsurance, type ForceOrderQuery, type ForceOrderRecord } from './force-orders.js'
import { applyFill, PendingBatch, type BatchOp, type PendingOrder } from './batch.js'
import { numberCodec, orderCodec, plainCodec } from './codec.js'
import { intervalIndex, type KlineInterval } from './intervals.js'
import { gaplessKlines } from './kline-gaps.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import { PROJECTIONS_DB_OPTIONS } from '../level-options.js'
import * as marketQueries from './market-queries.js'
import { cursorCodec, MarketWriter, type MarketCursor } from './market-writer.js'
import { pruneByTimeSuffix, pruneKlines, pruneTrades, pruneUserTrades } from './prune.js'
import { ClosedOrders, indexClosedOrders, orderVisible, pruneOrders, type RetainedMarket } from './order-retention.js'
import type {
  AggTradeRecord, DepositRecord, PendingDepositRecord, IncomeRecord, KlineRecord, OpenInterestRecord, OrderRecord, Owner, TickerRecord,
  TradeRecord, TransferRecord, SubTransferRecord, UserTradeInList, UserTradeRecord, WithdrawalRecord,
} from './records.js'
import { allStores, CLOSED_INDEX_KEY, CONDITIONAL_INDEX_KEY, META_KEY, openBase, openStores, type BaseDb, type ProjectionsParent, type Store, type Stores } from './stores.js'
import { ticker24h } from './ticker.js'
import { onDeposit, onDepositPending, onSubTransfer, onTransfer, onWithdrawal } from './wallet-writer.js'
import * as walletQueries from './wallet-queries.js'
import { loadPageFormatter, pageOf, PAGE_QUERIES, type Page, type PageArgs, type PageFormatter, type PageQuery } from './pages.js'

export interface ProjectionsOptions {
  /**
   * Pending batch size past which apply() refuses: the apply loop flushes well before (see
   * `flushDue`). One entry adds at most a few tens of thousands. Default in PROJECTION_LIMITS.
   */
  pendingOpsMax?: number
  /** Pending batch size at which `flushDue` turns true. Default in PROJECTION_LIMITS. */
  flushOpsHint?: number
  /** URL of the module that formats pages (pages.ts); without one, `page` refuses. */
  pageFormatter?: string
}

interface Meta {
  lastSeq: number
  lastTime: number
}

const metaCodec = plainCodec<Meta>()
/** Keys and values as the bytes given, whatever the root database's default encodings. */
const RAW = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const
/** Order statuses after which no fill comes: the order leaves the open orders' cache. */
/** Open orders whose stored bytes are kept; past it, a fill reads the record back. */
const OPEN_ORDERS_CACHED_MAX = 100_000
/** Row ids are seq × rowsPerEntryMax + n and must stay safe integers. */
const SEQ_MAX = Math.floor(Number.MAX_SAFE_INTEGER / PROJECTION_LIMITS.rowsPerEntryMax)

/** The event types the projections keep (applyEvent's cases); the rest are current state. */
export const PROJECTED_EVENTS: ReadonlySet<Event['type']> = new Set<Event['type']>([
  'order', 'trade', 'spotTrade', 'deposit', 'depositPending', 'transfer', 'subTransfer', 'withdrawal', 'funding', 'fundingRate',
  'prices', 'positionMargin', 'forceOrder', 'insurance', 'preventedMatch', 'orderList',
])

/**
 * Opens the projections under a 'projections' sublevel of `db` (a database the caller owns
 * and closes) or in a LevelDB at `path` (which the projections open and close themselves).
 */
export async function createProjections(db: ProjectionsParent | string, options: ProjectionsOptions = {}): Promise<Projections> {
  const own = typeof db === 'string' ? new Level<Buffer, Buffer>(db, { ...PROJECTIONS_DB_OPTIONS, keyEncoding: 'buffer', valueEncoding: 'buffer' }) : null
  const base = openBase(own ?? (db as ProjectionsParent))
  await base.open()
  const formatter = options.pageFormatter === undefined ? null : await loadPageFormatter(options.pageFormatter)
  const p = new Projections(base, own, options, formatter)
  await p.load()
  return p
}

/** What readers and feeders use: the store here, or the client of one in a worker thread. */
export type ProjectionsApi = Omit<Projections, 'load'>

export class Projections {
  private readonly stores: Stores
  private readonly market: MarketWriter
  private readonly priceKlineWriter: PriceKlineWriter
  private pending = new PendingBatch()
  /** Stored bytes of orders that can still fill, by key (hex), so a fill needs no read. */
  private readonly openOrders = new Map<string, Buffer>()
  /** Each store's prefix in the root database. */
  private readonly prefixes = new Map<Store, Buffer>()
  /** The last write asked for (settles once it and every write before it has). */
  private writing: Promise<void> = Promise.resolve()
  /** A write runs; the flushes asked meanwhile wait for `queued`, the one after it. */
  private inFlight = false
  /** Steps of a prune that must not interleave with a write (exclusive()) waiting or running. */
  private holds = 0
  private queued: Promise<void> | null = null
  private failure: unknown = null
  private appliedSeq = 0
  private appliedTime = 0
  private durableSeq = 0
  private durableTime = 0
  private readonly pendingOpsMax: number
  private readonly flushOpsHint: number

  constructor(private readonly base: BaseDb, private readonly own: { close(): Promise<void> } | null,
    options: ProjectionsOptions, private readonly formatter: PageFormatter | null = null) {
    this.stores = openStores(base)
    this.market = new MarketWriter(this.stores)
    this.priceKlineWriter = new PriceKlineWriter(this.stores)
    this.pendingOpsMax = options.pendingOpsMax ?? PROJECTION_LIMITS.pendingOpsMax
    this.flushOpsHint = options.flushOpsHint ?? PROJECTION_LIMITS.flushOpsHint
    assert(Number.isInteger(this.flushOpsHint) && this.flushOpsHint > 0 && this.flushOpsHint < this.pendingOpsMax,
      'flushOpsHint must be a positive integer below pendingOpsMax')
  }

  /** Seq of the last entry applied (flushed or not). */
  get lastSeq(): number { return this.appliedSeq }
  /** Time of the last entry applied. */
  get lastTime(): number { return this.appliedTime }
  /** Seq of the last entry on disk: queries answer as of it. */
  get flushedSeq(): number { return this.durableSeq }
  /** Time of that entry: the "now" of retention windows and default ranges. */
  get flushedTime(): number { return this.durableTime }
  /** The seq a query asked now answers as of at least: here, what is written. */
  get readableSeq(): number { return this.durableSeq }
  /** Resolves once a query asked then reads every entry applied so far: here, once they are written. */
  readable(): Promise<void> { return this.flush() }
  /** Resolves once every flush asked for so far has been written (or has failed). */
  written(): Promise<void> { return this.writing }
  /** Whether the pending batch is large enough that the apply loop should flush now. */
  get flushDue(): boolean { return this.pending.size >= this.flushOpsHint }

  /** @internal Reads the stored position and the market cursors. */
  async load(): Promise<void> {
    const meta = await this.stores.meta.get(META_KEY)
    const m = meta === undefined ? { lastSeq: 0, lastTime: 0 } : metaCodec.decode(meta)
    this.appliedSeq = this.durableSeq = m.lastSeq
    this.appliedTime = this.durableTime = m.lastTime
    const cursors: MarketCursor[] = []
    for await (const v of this.stores.cursors.values()) cursors.push(cursorCodec.decode(v))
    await this.market.load(cursors)
    await this.priceKlineWriter.load()
    if (await this.stores.meta.get(CONDITIONAL_INDEX_KEY) === undefined) await this.indexConditionalOrders()
    if (await this.stores.meta.get(CLOSED_INDEX_KEY) === undefined) {
      await indexClosedOrders(this.stores)
      await this.stores.meta.put(CLOSED_INDEX_KEY, Buffer.alloc(0))
    }
  }

  /**
   * Fills the conditional orders' index from the orders a store written before it holds (once:
   * every write keeps it since). One pass over the orders, decoding each.
   */
  private async indexConditionalOrders(): Promise<void> {
    let ops: { type: 'put'; key: Buffer; value: Buffer }[] = []
    for await (const [k, v] of this.stores.orders.iterator()) {
      const o = orderCodec.decode(v)
      if (o.cond !== undefined) ops.push({ type: 'put', key: k, value: numberCodec.encode(o.time) })
      if (ops.length >= 10_000) {
        await this.stores.conditionalOrders.batch(ops)
        ops = []
      }
    }
    if (ops.length > 0) await this.stores.conditionalOrders.batch(ops)
    await this.stores.meta.put(CONDITIONAL_INDEX_KEY, Buffer.alloc(0))
  }

  /**
   * Applies one entry's events to the pending batch. Synchronous so the apply loop never
   * waits per entry; an entry at or below lastSeq is a no-op, one past lastSeq + 1 a gap.
   */
  apply(seq: number, time: number, events: readonly Event[]): void {
    this.checkHealthy()
    if (seq <= this.appliedSeq) return
    if (seq !== this.appliedSeq + 1) assert(false, `projections: entry ${seq} after ${this.appliedSeq} (gap)`)
    assert(Number.isSafeInteger(time) && time >= this.appliedTime, 'projections: entry time went backwards')
    assert(seq <= SEQ_MAX, 'projections: seq too large for row ids')
    // Checked before the entry, so a refused entry changes nothing; one entry adds far less than the slack.
    assert(this.pending.size < this.pendingOpsMax, 'projections: pending batch full; flush more often')
    let rows = 0
    const nextRowId = (): number => {
      assert(rows < PROJECTION_LIMITS.rowsPerEntryMax, 'projections: too many rows in one entry')
      return seq * PROJECTION_LIMITS.rowsPerEntryMax + rows++
    }
    try {
      for (const e of events) this.applyEvent(e, nextRowId)
    } catch (err) {
      // Half an entry is in the pending batch: nothing may be written after this.
      this.failure = err
      throw err
    }
    this.appliedSeq = seq
    this.appliedTime = time
  }

  /** Each case below is in PROJECTED_EVENTS, so a feeder may leave out every other event. */
  private applyEvent(e: Event, nextRowId: () => number): void {
    const s = this.stores
    const b = this.pending
    switch (e.type) {
      case 'order':
        if (e.amendment !== undefined) onAmendment(s, b, e, nextRowId())
        return onOrder(s, b, e)
      case 'trade':
        // An ADL fill is off the book: not a market trade (no tape, kline or ticker).
        if (!e.adl) this.market.onTrade(b, e)
        this.market.onPositions(b, e)
        return onPerpTrade(s, b, e, nextRowId)
      case 'spotTrade':
        this.market.onTrade(b, e)
        return onSpotTrade(s, b, e)
      case 'deposit': return onDeposit(s, b, e, nextRowId())
      case 'depositPending': return onDepositPending(s, b, e)
      case 'transfer': return onTransfer(s, b, e, nextRowId())
      case 'subTransfer': return onSubTransfer(s, b, e, nextRowId())
      case 'withdrawal': return onWithdrawal(s, b, e)
      case 'funding': return onFunding(s, b, e, nextRowId())
      case 'fundingRate': return onFundingRate(s, b, e)
      case 'prices':
        if (e.topTraders !== undefined) onTopTraders(s, b, e)
        return this.priceKlineWriter.onPrices(b, e)
      case 'positionMargin': return onPositionMargin(s, b, e, nextRowId())
      case 'forceOrder': return onForceOrder(s, b, e, nextRowId())
      case 'preventedMatch': return onPreventedMatch(s, b, e)
      case 'orderList': return onOrderList(s, b, e)
      case 'insurance': return onInsurance(s, b, e, nextRowId())
      // Balances, leverage, position mode, markets and assets are current state, not history.
      default: return
    }
  }

  /**
   * Writes everything applied since the last flush as one batch, with lastSeq, and resolves
   * when it is written. Writes run one at a time: the flushes asked while one is in flight
   * share the next, which takes everything applied by the time it starts (under load, fewer
   * and larger writes). apply() may go on meanwhile. A failed write stops the projections:
   * reopen them, and the apply loop replays from their stored lastSeq.
   */
  flush(): Promise<void> {
    try {
      this.checkHealthy()
    } catch (err) {
      return Promise.reject(err)
    }
    if (this.queued !== null) return this.queued
    if (this.inFlight || this.holds > 0) {
      const next = this.writing.then(() => {
        this.queued = null
        return this.writeApplied()
      })
      this.queued = next
      this.writing = next.catch((err: unknown) => { this.failure = err })
      return next
    }
    if (this.pending.empty && this.appliedSeq === this.durableSeq) return this.writing
    const done = this.writeApplied()
    this.writing = done.catch((err: unknown) => { this.failure = err })
    return done
  }

  /** Takes everything applied (all of it before the first await) and writes it. */
  private async writeApplied(): Promise<void> {
    this.checkHealthy()
    const batch = this.pending
    this.market.takeDirty(batch)
    this.priceKlineWriter.takeDirty(batch)
    const meta: Meta = { lastSeq: this.appliedSeq, lastTime: this.appliedTime }
    this.pending = new PendingBatch()
    this.inFlight = true
    try {
      await this.write(batch, meta)
    } finally {
      this.inFlight = false
    }
  }

  private async write(batch: PendingBatch, meta: Meta): Promise<void> {
    const unread: [string, PendingOrder][] = []
    for (const entry of batch.orders) {
      if (entry[1].record !== null) continue
      // Fills of orders whose record an earlier batch wrote: merge into the stored record,
      // taken from the open orders' copy when it is there (the bytes stored), else read.
      const cached = this.openOrders.get(entry[0])
      if (cached !== undefined) this.merge(entry[1], cached)
      else unread.push(entry)
    }
    if (unread.length > 0) {
      const stored = await this.stores.orders.getMany(unread.map(([, p]) => p.key))
      for (let i = 0; i < unread.length; i++) this.merge(unread[i]![1], stored[i])
    }
    const ops: BatchOp[] = batch.ops
    const written: [string, Buffer, boolean][] = []
    const closed = new ClosedOrders()
    for (const [id, p] of batch.orders) {
      const value = orderCodec.encode(p.record!)
      ops.push({ type: 'put', sublevel: this.stores.orders, key: p.key, value })
      // allAlgoOrders walks these alone, however many plain orders an account places.
      if (p.record!.cond !== undefined) {
        ops.push({ type: 'put', sublevel: this.stores.conditionalOrders, key: p.key, value: numberCodec.encode(p.record!.time) })
      }
      written.push([id, value, closed.add(p.key, p.record!)])
    }
    for (const op of closed.ops(this.stores, meta.lastSeq)) ops.push(op)
    ops.push({ type: 'put', sublevel: this.stores.meta, key: META_KEY, value: metaCodec.encode(meta) })
    // Not synced: the projections are rebuilt from the log, and the batch is atomic, so a
    // crash leaves them at an older lastSeq that the apply loop replays from.
    await this.writeOps(ops)
    for (const [id, value, terminal] of written) {
      if (terminal) this.openOrders.delete(id)
      else if (this.openOrders.has(id) || this.openOrders.size < OPEN_ORDERS_CACHED_MAX) this.openOrders.set(id, value)
    }
    this.durableSeq = meta.lastSeq
    this.durableTime = meta.lastTime
  }

  /**
   * Runs `step` between two writes: after the last one asked, and with every flush asked
   * meanwhile queued behind it (a read-then-delete a write could otherwise come between).
   */
  private exclusive<T>(step: () => Promise<T>): Promise<T> {
    this.holds++
    const run = this.writing.then(step).finally(() => { this.holds-- })
    this.writing = run.then(() => undefined, () => undefined)
    return run
  }

  private merge(p: PendingOrder, stored: Buffer | undefined): void {
    assert(stored !== undefined, 'projections: a fill for an order never reported')
    const record = orderCodec.decode(stored)
    applyFill(record, p.fill!)
    p.record = record
  }

  /**
   * One chained batch on the root database with each key's full prefix: what writing through
   * the sublevels does, at a fraction of the per-operation cost (abstract-level's array batch
   * re-validates and re-prefixes every operation for its sublevel, and the native side reads
   * each one's fields by name), which was the largest single cost of the projections under
   * order load. Encoding options go with each operation only when the root's defaults are
   * not bytes already: they cost a slow object spread per operation.
   */
  private async writeOps(ops: BatchOp[]): Promise<void> {
    const root = this.base.db
    const options = (root.keyEncoding().name === 'buffer' && root.valueEncoding().name === 'buffer' ? undefined : RAW) as typeof RAW
    const chained = root.batch()
    try {
      for (const op of ops) {
        let prefix = this.prefixes.get(op.sublevel)
        if (prefix === undefined) this.prefixes.set(op.sublevel, prefix = Buffer.from(op.sublevel.prefix, 'utf8'))
        const key = Buffer.concat([prefix, op.key], prefix.length + op.key.length)
        if (op.type === 'put') chained.put(key, op.value!, options)
        else chained.del(key, options)
      }
    } catch (err) {
      await chained.close()
      throw err
    }
    await chained.write()
  }

  private checkHealthy(): void {
    if (this.failure !== null) {
      throw new InvariantError(`projections stopped after a failure: ${String(this.failure)}`)
    }
  }

  /** Deletes every projection row, to rebuild from the log's first entry. */
  async clear(): Promise<void> {
    await this.writing
    for (const s of allStores(this.stores)) await s.clear()
    this.pending = new PendingBatch()
    this.openOrders.clear()
    this.failure = null
    await this.load()
  }

  /** Flushes what is pending and, when the projections opened their own database, closes it. */
  async close(): Promise<void> {
    if (this.failure === null) await this.flush()
    await this.writing
    if (this.own !== null) await this.own.close()
  }

  /**
   * Deletes trades and income rows past their three-month windows (a fill's income is in its
   * user trade, which is kept, and only the window hides it), position margin rows past
   * their 30 days, and so on (as of `nowMs`, default flushedTime); with `markets` (each
   * with its venue), their orders the history no longer shows (order-retention.ts) and the
   * USDⓈ-M ones' user trades past 6 months. At most pruneKeysMax keys per
   * call (orders count one each): returns how many went, so a caller that got the whole
   * budget calls again.
   */
  async prune(nowMs = this.durableTime, markets: readonly RetainedMarket[] = []): Promise<number> {
    const budget = PROJECTION_LIMITS.pruneKeysMax
    const traded = [...this.market.cursors.keys()]
    let n = await pruneTrades(this.stores, traded, nowMs - PROJECTION_LIMITS.tradeRetentionMs, budget)
    const incomeCutoff = nowMs - PROJECTION_LIMITS.incomeRetentionMs
    n += await pruneByTimeSuffix(this.stores.incomeByType, incomeCutoff, budget - n)
    n += await pruneKlines(this.stores, traded, intervalIndex('1s'), nowMs - PROJECTION_LIMITS.secondKlineRetentionMs, budget - n)
    n += await pruneByTimeSuffix(this.stores.positionMargins, nowMs - PROJECTION_LIMITS.positionMarginRetentionMs, budget - n)
    n += await pruneByTimeSuffix(this.stores.forceOrders, nowMs - PROJECTION_LIMITS.forceOrderRetentionMs, budget - n)
    n += await pruneByTimeSuffix(this.stores.orderAmendments, nowMs - PROJECTION_LIMITS.orderAmendmentRetentionMs, budget - n)
    n += await pruneByTimeSuffix(this.stores.preventedMatches, nowMs - PROJECTION_LIMITS.preventedMatchRetentionMs, budget - n)
    n += await pruneOrders(this.stores, markets, nowMs, budget - n, (step) => this.exclusive(step))
    const perps = new Set(markets.filter((m) => !m.spot).map((m) => m.marketId))
    n += await pruneUserTrades(this.stores, perps, nowMs - PROJECTION_LIMITS.perpUserTradeRetentionMs, budget - n)
    return n
  }

  // Market data. `nowMs` defaults to flushedTime, which keeps answers a function of the log.

  /** /fapi/v1/trades: the newest `limit` trades (within the three-month reach). */
  recentTrades(marketId: number, limit: number, nowMs = this.durableTime): Promise<TradeRecord[]> {
    return marketQueries.trades(this.stores, marketId, { limit }, PROJECTION_LIMITS.recentTradesMax,
      nowMs - PROJECTION_LIMITS.tradeRetentionMs)
  }

  /** /fapi/v1/historicalTrades: ascending from fromId, or the newest; three months back at most. */
  historicalTrades(marketId: number, q: marketQueries.TradesQuery, nowMs = this.durableTime): Promise<TradeRecord[]> {
    return marketQueries.trades(this.stores, marketId, q, PROJECTION_LIMITS.historicalTradesMax,
      nowMs - PROJECTION_LIMITS.tradeRetentionMs)
  }

  aggTrades(marketId: number, q: marketQueries.AggTradesQuery): Promise<AggTradeRecord[]> {
    return marketQueries.aggTrades(this.stores, marketId, q)
  }

  klines(marketId: number, interval: KlineInterval, q: marketQueries.KlineQuery): Promise<KlineRecord[]> {
    // 1s klines are pruned past their window (prune below); the window hides the same ones first.
    const floor = Math.max(0, interval === '1s' ? this.durableTime - PROJECTION_LIMITS.secondKlineRetentionMs : 0)
    return q.gapless === true
      ? gaplessKlines(this.stores, marketId, interval, q, floor, this.durableTime)
      : marketQueries.klines(this.stores, marketId, interval, q, floor)
  }

  ticker24h(marketId: number, nowMs = this.durableTime, windowMs?: number): Promise<TickerRecord> {
    return ticker24h(this.stores, marketId, nowMs, windowMs)
  }

  openInterest(marketId: number): Promise<OpenInterestRecord | undefined> {
    return marketQueries.openInterest(this.stores, marketId)
  }

  openInterestHistory(marketId: number, q: marketQueries.RangeQuery): Promise<OpenInterestRecord[]> {
    return marketQueries.openInterestHistory(this.stores, marketId, q)
  }

  /** /api/v3/myPreventedMatches: one market's prevented matches, oldest first, three months back. */
  preventedMatches(owner: Owner, marketId: number, q: PreventedMatchQuery, nowMs = this.durableTime): Promise<PreventedMatchRecord[]> {
    return preventedMatches(this.stores, owner, marketId, q, nowMs)
  }

  /** GET /api/v3/orderList: one OCO list of the sub-account, by id or client id. */
  orderList(owner: Owner, ref: { orderListId?: number | undefined; listClientOrderId?: string | undefined }): Promise<OrderListRecord | undefined> {
    return orderList(this.stores, owner, ref)
  }

  /** GET /api/v3/allOrderList: the sub-account's OCO lists, from an id or by placement time. */
  allOrderLists(owner: Owner, q: OrderListQuery): Promise<OrderListRecord[]> {
    return allOrderLists(this.stores, owner, q)
  }

  /** The top traders' samples by bucket start (/futures/data/topLongShort*Ratio). */
  topTradersHistory(marketId: number, q: TopTradersQuery): Promise<TopTradersRecord[]> {
    return topTradersHistory(this.stores, marketId, q)
  }

  /** /fapi/v1/markPriceKlines and indexPriceKlines: prices sampled by Ticks and oracle prices. */
  priceKlines(kind: PriceKind, marketId: number, interval: KlineInterval, q: PriceKlineQuery): Promise<PriceKlineRecord[]> {
    return priceKlines(this.stores, kind, marketId, interval, q)
  }

  /** /fapi/v1/fundingRate: one market's settlements. */
  fundingRates(marketId: number, q: FundingRateQuery): Promise<FundingRateRecord[]> {
    return fundingRates(this.stores, marketId, q)
  }

  // Per sub-account.

  /**
   * One order's record. With `spot` (the venue's history rule, order-retention.ts), only one
   * the history still shows, as a client's query finds it.
   */
  async order(owner: Owner, marketId: number, orderId: number, spot?: boolean): Promise<OrderRecord | undefined> {
    return this.shown(await accountQueries.order(this.stores, owner, marketId, orderId), spot)
  }

  /** Several orders' records in one call (one round trip from the main thread, not one each). */
  orders(owner: Owner, marketId: number, orderIds: readonly number[]): Promise<(OrderRecord | undefined)[]> {
    return Promise.all(orderIds.map((id) => accountQueries.order(this.stores, owner, marketId, id)))
  }

  /** The latest order placed with `clientOrderId`; with `spot`, as order() shows it. */
  async orderByClientId(owner: Owner, marketId: number, clientOrderId: string, spot?: boolean): Promise<OrderRecord | undefined> {
    return this.shown(await accountQueries.orderByClientId(this.stores, owner, marketId, clientOrderId), spot)
  }

  private shown(r: OrderRecord | undefined, spot: boolean | undefined): OrderRecord | undefined {
    return r === undefined || spot === undefined || orderVisible(r, spot, this.durableTime) ? r : undefined
  }

  /** allOrders: those the venue's history rule still shows (order-retention.ts). */
  allOrders(owner: Owner, marketId: number, q: accountQueries.AllOrdersQuery, nowMs = this.durableTime): Promise<OrderRecord[]> {
    return accountQueries.allOrders(this.stores, owner, marketId, q, nowMs)
  }

  /** A sub-account's fills in one market; a USDⓈ-M market's (`q.spot` false) of the last 6 months. */
  userTrades(owner: Owner, marketId: number, q: accountQueries.UserTradesQuery, nowMs = this.durableTime): Promise<UserTradeRecord[]> {
    const floor = q.spot === false ? Math.max(0, nowMs - PROJECTION_LIMITS.perpUserTradeRetentionMs) : 0
    return accountQueries.userTrades(this.stores, owner, marketId, q, floor)
  }

  /**
   * Spot myTrades: the fills, each with its order's list id (-1: placed alone), which a fill does
   * not carry, read from the orders' records in the same call.
   */
  async userTradesWithLists(owner: Owner, marketId: number, q: accountQueries.UserTradesQuery,
    nowMs = this.durableTime): Promise<UserTradeInList[]> {
    const rows = await this.userTrades(owner, marketId, q, nowMs)
    const ids = [...new Set(rows.map((r) => r.orderId))]
    const records = await this.orders(owner, marketId, ids)
    const lists = new Map(ids.map((id, i) => [id, records[i]?.orderListId ?? -1]))
    return rows.map((r) => ({ ...r, orderListId: lists.get(r.orderId)! }))
  }

  /** /fapi/v1/forceOrders: the sub-account's liquidation and ADL orders. */
  forceOrders(owner: Owner, q: ForceOrderQuery, nowMs = this.durableTime): Promise<ForceOrderRecord[]> {
    return forceOrders(this.stores, owner, q, nowMs)
  }

  /** /fapi/v1/orderAmendment: one order's amendments, newest first, three months back. */
  orderAmendments(owner: Owner, marketId: number, orderId: number, q: AmendmentQuery,
    nowMs = this.durableTime): Promise<AmendmentRecord[]> {
    return orderAmendments(this.stores, owner, marketId, orderId, q, nowMs)
  }

  /** /api/v3/order/amendments: one order's amendments, oldest first from an entry on, three months back. */
  orderAmendmentsFrom(owner: Owner, marketId: number, orderId: number, fromEntry: number, limit: number,
    nowMs = this.durableTime): Promise<AmendmentRecord[]> {
    return orderAmendmentsFrom(this.stores, owner, marketId, orderId, fromEntry, limit, nowMs)
  }

  /** /fapi/v1/positionMargin/history: one market's isolated margin changes, 30 days back. */
  positionMargins(owner: Owner, marketId: number, q: PositionMarginQuery, nowMs = this.durableTime): Promise<PositionMarginRecord[]> {
    return positionMargins(this.stores, owner, marketId, q, nowMs)
  }

  income(owner: Owner, q: accountQueries.IncomeQuery, nowMs = this.durableTime): Promise<IncomeRecord[]> {
    return accountQueries.income(this.stores, owner, q, nowMs - PROJECTION_LIMITS.incomeRetentionMs)
  }

  deposits(owner: Owner, q: walletQueries.WalletQuery, nowMs = this.durableTime): Promise<DepositRecord[]> {
    return walletQueries.deposits(this.stores, owner, q, nowMs)
  }

  /** Deposits seen on chain, not yet credited (no time range: they last only until credited). */
  pendingDeposits(owner: Owner, coin?: string): Promise<PendingDepositRecord[]> {
    return walletQueries.pendingDeposits(this.stores, owner, coin)
  }

  withdrawals(owner: Owner, q: walletQueries.WalletQuery, nowMs = this.durableTime): Promise<WithdrawalRecord[]> {
    return walletQueries.withdrawals(this.stores, owner, q, nowMs)
  }

  withdrawal(withdrawalId: number): Promise<(WithdrawalRecord & Owner) | undefined> {
    return walletQueries.withdrawal(this.stores, withdrawalId)
  }

  transfers(owner: Owner, q: walletQueries.WalletQuery, nowMs = this.durableTime): Promise<TransferRecord[]> {
    return walletQueries.transfers(this.stores, owner, q, nowMs)
  }

  subTransfers(owner: Owner, q: walletQueries.WalletQuery, nowMs = this.durableTime): Promise<SubTransferRecord[]> {
    return walletQueries.subTransfers(this.stores, owner, q, nowMs)
  }

  /** A query's answer as the response body the formatter makes of it, `format` its instructions (pages.ts). */
  async page<Q extends PageQuery>(query: Q, args: PageArgs<Q>, format: unknown): Promise<Page> {
    if (this.formatter === null) throw new Error('projections: no page formatter was given')
    if (!PAGE_QUERIES.has(query)) throw new Error(`projections: ${String(query)} makes no page`)
    const rows = await (this[query] as (...a: unknown[]) => Promise<unknown>)(...args)
    return pageOf(this.formatter.formatPage(format, rows), rows)
  }
}
