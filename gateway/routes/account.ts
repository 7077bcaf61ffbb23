// Account endpoints (USER_DATA): balances of the perp wallet with the margin figures clients
// read, under the spec's v1 path and the v2/v3 aliases.

import type { FastifyPluginAsync } from 'fastify'
import { marginView, maxWithdrawable } from '../../core/margin.js'
import type { State, SubAccount } from '../../core/state.js'
import { marginAsset } from '../../core/wallet.js'
import { authenticate } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { formatBalance } from '../decimal.js'
import type { WeightCounter } from '../weights.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

/** A short stable alias per account, as Binance shows one (not a secret). */
function aliasOf(address: string, sub: number): string {
  return address.slice(2, 6).toUpperCase() + 'fu' + sub
}

function balanceRows(state: State, address: string, subNo: number, sub: SubAccount | undefined): object[] {
  const asset = marginAsset(state)
  if (asset === undefined) return []
  const scale = state.assets.get(asset)!.scale
  const v = sub ? marginView(state, sub) : { wallet: 0, unrealizedPnl: 0, initialMargin: 0, available: 0 }
  const maxWithdraw = sub ? maxWithdrawable(state, sub) : 0
  return [{
    accountAlias: aliasOf(address, subNo), asset,
    balance: formatBalance(v.wallet, scale),
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
  for (const path of ['/fapi/v1/balance', '/fapi/v2/balance', '/fapi/v3/balance']) {
    app.get(path, async (req) => {
      weights.charge(req.ip, 5)
      const a = authenticate(ctx, req, 'USER_DATA')
      return balanceRows(ctx.state(), a.session.account, a.session.sub, a.sub)
    })
  }
}
