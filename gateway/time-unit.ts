// X-MBX-TIME-UNIT (API.md "Requests"): MICROSECOND switches every time field of a response to
// microseconds (auth.ts reads `timestamp` in that unit). Done once for every route, on the
// body before it is serialized, so handlers stay in milliseconds and response schemas still
// see integers.

import type { FastifyInstance, FastifyRequest } from 'fastify'
import { invalidTimeUnit } from './errors.js'

/** Fields that hold a time in Binance's REST bodies, at any depth. */
const TIME_FIELDS: ReadonlySet<string> = new Set([
  'time', 'updateTime', 'transactTime', 'serverTime', 'openTime', 'closeTime', 'E', 'T',
  'fundingTime', 'nextFundingTime', 'insertTime', 'applyTime', 'completeTime', 'estimatedArrivalTime',
  'workingTime', 'goodTillDate', 'deliveryDate', 'onboardDate', 'expiresAt', 'timestamp',
])
/** A kline row: open time at 0 and close time at 6. */
const KLINE_LENGTH = 12
const US_PER_MS = 1000
/**
 * A time parameter this large is in microseconds (in milliseconds it would be past the year
 * 5000): how Binance spot tells the units of `timestamp`, `startTime` and `endTime` apart.
 */
export const MICROSECONDS_FROM = 100_000_000_000_000

export type TimeUnit = 'MILLISECOND' | 'MICROSECOND'

/**
 * The unit a header (X-MBX-TIME-UNIT) or a stream URL's `timeUnit` names, in any case (Binance
 * documents MICROSECOND and microsecond); undefined when it names neither.
 */
export function timeUnitNamed(name: string): TimeUnit | undefined {
  const upper = name.toUpperCase()
  return upper === 'MICROSECOND' || upper === 'MILLISECOND' ? upper : undefined
}

/** Whether the request asks for microseconds; absent or MILLISECOND (any case) is milliseconds. */
export function wantsMicroseconds(req: FastifyRequest): boolean {
  const unit = req.headers['x-mbx-time-unit']
  return typeof unit === 'string' && timeUnitNamed(unit) === 'MICROSECOND'
}

function isKline(row: unknown[]): boolean {
  return row.length === KLINE_LENGTH && typeof row[0] === 'number' && typeof row[6] === 'number' && typeof row[1] === 'string'
}

/** A copy of `body` with every time field in microseconds (bodies may be shared: never mutated). */
export function toMicroseconds(body: unknown): unknown {
  if (Array.isArray(body)) {
    if (isKline(body)) return body.map((v, i) => (i === 0 || i === 6 ? (v as number) * US_PER_MS : v))
    return body.map(toMicroseconds)
  }
  if (body === null || typeof body !== 'object') return body
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(body)) {
    out[k] = typeof v === 'number' ? (TIME_FIELDS.has(k) ? v * US_PER_MS : v) : toMicroseconds(v)
  }
  return out
}

export function timeUnitHooks(app: FastifyInstance): void {
  // Callback-style hooks: on every request, and without the header they have nothing to wait for.
  app.addHook('onRequest', (req, _reply, done) => {
    const unit = req.headers['x-mbx-time-unit']
    if (unit === undefined) return done()
    done(typeof unit !== 'string' || timeUnitNamed(unit) === undefined ? invalidTimeUnit() : undefined)
  })
  app.addHook('preSerialization', (req, _reply, payload, done) => done(null, wantsMicroseconds(req) ? toMicroseconds(payload) : payload))
}
