// Queries of the per-sub-account read models: orders (by id, by client id, all orders),
// user trades (myTrades) and income. Each reads only what has been flushed.

import { assert } from '../../core/assert.js'
import { incomeCodec, numberCodec, orderCodec, storedUserTradeCodec, tradeCodec, userTradeCodec } from './codec.js'
import { key, prefixEnd, readU64 } from './keys.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import { INCOME_TYPE_CODES, type IncomeRecord, type IncomeType, type OrderRecord, type Owner, type UserTradeRecord } from './records.js'
import {
  clientOrderIdKey, incomeTypePrefix, orderKey, ownerMarketPrefix, ownerPrefix, tradeKey, userTradeKey, type Store, type Stores,
} from './stores.js'
import { orderVisible } from './order-retention.js'
import { checkLimit, checkRange, fromBounds, scan, timeRangeBounds, type Bounds, type TimeRange } from './time-range.js'

export interface AllOrdersQuery extends TimeRange {
  /** Oldest order id to return; with it, startTime and endTime only bound the result. */
  orderId?: number | undefined
  limit: number
  /** Conditional orders only (the algo forms' history), read from their own index. */
  conditionalOnly?: boolean | undefined
  /** Without orderId or startTime: none created before this (a default window). */
  floorTime?: number | undefined
  /** Whose history rule hides ended orders (order-retention.ts): spot's, or USDⓈ-M's; without it, none are hidden. */
  spot?: boolean | undefined
}

export interface UserTradesQuery extends TimeRange {
  /** Only the fills of this order. */
  orderId?: number | undefined
  /** Oldest trade id to return; with it, startTime and endTime only bound the result. */
  fromId?: number | undefined
  /**
   * With fromId (its trade id): only the rows after this one in (trade id, taker before maker)
   * order, a cursor to read on from the last row of a page that may hold only the first of a
   * self-trade's two rows.
   */
  after?: { tradeId: number; maker: boolean } | undefined
  limit: number
  /** false: a USDⓈ-M market's, whose fills reach back 6 months (floorTime); spot's, or without it, every fill. */
  spot?: boolean | undefined
}

export interface IncomeQuery extends TimeRange {
  incomeType?: IncomeType | undefined
  marketId?: number | undefined
  limit: number
  /**
   * Only rows after this one in (time, tranId) order: a cursor for paging through more rows
   * than a page holds, many of them in one millisecond (startTime should be its time).
   */
  after?: { time: number; tranId: number } | undefined
  /** Rows passed over first, from the end the time-range rule walks from: (page − 1) × limit. */
  skip?: number | undefined
}

/** Whether a row comes after the cursor (always, without one). */
function afterCursor(q: IncomeQuery, time: number, tranId: number): boolean {
  const a = q.after
  return a === undefined || time > a.time || (time === a.time && tranId > a.tranId)
}

export async function order(stores: Stores, owner: Owner, marketId: number, orderId: number): Promise<OrderRecord | undefined> {
  const v = await stores.orders.get(orderKey(owner, marketId, orderId))
  return v === undefined ? undefined : orderCodec.decode(v)
}

/** The latest order placed with `clientOrderId` in this market. */
export async function orderByClientId(stores: Stores, owner: Owner, marketId: number,
  clientOrderId: string): Promise<OrderRecord | undefined> {
  const v = await stores.clientOrderIds.get(clientOrderIdKey(owner, marketId, clientOrderId))
  return v === undefined ? undefined : order(stores, owner, marketId, numberCodec.decode(v))
}

/**
 * Binance allOrders: ascending from `orderId` when given, else the time-range rule on
 * creation time. Creation time grows with the order id inside a market, so a time bound is
 * an id bound (firstOrderFrom), and every answer is one walk over the orders themselves. Ended
 * orders the history rule no longer shows as of `nowMs` are passed over.
 */
