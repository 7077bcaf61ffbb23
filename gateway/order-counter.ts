// Orders per account in 10 seconds and in one minute (Binance's ORDERS limits): counted on
// every new order, shown in X-MBX-ORDER-COUNT-10S / -1M, refused with -1015 past a limit.
// Windows are fixed buckets of server time; the map holds the current minute's accounts only.

import { tooManyOrders } from './errors.js'
import { DEFAULT_RATE_LIMITS, type RateLimits } from './rate-limits.js'

const ACCOUNTS_MAX = 100_000

/** One account's counts and the buckets they are of. */
interface Counts {
  bucket10s: number
  n10s: number
  n1m: number
}

export class OrderCounter {
  private readonly limit10s: number
  private readonly limit1m: number
  /** The current minute's accounts (one lookup per order); cleared as the minute turns. */
  private readonly counts = new Map<string, Counts>()
  private minute = -1

  constructor(private readonly now: () => number, limits: RateLimits = DEFAULT_RATE_LIMITS) {
    this.limit10s = limits.orders10s
    this.limit1m = limits.orders1m
  }

  /** The account's windows now, counted by nothing: GET /api/v3/rateLimit/order. */
  usage(account: string): { limit10s: number; n10s: number; limit1m: number; n1m: number } {
    const now = this.now()
    const c = Math.floor(now / 60_000) === this.minute ? this.counts.get(account) : undefined
    return {
      limit10s: this.limit10s, n10s: c !== undefined && c.bucket10s === Math.floor(now / 10_000) ? c.n10s : 0,
      limit1m: this.limit1m, n1m: c?.n1m ?? 0,
    }
  }

  /** Counts one order for the account; returns the usage headers or throws -1015. */
  count(account: string): Record<string, string> {
    const now = this.now()
    const minute = Math.floor(now / 60_000)
    // A minute is six whole 10 s buckets, so a new minute starts every count afresh.
    if (minute !== this.minute) {
      this.minute = minute
      this.counts.clear()
    }
    const bucket10s = Math.floor(now / 10_000)
    let c = this.counts.get(account)
    if (c === undefined) {
      const k = this.counts.size < ACCOUNTS_MAX ? account : '*'
      c = this.counts.get(k)
      if (c === undefined) this.counts.set(k, c = { bucket10s, n10s: 0, n1m: 0 })
    }
    if (c.bucket10s !== bucket10s) {
      c.bucket10s = bucket10s
      c.n10s = 0
    }
    const n10 = ++c.n10s
    const n60 = ++c.n1m
    const l10 = this.limit10s
    const l60 = this.limit1m
    const headers = { 'X-MBX-ORDER-COUNT-10S': String(n10), 'X-MBX-ORDER-COUNT-1M': String(n60) }
    if (n10 > l10) throw tooManyOrders(l10, { interval: 'SECOND', intervalNum: 10 }, 10 - Math.floor((now % 10_000) / 1000), headers)
    if (n60 > l60) throw tooManyOrders(l60, { interval: 'MINUTE', intervalNum: 1 }, 60 - Math.floor((now % 60_000) / 1000), headers)
    return headers
  }
}
