// What the /sapi wallet and sub-account routes share: Binance's per-account (UID) weight, one
// budget for all of them, the paging and time-range rules of their histories, and the spot ⇄
// futures transfer of the margin asset (the caller's own, or a sub-account's by its master).

import type { FastifyRequest } from 'fastify'
import type { Transfer } from '../core/commands.js'
import { PROJECTION_LIMITS } from '../core/limits.js'
import { marginAsset } from '../core/wallet.js'
import { authenticate, type Authenticated, type Security } from './auth.js'
import type { GatewayContext } from './context.js'
import { formatBalance, parseAmount } from './decimal.js'
import { fromCore, invalidParam } from './errors.js'
import { optional, required, timeParam } from './market-params.js'
import { SAPI_UID_WEIGHT_1M, WeightCounter } from './weights.js'

/**
 * The one per-account SAPI budget of a gateway (Binance's UID limit), which every UID-weighted
 * /sapi route charges; and which account each request charged, for its answer's
 * X-SAPI-USED-UID-WEIGHT-1M (a refusal past the limit carries it too).
 */
export class SapiWeights {
  private readonly counter: WeightCounter
  /** Requests are dropped once answered: the map holds only those in flight. */
  private readonly charged = new WeakMap<FastifyRequest, string>()

  constructor(now: () => number, limit: number) {
    this.counter = new WeightCounter(now, limit)
  }

  /** Adds `weight` to `account`'s minute; throws 429 (then 418) past the limit, as WeightCounter does. */
  charge(req: FastifyRequest, account: string, weight: number): void {
    this.charged.set(req, account)
    this.counter.charge(account, weight)
  }

  /** The minute's weight of the account `req` charged; undefined for a request that charged none. */
  usedBy(req: FastifyRequest): number | undefined {
    const account = this.charged.get(req)
    return account === undefined ? undefined : this.counter.used(account)
  }
}

export function sapiWeights(ctx: GatewayContext): SapiWeights {
  return new SapiWeights(ctx.now, ctx.rateLimits?.sapiWeight1m ?? SAPI_UID_WEIGHT_1M)
}

/** Authenticates a /sapi request: weight 1 to the IP, `weight` to the account. */
export function sapiSignIn(ctx: GatewayContext, ipWeights: WeightCounter, accountWeights: SapiWeights) {
  return (req: FastifyRequest, weight: number, security: Security = 'USER_DATA'): Authenticated => {
    ipWeights.charge(req.ip, 1)
    const a = authenticate(ctx, req, security)
    accountWeights.charge(req, a.session.account, weight)
    return a
  }
}

/**
 * The usage headers of a /sapi answer: X-SAPI-USED-IP-WEIGHT-1M, the IP's weight (every /sapi
 * route charges it, in the one per-IP budget of the whole API, so it equals X-MBX-USED-WEIGHT-1M),
 * and X-SAPI-USED-UID-WEIGHT-1M, the account's, once a UID-weighted route charged it.
 */
export function sapiUsageHeaders(req: FastifyRequest, ipWeights: WeightCounter, accountWeights: SapiWeights): Record<string, string> {
  const headers: Record<string, string> = { 'X-SAPI-USED-IP-WEIGHT-1M': String(ipWeights.used(req.ip)) }
  const uid = accountWeights.usedBy(req)
  if (uid !== undefined) headers['X-SAPI-USED-UID-WEIGHT-1M'] = String(uid)
  return headers
}

/** A page number or size in 1..max (default when not sent); anything else is -1130 naming it. */
export function pageParam(p: Map<string, string>, name: string, dflt: number, max: number): number {
  const v = optional(p, name)
  if (v === undefined) return dflt
  const n = /^\d{1,16}$/.test(v) ? Number(v) : NaN
  if (!(n >= 1 && n <= max)) throw invalidParam(name)
  return n
}

/**
 * A history's range: `defaultMs` back from endTime (or now) unless startTime is sent, then up to
 * `maxMs` from it; at most `maxMs` either way, else -1130 naming startTime.
 */
export function historyRange(a: Authenticated, nowMs: number, defaultMs: number, maxMs: number): { startTime: number; endTime: number } {
  const startTime = timeParam(a.params, 'startTime')
  const endTime = timeParam(a.params, 'endTime')
  const end = endTime ?? (startTime === undefined ? nowMs : Math.min(nowMs, startTime + maxMs))
  const start = startTime ?? Math.max(0, end - defaultMs)
  if (start > end || end - start > maxMs) throw invalidParam('startTime')
  return { startTime: start, endTime: end }
}

/**
 * Moves `amount` of the margin asset between the spot and perp wallets of sub-account `sub` of
 * the caller's account (its own unless its master names another): the entry's first row id,
 * as the history shows it, and both balances after.
 */
export async function marginTransfer(ctx: GatewayContext, a: Authenticated, direction: Transfer['direction'], sub = a.session.sub) {
  const state = ctx.state()
  const asset = marginAsset(state)!
  const amount = parseAmount(state.assets.get(asset)!, optional(a.params, 'amount'))
  const ack = await ctx.submit({ type: 'Transfer', account: a.session.account, sub, apiKey: a.session.apiKey, direction, amount })
  if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'futures', op: 'wallet' })
  const ev = ack.result.events.find((e) => e.type === 'transfer')!
  if (ev.type !== 'transfer') throw invalidParam('amount')
  const scale = state.assets.get(asset)!.scale
  // The first row an entry writes in the projections has id seq × rowsPerEntryMax.
  return { tranId: ack.seq * PROJECTION_LIMITS.rowsPerEntryMax, s: formatBalance(ev.spotBalance, scale), p: formatBalance(ev.perpBalance, scale) }
}

/** Binance's futures transfer: `type` 1 spot → USDⓈ-M, 2 back (3 and 4, COIN-M, -1130), `asset` the margin asset. */
export function futuresTransfer(ctx: GatewayContext, a: Authenticated, sub = a.session.sub): ReturnType<typeof marginTransfer> {
  const type = required(a.params, 'type')
  if (type !== '1' && type !== '2') throw invalidParam('type')
  if (required(a.params, 'asset') !== marginAsset(ctx.state())) throw invalidParam('asset')
  return marginTransfer(ctx, a, type === '1' ? 'SPOT_TO_PERP' : 'PERP_TO_SPOT', sub)
}
