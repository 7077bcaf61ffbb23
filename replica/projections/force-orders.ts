// Forced orders (Binance GET /fapi/v1/forceOrders): a sub-account's liquidation orders and
// the ADL orders that closed its positions against someone's liquidation, one row per order
// when it ends (core/liquidation, the `forceOrder` event); and the INSURANCE_CLEAR income rows
// of the money a liquidation moved to or from the insurance fund.

import type { PositionSide, Side } from '../../core/commands.js'
import type { ForceOrderEvent, InsuranceEvent, OrderStatus } from '../../core/events.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import { putIncome } from './account-writer.js'
import type { PendingBatch } from './batch.js'
import { tupleCodec } from './codec.js'
import { ownerKey } from './keys.js'
import type { Owner } from './records.js'
import type { Stores } from './stores.js'
import { checkLimit, scan, timeRangeBounds, type TimeRange } from './time-range.js'

export interface ForceOrderRecord {
  marketId: number
  orderId: number
  clientOrderId: string
  autoCloseType: 'LIQUIDATION' | 'ADL'
  side: Side
  positionSide: PositionSide
  priceTicks: number
  origQtyLots: number
  executedQtyLots: number
  cumQuoteTicksLots: number
  status: OrderStatus
  reduceOnly: boolean
  time: number
  updateTime: number
}

export const forceOrderCodec = tupleCodec<ForceOrderRecord>({
  marketId: true, orderId: true, clientOrderId: true, autoCloseType: true, side: true, positionSide: true, priceTicks: true,
  origQtyLots: true, executedQtyLots: true, cumQuoteTicksLots: true, status: true, reduceOnly: true, time: true, updateTime: true,
})

/** owner, time u64, row id u64 → ForceOrderRecord. */
function forceOrderKey(o: Owner, time: number, id: number): Buffer {
  return ownerKey(o.account, o.sub).u64(time).u64(id).build()
}

export function onForceOrder(stores: Stores, batch: PendingBatch, e: ForceOrderEvent, id: number): void {
  const r: ForceOrderRecord = {
    marketId: e.marketId, orderId: e.orderId, clientOrderId: e.clientOrderId, autoCloseType: e.autoCloseType, side: e.side,
    positionSide: e.positionSide, priceTicks: e.priceTicks, origQtyLots: e.origQtyLots, executedQtyLots: e.executedQtyLots,
    cumQuoteTicksLots: e.cumQuoteTicksLots, status: e.status, reduceOnly: e.reduceOnly, time: e.time, updateTime: e.updateTime,
  }
  batch.put(stores.forceOrders, forceOrderKey(e, e.time, id), forceOrderCodec.encode(r))
}

export interface ForceOrderQuery extends TimeRange {
  marketId?: number | undefined
  autoCloseType?: 'LIQUIDATION' | 'ADL' | undefined
  limit: number
}

/**
 * A sub-account's forced orders by the time-range rule, ascending. As Binance: without a
 * startTime only the 7 days before endTime (or now) are searched; never past the retention.
 */
export function forceOrders(stores: Stores, owner: Owner, q: ForceOrderQuery, nowMs: number): Promise<ForceOrderRecord[]> {
  checkLimit(q.limit, PROJECTION_LIMITS.forceOrdersMax)
  const kept = Math.max(0, nowMs - PROJECTION_LIMITS.forceOrderRetentionMs)
  const floor = q.startTime === undefined ? Math.max(kept, (q.endTime ?? nowMs) - PROJECTION_LIMITS.forceOrdersWindowMs) : kept
  return scan(stores.forceOrders, timeRangeBounds(ownerKey(owner.account, owner.sub).build(), q, floor), q.limit, (_k, v) => {
    const r = forceOrderCodec.decode(v)
    if (q.marketId !== undefined && r.marketId !== q.marketId) return undefined
    return q.autoCloseType === undefined || r.autoCloseType === q.autoCloseType ? r : undefined
  })
}

/**
 * A liquidation's money to or from the insurance fund, as the liquidated sub-account's
 * INSURANCE_CLEAR income: the clearance fee negative, a shortfall the fund paid positive.
 */
export function onInsurance(stores: Stores, batch: PendingBatch, e: InsuranceEvent, tranId: number): void {
  putIncome(stores, batch, e, { tranId, incomeType: 'INSURANCE_CLEAR', marketId: e.marketId, income: -e.amount, asset: null,
    info: e.reason, time: e.time, tradeId: null })
}