export async function allOrders(stores: Stores, owner: Owner, marketId: number, q: AllOrdersQuery, nowMs: number): Promise<OrderRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.allOrdersMax)
  checkRange(q)
  const shown = (o: OrderRecord): OrderRecord | undefined => (q.spot === undefined || orderVisible(o, q.spot, nowMs) ? o : undefined)
  if (q.conditionalOnly === true) return conditionalOrders(stores, owner, marketId, q, (o) => shown(o) !== undefined)
  const prefix = ownerMarketPrefix(owner, marketId)
  if (q.orderId === undefined && q.startTime === undefined) {
    // The newest orders, up to endTime when given, none created before the floor.
    const upTo = q.endTime === undefined ? undefined : await firstOrderFrom(stores.orders, prefix, q.endTime + 1)
    const lt = upTo === undefined ? prefixEnd(prefix) : Buffer.concat([prefix, key().u64(upTo).build()])
    return scan(stores.orders, { gte: prefix, lt, reverse: true }, q.limit, (_k, v) => {
      const o = orderCodec.decode(v)
      return q.floorTime !== undefined && o.time < q.floorTime ? 'stop' : shown(o)
    })
  }
  const fromId = q.orderId ?? await firstOrderFrom(stores.orders, prefix, q.startTime!)
  if (fromId === undefined) return []
  // The first order past endTime ends the walk.
  return scan(stores.orders, fromBounds(prefix, key().u64(fromId).build()), q.limit, (_k, v) => {
    const o = orderCodec.decode(v)
    if (q.endTime !== undefined && o.time > q.endTime) return 'stop'
    return q.startTime !== undefined && o.time < q.startTime ? undefined : shown(o)
  })
}

/**
 * allOrders of conditional orders only (allAlgoOrders), walked in their index (creation time
 * by order id) and read from the orders: however many plain orders came between, the walk
 * meets conditional ones only. The history rule (`shown`) needs each record, so the walk goes
 * on past the orders it hides until the page is full.
 */
async function conditionalOrders(stores: Stores, owner: Owner, marketId: number, q: AllOrdersQuery,
  shown: (o: OrderRecord) => boolean): Promise<OrderRecord[]> {
  const prefix = ownerMarketPrefix(owner, marketId)
  const ascending = q.orderId !== undefined || q.startTime !== undefined
  let bounds: Bounds = ascending ? fromBounds(prefix, key().u64(q.orderId ?? 0).build()) : { gte: prefix, lt: prefixEnd(prefix), reverse: true }
  let out: OrderRecord[] = []
  for (;;) {
    let stopped = false
    const want = q.limit - out.length
    // Ascending keys whichever way the walk goes (scan).
    const keys = await scan(stores.conditionalOrders, bounds, want, (k, v) => {
      const time = numberCodec.decode(v)
      if (q.endTime !== undefined && time > q.endTime && !ascending) return undefined
      if (q.startTime !== undefined && time < q.startTime) return undefined
      stopped = (q.endTime !== undefined && time > q.endTime) || (!ascending && q.floorTime !== undefined && time < q.floorTime)
      return stopped ? 'stop' : k
    })
    const records = (await getAll(stores.orders, keys, orderCodec.decode)).filter(shown)
    out = ascending ? [...out, ...records] : [...records, ...out]
    if (stopped || keys.length < want || out.length >= q.limit) return out
    // On from the last key read: past it going up, before it going down.
    bounds = ascending ? { ...bounds, gte: Buffer.concat([keys[keys.length - 1]!, Buffer.alloc(1)]) } : { ...bounds, lt: keys[0]! }
  }
}

/**
 * The id of the first of `prefix`'s orders created at or after `time`, undefined when none
 * is. Creation time grows with the order id inside a market, so bisecting the ids finds it
 * in a few dozen seeks; an index by time cost a row per order on the projections' write
 * path, their busiest (session 15: ~2.5% of the gateway's closed loop).
 */
async function firstOrderFrom(orders: Store, prefix: Buffer, time: number): Promise<number | undefined> {
  const end = prefixEnd(prefix)
  const [last] = await orders.iterator({ gte: prefix, lt: end, reverse: true, limit: 1 }).all()
  if (last === undefined || orderCodec.decode(last[1]).time < time) return undefined
  const it = orders.iterator({ gte: prefix, lt: end })
  try {
    // The first order with an id of at least `id`: there is one while id <= hi.
    const atLeast = async (id: number): Promise<{ id: number; time: number }> => {
      it.seek(Buffer.concat([prefix, key().u64(id).build()]))
      const row = await it.next()
      assert(row !== undefined, 'an order id below the last has an order at or after it')
      return { id: readU64(row[0], row[0].length - 8), time: orderCodec.decode(row[1]).time }
    }
    // The first order at or after id x is new enough from some x on: find the least such
    // x in [lo, hi], remembering the order it gives (the last order's, to begin with).
    let lo = 0
    let hi = readU64(last[0], last[0].length - 8)
    let found = hi
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2)
      const o = await atLeast(mid)
      if (o.time >= time) {
        hi = mid
        found = o.id
      } else lo = o.id + 1
    }
    return found
  } finally {
    await it.close()
  }
}

