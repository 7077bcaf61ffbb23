// History rows as Binance's futures REST answers print them: a user trade (/fapi/v1/userTrades)
// and an income row (/fapi/v1/income). The routes and the history downloads
// (history-downloads.ts) print them with the same code.

import type { Market, PerpMarket } from '../core/state.js'
import type { IncomeRecord, UserTradeRecord } from '../replica/projections/index.js'
import { formatBalance, formatNotional, formatPrice, formatQty, type AssetScales, type MarketScales } from './decimal.js'

/** `quoteScale`: the ledger scale of the market's quote asset, which pnl and commissions are in. */
export function userTradeJson(m: MarketScales & Pick<PerpMarket, 'symbol' | 'quote'>, quoteScale: number, r: UserTradeRecord): Record<string, unknown> {
  return {
    symbol: m.symbol, id: r.tradeId, orderId: r.orderId, side: r.side, price: formatPrice(m, r.priceTicks),
    qty: formatQty(m, r.qtyLots), realizedPnl: formatBalance(r.realizedPnl, quoteScale),
    quoteQty: formatNotional(m, r.quoteQtyTicksLots), commission: formatBalance(r.commission, quoteScale),
    commissionAsset: r.commissionAsset ?? m.quote, time: r.time, positionSide: r.positionSide,
    buyer: r.buyer, maker: r.maker, isBuyer: r.buyer, isMaker: r.maker,
  }
}

/** What an income row reads of the state: its market's symbol and quote, assets' scales (State, or a page's copy). */
export interface IncomeView extends AssetScales {
  readonly markets: { readonly [marketId: number]: Pick<Market, 'symbol' | 'quote'> | undefined }
}

export function incomeJson(state: IncomeView, r: IncomeRecord): Record<string, unknown> {
  const market = r.marketId === null ? undefined : state.markets[r.marketId]
  const asset = r.asset ?? market?.quote ?? 'USDT'
  return {
    symbol: market?.symbol ?? '', incomeType: r.incomeType, income: formatBalance(r.income, state.assets.get(asset)!.scale),
    asset, info: r.info, time: r.time, tranId: r.tranId, tradeId: r.tradeId === null ? '' : String(r.tradeId),
  }
}
