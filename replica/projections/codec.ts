// Values are msgpack tuples: each record's fields in a fixed order, so stored rows carry no
// field names. A layout lists every field of its record (the compiler checks that); its
// order is the stored format, so fields are only ever appended.

import { Packr } from 'msgpackr'
import { assert } from '../../core/assert.js'
import type {
  AggTradeRecord, DepositRecord, PendingDepositRecord, IncomeRecord, KlineRecord, OpenInterestRecord, OrderRecord, TradeRecord, TransferRecord, SubTransferRecord,
  StoredUserTrade, UserTradeRecord, WithdrawalLocator, WithdrawalRecord,
} from './records.js'

// Plain arrays and maps only: records (msgpackr structures) would need their schemas stored.
const packr = new Packr({ useRecords: false, mapsAsObjects: true })

export interface Codec<T> {
  encode(value: T): Buffer
  decode(bytes: Buffer): T
}

/** Encodes a plain value as it is (small, rarely written rows like cursors and meta). */
export function plainCodec<T>(): Codec<T> {
  return {
    encode: (value) => packr.pack(value),
    decode: (bytes) => packr.unpack(bytes) as T,
  }
}

/**
 * `optionalTail`: how many of the layout's last fields are optional, so rows written before
 * they were appended still decode (those fields come back undefined).
 */
export function tupleCodec<T extends object>(layout: Record<keyof T, true>, optionalTail = 0): Codec<T> {
  const fields = Object.keys(layout) as (keyof T)[]
  // The row as one array literal of named reads, compiled once per layout (field names from the
  // code, not from data): a loop reading value[fields[i]] is one keyed load that sees every
  // layout's names on every record shape, and every projection row was written through it.
  const row = new Function('v', `return [${fields.map((f) => `v[${JSON.stringify(f)}]`).join(', ')}]`) as (value: T) => unknown[]
  return {
    encode(value) {
      return packr.pack(row(value))
    },
    decode(bytes) {
      const row = packr.unpack(bytes) as unknown[]
      assert(Array.isArray(row) && row.length >= fields.length - optionalTail, 'stored row shorter than its layout')
      const out = {} as Record<keyof T, unknown>
      for (let i = 0; i < fields.length; i++) {
        // An optional field left out (undefined or never written) stays absent, as it was.
        if (row[i] !== undefined && row[i] !== null) out[fields[i]!] = row[i]
        else if (i < fields.length - optionalTail) out[fields[i]!] = row[i]
      }
      return out as T
    },
  }
}

export const tradeCodec = tupleCodec<TradeRecord>({
  tradeId: true, priceTicks: true, qtyLots: true, quoteQtyTicksLots: true, time: true, buyerIsMaker: true,
})

export const aggTradeCodec = tupleCodec<AggTradeRecord>({
  aggId: true, priceTicks: true, qtyLots: true, firstTradeId: true, lastTradeId: true, time: true, buyerIsMaker: true,
})

export const klineCodec = tupleCodec<KlineRecord>({
  openTime: true, closeTime: true, openPriceTicks: true, highPriceTicks: true, lowPriceTicks: true,
  closePriceTicks: true, volumeLots: true, quoteVolumeTicksLots: true, count: true, takerBuyVolumeLots: true,
  takerBuyQuoteVolumeTicksLots: true, firstTradeId: true, lastTradeId: true,
})

export const openInterestCodec = tupleCodec<OpenInterestRecord>({ marketId: true, openInterestLots: true, time: true, longAccounts: true, shortAccounts: true }, 2)

export const orderCodec = tupleCodec<OrderRecord>({
  marketId: true, orderId: true, account: true, sub: true, clientOrderId: true, side: true, orderType: true,
  timeInForce: true, priceTicks: true, origQtyLots: true, executedQtyLots: true, cumQuoteTicksLots: true,
  status: true, positionSide: true, reduceOnly: true, stp: true, goodTillDate: true, time: true, updateTime: true,
  cond: true, priceMatch: true, quoteQty: true, orderListId: true, icebergLots: true, expiryReason: true, peg: true, preventedMatchId: true,
  preventedLots: true, strategyId: true, strategyType: true,
}, 11)

const USER_TRADE_LAYOUT: Record<keyof UserTradeRecord, true> = {
  marketId: true, tradeId: true, orderId: true, side: true, priceTicks: true, qtyLots: true,
  quoteQtyTicksLots: true, realizedPnl: true, commission: true, commissionAsset: true, time: true, buyer: true,
  maker: true, positionSide: true,
}

/** A user trade as myTrades answers it (a stored row's trailing incomeId is left out). */
export const userTradeCodec = tupleCodec<UserTradeRecord>(USER_TRADE_LAYOUT)

/** A user trade as stored: the fill's income rows are read from it (account-writer.ts). */
export const storedUserTradeCodec = tupleCodec<StoredUserTrade>({ ...USER_TRADE_LAYOUT, incomeId: true }, 1)

export const incomeCodec = tupleCodec<IncomeRecord>({
  tranId: true, incomeType: true, marketId: true, income: true, asset: true, info: true, time: true, tradeId: true,
})

export const transferCodec = tupleCodec<TransferRecord>({
  tranId: true, direction: true, asset: true, amount: true, spotBalance: true, perpBalance: true, time: true,
})

export const subTransferCodec = tupleCodec<SubTransferRecord>({
  tranId: true, fromSub: true, toSub: true, fromWallet: true, toWallet: true, asset: true, amount: true, clientTranId: true, time: true,
})

export const depositCodec = tupleCodec<DepositRecord>({
  id: true, asset: true, amount: true, wallet: true, txId: true, status: true, address: true, time: true,
})

export const pendingDepositCodec = tupleCodec<PendingDepositRecord>({
  asset: true, amount: true, txId: true, address: true, confirmations: true, required: true, time: true,
})

export const withdrawalCodec = tupleCodec<WithdrawalRecord>({
  withdrawalId: true, asset: true, amount: true, address: true, withdrawOrderId: true, status: true, txId: true,
  reason: true, applyTime: true, updateTime: true,
})

export const withdrawalLocatorCodec = tupleCodec<WithdrawalLocator>({ account: true, sub: true, applyTime: true })

/** Index rows whose value is one number (a time, an order id). */
export const numberCodec: Codec<number> = {
  encode: (n) => packr.pack(n),
  decode: (bytes) => {
    const n = packr.unpack(bytes) as unknown
    assert(typeof n === 'number', 'stored index value is not a number')
    return n
  },
}