async function getAll<T>(store: Store, keys: Buffer[], decode: (b: Buffer) => T): Promise<T[]> {
  if (keys.length === 0) return []
  const values = await store.getMany(keys)
  return values.map((v) => {
    assert(v !== undefined, 'index points at a missing row')
    return decode(v)
  })
}

/** Binance myTrades: an order's fills, or ascending from `fromId`, or the time-range rule. */
export async function userTrades(stores: Stores, owner: Owner, marketId: number, q: UserTradesQuery,
  floorTime = 0): Promise<UserTradeRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.userTradesMax)
  const prefix = ownerMarketPrefix(owner, marketId)
  if (q.orderId !== undefined) return orderTrades(stores, owner, marketId, q, floorTime)
  if (q.fromId === undefined) {
    return scan(stores.userTrades, timeRangeBounds(prefix, q, floorTime), q.limit, (_k, v) => userTradeCodec.decode(v))
  }
  // A market's trade ids grow with time (ADL fills, which are not on its tape, take ids from
  // the same counter), so every fill from fromId on is at or after the time of the tape's last
  // trade before fromId: walk the time-ordered rows from there, skipping the few before fromId.
  // (A fromId older than the tape's retention walks from the owner's oldest fill.)
  const fromId = q.fromId
  const before = await scan(stores.trades, { gte: tradeKey(marketId, 0), lt: tradeKey(marketId, fromId), reverse: true }, 1,
    (_k, v) => tradeCodec.decode(v).time)
  const from = Math.max(before[0] ?? 0, q.startTime ?? 0, floorTime)
  const bounds = timeRangeBounds(prefix, { startTime: from, endTime: q.endTime })
  const a = q.after
  return scan(stores.userTrades, bounds, q.limit, (k, v) => {
    const id = readU64(k, k.length - 9)
    if (id < fromId) return undefined
    // The key's last byte: 1 for the maker's row, which follows the taker's.
    if (a !== undefined && (id < a.tradeId || (id === a.tradeId && k[k.length - 1]! <= (a.maker ? 1 : 0)))) return undefined
    return userTradeCodec.decode(v)
  })
}

async function orderTrades(stores: Stores, owner: Owner, marketId: number, q: UserTradesQuery, floorTime: number): Promise<UserTradeRecord[]> {
  const prefix = Buffer.concat([ownerMarketPrefix(owner, marketId), key().u64(q.orderId!).build()])
  const keys = await scan(stores.userTradeOrders, fromBounds(prefix, key().u64(q.fromId ?? 0).build()), q.limit,
    (k, v) => {
      const time = numberCodec.decode(v)
      if (q.endTime !== undefined && time > q.endTime) return 'stop'
      if (time < Math.max(q.startTime ?? 0, floorTime)) return undefined
      return userTradeKey(owner, marketId, time, readU64(k, k.length - 9), k[k.length - 1] === 1)
    })
  return getAll(stores.userTrades, keys, userTradeCodec.decode)
}

/**
 * Income rows, newest three months only (`floorTime`), optionally of one type and market.
 * Rows are kept per type, and a fill's REALIZED_PNL and COMMISSION in its user trade
 * (account-writer.ts), so an answer merges up to five types' rows and, for those two, each
 * market's fills. Each source's first `limit` items by the time-range rule, with every item
 * of the millisecond the source stopped in, hold the answer's: sorting them all by (time,
 * tranId) and keeping the same end of it gives what one walk over every item would.
 */
