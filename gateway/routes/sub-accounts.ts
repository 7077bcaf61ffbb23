// Sub-account routes under /sapi/v1/sub-account, as Binance's sub-account API: the master
// (sub-account 0) moves money between any two of the account's sub-accounts, lists them and
// reads their spot and futures balances; a
// sub-account's own key sends from its spot wallet to the master or a sibling and reads its
// transfers; the master also makes new ones (virtualSubAccount). Binance names sub-accounts by
// email; here a sub-account's "email" is sub<N>@<address>. The core checks the money and
// numbers new sub-accounts (core/sub-transfer.ts, rules 3 and 4).

import type { FastifyPluginAsync } from 'fastify'
import type { SubAccountTransfer, WalletKind } from '../../core/commands.js'
import { LIMITS, PROJECTION_LIMITS } from '../../core/limits.js'
import type { SubAccount } from '../../core/state.js'
import type { SubTransferRecord } from '../../replica/projections/records.js'
import { accountJson } from '../format-account.js'
import type { Authenticated } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { formatBalance, formatLedger, parseAmount, trimZeros } from '../decimal.js'
import { ApiError, fromCore, invalidParam, mandatoryParam } from '../errors.js'
import { limitParam, optional, required } from '../market-params.js'
import { subAccountDocs } from '../schemas/sub-accounts.js'
import type { WeightCounter } from '../weights.js'
import { futuresTransfer, historyRange, pageParam, sapiSignIn, type SapiWeights } from '../sapi.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
  /** The per-account SAPI budget, shared with the wallet routes. */
  sapi: SapiWeights
}

/** Binance's sub-account histories: the last 30 days unless told, at most 30 days. */
const HISTORY_RANGE_MS = 30 * 86_400_000
/** Rows per page of the sub-account histories (Binance's `limit` maximum and default). */
const HISTORY_PAGE_MAX = 500
const LIST_PAGE_MAX = 200

const ACCOUNT_TYPES: Record<string, WalletKind> = { SPOT: 'SPOT', USDT_FUTURE: 'PERP' }
const accountType = (w: WalletKind): string => (w === 'PERP' ? 'USDT_FUTURE' : 'SPOT')

export const subAccountEmail = (address: string, sub: number): string => `sub${sub}@${address}`

// The address as subAccountEmail writes it, a number without leading zeros (sub01 names no one).
const EMAIL = /^sub(0|[1-9][0-9]?)@(0x[0-9a-fA-F]{40})$/

const masterOnly = (): ApiError => new ApiError(403, -1002, 'Only the master account (sub-account 0) may call this endpoint.')
const subAccountOnly = (): ApiError => new ApiError(403, -1002, 'Only a sub-account (not the master, sub-account 0) may call this endpoint.')

/** The sub-account an email names, which must be of the caller's own account; undefined when not sent. */
function subOfEmail(a: Authenticated, name: string): number | undefined {
  const email = optional(a.params, name)
  if (email === undefined) return undefined
  const m = EMAIL.exec(email)
  const sub = m === null ? NaN : Number(m[1])
  if (m === null || m[2]!.toLowerCase() !== a.session.account.toLowerCase() || !(sub < LIMITS.subAccountsMax)) throw invalidParam(name)
  return sub
}

function walletParam(a: Authenticated, name: string): WalletKind {
  const w = ACCOUNT_TYPES[required(a.params, name)]
  if (w === undefined) throw invalidParam(name)
  return w
}

/** A clientTranId a transfer of the account already has (its tranId when known), or one being submitted. */
function duplicateTranId(tranId?: number): ApiError {
  return new ApiError(400, -1130, `Data sent for parameter 'clientTranId' is not valid: ${tranId === undefined
    ? 'a transfer with it is being made' : `transfer ${tranId} has it`}; it must be unique.`)
}

/** futuresType: 1, USDⓈ-M; 2, COIN-M, is -1130: there are none here. */
function usdsFutures(a: Authenticated): void {
  if (required(a.params, 'futuresType') !== '1') throw invalidParam('futuresType')
}

