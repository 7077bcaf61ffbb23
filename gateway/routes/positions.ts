// Position settings: one-way ⇄ hedge mode, margin type (cross only until isolated margin
// lands with the risk issue), and the leverage brackets.

import type { FastifyPluginAsync } from 'fastify'
import type { PerpMarket } from '../../core/state.js'
import { authenticate } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { formatUnits } from '../decimal.js'
import { ApiError, fromCore, invalidParam } from '../errors.js'
import { allPerps, optional, perpParam, required } from '../market-params.js'
import { tradeDocs } from '../schemas/trade.js'
import type { WeightCounter } from '../weights.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

function bracketsJson(state: ReturnType<GatewayContext['state']>, m: PerpMarket): object {
  const scale = state.assets.get(m.quote)!.scale
  let floor = 0n
  let cum = 0n
  let prevMmr = 0n
  const unit = 10n ** BigInt(scale)
  return {
    symbol: m.symbol, notionalCoef: 1,
    brackets: m.brackets.map((b, i) => {
      const mmr = BigInt(b.mmrPpm)
      cum += floor * (mmr - prevMmr)
      const row = {
        bracket: i + 1, initialLeverage: b.maxLeverage,
        notionalCap: Number(BigInt(b.notionalCap) / unit), notionalFloor: Number(floor / unit),
        maintMarginRatio: Number(formatUnits(b.mmrPpm, 6)), cum: Number(formatUnits(cum / 1_000_000n, scale)),
      }
      floor = BigInt(b.notionalCap)
      prevMmr = mmr
      return row
    }),
  }
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
    const raw = required(a.params, 'dualSidePosition')
    if (raw !== 'true' && raw !== 'false') throw invalidParam('dualSidePosition')
    const ack = await ctx.submit({ type: 'ChangePositionMode', account: a.session.account, sub: a.session.sub,
      apiKey: a.session.apiKey, dualSide: raw === 'true' })
    if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'futures', op: 'positionMode' })
    return { code: 200, msg: 'success' }
  })

  app.post('/fapi/v1/marginType', tradeDocs.marginType, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'TRADE')
    perpParam(ctx.state(), a.params)
    const type = required(a.params, 'marginType')
    if (type === 'CROSSED') throw new ApiError(400, -4046, 'No need to change margin type.')
    // Isolated margin arrives with the liquidation engine; until then every position is cross.
    throw invalidParam('marginType')
  })

  app.get('/fapi/v1/leverageBracket', tradeDocs.leverageBracket, async (req) => {
    weights.charge(req.ip, 1)
    const { params } = authenticate(ctx, req, 'USER_DATA')
    const state = ctx.state()
    if (optional(params, 'symbol') !== undefined) return [bracketsJson(state, perpParam(state, params))]
    return allPerps(state).map((m) => bracketsJson(state, m))
  })
}
