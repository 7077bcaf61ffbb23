// Schemas of the sub-account routes under /sapi/v*/sub-account: the master's universal transfer
// and its history, the list of sub-accounts and their balances, and a sub-account's own
// transfers and history.

import { arrayOf, bool, int, object, route, str } from './common.js'

const EMAIL = 'A sub-account is named by its "email", sub<N>@<address> (sub0 is the master); '
const MASTER = 'Only sub-account 0 (the master) may call it; another sub-account\'s key is 403 -1002. '

const FUTURES_ASSET = object({
  asset: str, initialMargin: str, maintenanceMargin: str, marginBalance: str, maxWithdrawAmount: str,
  openOrderInitialMargin: str, positionInitialMargin: str, unrealizedProfit: str, walletBalance: str,
})
const futuresAccount = object({
  email: str, asset: str, assets: arrayOf(FUTURES_ASSET), canDeposit: bool, canTrade: bool, canWithdraw: bool, feeTier: int,
  maxWithdrawAmount: str, totalInitialMargin: str, totalMaintenanceMargin: str, totalMarginBalance: str,
  totalOpenOrderInitialMargin: str, totalPositionInitialMargin: str, totalUnrealizedProfit: str, totalWalletBalance: str,
  updateTime: int,
})

export const subAccountDocs = {
  universalTransfer: route({
    family: 'wallet', summary: 'Master: move an asset between two of the account\'s sub-accounts',
    description: MASTER + EMAIL + 'fromEmail or toEmail left out is the master. Account types SPOT and USDT_FUTURE '
      + '(the perp wallet: the margin asset only, what margin leaves free). A sub-account comes into being when money '
      + 'first reaches it. Needs the TRADE permission.',
    security: 'TRADE', weight: '1 per IP, 360 per account',
    params: ['fromEmail', 'toEmail', 'fromAccountType', 'toAccountType', 'asset', 'amount', 'clientTranId'],
    required: ['fromAccountType', 'toAccountType', 'asset', 'amount'],
    response: object({ tranId: int, clientTranId: str }),
  }),
  universalTransferHistory: route({
    family: 'wallet', summary: 'Master: transfers between the account\'s sub-accounts',
    description: MASTER + 'Newest first; filtered by fromEmail, toEmail, clientTranId; page (default 1) of limit '
      + '(default 500, at most 500). Without startTime and endTime: the last 30 days; at most 30 days.',
    security: 'USER_DATA', weight: '1 per IP, 1 per account',
    params: ['fromEmail', 'toEmail', 'clientTranId', 'startTime', 'endTime', 'page', 'limit'],
    response: object({
      result: arrayOf(object({
        tranId: int, fromEmail: str, toEmail: str, asset: str, amount: str, createTimeStamp: int,
        fromAccountType: str, toAccountType: str, status: str, clientTranId: str,
      })),
      totalCount: int,
    }),
  }),
  futuresInternalTransfer: route({
    family: 'wallet', summary: 'Master: move the margin asset between two sub-accounts\' futures wallets',
    description: MASTER + EMAIL + 'fromEmail and toEmail required (the master is sub0@<address>); futuresType 1 (USDⓈ-M; 2, COIN-M, '
      + 'is -1130: there are none). What may leave is what a withdrawal could take. Needs the TRADE permission.',
    security: 'TRADE', weight: '1 per IP, 1 per account', params: ['fromEmail', 'toEmail', 'futuresType', 'asset', 'amount'],
    required: ['fromEmail', 'toEmail', 'futuresType', 'asset', 'amount'],
    response: object({ success: bool, txnId: str }),
  }),
  futuresInternalTransferHistory: route({
    family: 'wallet', summary: 'Master: the futures internal transfers a sub-account took part in, newest first',
    description: MASTER + EMAIL + 'email and futuresType (1) required; startTime/endTime (the last 30 days by default, at most 30), '
      + 'page (default 1), limit (default 50, at most 500).',
    security: 'USER_DATA', weight: '1 per IP, 1 per account', params: ['email', 'futuresType', 'startTime', 'endTime', 'page', 'limit'],
    required: ['email', 'futuresType'],
    response: object({
      success: bool, futuresType: int,
      transfers: arrayOf(object({ from: str, to: str, asset: str, qty: str, tranId: int, time: int })),
    }),
  }),
  futuresTransfer: route({
    family: 'wallet', summary: 'Master: move the margin asset between a sub-account\'s spot and futures wallets',
    description: MASTER + EMAIL + 'type 1 spot to USDⓈ-M futures, 2 back (3 and 4, COIN-M, are -1130). Needs the TRADE permission.',
    security: 'TRADE', weight: '1 per IP, 1 per account', params: ['email', 'asset', 'amount', 'type'],
    required: ['email', 'asset', 'amount', 'type'],
    response: object({ txnId: str }),
  }),
  virtualSubAccount: route({
    family: 'wallet', summary: 'Master: a new, empty sub-account',
    description: MASTER + EMAIL + 'The new one has the lowest number no sub-account of the account holds (1 to 31; '
      + 'past 31, -1130). subAccountString (letters, digits, `_.-`, up to 64) is required and names nothing: the email is '
      + 'the number\'s. Needs the TRADE permission.',
    security: 'TRADE', weight: '1 per IP, 1 per account', params: ['subAccountString'], required: ['subAccountString'],
    response: object({ email: str }),
  }),
  list: route({
    family: 'wallet', summary: 'Master: the account\'s sub-accounts (those made, or that ever held money or a session)',
    description: MASTER + EMAIL + '`email` keeps one; page (default 1) of limit (default 1, at most 200).',
    security: 'USER_DATA', weight: '1 per IP, 1 per account', params: ['email', 'isFreeze', 'page', 'limit'],
    response: object({
      subAccounts: arrayOf(object({ email: str, isFreeze: bool, isManagedSubAccount: bool, isAssetManagementSubAccount: bool })),
    }),
  }),
  assets: route({
    family: 'wallet', summary: 'Master: a sub-account\'s spot balances (those not zero)',
    description: MASTER + EMAIL, security: 'USER_DATA', weight: '1 per IP, 60 per account', params: ['email'], required: ['email'],
    response: object({ balances: arrayOf(object({ asset: str, free: str, locked: str, freeze: str, withdrawing: str })) }),
  }),
  futuresAccountV1: route({
    family: 'wallet', summary: 'Master: a sub-account\'s USDⓈ-M futures account',
    description: MASTER + EMAIL, security: 'USER_DATA', weight: '1 per IP, 10 per account', params: ['email'], required: ['email'],
    response: futuresAccount,
  }),
  futuresAccount: route({
    family: 'wallet', summary: 'Master: a sub-account\'s futures account (futuresType 1, USDⓈ-M: the only one here)',
    description: MASTER + EMAIL, security: 'USER_DATA', weight: '1 per IP, 10 per account', params: ['email', 'futuresType'],
    required: ['email', 'futuresType'], response: object({ futureAccountResp: futuresAccount }),
  }),
  subToMaster: route({
    family: 'wallet', summary: 'Sub-account: move an asset from its spot wallet to the master\'s',
    description: 'Needs the TRADE permission.',
    security: 'TRADE', weight: '1 per IP, 1 per account', params: ['asset', 'amount'], required: ['asset', 'amount'],
    response: object({ txnId: int }),
  }),
  subToSub: route({
    family: 'wallet', summary: 'Sub-account: move an asset from its spot wallet to another sub-account\'s of the same account',
    description: EMAIL + 'Needs the TRADE permission.',
    security: 'TRADE', weight: '1 per IP, 1 per account', params: ['toEmail', 'asset', 'amount'],
    required: ['toEmail', 'asset', 'amount'], response: object({ txnId: int }),
  }),
  subUserHistory: route({
    family: 'wallet', summary: 'A sub-account\'s transfers to and from its account\'s other sub-accounts',
    description: 'Newest first; `type` 1 in, 2 out; `asset` keeps one; at most `limit` (default 500, at most 500). '
      + 'Without startTime and endTime: the last 30 days; at most 30 days. counterParty is master or subAccount.',
    security: 'USER_DATA', weight: '1 per IP, 1 per account', params: ['asset', 'type', 'startTime', 'endTime', 'limit'],
    response: arrayOf(object({
      counterParty: str, email: str, type: int, asset: str, qty: str, fromAccountType: str, toAccountType: str,
      status: str, tranId: int, time: int,
    })),
  }),
}