export const subAccountRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights, sapi }) => {
  const signedIn = sapiSignIn(ctx, weights, sapi)
  const format = (asset: string, amount: number): string => trimZeros(formatLedger(amount, ctx.state().assets.get(asset)!.scale))

  /** Submits the transfer; its id is its entry's first row id, as the history shows it. */
  const send = async (a: Authenticated, t: Omit<SubAccountTransfer, 'type' | 'account' | 'sub' | 'apiKey' | 'asset' | 'amount'>) => {
    const asset = required(a.params, 'asset')
    const info = ctx.state().assets.get(asset)
    if (info === undefined) throw invalidParam('asset')
    const amount = parseAmount(info, required(a.params, 'amount'))
    const ack = await ctx.submit({ type: 'SubAccountTransfer', account: a.session.account, sub: a.session.sub,
      apiKey: a.session.apiKey, asset, amount, ...t })
    // The request's other checks came first: what the core can still refuse is the money (a
    // balance past the ledger bound names the amount).
    if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'spot', op: 'wallet', param: 'amount' })
    return ack.seq * PROJECTION_LIMITS.rowsPerEntryMax
  }

  /** Rows of the given sub-accounts' histories in the range (the request's), each transfer once, newest first. */
  const rowsOf = async (a: Authenticated, subs: readonly number[],
    range: { startTime: number; endTime: number } = historyRange(a, ctx.now(), HISTORY_RANGE_MS, HISTORY_RANGE_MS)): Promise<SubTransferRecord[]> => {
    await ctx.projections.readable()
    const byId = new Map<number, SubTransferRecord>()
    for (const sub of subs) {
      const rows = await ctx.projections.subTransfers({ account: a.session.account, sub },
        { ...range, limit: PROJECTION_LIMITS.walletHistoryMax }, ctx.now())
      for (const r of rows) byId.set(r.tranId, r)
    }
    return [...byId.values()].sort((x, y) => y.tranId - x.tranId)
  }
  /** The account's sub-accounts that exist (have ever held money, a session or an order). */
  const subsOf = (account: string): number[] => {
    const subs = ctx.state().accounts.get(account)?.subs ?? []
    return subs.flatMap((s, i) => (s === undefined ? [] : [i]))
  }

  /** "account clientTranId" of the transfers this gateway is submitting: a retry sent before the first is answered. */
  const sending = new Set<string>()
  /**
   * Binance's clientTranId "must be unique": a retry of a transfer whose answer was lost must not
   * move the money twice. Refused when the account's history (every sub-account's, the wallet
   * history's 90 days) holds a transfer with it; a transfer being submitted holds it meanwhile.
   */
  const usedTranId = async (a: Authenticated, clientTranId: string): Promise<number | undefined> => {
    const now = ctx.now()
    const rows = await rowsOf(a, subsOf(a.session.account), { startTime: Math.max(0, now - PROJECTION_LIMITS.walletRangeMs), endTime: now })
    return rows.find((r) => r.clientTranId === clientTranId)?.tranId
  }

  app.post('/sapi/v1/sub-account/universalTransfer', subAccountDocs.universalTransfer, async (req) => {
    const a = signedIn(req, 360, 'TRADE')
    if (a.session.sub !== 0) throw masterOnly()
    const fromSub = subOfEmail(a, 'fromEmail') ?? 0
    const toSub = subOfEmail(a, 'toEmail') ?? 0
    const fromWallet = walletParam(a, 'fromAccountType')
    const toWallet = walletParam(a, 'toAccountType')
    const clientTranId = optional(a.params, 'clientTranId')
    if (clientTranId !== undefined && !/^[A-Za-z0-9_.:-]{1,64}$/.test(clientTranId)) throw invalidParam('clientTranId')
    if (fromSub === toSub) throw invalidParam('toEmail')
    if (clientTranId === undefined) return { tranId: await send(a, { fromSub, toSub, fromWallet, toWallet }), clientTranId: '' }
    const key = a.session.account + ' ' + clientTranId
    if (sending.has(key)) throw duplicateTranId()
    sending.add(key)
    try {
      const used = await usedTranId(a, clientTranId)
      if (used !== undefined) throw duplicateTranId(used)
      return { tranId: await send(a, { fromSub, toSub, fromWallet, toWallet, clientTranId }), clientTranId }
    } finally {
      sending.delete(key)
    }
  })

  // Between two sub-accounts' futures wallets (Binance's futures internal transfer): the
  // universal transfer with USDT_FUTURE on both sides, answered in this endpoint's form.
  app.post('/sapi/v1/sub-account/futures/internalTransfer', subAccountDocs.futuresInternalTransfer, async (req) => {
    const a = signedIn(req, 1, 'TRADE')
    if (a.session.sub !== 0) throw masterOnly()
    const fromSub = subOfEmail(a, 'fromEmail')
    const toSub = subOfEmail(a, 'toEmail')
    if (fromSub === undefined) throw mandatoryParam('fromEmail')
    if (toSub === undefined) throw mandatoryParam('toEmail')
    usdsFutures(a)
    if (fromSub === toSub) throw invalidParam('toEmail')
    const tranId = await send(a, { fromSub, toSub, fromWallet: 'PERP', toWallet: 'PERP' })
    return { success: true, txnId: String(tranId) }
  })

  // The futures internal transfers one sub-account took part in, newest first: the transfers
  // between two futures wallets of the universal transfer history.
  app.get('/sapi/v1/sub-account/futures/internalTransfer', subAccountDocs.futuresInternalTransferHistory, async (req) => {
    const a = signedIn(req, 1)
    if (a.session.sub !== 0) throw masterOnly()
    const sub = subOfEmail(a, 'email')
    if (sub === undefined) throw mandatoryParam('email')
    usdsFutures(a)
    const page = pageParam(a.params, 'page', 1, Number.MAX_SAFE_INTEGER)
    const limit = limitParam(a.params, 50, HISTORY_PAGE_MAX)
    const rows = (await rowsOf(a, [sub])).filter((r) => r.fromWallet === 'PERP' && r.toWallet === 'PERP')
    const email = (n: number): string => subAccountEmail(a.session.account, n)
    return {
      success: true, futuresType: 1,
      transfers: rows.slice((page - 1) * limit, page * limit).map((r) => ({
        from: email(r.fromSub), to: email(r.toSub), asset: r.asset, qty: format(r.asset, r.amount), tranId: r.tranId, time: r.time,
      })),
    }
  })

  // Within one sub-account, between its spot and futures wallets, asked by the master (Binance's
  // futures transfer for a sub-account): type 1 spot → USDⓈ-M, 2 back; 3 and 4 (COIN-M) -1130.
  app.post('/sapi/v1/sub-account/futures/transfer', subAccountDocs.futuresTransfer, async (req) => {
    const a = signedIn(req, 1, 'TRADE')
    if (a.session.sub !== 0) throw masterOnly()
    const sub = subOfEmail(a, 'email')
    if (sub === undefined) throw mandatoryParam('email')
    // The sub-account's own transfer (as /sapi/v1/futures/transfer makes it), the master's key on the audit trail.
    return { txnId: String((await futuresTransfer(ctx, a, sub)).tranId) }
  })

  // Binance's virtual sub-account: a new, empty sub-account with the lowest number not in use
  // (core/sub-transfer.ts, rules 4). Its email is sub<N>@<address>: subAccountString, required
  // as Binance's is, names nothing here.
  app.post('/sapi/v1/sub-account/virtualSubAccount', subAccountDocs.virtualSubAccount, async (req) => {
    const a = signedIn(req, 1, 'TRADE')
    if (a.session.sub !== 0) throw masterOnly()
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(required(a.params, 'subAccountString'))) throw invalidParam('subAccountString')
    const ack = await ctx.submit({ type: 'CreateSubAccount', account: a.session.account, sub: 0, apiKey: a.session.apiKey })
    if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'spot', op: 'subAccount' })
    const made = ack.result.events.find((e) => e.type === 'subAccountCreated')!
    return { email: subAccountEmail(a.session.account, made.sub) }
  })

  app.get('/sapi/v1/sub-account/universalTransfer', subAccountDocs.universalTransferHistory, async (req) => {
    const a = signedIn(req, 1)
    if (a.session.sub !== 0) throw masterOnly()
    const fromSub = subOfEmail(a, 'fromEmail')
    const toSub = subOfEmail(a, 'toEmail')
    const clientTranId = optional(a.params, 'clientTranId')
    const page = pageParam(a.params, 'page', 1, Number.MAX_SAFE_INTEGER)
    const limit = limitParam(a.params, HISTORY_PAGE_MAX, HISTORY_PAGE_MAX)
    const rows = (await rowsOf(a, subsOf(a.session.account))).filter((r) => (fromSub === undefined || r.fromSub === fromSub)
      && (toSub === undefined || r.toSub === toSub) && (clientTranId === undefined || r.clientTranId === clientTranId))
    const email = (sub: number): string => subAccountEmail(a.session.account, sub)
    return {
      result: rows.slice((page - 1) * limit, page * limit).map((r) => ({
        tranId: r.tranId, fromEmail: email(r.fromSub), toEmail: email(r.toSub), asset: r.asset, amount: format(r.asset, r.amount),
        createTimeStamp: r.time, fromAccountType: accountType(r.fromWallet), toAccountType: accountType(r.toWallet),
        status: 'SUCCESS', clientTranId: r.clientTranId,
      })),
      totalCount: rows.length,
    }
  })

  app.get('/sapi/v1/sub-account/list', subAccountDocs.list, async (req) => {
    const a = signedIn(req, 1)
    if (a.session.sub !== 0) throw masterOnly()
    const only = subOfEmail(a, 'email')
    const isFreeze = optional(a.params, 'isFreeze')
    if (isFreeze !== undefined && isFreeze !== 'true' && isFreeze !== 'false') throw invalidParam('isFreeze')
    const page = pageParam(a.params, 'page', 1, Number.MAX_SAFE_INTEGER)
    const limit = limitParam(a.params, 1, LIST_PAGE_MAX)
    // No sub-account is ever frozen here.
    const subs = subsOf(a.session.account).filter((s) => s !== 0 && (only === undefined || s === only) && isFreeze !== 'true')
    return {
      subAccounts: subs.slice((page - 1) * limit, page * limit).map((s) => ({
        email: subAccountEmail(a.session.account, s), isFreeze: false, isManagedSubAccount: false, isAssetManagementSubAccount: false,
      })),
    }
  })

  /** The sub-account the master names by `email` (required), as the state holds it (undefined: it holds nothing). */
  const namedSub = (a: Authenticated) => {
    if (a.session.sub !== 0) throw masterOnly()
    const sub = subOfEmail(a, 'email')
    if (sub === undefined) throw mandatoryParam('email')
    return { sub, state: ctx.state().accounts.get(a.session.account)?.subs[sub] }
  }

  // The master's view of a sub-account's balances: spot (v4, strings) and futures (USDⓈ-M).
  app.get('/sapi/v4/sub-account/assets', subAccountDocs.assets, async (req) => {
    const a = signedIn(req, 60)
    const { state: sub } = namedSub(a)
    const assets = [...ctx.state().assets.values()]
    return {
      balances: assets.flatMap((asset) => {
        const b = sub?.spot.get(asset.name)
        if (b === undefined || (b.free === 0 && b.locked === 0)) return []
        return [{ asset: asset.name, free: formatBalance(b.free, asset.scale), locked: formatBalance(b.locked, asset.scale),
          freeze: '0', withdrawing: '0' }]
      }),
    }
  })
  const futuresAccount = (email: string, sub: SubAccount | undefined): Record<string, unknown> => {
    const acc = accountJson(ctx.state(), sub) as Record<string, string> & { assets: Record<string, unknown>[] }
    return {
      email, asset: acc.assets[0]!.asset,
      assets: acc.assets.map((x) => ({
        asset: x.asset, initialMargin: x.initialMargin, maintenanceMargin: x.maintMargin, marginBalance: x.marginBalance,
        maxWithdrawAmount: x.maxWithdrawAmount, openOrderInitialMargin: x.openOrderInitialMargin,
        positionInitialMargin: x.positionInitialMargin, unrealizedProfit: x.unrealizedProfit, walletBalance: x.walletBalance,
      })),
      canDeposit: true, canTrade: true, canWithdraw: true, feeTier: 0, maxWithdrawAmount: acc.maxWithdrawAmount,
      totalInitialMargin: acc.totalInitialMargin, totalMaintenanceMargin: acc.totalMaintMargin,
      totalMarginBalance: acc.totalMarginBalance, totalOpenOrderInitialMargin: acc.totalOpenOrderInitialMargin,
      totalPositionInitialMargin: acc.totalPositionInitialMargin, totalUnrealizedProfit: acc.totalUnrealizedProfit,
      totalWalletBalance: acc.totalWalletBalance, updateTime: ctx.state().time,
    }
  }
  app.get('/sapi/v1/sub-account/futures/account', subAccountDocs.futuresAccountV1, async (req) => {
    const a = signedIn(req, 10)
    const { sub, state: s } = namedSub(a)
    return futuresAccount(subAccountEmail(a.session.account, sub), s)
  })
  app.get('/sapi/v2/sub-account/futures/account', subAccountDocs.futuresAccount, async (req) => {
    const a = signedIn(req, 10)
    const { sub, state: s } = namedSub(a)
    usdsFutures(a)
    return { futureAccountResp: futuresAccount(subAccountEmail(a.session.account, sub), s) }
  })

  app.post('/sapi/v1/sub-account/transfer/subToMaster', subAccountDocs.subToMaster, async (req) => {
    const a = signedIn(req, 1, 'TRADE')
    if (a.session.sub === 0) throw subAccountOnly()
    return { txnId: await send(a, { fromSub: a.session.sub, toSub: 0, fromWallet: 'SPOT', toWallet: 'SPOT' }) }
  })

  app.post('/sapi/v1/sub-account/transfer/subToSub', subAccountDocs.subToSub, async (req) => {
    const a = signedIn(req, 1, 'TRADE')
    if (a.session.sub === 0) throw subAccountOnly()
    const toSub = subOfEmail(a, 'toEmail')
    if (toSub === undefined) throw invalidParam('toEmail')
    if (toSub === a.session.sub) throw invalidParam('toEmail')
    return { txnId: await send(a, { fromSub: a.session.sub, toSub, fromWallet: 'SPOT', toWallet: 'SPOT' }) }
  })

  app.get('/sapi/v1/sub-account/transfer/subUserHistory', subAccountDocs.subUserHistory, async (req) => {
    const a = signedIn(req, 1)
    const me = a.session.sub
    const asset = optional(a.params, 'asset')
    const type = optional(a.params, 'type')
    if (type !== undefined && type !== '1' && type !== '2') throw invalidParam('type')
    const limit = limitParam(a.params, HISTORY_PAGE_MAX, HISTORY_PAGE_MAX)
    const rows = (await rowsOf(a, [me])).filter((r) => (asset === undefined || r.asset === asset)
      && (type === undefined || (type === '1') === (r.toSub === me)))
    return rows.slice(0, limit).map((r) => {
      const incoming = r.toSub === me
      const other = incoming ? r.fromSub : r.toSub
      return {
        counterParty: other === 0 ? 'master' : 'subAccount', email: subAccountEmail(a.session.account, other),
        type: incoming ? 1 : 2, asset: r.asset, qty: format(r.asset, r.amount), fromAccountType: accountType(r.fromWallet),
        toAccountType: accountType(r.toWallet), status: 'SUCCESS', tranId: r.tranId, time: r.time,
      }
    })
  })
}
