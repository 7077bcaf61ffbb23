// Wallet endpoints under /sapi/v1: quote transfers between spot and perp (the spec's forms and
// the ones ccxt sends), withdrawals (to the account's own address, with WITHDRAW permission),
// and deposit and withdrawal history.

import type { FastifyPluginAsync } from 'fastify'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import { marginAsset } from '../../core/wallet.js'
import type { Authenticated } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { formatLedger, parseAmount, trimZeros } from '../decimal.js'
import { feeRate } from '../format-market.js'
import { fromCore, invalidParam, mandatoryParam, permissionDenied } from '../errors.js'
import type { TransferRecord } from '../../replica/projections/records.js'
import { limitParam, optional, required, spotsParam, timeParam } from '../market-params.js'
import { walletDocs } from '../schemas/wallet.js'
import type { WeightCounter } from '../weights.js'
import { futuresTransfer, historyRange, marginTransfer, pageParam, sapiSignIn, type SapiWeights } from '../sapi.js'
import { NETWORK } from './capital.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
  /** The per-account SAPI budget, shared with the sub-account routes. */
  sapi: SapiWeights
}

/** Deposit status codes Binance uses: 0 pending (seen on chain, not yet deep enough), 1 success. */
const DEPOSIT_STATUS = { PENDING: 0, SUCCESS: 1 } as const
/** Withdrawal status codes: 4 processing, 6 completed, 5 failed. */
const WITHDRAW_STATUS = { PROCESSING: 4, COMPLETED: 6, FAILED: 5 } as const

function history(a: Authenticated, nowMs: number) {
  const coin = optional(a.params, 'coin')
  const startTime = timeParam(a.params, 'startTime')
  const endTime = timeParam(a.params, 'endTime')
  const end = endTime ?? nowMs
  const start = startTime ?? end - PROJECTION_LIMITS.walletRangeMs
  if (start > end || end - start > PROJECTION_LIMITS.walletRangeMs) throw invalidParam('startTime')
  // The time-range rule: without startTime, the most recent `limit` of the 90 days before the end.
  return { coin, startTime: start, endTime: end, limit: limitParam(a.params, 1000, 1000), newest: startTime === undefined }
}

/** Rows per page of transfer history (Binance's `size` maximum). */
const TRANSFER_PAGE_MAX = 100
/** Binance's transfer history without a range: the last 7 days. */
const TRANSFER_DEFAULT_RANGE_MS = 7 * 86_400_000

