// The LevelDB sublevels the read models live in, and each one's key layout. Every time in a
// key sits right after the owner or market prefix, so one helper (time-range.ts) serves all
// time-range queries; an index gives the other order where a query needs it.

import type { AbstractLevel, AbstractSublevel, AbstractSublevelOptions } from 'abstract-level'
import { key, ownerKey } from './keys.js'
import type { Owner } from './records.js'

/**
 * What the projections need of a database the caller owns: a place for a sublevel. A
 * `Level` or any of its sublevels will do, whatever its default encodings.
 */
export interface ProjectionsParent {
  sublevel<K, V>(name: string, options: AbstractSublevelOptions<K, V>): unknown
}

export type LevelFormat = string | Buffer | Uint8Array
type Db = AbstractLevel<LevelFormat, Buffer, Buffer>
/** The 'projections' sublevel every store lives under; batches go through it. */
export type BaseDb = AbstractSublevel<Db, LevelFormat, Buffer, Buffer>
export type Store = AbstractSublevel<BaseDb, LevelFormat, Buffer, Buffer>

const BUFFERS = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const

export function openBase(parent: ProjectionsParent): BaseDb {
  return parent.sublevel<Buffer, Buffer>('projections', BUFFERS) as BaseDb
}

export interface Stores {
  /** 'm' → {lastSeq, lastTime}. */
  meta: Store
  /** marketId u32 → the market's rolling state (MarketCursor). */
  cursors: Store
  /** marketId u32, tradeId u64 → TradeRecord. */
  trades: Store
  /** marketId u32, time u64, aggId u64 → AggTradeRecord. */
  aggTrades: Store
  /** marketId u32, aggId u64 → time (finds an aggregate by id). */
  aggIds: Store
  /** marketId u32, interval u8, openTime u64 → KlineRecord. */
  klines: Store
  /** marketId u32, bucket time u64 → OpenInterestRecord (last value in the bucket). */
  openInterest: Store
  /** marketId u32, owner → a sub-account's position sides (market-writer.ts; flat ones deleted). */
  positionSides: Store
  /** owner, marketId u32, orderId u64 → OrderRecord (by time too: account-queries.ts). */
  orders: Store
  /**
   * marketId u32, traded u8, endTime u64, group u64 → the keys in orders of a group of orders
   * that ended by endTime (those one write ended, in a market, that traded or not):
   * order-retention.ts prunes by it.
   */
  closedOrders: Store
  /** The same keys as orders', of conditional orders only → creation time u64 (allAlgoOrders). */
  conditionalOrders: Store
  /** owner, marketId u32, clientOrderId → orderId of the latest order with that id. */
  clientOrderIds: Store
  /** owner, marketId u32, time u64, tradeId u64, maker u8 → StoredUserTrade (with the fill's income). */
  userTrades: Store
  /** owner, marketId u32, orderId u64, tradeId u64, maker u8 → time (an order's fills). */
  userTradeOrders: Store
  /** owner, income type u8, time u64, tranId u64 → IncomeRecord (every income row but a fill's). */
  incomeByType: Store
  /** owner, time u64, tranId u64 → TransferRecord. */
  transfers: Store
  /** owner, time u64, tranId u64 → SubTransferRecord, under each of the two sub-accounts. */
  subTransfers: Store
  /** owner, time u64, id u64 → DepositRecord. */
  deposits: Store
  /** owner, ref → PendingDepositRecord: deposits seen on chain, not yet credited (deleted on credit). */
  pendingDeposits: Store
  /** owner, applyTime u64, withdrawalId u64 → WithdrawalRecord (overwritten on each status). */
  withdrawals: Store
  /** withdrawalId u64 → WithdrawalLocator. */
  withdrawalIds: Store
  /** marketId u32, fundingTime u64 → FundingRateRecord (funding.ts). */
  fundingRates: Store
  /** kind u8 (mark 0, index 1, premium 2), marketId u32, interval u8, openTime u64 → PriceKlineRecord (price-klines.ts). */
  priceKlines: Store
  /** marketId u32 → the market's open mark and index buckets. */
  priceCursors: Store
  /** owner, marketId u32, time u64, id u64 → PositionMarginRecord (position-margin.ts). */
  positionMargins: Store
  /** owner, time u64, id u64 → ForceOrderRecord (force-orders.ts). */
  forceOrders: Store
  /** owner, marketId u32, orderId u64, time u64, amendmentId u64 → AmendmentRecord (amendments.ts). */
  orderAmendments: Store
  /** marketId u32, bucket start u64 → TopTradersRecord (top-traders.ts). */
  topTraders: Store
  /** owner, marketId u32, time u64, id u64 → PreventedMatchRecord (prevented-matches.ts). */
  preventedMatches: Store
  /** owner, orderListId u64 → OrderListRecord (order-lists.ts). */
  orderLists: Store
  /** owner, listClientOrderId → the newest orderListId placed with it. */
  orderListClientIds: Store
}

