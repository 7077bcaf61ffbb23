// Funding read models: the fundingRate history (one row per market per settled boundary) and
// the FUNDING_FEE income rows of each sub-account's payments (core/funding.ts).

import type { FundingEvent, FundingRateEvent } from '../../core/events.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import { putIncome } from './account-writer.js'
import type { PendingBatch } from './batch.js'
import { tupleCodec } from './codec.js'
import { key } from './keys.js'
import { marketPrefix, type Stores } from './stores.js'
import { checkLimit, scan, timeRangeBounds, type TimeRange } from './time-range.js'

export interface FundingRateRecord {
  marketId: number
  /** 1e-8 units. */
  fundingRateE8: number
  fundingTime: number
  markPriceTicks: number
}

export const fundingRateCodec = tupleCodec<FundingRateRecord>({ marketId: true, fundingRateE8: true, fundingTime: true, markPriceTicks: true })

/** marketId u32, fundingTime u64 → FundingRateRecord. */
export function fundingRateKey(marketId: number, fundingTime: number): Buffer {
  return key().u32(marketId).u64(fundingTime).build()
}

export function onFundingRate(stores: Stores, batch: PendingBatch, e: FundingRateEvent): void {
  const r: FundingRateRecord = { marketId: e.marketId, fundingRateE8: e.fundingRateE8, fundingTime: e.fundingTime, markPriceTicks: e.markPriceTicks }
  batch.put(stores.fundingRates, fundingRateKey(e.marketId, e.fundingTime), fundingRateCodec.encode(r))
}

/** A FUNDING_FEE income row, in the market's quote asset; info is the boundary settled, as text. */
export function onFunding(stores: Stores, batch: PendingBatch, e: FundingEvent, tranId: number): void {
  if (e.amount === 0) return
  putIncome(stores, batch, e, {
    tranId, incomeType: 'FUNDING_FEE', marketId: e.marketId, income: e.amount, asset: null, info: String(e.fundingTime),
    time: e.time, tradeId: null,
  })
}

export interface FundingRateQuery extends TimeRange {
  limit: number
}

/** One market's settlements by the spec's time-range rule, ascending. */
export function fundingRates(stores: Stores, marketId: number, q: FundingRateQuery): Promise<FundingRateRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.fundingRateHistoryMax)
  return scan(stores.fundingRates, timeRangeBounds(marketPrefix(marketId), q), q.limit, (_k, v) => fundingRateCodec.decode(v))
}
