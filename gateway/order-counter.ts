// Orders per account in 10 seconds and in one minute (Binance's ORDERS limits): counted on
// every new order, shown in X-MBX-ORDER-COUNT-10S / -1M, refused with -1015 past a limit.
// Windows are fixed buckets of server time; the maps hold the current buckets only.

import { tooManyOrders } from './errors.js'
import { DEFAULT_RATE_LIMITS, type RateLimits } from './rate-limits.js'

const ACCOUNTS_MAX = 100_000

class Window {
  private bucket = -1
  readonly counts = new Map<string, number>()
  constructor(readonly ms: number, readonly limit: number) {}
  add(now: number, key: string): number {
    const b = Math.floor(now / this.ms)
    if (b !== this.bucket) {
      this.bucket = b
      this.counts.clear()
    }
    const k = this.counts.has(key) || this.counts.size < ACCOUNTS_MAX ? key : '*'
    const n = (this.counts.get(k) ?? 0) + 1
    this.counts.set(k, n)
    return n
  }
}

export class OrderCounter {
  private readonly tenSeconds: Window
  private readonly minute: Window

  constructor(private readonly now: () => number, limits: RateLimits = DEFAULT_RATE_LIMITS) {
    this.tenSeconds = new Window(10_000, limits.orders10s)
    this.minute = new Window(60_000, limits.orders1m)
  }

  /** Counts one order for the account; returns the usage headers or throws -1015. */
  count(account: string): Record<string, string> {
    const now = this.now()
    const n10 = this.tenSeconds.add(now, account)
    const n60 = this.minute.add(now, account)
    const l10 = this.tenSeconds.limit
    const l60 = this.minute.limit
    if (n10 > l10) throw tooManyOrders(l10, { interval: 'SECOND', intervalNum: 10 }, 10 - Math.floor((now % 10_000) / 1000))
    if (n60 > l60) throw tooManyOrders(l60, { interval: 'MINUTE', intervalNum: 1 }, 60 - Math.floor((now % 60_000) / 1000))
    return { 'X-MBX-ORDER-COUNT-10S': String(n10), 'X-MBX-ORDER-COUNT-1M': String(n60) }
  }
}
