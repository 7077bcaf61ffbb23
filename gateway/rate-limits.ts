// The gateway's rate limits: Binance's defaults unless the operator configures others
// (`--weight-limit`, `--order-limit-10s`, `--order-limit-1m`), e.g. for a load test or a
// market maker's private gateway. exchangeInfo reports the limits actually enforced.

import { ORDERS_PER_10S, ORDERS_PER_1M } from './routes/symbols.js'
import { WEIGHT_LIMIT_1M } from './weights.js'

export interface RateLimits {
  /** REQUEST_WEIGHT per IP per minute. */
  weight1m: number
  /** New orders per account in 10 seconds. */
  orders10s: number
  /** New orders per account per minute. */
  orders1m: number
}

export const DEFAULT_RATE_LIMITS: RateLimits = { weight1m: WEIGHT_LIMIT_1M, orders10s: ORDERS_PER_10S, orders1m: ORDERS_PER_1M }

/** exchangeInfo's `rateLimits` for the limits in force. */
export function rateLimitsBody(l: RateLimits = DEFAULT_RATE_LIMITS): object[] {
  return [
    { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: l.weight1m },
    { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: l.orders1m },
    { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: l.orders10s },
  ]
}
