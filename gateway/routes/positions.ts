// Position settings: one-way ⇄ hedge mode, margin type, isolated position margin (add, reduce,
// history), and the leverage brackets.

import type { FastifyPluginAsync } from 'fastify'
import type { PerpMarket } from '../../core/state.js'
import { authenticate } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { LIMITS, PROJECTION_LIMITS } from '../../core/limits.js'
import { formatUnits, parseUnits, trimZeros } from '../decimal.js'
import { leverageBrackets } from '../format-market.js'
import { ApiError, fromCore, invalidParam, invalidPositionSide } from '../errors.js'
import { allPerps, limitParam, looseBool, optional, perpParam, required, timeRange } from '../market-params.js'
import { tradeDocs } from '../schemas/trade.js'
import type { WeightCounter } from '../weights.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

function bracketsJson(state: ReturnType<GatewayContext['state']>, m: PerpMarket): object {
  return { symbol: m.symbol, notionalCoef: 1, brackets: leverageBrackets(state, m) }
}

export const positionRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  app.get('/fapi/v1/positionSide/dual', tradeDocs.positionModeGet, async (req) => {
    weights.charge(req.ip, 30)
    const a = authenticate(ctx, req, 'USER_DATA')
    return { dualSidePosition: a.sub?.dualSide ?? false }
  })

  app.post('/fapi/v1/positionSide/dual', tradeDocs.positionModeSet, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'TRADE')
    required(a.params, 'dualSidePosition')
    const ack = await ctx.submit({ type: 'ChangePositionMode', account: a.session.account, sub: a.session.sub,
      apiKey: a.session.apiKey, dualSide: looseBool(a.params, 'dualSidePosition')! })
    if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'futures', op: 'positionMode' })
    return { code: 200, msg: 'success' }
  })

  app.post('/fapi/v1/marginType', tradeDocs.marginType, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'TRADE')
    const m = perpParam(ctx.state(), a.params)
    const type = required(a.params, 'marginType')
    if (type !== 'ISOLATED' && type !== 'CROSSED') throw invalidParam('marginType')
    const ack = await ctx.submit({ type: 'ChangeMarginType', account: a.session.account, sub: a.session.sub,
      apiKey: a.session.apiKey, marketId: m.marketId, marginType: type })
    if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'futures', op: 'marginType' })
    return { code: 200, msg: 'success' }
  })

  app.post('/fapi/v1/positionMargin', tradeDocs.positionMargin, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'TRADE')
    const state = ctx.state()
    const m = perpParam(state, a.params)
    const type = required(a.params, 'type')
    if (type !== '1' && type !== '2') throw invalidParam('type')
    const side = optional(a.params, 'positionSide') ?? 'BOTH'
    if (side !== 'BOTH' && side !== 'LONG' && side !== 'SHORT') throw invalidPositionSide()
    const scale = state.assets.get(m.quote)!.scale
    const units = parseUnits(required(a.params, 'amount'), 'amount', scale, { negative: true })
    if (units <= 0n) throw new ApiError(400, -4055, 'Amount must be positive.')
    if (units > BigInt(LIMITS.ledgerAmountMax)) throw invalidParam('amount')
    const ack = await ctx.submit({ type: 'AdjustPositionMargin', account: a.session.account, sub: a.session.sub,
      apiKey: a.session.apiKey, marketId: m.marketId, positionSide: side, amount: Number(units),
      direction: type === '1' ? 'ADD' : 'REDUCE' })
    if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'futures', op: 'positionMargin', param: 'amount' })
    // Binance answers the amount as a JSON number.
    return { amount: Number(trimZeros(formatUnits(units, scale))), code: 200, msg: 'Successfully modify position margin.',
      type: Number(type) }
  })

  app.get('/fapi/v1/positionMargin/history', tradeDocs.positionMarginHistory, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'USER_DATA')
    const state = ctx.state()
    const m = perpParam(state, a.params)
    const type = optional(a.params, 'type')
    if (type !== undefined && type !== '1' && type !== '2') throw invalidParam('type')
    const range = timeRange(a.params, PROJECTION_LIMITS.positionMarginRetentionMs)
    const limit = limitParam(a.params, 500, PROJECTION_LIMITS.positionMarginHistoryMax)
    const rows = await ctx.projections.positionMargins({ account: a.session.account, sub: a.session.sub }, m.marketId,
      { ...range, ...(type !== undefined ? { type: Number(type) as 1 | 2 } : {}), limit })
    const scale = state.assets.get(m.quote)!.scale
    return rows.map((r) => ({ symbol: m.symbol, type: r.type, deltaType: 'USER_ADJUST',
      amount: trimZeros(formatUnits(r.amount, scale)), asset: m.quote, time: r.time, positionSide: r.positionSide }))
  })

  app.get('/fapi/v1/leverageBracket', tradeDocs.leverageBracket, async (req) => {
    weights.charge(req.ip, 1)
    const { params } = authenticate(ctx, req, 'USER_DATA')
    const state = ctx.state()
    if (optional(params, 'symbol') !== undefined) return [bracketsJson(state, perpParam(state, params))]
    return allPerps(state).map((m) => bracketsJson(state, m))
  })
}
