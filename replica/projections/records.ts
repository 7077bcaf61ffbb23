// The typed records each read model stores and returns. Quantities stay integers: prices in
// ticks, quantities in lots, quote quantities in tick·lot units (× the market's
// quotePerTickLot gives ledger units), money in ledger units. The gateway formats.

import type { PositionSide, Side, WalletKind } from '../../core/commands.js'
import type { OrderRecordFields, WithdrawalEvent } from '../../core/events.js'

/** A sub-account: every per-user read model is keyed by one. */
export interface Owner {
  account: string
  sub: number
}

/** One book fill of a market (recent and historical trades). */
export interface TradeRecord {
  tradeId: number
  priceTicks: number
  qtyLots: number
  quoteQtyTicksLots: number
  time: number
  buyerIsMaker: boolean
}

/** Binance aggregate trade: a = aggId, p = priceTicks, q = qtyLots, f, l, T = time, m = buyerIsMaker. */
export interface AggTradeRecord {
  aggId: number
  priceTicks: number
  qtyLots: number
  firstTradeId: number
  lastTradeId: number
  /** Time of the first trade. */
  time: number
  buyerIsMaker: boolean
}

export interface KlineRecord {
  openTime: number
  /** Next bucket's open time − 1. */
  closeTime: number
  openPriceTicks: number
  highPriceTicks: number
  lowPriceTicks: number
  closePriceTicks: number
  volumeLots: number
  /** Numbers while safe, bigints past 2^53 (core/arith.ts addExact): a spot candle passes it at 9e9 USDT. */
  quoteVolumeTicksLots: number | bigint
  count: number
  takerBuyVolumeLots: number
  takerBuyQuoteVolumeTicksLots: number | bigint
  /** Not served with klines; the 24 h ticker's firstId and lastId come from them. */
  firstTradeId: number
  lastTradeId: number
}

/**
 * Rolling 24 h statistics. The ratios are left to the edge, exactly: priceChangePercent =
 * priceChangeTicks / openPriceTicks × 100 and weightedAvgPrice = quoteVolumeTicksLots /
 * volumeLots ticks. With no trade in the window, count is 0, firstId and lastId −1, and
 * every price is the last trade price ever (0 before the first trade).
 */
export interface TickerRecord {
  marketId: number
  openPriceTicks: number
  highPriceTicks: number
  lowPriceTicks: number
  lastPriceTicks: number
  lastQtyLots: number
  priceChangeTicks: number
  volumeLots: number
  quoteVolumeTicksLots: number | bigint
  openTime: number
  closeTime: number
  firstId: number
  lastId: number
  count: number
}

export interface OpenInterestRecord {
  marketId: number
  /** Sum of long position lots over all sub-accounts. */
  openInterestLots: number
  /** Time of the last change. */
  time: number
  /** Sub-accounts net long and net short (absent in rows written before they were counted). */
  longAccounts?: number
  shortAccounts?: number
}

/** An order's latest record: from its order events and the fills since the last of them. */
export type OrderRecord = OrderRecordFields

/** One side of a fill as its owner sees it (Binance myTrades). */
export interface UserTradeRecord {
  marketId: number
  tradeId: number
  orderId: number
  side: Side
  priceTicks: number
  qtyLots: number
  quoteQtyTicksLots: number
  /** Quote ledger units; 0 for spot. */
  realizedPnl: number
  /** Ledger units of commissionAsset. */
  commission: number
  /**
   * Spot: the asset the fee was taken in. Perp: null, meaning the market's quote (margin)
   * asset, which no event names; the gateway resolves it from the market.
   */
  commissionAsset: string | null
  time: number
  buyer: boolean
  maker: boolean
  /** BOTH for spot fills. */
  positionSide: PositionSide
}

/** A fill with the list its order was placed in (-1: alone): spot myTrades. */
export interface UserTradeInList extends UserTradeRecord {
  orderListId: number
}

export type IncomeType = 'TRANSFER' | 'REALIZED_PNL' | 'FUNDING_FEE' | 'COMMISSION' | 'INSURANCE_CLEAR'

/** Code of each income type inside keys; append only, never renumber. */
export const INCOME_TYPE_CODES: Record<IncomeType, number> = {
  TRANSFER: 1,
  REALIZED_PNL: 2,
  FUNDING_FEE: 3,
  COMMISSION: 4,
  INSURANCE_CLEAR: 5,
}

/**
 * A user trade as its row holds it. A perp fill's REALIZED_PNL and COMMISSION income rows are
 * not stored apart: `incomeId` is the tranId of the first of them (REALIZED_PNL when the fill
 * realized any, then COMMISSION when it paid a fee), 0 when it has neither, as on spot fills.
 * Rows written before it was added have none: their income rows are in incomeByType.
 */
export interface StoredUserTrade extends UserTradeRecord {
  incomeId?: number
}

export interface IncomeRecord {
  tranId: number
  incomeType: IncomeType
  /** Null for wallet movements (TRANSFER). */
  marketId: number | null
  /** Signed ledger units: commissions are negative. */
  income: number
  /** Null means the market's quote (margin) asset; see UserTradeRecord.commissionAsset. */
  asset: string | null
  /** Binance `info`: the trade id for fills, the reason for transfers. */
  info: string
  time: number
  /** The fill's trade id, or null. */
  tradeId: number | null
}

export interface TransferRecord {
  tranId: number
  direction: 'SPOT_TO_PERP' | 'PERP_TO_SPOT'
  asset: string
  amount: number
  /** Balances after the transfer (the spec's s and p). */
  spotBalance: number
  perpBalance: number
  time: number
}

/** A move between two sub-accounts of one account, kept under each of the two (wallet-writer.ts). */
export interface SubTransferRecord {
  /** seq × rowsPerEntryMax + n, as every row's id: the transfer's id in every answer. */
  tranId: number
  fromSub: number
  toSub: number
  fromWallet: 'SPOT' | 'PERP'
  toWallet: 'SPOT' | 'PERP'
  asset: string
  amount: number
  /** The client's id ('' when none). */
  clientTranId: string
  time: number
}

export interface DepositRecord {
  /** seq × rowsPerEntryMax + n: stable across rebuilds. */
  id: number
  asset: string
  amount: number
  wallet: WalletKind
  /** The deposit's chain reference (`<txHash>:<logIndex>`). */
  txId: string
  /** Deposits are credited when their command applies, so every record is a success. */
  status: 'SUCCESS'
  /** The account the deposit credited. */
  address: string
  time: number
}

/** A deposit seen on chain but not yet as deep as the watcher requires (status 0 in the history). */
export interface PendingDepositRecord {
  asset: string
  amount: number
  txId: string
  address: string
  confirmations: number
  required: number
  /** When the deposit was last reported (the latest note's entry time). */
  time: number
}

export interface WithdrawalRecord extends Omit<WithdrawalEvent, 'type' | 'account' | 'sub' | 'time'> {
  /** Time of the latest status change. */
  updateTime: number
}

/** Where a withdrawal's record lives, so it can be found by id alone. */
export interface WithdrawalLocator {
  account: string
  sub: number
  applyTime: number
}