export const walletRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights, sapi }) => {
  /** A page (`current`, `size`) of the caller's transfers that `keep` selects, newest first, amounts printed. */
  const transferPage = async (a: Authenticated, keep: (r: TransferRecord) => boolean) => {
    const current = pageParam(a.params, 'current', 1, Number.MAX_SAFE_INTEGER)
    const size = pageParam(a.params, 'size', 10, TRANSFER_PAGE_MAX)
    const state = ctx.state()
    await ctx.projections.readable()
    const rows = await ctx.projections.transfers({ account: a.session.account, sub: a.session.sub },
      { ...historyRange(a, ctx.now(), TRANSFER_DEFAULT_RANGE_MS, PROJECTION_LIMITS.walletRangeMs), limit: PROJECTION_LIMITS.walletHistoryMax }, ctx.now())
    const mine = rows.filter(keep).reverse()
    return {
      total: mine.length,
      rows: mine.slice((current - 1) * size, current * size)
        .map((r) => ({ ...r, amount: trimZeros(formatLedger(r.amount, state.assets.get(r.asset)!.scale)) })),
    }
  }
  const signedIn = sapiSignIn(ctx, weights, sapi)
  app.post('/sapi/v1/asset/transferQuoteFromSpotToPerp', walletDocs.spotToPerp, async (req) => {
    const r = await marginTransfer(ctx, signedIn(req, 900), 'SPOT_TO_PERP')
    return { s: r.s, p: r.p }
  })
  app.post('/sapi/v1/asset/transferQuoteFromPerpToSpot', walletDocs.perpToSpot, async (req) => {
    const r = await marginTransfer(ctx, signedIn(req, 900), 'PERP_TO_SPOT')
    return { s: r.s, p: r.p }
  })
  app.post('/sapi/v1/asset/transfer', walletDocs.assetTransfer, async (req) => {
    const a = signedIn(req, 900)
    const type = required(a.params, 'type')
    if (type !== 'MAIN_UMFUTURE' && type !== 'UMFUTURE_MAIN') throw invalidParam('type')
    const asset = required(a.params, 'asset')
    if (asset !== marginAsset(ctx.state())) throw invalidParam('asset')
    const r = await marginTransfer(ctx, a, type === 'MAIN_UMFUTURE' ? 'SPOT_TO_PERP' : 'PERP_TO_SPOT')
    return { tranId: r.tranId }
  })
  app.post('/sapi/v1/futures/transfer', walletDocs.futuresTransfer, async (req) => {
    const r = await futuresTransfer(ctx, signedIn(req, 1))
    return { tranId: r.tranId }
  })

  app.post('/sapi/v1/capital/withdraw/apply', walletDocs.withdraw, async (req) => {
    const a = signedIn(req, 900)
    if (!a.session.permissions.includes('WITHDRAW')) throw permissionDenied()
    const state = ctx.state()
    const coin = required(a.params, 'coin')
    const asset = state.assets.get(coin)
    if (!asset) throw invalidParam('coin')
    // One network (capital/config/getall lists it): another named is refused, not paid on this one.
    const network = optional(a.params, 'network')
    if (network !== undefined && network !== NETWORK) throw invalidParam('network')
    // 0, the spot wallet; there is no funding wallet (1) to take it from.
    const walletType = optional(a.params, 'walletType')
    if (walletType !== undefined && walletType !== '0') throw invalidParam('walletType')
    // Withdrawals go only to the account's own address (API.md).
    const address = optional(a.params, 'address')
    if (address !== undefined && address.toLowerCase() !== a.session.account.toLowerCase()) throw invalidParam('address')
    const amount = parseAmount(asset, optional(a.params, 'amount'))
    const withdrawOrderId = optional(a.params, 'withdrawOrderId')
    const ack = await ctx.submit({ type: 'WithdrawalRequest', account: a.session.account, sub: a.session.sub, apiKey: a.session.apiKey,
      asset: coin, amount, address: a.session.account, ...(withdrawOrderId !== undefined ? { withdrawOrderId } : {}) })
    if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'spot', op: 'wallet' })
    return { id: String(ack.result.withdrawalId) }
  })

  app.get('/sapi/v1/capital/deposit/hisrec', walletDocs.deposits, async (req) => {
    const a = signedIn(req, 1)
    const state = ctx.state()
    await ctx.projections.readable()
    const rawStatus = optional(a.params, 'status')
    if (rawStatus !== undefined && !/^\d{1,2}$/.test(rawStatus)) throw invalidParam('status')
    const status = rawStatus === undefined ? undefined : Number(rawStatus)
    const q = history(a, ctx.now())
    const owner = { account: a.session.account, sub: a.session.sub }
    const amount = (asset: string, units: number): string => trimZeros(formatLedger(units, state.assets.get(asset)!.scale))
    const credited = status === undefined || status === DEPOSIT_STATUS.SUCCESS
      ? (await ctx.projections.deposits(owner, q, ctx.now())).map((r) => ({
          id: String(r.id), amount: amount(r.asset, r.amount), coin: r.asset,
          network: NETWORK, status: DEPOSIT_STATUS[r.status], address: r.address, addressTag: '', txId: r.txId,
          insertTime: r.time, completeTime: r.time, timestamp: r.time, transferType: 0, confirmTimes: '1/1', walletType: 0,
        }))
      : []
    // Seen on chain, not yet as deep as the watcher requires: no ledger row yet, so the chain
    // reference stands as the id; the credited row replaces it (API.md "Wallet").
    const pending = status === undefined || status === DEPOSIT_STATUS.PENDING
      ? (await ctx.projections.pendingDeposits(owner, q.coin))
          .filter((r) => r.time >= q.startTime && r.time <= q.endTime)
          .map((r) => ({
            id: r.txId, amount: amount(r.asset, r.amount), coin: r.asset, network: NETWORK, status: DEPOSIT_STATUS.PENDING,
            address: r.address, addressTag: '', txId: r.txId, insertTime: r.time, timestamp: r.time, transferType: 0,
            confirmTimes: `${r.confirmations}/${r.required}`, walletType: 0,
          }))
      : []
    return [...credited, ...pending].slice(0, q.limit)
  })

  // The spot markets' commission rates (ccxt's spot fetchTradingFee); futures have /fapi/v1/commissionRate.
  app.get('/sapi/v1/asset/tradeFee', walletDocs.tradeFee, async (req) => {
    const a = signedIn(req, 1)
    return spotsParam(ctx.state(), a.params).map((m) => ({
      symbol: m.symbol, makerCommission: feeRate(m.makerFeePpm), takerCommission: feeRate(m.takerFeePpm),
    }))
  })

  app.get('/sapi/v1/asset/transfer', walletDocs.transferHistory, async (req) => {
    const a = signedIn(req, 1)
    const type = required(a.params, 'type')
    if (type !== 'MAIN_UMFUTURE' && type !== 'UMFUTURE_MAIN') throw invalidParam('type')
    const direction = type === 'MAIN_UMFUTURE' ? 'SPOT_TO_PERP' : 'PERP_TO_SPOT'
    const page = await transferPage(a, (r) => r.direction === direction)
    return {
      total: page.total,
      rows: page.rows.map((r) => ({ asset: r.asset, amount: r.amount, type, status: 'CONFIRMED', tranId: r.tranId, timestamp: r.time })),
    }
  })

  // The older futures form (the binance package's getFutureAccountTransferHistory): both
  // directions, type "1" into perp and "2" out of it, for one asset from startTime on.
  app.get('/sapi/v1/futures/transfer', walletDocs.futuresTransferHistory, async (req) => {
    const a = signedIn(req, 10)
    const asset = required(a.params, 'asset')
    if (timeParam(a.params, 'startTime') === undefined) throw mandatoryParam('startTime')
    const page = await transferPage(a, (r) => r.asset === asset)
    return {
      rows: page.rows.map((r) => ({ asset: r.asset, tranId: r.tranId, amount: r.amount,
        type: r.direction === 'SPOT_TO_PERP' ? '1' : '2', timestamp: r.time, status: 'CONFIRMED' })),
      total: page.total,
    }
  })

  app.get('/sapi/v1/capital/withdraw/history', walletDocs.withdrawals, async (req) => {
    const a = signedIn(req, 1)
    const state = ctx.state()
    await ctx.projections.readable()
    const rows = await ctx.projections.withdrawals({ account: a.session.account, sub: a.session.sub }, history(a, ctx.now()), ctx.now())
    return rows.map((r) => ({
      id: String(r.withdrawalId), amount: trimZeros(formatLedger(r.amount, state.assets.get(r.asset)!.scale)),
      transactionFee: '0', coin: r.asset, status: WITHDRAW_STATUS[r.status], address: r.address, txId: r.txId,
      applyTime: r.applyTime, completeTime: r.status === 'PROCESSING' ? undefined : r.updateTime, timestamp: r.applyTime,
      network: NETWORK, transferType: 0, withdrawOrderId: r.withdrawOrderId, info: r.reason, confirmNo: 0, walletType: 0,
    }))
  })
}
