// What the /sapi wallet and sub-account routes share: Binance's per-account (UID) weight, one
// budget for all of them, and the paging and time-range rules of their histories.

import type { FastifyRequest } from 'fastify'
import { authenticate, type Authenticated, type Security } from './auth.js'
import type { GatewayContext } from './context.js'
import { invalidParam } from './errors.js'
import { optional, timeParam } from './market-params.js'
import { WeightCounter } from './weights.js'

/** SAPI weights count per account (Binance's UID limit), not against the IP's futures limit. */
export const SAPI_UID_WEIGHT_1M = 180_000

/** The one per-account SAPI budget of a gateway, which every /sapi plugin charges. */
export function sapiWeights(ctx: GatewayContext): WeightCounter {
  return new WeightCounter(ctx.now, SAPI_UID_WEIGHT_1M)
}

/** Authenticates a /sapi request: weight 1 to the IP, `weight` to the account. */
export function sapiSignIn(ctx: GatewayContext, ipWeights: WeightCounter, accountWeights: WeightCounter) {
  return (req: FastifyRequest, weight: number, security: Security = 'USER_DATA'): Authenticated => {
    ipWeights.charge(req.ip, 1)
    const a = authenticate(ctx, req, security)
    accountWeights.charge(a.session.account, weight)
    return a
  }
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
