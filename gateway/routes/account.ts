// Account endpoints (USER_DATA): balances, account, position risk, commission rates, trades,
// order history and income, under the spec's paths and the v2/v3 aliases clients use.

import type { FastifyPluginAsync } from 'fastify'
import { isolatedWalletTotal, marginView, maxWithdrawable } from '../../core/margin.js'
import type { State, SubAccount } from '../../core/state.js'
import { marginAsset } from '../../core/wallet.js'
import { authenticate } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { formatBalance, formatUnits } from '../decimal.js'
import { invalidParam } from '../errors.js'
import { accountJson, positionRiskJson, positionRows, symbolHeld } from '../format-account.js'
import { accountDocs } from '../schemas/account.js'
import { limitParam, optional, perpParam, timeRange } from '../market-params.js'
import { pageParam } from '../sapi.js'
import { PROJECTION_LIMITS } from '../../core/limits.js'
import type { IncomeType } from '../../replica/projections/records.js'

const INCOME_TYPES = new Set(['TRANSFER', 'REALIZED_PNL', 'FUNDING_FEE', 'COMMISSION', 'INSURANCE_CLEAR'])
/** The other income types Binance USD-M documents: nothing here makes them, so asking for one finds none. */
const NEVER_INCOME = new Set(['WELCOME_BONUS', 'REFERRAL_KICKBACK', 'COMMISSION_REBATE', 'API_REBATE', 'CONTEST_REWARD',
  'CROSS_COLLATERAL_TRANSFER', 'OPTIONS_PREMIUM_FEE', 'OPTIONS_SETTLE_PROFIT', 'INTERNAL_TRANSFER', 'AUTO_EXCHANGE',
  'DELIVERED_SETTELMENT', 'COIN_SWAP_DEPOSIT', 'COIN_SWAP_WITHDRAW', 'POSITION_LIMIT_INCREASE_FEE', 'STRATEGY_UMFUTURES_TRANSFER',
  'FEE_RETURN', 'BFUSD_REWARD'])
import { allOrdersArgs, userTradesArgs } from '../history-queries.js'
import { pageReply } from '../pages.js'
import type { WeightCounter } from '../weights.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

/** A short stable alias per account, as Binance shows one (not a secret). */
function aliasOf(address: string, sub: number): string {
  return address.slice(2, 6).toUpperCase() + 'fu' + sub
}

export function balanceRows(state: State, address: string, subNo: number, sub: SubAccount | undefined): object[] {
  const asset = marginAsset(state)
  if (asset === undefined) return []
  const scale = state.assets.get(asset)!.scale
  const v = sub ? marginView(state, sub) : { wallet: 0, unrealizedPnl: 0, initialMargin: 0, available: 0 }
  const maxWithdraw = sub ? maxWithdrawable(state, sub) : 0
  return [{
    accountAlias: aliasOf(address, subNo), asset,
    // The whole wallet: cross plus every isolated position's.
    balance: formatBalance(v.wallet + (sub ? isolatedWalletTotal(sub) : 0), scale),
    crossWalletBalance: formatBalance(v.wallet, scale),
    crossUnPnl: formatBalance(v.unrealizedPnl, scale),
    availableBalance: formatBalance(Math.max(0, v.available), scale),
    maxWithdrawAmount: formatBalance(maxWithdraw, scale),
    marginAvailable: true,
    // The core does not stamp balances; the replica's last applied time stands in.
    updateTime: state.time,
  }]
}



export const accountRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  for (const path of ['/fapi/v1/account', '/fapi/v2/account', '/fapi/v3/account']) {
    app.get(path, accountDocs.account, async (req) => {
      weights.charge(req.ip, 5)
      const a = authenticate(ctx, req, 'USER_DATA')
      return accountJson(ctx.state(), a.sub, path === '/fapi/v3/account')
    })
  }

  for (const path of ['/fapi/v1/positionRisk', '/fapi/v2/positionRisk', '/fapi/v3/positionRisk']) {
    app.get(path, accountDocs.positionRisk, async (req) => {
      weights.charge(req.ip, 5)
      const a = authenticate(ctx, req, 'USER_DATA')
      const state = ctx.state()
      const only = optional(a.params, 'symbol') === undefined ? undefined : perpParam(state, a.params)
      const rows = positionRows(state, a.sub, only)
      return (path === '/fapi/v3/positionRisk' ? rows.filter(symbolHeld) : rows).map((r) => positionRiskJson(state, r))
    })
  }

  app.get('/fapi/v1/commissionRate', accountDocs.commissionRate, async (req) => {
    weights.charge(req.ip, 20)
    const a = authenticate(ctx, req, 'USER_DATA')
    const m = perpParam(ctx.state(), a.params)
    return { symbol: m.symbol, makerCommissionRate: formatUnits(m.makerFeePpm, 6), takerCommissionRate: formatUnits(m.takerFeePpm, 6) }
  })

  for (const path of ['/fapi/v3/myTrades', '/fapi/v1/userTrades']) {
    app.get(path, accountDocs.userTrades, async (req, reply) => {
      weights.charge(req.ip, 20)
      const a = authenticate(ctx, req, 'USER_DATA')
      const m = perpParam(ctx.state(), a.params)
      return pageReply(ctx, req, reply, { form: 'perpUserTrades', market: m, ownHistory: true, query: 'userTrades', args: userTradesArgs(a, m) })
    })
  }

  app.get('/fapi/v1/allOrders', accountDocs.allOrders, async (req, reply) => {
    weights.charge(req.ip, 20)
    const a = authenticate(ctx, req, 'USER_DATA')
    const m = perpParam(ctx.state(), a.params)
    return pageReply(ctx, req, reply, { form: 'perpOrders', market: m, ownHistory: true, query: 'allOrders', args: allOrdersArgs(a, m, ctx.now()) })
  })

  app.get('/fapi/v1/income', accountDocs.income, async (req, reply) => {
    weights.charge(req.ip, 30)
    const a = authenticate(ctx, req, 'USER_DATA')
    const state = ctx.state()
    const type = optional(a.params, 'incomeType')
    if (type !== undefined && !INCOME_TYPES.has(type) && !NEVER_INCOME.has(type)) throw invalidParam('incomeType')
    const m = optional(a.params, 'symbol') === undefined ? undefined : perpParam(state, a.params)
    const limit = limitParam(a.params, 100, 1000)
    // Binance's page: the limit rows after (page − 1) × limit of them, from the end the time-range rule starts at.
    const page = pageParam(a.params, 'page', 1, Math.floor(PROJECTION_LIMITS.incomePagedMax / limit))
    const q = { ...timeRange(a.params), ...(type !== undefined ? { incomeType: type as IncomeType } : {}),
      ...(m !== undefined ? { marketId: m.marketId } : {}), limit, ...(page > 1 ? { skip: (page - 1) * limit } : {}) }
    if (type !== undefined && NEVER_INCOME.has(type)) return []
    return pageReply(ctx, req, reply, { form: 'income', ownHistory: true, query: 'income',
      args: [{ account: a.session.account, sub: a.session.sub }, q, ctx.now()] })
  })

  for (const path of ['/fapi/v1/balance', '/fapi/v2/balance', '/fapi/v3/balance']) {
    app.get(path, accountDocs.balance, async (req) => {
      weights.charge(req.ip, 5)
      const a = authenticate(ctx, req, 'USER_DATA')
      return balanceRows(ctx.state(), a.session.account, a.session.sub, a.sub)
    })
  }
}
