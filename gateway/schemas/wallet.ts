// Schemas of the wallet routes under /sapi/v1: transfers between spot and perp, withdrawals,
// deposit and withdrawal history.

import { arrayOf, int, object, route, str } from './common.js'

const depositsSchema = arrayOf(object({
  id: str, amount: str, coin: str, network: str, status: int, address: str, addressTag: str, txId: str,
  insertTime: int, completeTime: int, timestamp: int, transferType: int, confirmTimes: str, walletType: int,
}))

/** completeTime is absent while the withdrawal is processing. */
const withdrawalsSchema = arrayOf(object({
  id: str, amount: str, transactionFee: str, coin: str, status: int, address: str, txId: str, applyTime: int,
  completeTime: int, timestamp: int, network: str, transferType: int, withdrawOrderId: str, info: str,
  confirmNo: int, walletType: int,
}))

const balancesAfter = object({ s: str, p: str })
const tranId = object({ tranId: int })
const history = ['coin', 'startTime', 'endTime', 'limit'] as const

export const walletDocs = {
  spotToPerp: route({
    family: 'wallet', summary: 'Move quote (margin asset) from spot to perp',
    description: 's and p: the spot and perp balances after the transfer.',
    security: 'USER_DATA', weight: '1 per IP, 900 per account', params: ['amount'], required: ['amount'], response: balancesAfter,
  }),
  perpToSpot: route({
    family: 'wallet', summary: 'Move quote (margin asset) from perp to spot',
    description: 's and p: the spot and perp balances after the transfer.',
    security: 'USER_DATA', weight: '1 per IP, 900 per account', params: ['amount'], required: ['amount'], response: balancesAfter,
  }),
  assetTransfer: route({
    family: 'wallet', summary: 'Universal transfer: MAIN_UMFUTURE or UMFUTURE_MAIN of the margin asset',
    security: 'USER_DATA', weight: '1 per IP, 900 per account', params: ['type', 'asset', 'amount'],
    required: ['type', 'asset', 'amount'], response: tranId,
  }),
  futuresTransfer: route({
    family: 'wallet', summary: 'Futures transfer: type 1 spot to perp, 2 perp to spot', security: 'USER_DATA',
    weight: '1 per IP, 1 per account', params: ['asset', 'amount', 'type'], required: ['asset', 'amount', 'type'], response: tranId,
  }),
  withdraw: route({
    family: 'wallet', summary: "Withdraw to the account's own address (WITHDRAW permission)",
    security: 'USER_DATA', weight: '1 per IP, 900 per account', params: ['coin', 'address', 'amount', 'withdrawOrderId'],
    required: ['coin', 'amount'], response: object({ id: str }),
  }),
  deposits: route({
    family: 'wallet', summary: 'Deposit history (at most 90 days per request)',
    description: 'Credited deposits (status 1) and deposits seen on chain but not yet at the confirmation depth (status 0, '
      + 'confirmTimes "seen/required", id the chain reference, no completeTime); `status` keeps one of them.',
    security: 'USER_DATA', weight: '1 per IP, 1 per account', params: [...history, 'status'], response: depositsSchema,
  }),
  tradeFee: route({
    family: 'wallet', summary: "Spot markets' maker and taker commission rates, of one symbol or all",
    security: 'USER_DATA', weight: 1, params: ['symbol'],
    response: arrayOf(object({ symbol: str, makerCommission: str, takerCommission: str })),
  }),
  transferHistory: route({
    family: 'wallet', summary: 'Universal transfer history of one direction (MAIN_UMFUTURE or UMFUTURE_MAIN)',
    description: 'Newest first, a page of `size` (default 10, at most 100) from page `current` (default 1); total counts '
      + 'every transfer of that direction in the range. Without startTime and endTime: the last 7 days; at most 90 days.',
    security: 'USER_DATA', weight: 1, params: ['type', 'startTime', 'endTime', 'current', 'size'], required: ['type'],
    response: object({
      total: int, rows: arrayOf(object({ asset: str, amount: str, type: str, status: str, tranId: int, timestamp: int })),
    }),
  }),
  futuresTransferHistory: route({
    family: 'wallet', summary: 'Futures transfer history of one asset: type "1" spot to perp, "2" perp to spot',
    description: 'Newest first, page `current` (default 1) of `size` (default 10, at most 100); startTime required; '
      + 'at most 90 days.',
    security: 'USER_DATA', weight: 10, params: ['asset', 'startTime', 'endTime', 'current', 'size'],
    required: ['asset', 'startTime'],
    response: object({
      rows: arrayOf(object({ asset: str, tranId: int, amount: str, type: str, timestamp: int, status: str })), total: int,
    }),
  }),
  depositAddress: route({
    family: 'wallet', summary: "Deposit address: the account's own address",
    description: 'Deposits are made on chain into the Vault from the account\'s own wallet (chain module), which '
      + 'credits that address; the answer is that address, with no tag.',
    security: 'USER_DATA', weight: 10, params: ['coin', 'network', 'amount'], required: ['coin'],
    response: object({ address: str, coin: str, tag: str, url: str }),
  }),
  withdrawals: route({
    family: 'wallet', summary: 'Withdrawal history (at most 90 days per request)', security: 'USER_DATA',
    weight: '1 per IP, 1 per account', params: history, response: withdrawalsSchema,
  }),
}
