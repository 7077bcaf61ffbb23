// The projections in a worker thread of their own (projections-worker.ts), behind the same
// interface as the in-thread store: building rows, encoding them and writing LevelDB batches
// was about a fifth of the main thread's time under order load. apply() checks the seq
// here and keeps the entry's kept events; the next call takes them to the worker in the same
// message, as each message wakes a thread. A query is such a call, and the worker writes
// what came before it first (projections-worker.ts), so every entry applied here is readable
// at once. A flush, asked once per committed batch, is not needed for that: it only gets the
// entries written when no query comes, so flushes asked within FLUSH_SHARE_MS share one
// message, and resolve once the worker has written them.

import { Worker } from 'node:worker_threads'
import { detachEarly } from '../detach-early.js'
import { assert, InvariantError } from '../../core/assert.js'
import type { Event } from '../../core/events.js'
import { WireWriter } from './event-wire.js'
import type * as accountQueries from './account-queries.js'
import type { AmendmentQuery, AmendmentRecord } from './amendments.js'
import type { TopTradersQuery, TopTradersRecord } from './top-traders.js'
import type { RetainedMarket } from './order-retention.js'
import type { PreventedMatchQuery, PreventedMatchRecord } from './prevented-matches.js'
import type { OrderListQuery, OrderListRecord } from './order-lists.js'
import type { ForceOrderQuery, ForceOrderRecord } from './force-orders.js'
import type { FundingRateQuery, FundingRateRecord } from './funding.js'
import type { KlineInterval } from './intervals.js'
import type * as marketQueries from './market-queries.js'
import type { PositionMarginQuery, PositionMarginRecord } from './position-margin.js'
import type { PriceKind, PriceKlineQuery, PriceKlineRecord } from './price-klines.js'
import { PROJECTED_EVENTS, type ProjectionsApi, type ProjectionsOptions } from './projections.js'
import type {
  AggTradeRecord, DepositRecord, IncomeRecord, KlineRecord, OpenInterestRecord, OrderRecord, Owner, PendingDepositRecord,
  TickerRecord, TradeRecord, TransferRecord, SubTransferRecord, UserTradeInList, UserTradeRecord, WithdrawalRecord,
} from './records.js'
import type * as walletQueries from './wallet-queries.js'
import type { Page, PageArgs, PageQuery } from './pages.js'
import type { CallMessage, Entries, FromWorker, Position, WorkerSetup } from './worker-protocol.js'

// Its messages hand their buffers over (detach-early.ts).
detachEarly()

/** Entries applied here past which they go to the worker without waiting for a flush. */
const ENTRIES_PER_MESSAGE = 10_000
/**
 * How long a flush waits for later ones to share its message. One message per committed
 * batch was ~7% of the main thread's time at 5,000 orders/s (batches of one to three orders),
 * and each woke the worker for a LevelDB write of its own. Nothing reads sooner for a shorter
 * wait (queries write what is pending first); at 5,000 orders/s 20 ms took ~5% less of the
 * exchange's CPU per order than 5 ms (docs/BENCHMARKS.md, session 12).
 */
const FLUSH_SHARE_MS = 20

const WORKER_URL = new URL('./projections-worker.js', import.meta.url)

/** Starts the worker on the LevelDB at `path` and resolves once it has opened it. */
export async function startProjectionsWorker(path: string, options: ProjectionsOptions = {}): Promise<ProjectionsClient> {
  const setup: WorkerSetup = { path, options }
  const worker = new Worker(WORKER_URL, { workerData: setup })
  const position = await new Promise<Position>((resolve, reject) => {
    const failed = (err: unknown): void => { cleanup(); reject(err) }
    const exited = (code: number): void => failed(new Error(`the projections worker exited (${code}) before opening`))
    const ready = (m: FromWorker): void => {
      if (m.op !== 'ready') return
      cleanup()
      resolve(m.position)
    }
    const cleanup = (): void => {
      worker.off('error', failed)
      worker.off('exit', exited)
      worker.off('message', ready)
    }
    worker.on('error', failed)
    worker.on('exit', exited)
    worker.on('message', ready)
  })
  return new ProjectionsClient(worker, position)
}

interface Call {
  resolve(value: unknown): void
  reject(err: Error): void
}

export class ProjectionsClient implements ProjectionsApi {
  private appliedSeq: number
  private appliedTime: number
  private durableSeq: number
  private durableTime: number
  /** Entries applied since the last post: their times and kept events. */
  private times: number[] = []
  private readonly wire = new WireWriter()
  /** Reused for an entry's kept events. */
  private kept: Event[] = []
  private readonly calls = new Map<number, Call>()
  private nextId = 1
  private failure: string | null = null
  /** The latest flush asked for, and the last entry it covers. */
  private lastFlush: Promise<void> | null = null
  private lastFlushSeq = 0
  /** A flush asked for and not yet sent: it goes when its timer fires or a call needs it sent. */
  private due: { timer: ReturnType<typeof setTimeout>; resolve(): void; reject(err: Error): void } | null = null
  private closed = false