const NAMES: (keyof Stores)[] = [
  'meta', 'cursors', 'trades', 'aggTrades', 'aggIds', 'klines', 'openInterest', 'orders',
  'clientOrderIds', 'userTrades', 'userTradeOrders', 'incomeByType', 'transfers',
  'deposits', 'withdrawals', 'withdrawalIds', 'fundingRates', 'priceKlines',
  'priceCursors', 'pendingDeposits', 'positionMargins', 'forceOrders', 'orderAmendments', 'positionSides', 'topTraders',
  'preventedMatches', 'orderLists', 'orderListClientIds', 'subTransfers', 'conditionalOrders', 'closedOrders',
]

export function openStores(base: BaseDb): Stores {
  const stores = {} as Stores
  for (const name of NAMES) stores[name] = base.sublevel<Buffer, Buffer>(name, BUFFERS)
  return stores
}

export function allStores(stores: Stores): Store[] {
  return NAMES.map((n) => stores[n])
}

// Key builders, one per layout above; writers and queries share them.

export function marketPrefix(marketId: number): Buffer {
  return key().u32(marketId).build()
}

export function tradeKey(marketId: number, tradeId: number): Buffer {
  return key().u32(marketId).u64(tradeId).build()
}

export function aggTradeKey(marketId: number, time: number, aggId: number): Buffer {
  return key().u32(marketId).u64(time).u64(aggId).build()
}

export function aggIdKey(marketId: number, aggId: number): Buffer {
  return key().u32(marketId).u64(aggId).build()
}

export function klinePrefix(marketId: number, intervalIndex: number): Buffer {
  return key().u32(marketId).u8(intervalIndex).build()
}

export function klineKey(marketId: number, intervalIndex: number, openTime: number): Buffer {
  return key().u32(marketId).u8(intervalIndex).u64(openTime).build()
}

export function openInterestKey(marketId: number, bucketTime: number): Buffer {
  return key().u32(marketId).u64(bucketTime).build()
}

/** `owner` as the market writer keys it: "account:sub". */
export function sidesKey(marketId: number, owner: string): Buffer {
  return key().u32(marketId).str(owner).build()
}

export function ownerPrefix(o: Owner): Buffer {
  return ownerKey(o.account, o.sub).build()
}

export function ownerMarketPrefix(o: Owner, marketId: number): Buffer {
  return ownerKey(o.account, o.sub).u32(marketId).build()
}

export function orderKey(o: Owner, marketId: number, orderId: number): Buffer {
  return ownerKey(o.account, o.sub).u32(marketId).u64(orderId).build()
}

export function closedOrdersPrefix(marketId: number, traded: boolean): Buffer {
  return key().u32(marketId).u8(traded ? 1 : 0).build()
}

export function closedOrdersKey(marketId: number, traded: boolean, endTime: number, group: number): Buffer {
  return key().u32(marketId).u8(traded ? 1 : 0).u64(endTime).u64(group).build()
}

export function clientOrderIdKey(o: Owner, marketId: number, clientOrderId: string): Buffer {
  return ownerKey(o.account, o.sub).u32(marketId).str(clientOrderId).build()
}

export function userTradeKey(o: Owner, marketId: number, time: number, tradeId: number, maker: boolean): Buffer {
  return ownerKey(o.account, o.sub).u32(marketId).u64(time).u64(tradeId).u8(maker ? 1 : 0).build()
}

export function userTradeOrderKey(o: Owner, marketId: number, orderId: number, tradeId: number, maker: boolean): Buffer {
  return ownerKey(o.account, o.sub).u32(marketId).u64(orderId).u64(tradeId).u8(maker ? 1 : 0).build()
}

/** Income, transfers, deposits and withdrawals: owner, time, id. */
export function ownerTimeKey(o: Owner, time: number, id: number): Buffer {
  return ownerKey(o.account, o.sub).u64(time).u64(id).build()
}

/** A pending deposit: owner, its chain ref. */
export function pendingDepositKey(o: Owner, ref: string): Buffer {
  return ownerKey(o.account, o.sub).str(ref).build()
}

export function incomeTypePrefix(o: Owner, typeCode: number): Buffer {
  return ownerKey(o.account, o.sub).u8(typeCode).build()
}

export function incomeTypeKey(o: Owner, typeCode: number, time: number, tranId: number): Buffer {
  return ownerKey(o.account, o.sub).u8(typeCode).u64(time).u64(tranId).build()
}

export function withdrawalIdKey(withdrawalId: number): Buffer {
  return key().u64(withdrawalId).build()
}

export const META_KEY = Buffer.from('m')
/** In meta, once conditionalOrders holds every conditional order in orders (stores written before it had none). */
export const CONDITIONAL_INDEX_KEY = Buffer.from('c')
/** In meta, once closedOrders holds every ended order in orders (stores written before it had none). */
export const CLOSED_INDEX_KEY = Buffer.from('o')
