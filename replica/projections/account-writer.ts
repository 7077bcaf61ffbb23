// Per-sub-account read models from order events and fills: order history (latest record of
// every order) and user trades (myTrades), which also hold the income fills cause
// (REALIZED_PNL, COMMISSION). Nothing here reads the store; see batch.ts for how fills reach
// old orders.

import { assertSafe } from '../../core/assert.js'
import type { OrderEvent, PerpFillSide, PerpTradeEvent, SpotFillSide, SpotTradeEvent } from '../../core/events.js'
import { recordOf } from '../../core/records.js'
import type { PendingBatch } from './batch.js'
import { applyFill } from './batch.js'
import { incomeCodec, numberCodec, storedUserTradeCodec } from './codec.js'
import type { IncomeRecord, Owner, StoredUserTrade } from './records.js'
import { INCOME_TYPE_CODES } from './records.js'
import {
  clientOrderIdKey, incomeTypeKey, orderKey, userTradeKey,
  userTradeOrderKey, type Stores,
} from './stores.js'

export function onOrder(stores: Stores, batch: PendingBatch, e: OrderEvent): void {
  const owner: Owner = { account: e.account, sub: e.sub }
  const p = batch.order(orderKey(owner, e.marketId, e.orderId))
  // An order event carries the whole record, so it supersedes any fill seen before it.
  p.record = recordOf(e)
  p.fill = null
  if (e.execType === 'NEW' || e.execType === 'REPLACED') {
    // The index by client id is written when the order takes the id (placed, or a spot
    // amendment's new id); a later order reusing the client id takes it over, as Binance
    // answers with the latest. (Orders by time need no index: account-queries.ts.)
    batch.put(stores.clientOrderIds, clientOrderIdKey(owner, e.marketId, e.clientOrderId), numberCodec.encode(e.orderId))
  }
}

function onFillState(batch: PendingBatch, marketId: number, s: PerpFillSide | SpotFillSide, time: number): void {
  const p = batch.order(orderKey(s, marketId, s.orderId))
  const fill = { executedQtyLots: s.executedQtyLots, cumQuoteTicksLots: s.cumQuoteTicksLots, status: s.status, updateTime: time }
  if (p.record !== null) applyFill(p.record, fill)
  else p.fill = fill
}

function putUserTrade(stores: Stores, batch: PendingBatch, owner: Owner, t: StoredUserTrade): void {
  batch.put(stores.userTrades, userTradeKey(owner, t.marketId, t.time, t.tradeId, t.maker), storedUserTradeCodec.encode(t))
  // No index by trade id: a fromId query seeks through the market's trade tape (account-queries.ts).
  batch.put(stores.userTradeOrders, userTradeOrderKey(owner, t.marketId, t.orderId, t.tradeId, t.maker), numberCodec.encode(t.time))
}

/**
 * One row per income item that is not a fill's, under its type: a query of every type merges
 * them with the fills' (account-queries.ts). A second copy by time alone was a sixth of the
 * bytes the projections wrote per order.
 */
export function putIncome(stores: Stores, batch: PendingBatch, owner: Owner, r: IncomeRecord): void {
  batch.put(stores.incomeByType, incomeTypeKey(owner, INCOME_TYPE_CODES[r.incomeType], r.time, r.tranId), incomeCodec.encode(r))
}

/**
 * A fill side's user trade, holding its REALIZED_PNL and COMMISSION income too (their tranIds
 * taken in that order, as for rows of their own): written as rows of their own they were over
 * a quarter of the bytes the projections wrote per order.
 */
export function onPerpTrade(stores: Stores, batch: PendingBatch, e: PerpTradeEvent, nextRowId: () => number): void {
  for (const s of [e.maker, e.taker]) {
    onFillState(batch, e.marketId, s, e.time)
    const pnlId = s.realizedPnl !== 0 ? nextRowId() : 0
    const feeId = s.fee !== 0 ? nextRowId() : 0
    putUserTrade(stores, batch, s, {
      marketId: e.marketId, tradeId: e.tradeId, orderId: s.orderId, side: s.side, priceTicks: e.priceTicks,
      qtyLots: e.qtyLots, quoteQtyTicksLots: assertSafe(e.priceTicks * e.qtyLots, 'fill quote'),
      realizedPnl: s.realizedPnl, commission: s.fee, commissionAsset: null, time: e.time,
      buyer: s.side === 'BUY', maker: s === e.maker, positionSide: s.positionSide, incomeId: pnlId || feeId,
    })
  }
}

export function onSpotTrade(stores: Stores, batch: PendingBatch, e: SpotTradeEvent): void {
  for (const s of [e.maker, e.taker]) {
    onFillState(batch, e.marketId, s, e.time)
    putUserTrade(stores, batch, s, {
      marketId: e.marketId, tradeId: e.tradeId, orderId: s.orderId, side: s.side, priceTicks: e.priceTicks,
      qtyLots: e.qtyLots, quoteQtyTicksLots: assertSafe(e.priceTicks * e.qtyLots, 'fill quote'),
      realizedPnl: 0, commission: s.fee, commissionAsset: s.feeAsset, time: e.time,
      buyer: s.side === 'BUY', maker: s === e.maker, positionSide: 'BOTH', incomeId: 0,
    })
  }
}
