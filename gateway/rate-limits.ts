// The gateway's rate limits: Binance's defaults unless the operator configures others
// (`--weight-limit`, `--sapi-weight-limit`, `--order-limit-10s`, `--order-limit-1m`,
// `--ws-connection-limit`, `--connections-per-ip`, `--max-connections`, `--new-account-limit`), e.g.
// for a load test or a market maker's private gateway. exchangeInfo reports the request and
// order limits actually enforced (Binance's lists no connection limit).

import { ORDERS_PER_10S, ORDERS_PER_1M } from './routes/symbols.js'
import { SAPI_UID_WEIGHT_1M, WEIGHT_LIMIT_1M } from './weights.js'
import { ATTEMPTS_PER_5M } from './ws/connection-attempts.js'

export interface RateLimits {
  /** REQUEST_WEIGHT per IP per minute. */
  weight1m: number
  /** /sapi request weight per account per minute (Binance's UID limit). */
  sapiWeight1m: number
  /** New orders per account in 10 seconds. */
  orders10s: number
  /** New orders per account per minute. */
  orders1m: number
  /** WebSocket connection attempts per IP in 5 minutes. */
  wsConnections5m: number
  /** Sessions per IP per hour for wallets with no account yet (each makes one); default NEW_ACCOUNTS_PER_HOUR. */
  newAccounts1h?: number
  /** Open TCP connections to the API port per address (connection-guard.ts); default CONNECTIONS_PER_IP. */
  connectionsPerIp?: number
  /** Open TCP connections to the API port in all; default from the descriptor limit (defaultConnectionsMax). */
  connectionsMax?: number
}

/**
 * New accounts per IP per hour. A session for a wallet never seen here makes an account in the
 * state (about 2.5 KB with its session, kept for good, in every snapshot and state root), and
 * wallets cost nothing to make: by request weight alone one address could add 2,400 a minute.
 */
export const NEW_ACCOUNTS_PER_HOUR = 20

export const DEFAULT_RATE_LIMITS: RateLimits = {
  weight1m: WEIGHT_LIMIT_1M, sapiWeight1m: SAPI_UID_WEIGHT_1M, orders10s: ORDERS_PER_10S, orders1m: ORDERS_PER_1M,
  wsConnections5m: ATTEMPTS_PER_5M,
}

/** exchangeInfo's `rateLimits` for the limits in force. */
export function rateLimitsBody(l: RateLimits = DEFAULT_RATE_LIMITS): object[] {
  return [
    { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: l.weight1m },
    { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: l.orders1m },
    { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: l.orders10s },
  ]
}