export async function income(stores: Stores, owner: Owner, page: IncomeQuery, floorTime: number): Promise<IncomeRecord[]> {
  checkLimit(page.limit, PROJECTION_LIMITS.incomeMax)
  const skip = page.skip ?? 0
  checkLimit(page.limit + skip, PROJECTION_LIMITS.incomePagedMax)
  // A later page: the rows of every page up to it, then only its own.
  const q = skip === 0 ? page : { ...page, limit: page.limit + skip }
  const types = q.incomeType !== undefined ? [q.incomeType] : INCOME_TYPES
  const ofType = (type: IncomeType): Promise<IncomeRecord[]> => {
    const bounds = timeRangeBounds(incomeTypePrefix(owner, INCOME_TYPE_CODES[type]), q, floorTime)
    return scan(stores.incomeByType, bounds, q.limit, (_k, v) => {
      const r = incomeCodec.decode(v)
      return (q.marketId === undefined || r.marketId === q.marketId) && afterCursor(q, r.time, r.tranId) ? r : undefined
    })
  }
  const fillTypes = types.filter((type): type is FillIncomeType => type === 'REALIZED_PNL' || type === 'COMMISSION')
  const markets = fillTypes.length === 0 ? [] : q.marketId !== undefined ? [q.marketId] : await perpMarketsTraded(stores, owner)
  const sources = [
    ...types.map(ofType),
    ...(fillTypes.length === 0 ? [] : markets.map((m) => fillIncome(stores, owner, m, fillTypes, q, floorTime))),
  ]
  const all = (await Promise.all(sources)).flat().sort((a, b) => a.time - b.time || a.tranId - b.tranId)
  // The rule walks from the newest end unless a startTime anchors it at the oldest (time-range.ts).
  if (q.startTime !== undefined) return all.slice(skip, skip + page.limit)
  const end = Math.max(0, all.length - skip)
  return all.slice(Math.max(0, end - page.limit), end)
}

type FillIncomeType = 'REALIZED_PNL' | 'COMMISSION'

/**
 * One market's fill income of `types` from `owner`'s user trades, both types in one walk (a
 * fill carries both): the first `limit` items by the time-range rule, and the rest of the
 * millisecond the last of them is in (a user trade's key orders a millisecond's fills by trade
 * id, the answer by tranId). Taking them together is still enough: an item among the answer's
 * `limit` has at most `limit − 1` of this source's items before it.
 */
async function fillIncome(stores: Stores, owner: Owner, marketId: number, types: readonly FillIncomeType[], q: IncomeQuery,
  floorTime: number): Promise<IncomeRecord[]> {
  let taken = 0
  let lastTime = -1
  const fills = await scan(stores.userTrades, timeRangeBounds(ownerMarketPrefix(owner, marketId), q, floorTime), Number.MAX_SAFE_INTEGER, (_k, v) => {
    const t = storedUserTradeCodec.decode(v)
    if (taken >= q.limit && t.time !== lastTime) return 'stop'
    // Rows from before incomeId was stored have their income in incomeByType.
    if (t.incomeId === undefined || t.incomeId === 0) return undefined
    const items: IncomeRecord[] = []
    for (const type of types) {
      const pnl = type === 'REALIZED_PNL'
      const amount = pnl ? t.realizedPnl : -t.commission
      if (amount === 0) continue
      // The fill's ids were taken REALIZED_PNL first (account-writer.ts).
      const tranId = !pnl && t.realizedPnl !== 0 ? t.incomeId + 1 : t.incomeId
      if (!afterCursor(q, t.time, tranId)) continue
      items.push({ tranId, incomeType: type, marketId, income: amount, asset: null, info: String(t.tradeId), time: t.time, tradeId: t.tradeId })
    }
    if (items.length === 0) return undefined
    taken += items.length
    lastTime = t.time
    return items
  })
  return fills.flat()
}

/**
 * The perp markets `owner` has fills in: each market's first row, then a seek past the
 * market. A spot fill names its fee asset (a perp fill's is the market's quote, null), and
 * spot fills have no income.
 */
async function perpMarketsTraded(stores: Stores, owner: Owner): Promise<number[]> {
  const prefix = ownerPrefix(owner)
  const it = stores.userTrades.iterator({ gte: prefix, lt: prefixEnd(prefix) })
  const out: number[] = []
  try {
    for (;;) {
      const row = await it.next()
      if (row === undefined) return out
      const marketId = row[0].readUInt32BE(prefix.length)
      if (userTradeCodec.decode(row[1]).commissionAsset === null) out.push(marketId)
      if (marketId === 0xffff_ffff) return out
      it.seek(ownerMarketPrefix(owner, marketId + 1))
    }
  } finally {
    await it.close()
  }
}

const INCOME_TYPES = Object.keys(INCOME_TYPE_CODES) as IncomeType[]
