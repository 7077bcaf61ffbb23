// History rows as Binance's futures REST answers print them: a user trade (/fapi/v1/userTrades)
// and an income row (/fapi/v1/income). The routes and the history downloads
// (history-downloads.ts) print them with the same code.

import type { PerpMarket, State } from '../core/state.js'
import type { IncomeRecord, UserTradeRecord } from '../replica/projections/index.js'
import { formatBalance, formatNotional, formatPrice, formatQty } from './decimal.js'

export function userTradeJson(state: State, m: PerpMarket, r: UserTradeRecord): Record<string, unknown> {
  const scale = state.assets.get(m.quote)!.scale
  return {
    symbol: m.symbol, id: r.tradeId, orderId: r.orderId, side: r.side, price: formatPrice(m, r.priceTicks),
    qty: formatQty(m, r.qtyLots), realizedPnl: formatBalance(r.realizedPnl, scale),
    quoteQty: formatNotional(m, r.quoteQtyTicksLots), commission: formatBalance(r.commission, scale),
    commissionAsset: r.commissionAsset ?? m.quote, time: r.time, positionSide: r.positionSide,
    buyer: r.buyer, maker: r.maker, isBuyer: r.buyer, isMaker: r.maker,
  }
}

export function incomeJson(state: State, r: IncomeRecord): Record<string, unknown> {
  const market = r.marketId === null ? undefined : state.markets[r.marketId]
  const asset = r.asset ?? market?.quote ?? 'USDT'
  return {
    symbol: market?.symbol ?? '', incomeType: r.incomeType, income: formatBalance(r.income, state.assets.get(asset)!.scale),
    asset, info: r.info, time: r.time, tranId: r.tranId, tradeId: r.tradeId === null ? '' : String(r.tradeId),
  }
}
