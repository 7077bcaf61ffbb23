// Futures account and symbol configuration, read-only: `accountConfig` (fee tier, trading
// flags, position mode), `symbolConfig` (each market's leverage and margin type) and
// `multiAssetsMargin` (always off: margin is the perp markets' quote asset alone). ccxt's
// fetchLeverage, fetchMarginMode and fetchTradingFees and the binance package read these.

import type { FastifyPluginAsync } from 'fastify'
import { maxNotionalAt } from '../../core/margin.js'
import type { PerpMarket, State, SubAccount } from '../../core/state.js'
import { authenticate } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { formatUnits } from '../decimal.js'
import { perpsParam } from '../market-params.js'
import { arrayOf, bool, int, object, route, str } from '../schemas/common.js'
import type { WeightCounter } from '../weights.js'
import { futuresInfoRoutes } from './futures-info.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

const docs = {
  accountConfig: route({
    family: 'account', summary: 'Futures account configuration: fee tier, permissions, position mode',
    security: 'USER_DATA', weight: 5,
    response: object({
      feeTier: int, canTrade: bool, canDeposit: bool, canWithdraw: bool, dualSidePosition: bool, updateTime: int,
      multiAssetsMargin: bool, tradeGroupId: int,
    }),
  }),
  symbolConfig: route({
    family: 'account', summary: "Each market's leverage and margin type for this account", security: 'USER_DATA',
    weight: 5, params: ['symbol'],
    response: arrayOf(object({ symbol: str, marginType: str, isAutoAddMargin: str, leverage: int, maxNotionalValue: str })),
  }),
  multiAssetsMargin: route({
    family: 'trade', summary: 'Multi-assets mode (always false: margin is the quote asset alone)', security: 'USER_DATA',
    weight: 30, response: object({ multiAssetsMargin: bool }),
  }),
}

function symbolConfigJson(state: State, sub: SubAccount | undefined, m: PerpMarket): object {
  // A market the account never touched is at the market's default leverage, cross.
  const h = sub?.perp.get(m.marketId)
  const leverage = h?.leverage ?? m.defaultLeverage
  const scale = state.assets.get(m.quote)!.scale
  return {
    symbol: m.symbol, marginType: h?.marginType ?? 'CROSSED', isAutoAddMargin: 'false', leverage,
    maxNotionalValue: formatUnits(BigInt(maxNotionalAt(m, leverage)) / 10n ** BigInt(scale), 0),
  }
}

export const accountConfigRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  app.get('/fapi/v1/accountConfig', docs.accountConfig, async (req) => {
    weights.charge(req.ip, 5)
    const a = authenticate(ctx, req, 'USER_DATA')
    return { feeTier: 0, canTrade: true, canDeposit: true, canWithdraw: a.session.permissions.includes('WITHDRAW'),
      dualSidePosition: a.sub?.dualSide ?? false, updateTime: 0, multiAssetsMargin: false, tradeGroupId: -1 }
  })

  app.get('/fapi/v1/symbolConfig', docs.symbolConfig, async (req) => {
    weights.charge(req.ip, 5)
    const a = authenticate(ctx, req, 'USER_DATA')
    const state = ctx.state()
    return perpsParam(state, a.params).map((m) => symbolConfigJson(state, a.sub, m))
  })

  await app.register(futuresInfoRoutes, { ctx, weights })

  app.get('/fapi/v1/multiAssetsMargin', docs.multiAssetsMargin, async (req) => {
    weights.charge(req.ip, 30)
    authenticate(ctx, req, 'USER_DATA')
    return { multiAssetsMargin: false }
  })
}