  constructor(private readonly worker: Worker, p: Position) {
    this.appliedSeq = p.lastSeq
    this.appliedTime = p.lastTime
    this.durableSeq = p.flushedSeq
    this.durableTime = p.flushedTime
    worker.on('message', (m: FromWorker) => this.received(m))
    worker.on('error', (err) => this.stop(`the projections worker failed: ${err.message}`))
    worker.on('exit', (code) => { if (!this.closed) this.stop(`the projections worker exited (${code})`) })
  }

  get lastSeq(): number { return this.appliedSeq }
  get lastTime(): number { return this.appliedTime }
  get flushedSeq(): number { return this.durableSeq }
  get flushedTime(): number { return this.durableTime }
  /**
   * The seq a query asked now answers as of at least: every entry applied here, since a query
   * takes what was applied before it to the worker, which writes it before reading.
   */
  get readableSeq(): number { return this.failure === null ? this.appliedSeq : this.durableSeq }
  /**
   * Resolves once a query asked then reads every entry applied so far: at once, for the same
   * reason (a flush would wait up to FLUSH_SHARE_MS for company: 16 ms, the median of a filled
   * order's GET /fapi/v1/order, when the gateway flushed before reading). Failed: a flush,
   * which rejects as the query would.
   */
  readable(): Promise<void> { return this.failure === null ? Promise.resolve() : this.flush() }
  /** Resolves once every flush asked for so far has been written (or has failed). */
  written(): Promise<void> {
    this.sendDue()
    return this.call('written', []).then(() => undefined)
  }
  /** The worker flushes a batch that grows large by itself. */
  get flushDue(): boolean { return false }

