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
    family: 'wallet', summary: 'Deposit history (at most 90 days per request)', security: 'USER_DATA',
    weight: '1 per IP, 1 per account', params: history, response: depositsSchema,
  }),
  withdrawals: route({
    family: 'wallet', summary: 'Withdrawal history (at most 90 days per request)', security: 'USER_DATA',
    weight: '1 per IP, 1 per account', params: history, response: withdrawalsSchema,
  }),
}
