// The account's holdings as Binance's asset API shows them: per asset (POST
// /sapi/v3/asset/getUserAsset: the spot balances, positive ones only) and per wallet (GET
// /sapi/v1/asset/wallet/balance: Spot and USDⓈ-M Futures hold something here, the other wallets
// Binance lists are empty). Valuations in another asset come from the spot markets' last
// prices: a market between the two, or two through a common asset (ETH in BTC: ETHUSDT ÷
// BTCUSDT); an asset with no such price is valued 0.

import type { FastifyPluginAsync } from 'fastify'
import type { SpotMarket, State, SubAccount } from '../../core/state.js'
import { authenticate } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { ExactDecimal, formatLedger, formatPrice, trimZeros } from '../decimal.js'
import { invalidParam } from '../errors.js'
import { allPerps, allSpots, looseBool, optional } from '../market-params.js'
import { arrayOf, bool, object, route, str } from '../schemas/common.js'
import type { WeightCounter } from '../weights.js'
import { withdrawing } from './capital.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

const docs = {
  userAsset: route({
    family: 'wallet', summary: 'Spot balances, positive ones only (or of `asset`), valued in BTC with needBtcValuation=true',
    security: 'USER_DATA', weight: 5, params: ['asset', 'needBtcValuation'],
    response: arrayOf(object({ asset: str, free: str, locked: str, freeze: str, withdrawing: str, ipoable: str, btcValuation: str })),
  }),
  walletBalance: route({
    family: 'wallet', summary: "Each wallet's holdings valued in quoteAsset (default BTC): Spot and USDⓈ-M Futures; the others empty",
    security: 'USER_DATA', weight: 60, params: ['quoteAsset'],
    response: arrayOf(object({ activate: bool, balance: str, walletName: str })),
  }),
}

/** The wallets Binance's wallet/balance lists, and whether this exchange has each. */
const WALLETS: [string, boolean][] = [['Spot', true], ['Funding', false], ['Cross Margin', false], ['Isolated Margin', false],
  ['USDⓈ-M Futures', true], ['COIN-M Futures', false], ['Earn', false], ['Options', false], ['Trading Bots', false]]

const ZERO = new ExactDecimal(0)

function lastPrice(m: SpotMarket): ExactDecimal | null {
  return m.lastPriceTicks > 0 ? new ExactDecimal(formatPrice(m, m.lastPriceTicks)) : null
}

/** A price as a fraction, divided out only at the end, so a price through another asset loses nothing on the way. */
export interface Price {
  num: ExactDecimal
  den: ExactDecimal
}

const ONE = new ExactDecimal(1)

/** Units of `quote` one unit of `asset` is worth by a market between them (either way round), or null. */
function directPrice(spots: readonly SpotMarket[], asset: string, quote: string): Price | null {
  if (asset === quote) return { num: ONE, den: ONE }
  for (const m of spots) {
    const p = lastPrice(m)
    if (p === null) continue
    if (m.base === asset && m.quote === quote) return { num: p, den: ONE }
    if (m.base === quote && m.quote === asset) return { num: ONE, den: p }
  }
  return null
}

/** Units of `quote` one unit of `asset` is worth: directly, or through one asset both trade against; null without a price. */
export function priceIn(state: State, asset: string, quote: string): Price | null {
  const spots = allSpots(state)
  const direct = directPrice(spots, asset, quote)
  if (direct !== null) return direct
  for (const via of state.assets.keys()) {
    const a = directPrice(spots, asset, via)
    const b = a === null ? null : directPrice(spots, via, quote)
    if (a !== null && b !== null) return { num: a.num.mul(b.num), den: a.den.mul(b.den) }
  }
  return null
}

/** `units` of `asset` valued in `quote` (0 without a price). */
function valued(state: State, asset: string, units: number, quote: string): ExactDecimal {
  if (units === 0) return ZERO
  const p = priceIn(state, asset, quote)
  if (p === null) return ZERO
  return new ExactDecimal(formatLedger(units, state.assets.get(asset)!.scale)).mul(p.num).div(p.den)
}

/** Valuations as Binance prints them: eight decimals (rounded down). */
const eight = (d: ExactDecimal): string => d.toFixed(8, ExactDecimal.ROUND_DOWN)

/** The sub-account's USDⓈ-M Futures wallet: its cross wallet and its isolated ones, in the perpetuals' margin asset. */
function futuresWallet(sub: SubAccount): number {
  let units = sub.perpWallet
  for (const h of sub.perp.values()) units += h.both.isolatedWallet + h.long.isolatedWallet + h.short.isolatedWallet
  return units
}

export const userAssetRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  app.post('/sapi/v3/asset/getUserAsset', docs.userAsset, async (req) => {
    weights.charge(req.ip, 5)
    const a = authenticate(ctx, req, 'USER_DATA')
    const state = ctx.state()
    const only = optional(a.params, 'asset')
    if (only !== undefined && !state.assets.has(only)) throw invalidParam('asset')
    const btc = looseBool(a.params, 'needBtcValuation') === true && state.assets.has('BTC')
    const out: object[] = []
    for (const asset of state.assets.values()) {
      if (only !== undefined && asset.name !== only) continue
      const b = a.sub?.spot.get(asset.name)
      const pending = withdrawing(state, a.sub, asset.name)
      const held = (b?.free ?? 0) + (b?.locked ?? 0)
      if (held + pending === 0) continue
      const f = (units: number): string => trimZeros(formatLedger(units, asset.scale))
      out.push({ asset: asset.name, free: f(b?.free ?? 0), locked: f(b?.locked ?? 0), freeze: '0', withdrawing: f(pending), ipoable: '0',
        btcValuation: btc ? trimZeros(eight(valued(state, asset.name, held, 'BTC'))) : '0' })
    }
    return out
  })

  app.get('/sapi/v1/asset/wallet/balance', docs.walletBalance, async (req) => {
    weights.charge(req.ip, 60)
    const a = authenticate(ctx, req, 'USER_DATA')
    const state = ctx.state()
    const quote = optional(a.params, 'quoteAsset') ?? 'BTC'
    if (!state.assets.has(quote)) throw invalidParam('quoteAsset')
    const sub = a.sub
    let spot = ZERO
    for (const [asset, b] of sub?.spot ?? []) spot = spot.add(valued(state, asset, b.free + b.locked, quote))
    // The perpetuals' margin asset: the perp wallet holds it.
    const margin = allPerps(state)[0]?.quote
    const futures = sub === undefined || margin === undefined ? ZERO : valued(state, margin, futuresWallet(sub), quote)
    return WALLETS.map(([walletName, activate]) => ({
      activate, walletName, balance: eight(walletName === 'Spot' ? spot : walletName === 'USDⓈ-M Futures' ? futures : ZERO),
    }))
  })
}