  /** Same checks and no-ops as the store's apply; the events go to the worker with the batch. */
  apply(seq: number, time: number, events: readonly Event[]): void {
    this.checkHealthy()
    if (seq <= this.appliedSeq) return
    if (seq !== this.appliedSeq + 1) assert(false, `projections: entry ${seq} after ${this.appliedSeq} (gap)`)
    assert(Number.isSafeInteger(time) && time >= this.appliedTime, 'projections: entry time went backwards')
    const kept = this.kept
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!
      if (PROJECTED_EVENTS.has(e.type)) kept.push(e)
    }
    this.times.push(time)
    this.wire.entry(kept)
    kept.length = 0
    this.appliedSeq = seq
    this.appliedTime = time
    // A long replay applies many batches between flushes: send them on in bounded messages.
    if (this.times.length >= ENTRIES_PER_MESSAGE) this.call('send', []).catch(() => undefined)
  }

  /**
   * Resolves once everything applied so far is written. Each message wakes the worker, and
   * each reply this thread: flushes asked within FLUSH_SHARE_MS of the first go as one, and a
   * flush with nothing applied since the last one is that one (the runtime asks once per
   * committed batch).
   */
  flush(): Promise<void> {
    if (this.failure !== null) return this.call('flush', []) as Promise<void>
    if (this.lastFlush !== null && this.lastFlushSeq === this.appliedSeq) return this.lastFlush
    if (this.due === null) {
      this.lastFlush = new Promise<void>((resolve, reject) => {
        this.due = { timer: setTimeout(() => this.sendDue(), FLUSH_SHARE_MS), resolve, reject }
      })
    }
    this.lastFlushSeq = this.appliedSeq
    return this.lastFlush!
  }

  /** Sends the flush waiting for company, if any, now. */
  private sendDue(): void {
    const due = this.due
    if (due === null) return
    this.due = null
    clearTimeout(due.timer)
    ;(this.call('flush', []) as Promise<void>).then(due.resolve, due.reject)
  }

  async clear(): Promise<void> {
    this.sendDue()
    await this.call('clear', [])
    this.appliedSeq = this.appliedTime = this.durableSeq = this.durableTime = 0
    this.lastFlush = null
    this.lastFlushSeq = 0
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.sendDue()
    if (this.failure === null) await this.call('close', [])
    this.closed = true
    await this.worker.terminate()
  }

  prune(nowMs?: number, markets?: readonly RetainedMarket[]): Promise<number> {
    return this.call('prune', [nowMs, markets]) as Promise<number>
  }

  private call(method: string, args: unknown[]): Promise<unknown> {
    if (this.failure !== null) return Promise.reject(new InvariantError(this.failure))
    if (this.closed) return Promise.reject(new InvariantError('projections: closed'))
    const id = this.nextId++
    const n = this.times.length
    let entries: Entries | null = null
    const transfer: ArrayBuffer[] = []
    if (n > 0) {
      const events = this.wire.take()
      entries = { firstSeq: this.appliedSeq - n + 1, times: this.times, events }
      transfer.push(events.kinds.buffer as ArrayBuffer, events.nums.buffer as ArrayBuffer)
      this.times = []
    }
    const m: CallMessage = { id, method, args, entries }
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject })
      this.worker.postMessage(m, transfer)
    })
  }

  private received(m: FromWorker): void {
    if (m.op === 'failure') return this.stop(m.error)
    if (m.op !== 'reply') return
    const call = this.calls.get(m.id)
    if (call === undefined) return
    this.calls.delete(m.id)
    // Never backwards: a reply posted before a later flush's may arrive after it was read.
    if (m.position.flushedSeq > this.durableSeq) {
      this.durableSeq = m.position.flushedSeq
      this.durableTime = m.position.flushedTime
    }
    if (m.ok) call.resolve(m.value)
    else call.reject(new InvariantError(m.error))
  }

  /** Applying failed in the worker, or it died: every call from now on fails, as the store's do. */
  private stop(error: string): void {
    if (this.failure !== null) return
    this.failure = `projections stopped after a failure: ${error}`
    for (const c of this.calls.values()) c.reject(new InvariantError(this.failure))
    this.calls.clear()
    if (this.due !== null) {
      clearTimeout(this.due.timer)
      this.due.reject(new InvariantError(this.failure))
      this.due = null
    }
  }

  private checkHealthy(): void {
    if (this.failure !== null) throw new InvariantError(this.failure)
  }

  // Queries: run in the worker once it has written everything sent before them.

  recentTrades(marketId: number, limit: number, nowMs?: number): Promise<TradeRecord[]> {
    return this.call('recentTrades', [marketId, limit, nowMs]) as Promise<TradeRecord[]>
  }

  historicalTrades(marketId: number, q: marketQueries.TradesQuery, nowMs?: number): Promise<TradeRecord[]> {
    return this.call('historicalTrades', [marketId, q, nowMs]) as Promise<TradeRecord[]>
  }

  aggTrades(marketId: number, q: marketQueries.AggTradesQuery): Promise<AggTradeRecord[]> {
    return this.call('aggTrades', [marketId, q]) as Promise<AggTradeRecord[]>
  }

  klines(marketId: number, interval: KlineInterval, q: marketQueries.KlineQuery): Promise<KlineRecord[]> {
    return this.call('klines', [marketId, interval, q]) as Promise<KlineRecord[]>
  }

  ticker24h(marketId: number, nowMs?: number, windowMs?: number): Promise<TickerRecord> {
    return this.call('ticker24h', [marketId, nowMs, windowMs]) as Promise<TickerRecord>
  }

  openInterest(marketId: number): Promise<OpenInterestRecord | undefined> {
    return this.call('openInterest', [marketId]) as Promise<OpenInterestRecord | undefined>
  }

  openInterestHistory(marketId: number, q: marketQueries.RangeQuery): Promise<OpenInterestRecord[]> {
    return this.call('openInterestHistory', [marketId, q]) as Promise<OpenInterestRecord[]>
  }

  preventedMatches(owner: Owner, marketId: number, q: PreventedMatchQuery, nowMs?: number): Promise<PreventedMatchRecord[]> {
    return this.call('preventedMatches', [owner, marketId, q, nowMs]) as Promise<PreventedMatchRecord[]>
  }

  orderList(owner: Owner, ref: { orderListId?: number | undefined; listClientOrderId?: string | undefined }): Promise<OrderListRecord | undefined> {
    return this.call('orderList', [owner, ref]) as Promise<OrderListRecord | undefined>
  }

  allOrderLists(owner: Owner, q: OrderListQuery): Promise<OrderListRecord[]> {
    return this.call('allOrderLists', [owner, q]) as Promise<OrderListRecord[]>
  }

  topTradersHistory(marketId: number, q: TopTradersQuery): Promise<TopTradersRecord[]> {
    return this.call('topTradersHistory', [marketId, q]) as Promise<TopTradersRecord[]>
  }

  priceKlines(kind: PriceKind, marketId: number, interval: KlineInterval, q: PriceKlineQuery): Promise<PriceKlineRecord[]> {
    return this.call('priceKlines', [kind, marketId, interval, q]) as Promise<PriceKlineRecord[]>
  }

  fundingRates(marketId: number, q: FundingRateQuery): Promise<FundingRateRecord[]> {
    return this.call('fundingRates', [marketId, q]) as Promise<FundingRateRecord[]>
  }

  order(owner: Owner, marketId: number, orderId: number, spot?: boolean): Promise<OrderRecord | undefined> {
    return this.call('order', [owner, marketId, orderId, spot]) as Promise<OrderRecord | undefined>
  }

  orders(owner: Owner, marketId: number, orderIds: readonly number[]): Promise<(OrderRecord | undefined)[]> {
    return this.call('orders', [owner, marketId, orderIds]) as Promise<(OrderRecord | undefined)[]>
  }

  orderByClientId(owner: Owner, marketId: number, clientOrderId: string, spot?: boolean): Promise<OrderRecord | undefined> {
    return this.call('orderByClientId', [owner, marketId, clientOrderId, spot]) as Promise<OrderRecord | undefined>
  }

  allOrders(owner: Owner, marketId: number, q: accountQueries.AllOrdersQuery, nowMs?: number): Promise<OrderRecord[]> {
    return this.call('allOrders', [owner, marketId, q, nowMs]) as Promise<OrderRecord[]>
  }

  userTrades(owner: Owner, marketId: number, q: accountQueries.UserTradesQuery, nowMs?: number): Promise<UserTradeRecord[]> {
    return this.call('userTrades', [owner, marketId, q, nowMs]) as Promise<UserTradeRecord[]>
  }

  userTradesWithLists(owner: Owner, marketId: number, q: accountQueries.UserTradesQuery, nowMs?: number): Promise<UserTradeInList[]> {
    return this.call('userTradesWithLists', [owner, marketId, q, nowMs]) as Promise<UserTradeInList[]>
  }

  forceOrders(owner: Owner, q: ForceOrderQuery, nowMs?: number): Promise<ForceOrderRecord[]> {
    return this.call('forceOrders', [owner, q, nowMs]) as Promise<ForceOrderRecord[]>
  }

  orderAmendments(owner: Owner, marketId: number, orderId: number, q: AmendmentQuery, nowMs?: number): Promise<AmendmentRecord[]> {
    return this.call('orderAmendments', [owner, marketId, orderId, q, nowMs]) as Promise<AmendmentRecord[]>
  }

  orderAmendmentsFrom(owner: Owner, marketId: number, orderId: number, fromEntry: number, limit: number,
    nowMs?: number): Promise<AmendmentRecord[]> {
    return this.call('orderAmendmentsFrom', [owner, marketId, orderId, fromEntry, limit, nowMs]) as Promise<AmendmentRecord[]>
  }

  positionMargins(owner: Owner, marketId: number, q: PositionMarginQuery, nowMs?: number): Promise<PositionMarginRecord[]> {
    return this.call('positionMargins', [owner, marketId, q, nowMs]) as Promise<PositionMarginRecord[]>
  }

  income(owner: Owner, q: accountQueries.IncomeQuery, nowMs?: number): Promise<IncomeRecord[]> {
    return this.call('income', [owner, q, nowMs]) as Promise<IncomeRecord[]>
  }

  deposits(owner: Owner, q: walletQueries.WalletQuery, nowMs?: number): Promise<DepositRecord[]> {
    return this.call('deposits', [owner, q, nowMs]) as Promise<DepositRecord[]>
  }

  pendingDeposits(owner: Owner, coin?: string): Promise<PendingDepositRecord[]> {
    return this.call('pendingDeposits', [owner, coin]) as Promise<PendingDepositRecord[]>
  }

  withdrawals(owner: Owner, q: walletQueries.WalletQuery, nowMs?: number): Promise<WithdrawalRecord[]> {
    return this.call('withdrawals', [owner, q, nowMs]) as Promise<WithdrawalRecord[]>
  }

  withdrawal(withdrawalId: number): Promise<(WithdrawalRecord & Owner) | undefined> {
    return this.call('withdrawal', [withdrawalId]) as Promise<(WithdrawalRecord & Owner) | undefined>
  }

  transfers(owner: Owner, q: walletQueries.WalletQuery, nowMs?: number): Promise<TransferRecord[]> {
    return this.call('transfers', [owner, q, nowMs]) as Promise<TransferRecord[]>
  }

  subTransfers(owner: Owner, q: walletQueries.WalletQuery, nowMs?: number): Promise<SubTransferRecord[]> {
    return this.call('subTransfers', [owner, q, nowMs]) as Promise<SubTransferRecord[]>
  }

  /** Formatted in the worker; its bytes are handed over, not copied. */
  page<Q extends PageQuery>(query: Q, args: PageArgs<Q>, format: unknown): Promise<Page> {
    return this.call('page', [query, args, format]) as Promise<Page>
  }
}
