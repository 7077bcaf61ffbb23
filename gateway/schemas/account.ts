// Schemas of the futures account routes: balances, account, position risk, commission rate,
// user trades, order history, income, in Binance's field order.

import { arrayOf, bool, int, object, route, str } from './common.js'
import { orderSchema } from './trade.js'

const balanceSchema = arrayOf(object({
  accountAlias: str, asset: str, balance: str, crossWalletBalance: str, crossUnPnl: str, availableBalance: str,
  maxWithdrawAmount: str, marginAvailable: bool, updateTime: int,
}))

const accountAsset = object({
  asset: str, walletBalance: str, unrealizedProfit: str, marginBalance: str, maintMargin: str, initialMargin: str,
  positionInitialMargin: str, openOrderInitialMargin: str, crossWalletBalance: str, crossUnPnl: str,
  availableBalance: str, maxWithdrawAmount: str, marginAvailable: bool, updateTime: int,
})

const accountPosition = object({
  symbol: str, positionSide: str, positionAmt: str, marginAmt: str, initialMargin: str, maintMargin: str,
  unrealizedProfit: str, positionInitialMargin: str, openOrderInitialMargin: str, leverage: str, isolated: bool,
  isolatedMargin: str, entryPrice: str, breakEvenPrice: str, maxNotional: str, notional: str, isolatedWallet: str, updateTime: int,
  bidNotional: str, askNotional: str,
})

export const accountSchema = object({
  feeTier: int, canTrade: bool, canDeposit: bool, canWithdraw: bool, updateTime: int, multiAssetsMargin: bool,
  tradeGroupId: int, totalInitialMargin: str, totalMaintMargin: str, totalWalletBalance: str,
  totalUnrealizedProfit: str, totalMarginBalance: str, totalPositionInitialMargin: str,
  totalOpenOrderInitialMargin: str, totalCrossWalletBalance: str, totalCrossUnPnl: str, availableBalance: str,
  maxWithdrawAmount: str, assets: arrayOf(accountAsset), positions: arrayOf(accountPosition),
})

const positionRiskSchema = arrayOf(object({
  symbol: str, positionSide: str, positionAmt: str, entryPrice: str, breakEvenPrice: str, markPrice: str,
  unRealizedProfit: str, liquidationPrice: str, leverage: str, maxNotionalValue: str, marginType: str,
  isolatedMargin: str, isAutoAddMargin: str, notional: str, marginAsset: str, isolatedWallet: str,
  initialMargin: str, maintMargin: str, positionInitialMargin: str, openOrderInitialMargin: str, adl: int,
  bidNotional: str, askNotional: str, updateTime: int,
}))

const userTradesSchema = arrayOf(object({
  symbol: str, id: int, orderId: int, side: str, price: str, qty: str, realizedPnl: str, quoteQty: str,
  commission: str, commissionAsset: str, time: int, positionSide: str, buyer: bool, maker: bool,
  isBuyer: bool, isMaker: bool,
}))

const incomeSchema = arrayOf(object({
  symbol: str, incomeType: str, income: str, asset: str, info: str, time: int, tranId: int, tradeId: str,
}))

const range = ['startTime', 'endTime'] as const

export const accountDocs = {
  account: route({
    family: 'account', summary: 'Futures account: totals, margin asset, positions', security: 'USER_DATA', weight: 5,
    description: 'v1 and v2 list a row for every perpetual; v3 only for symbols with a position or open orders, as Binance\'s v3.',
    response: accountSchema,
  }),
  balance: route({
    family: 'account', summary: 'Futures balances', security: 'USER_DATA', weight: 5, response: balanceSchema,
  }),
  positionRisk: route({
    family: 'account', summary: 'Positions with mark price and unrealized profit', security: 'USER_DATA', weight: 5,
    description: 'v1 and v2 list a row for every perpetual (or `symbol`); v3 only for symbols with a position or open orders, as Binance\'s v3.',
    params: ['symbol'], response: positionRiskSchema,
  }),
  commissionRate: route({
    family: 'account', summary: "A market's maker and taker commission rates", security: 'USER_DATA', weight: 20,
    params: ['symbol'], required: ['symbol'],
    response: object({ symbol: str, makerCommissionRate: str, takerCommissionRate: str }),
  }),
  userTrades: route({
    family: 'account', summary: "The caller's fills in one market", description: 'startTime to endTime spans at most 24 hours.',
    security: 'USER_DATA', weight: 20, params: ['symbol', 'orderId', ...range, 'fromId', 'limit'], required: ['symbol'],
    response: userTradesSchema,
  }),
  allOrders: route({
    family: 'account', summary: "The caller's orders in one market: open, filled, cancelled, expired",
    security: 'USER_DATA', weight: 20, params: ['symbol', 'orderId', ...range, 'limit'], required: ['symbol'],
    response: arrayOf(orderSchema),
  }),
  income: route({
    family: 'account', summary: 'Income history: transfers, realized PnL, funding, commissions',
    description: 'incomeType: TRANSFER, REALIZED_PNL, FUNDING_FEE, COMMISSION or INSURANCE_CLEAR. page: the limit rows after (page − 1) × limit, from the end the time range starts at (up to 10,000 rows).',
    security: 'USER_DATA', weight: 30, params: ['symbol', 'incomeType', ...range, 'page', 'limit'], response: incomeSchema,
  }),
}

const KIND_TEXT = { income: 'transaction (income)', order: 'order', trade: 'trade' } as const

/** History downloads (routes/history-downloads.ts). */
export const downloadDocs = {
  downloadId: (kind: keyof typeof KIND_TEXT) => route({
    family: 'account', summary: `A download id for the ${KIND_TEXT[kind]} history over a time range`,
    description: 'startTime and endTime (ms) are required, at most a year apart (-1130 otherwise). The id is ready at once: '
      + `GET /fapi/v1/${kind}/asyn/id turns it into a link.`,
    security: 'USER_DATA', weight: 1000, params: range, required: range,
    response: object({ avgCostTimestampOfLast30d: int, downloadId: str }),
  }),
  downloadLink: (kind: keyof typeof KIND_TEXT) => route({
    family: 'account', summary: `The link to a ${KIND_TEXT[kind]} history download`,
    description: 'downloadId from the id route (another account\'s, or another kind\'s: -1130). status is always completed; '
      + 'the link needs no API key and expires after 24 hours.',
    security: 'USER_DATA', weight: 10, params: ['downloadId'], required: ['downloadId'],
    response: object({ downloadId: str, status: str, url: str, s3Link: { type: 'string', nullable: true }, notified: bool,
      expirationTimestamp: int, isExpired: { type: 'boolean', nullable: true } }),
  }),
  file: route({
    family: 'account', summary: 'A history download as CSV (the link an /asyn/id route gave)',
    description: 'A header line with the REST rows\' field names, then one line per row, oldest first. An expired link: '
      + '410; an unknown one: 404.',
    security: 'NONE', weight: 100, params: ['link'], required: ['link'], response: { type: 'string', description: 'text/csv' },
  }),
}
