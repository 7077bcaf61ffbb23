// Request weight per IP per minute (Binance's REQUEST_WEIGHT limit): charged by each route,
// reported in X-MBX-USED-WEIGHT-1M, refused with 429 past the limit and 418 for an IP that
// keeps going. Windows are whole minutes of server time; the map holds one minute only.

import { ipBanned, tooManyRequests } from './errors.js'

export const WEIGHT_LIMIT_1M = 2400
/** /sapi weights count per account (Binance's UID limit), not against the IP's futures limit. */
export const SAPI_UID_WEIGHT_1M = 180_000
/** Distinct IPs tracked in one minute; past it, new IPs share one bucket. */
const IPS_MAX = 100_000
/** Requests refused with 429 in one minute before an IP is answered 418. */
const REFUSALS_BEFORE_BAN = 10

export class WeightCounter {
  private minute = -1
  private readonly used_ = new Map<string, number>()
  private readonly refused = new Map<string, number>()

  constructor(private readonly now: () => number, readonly limit = WEIGHT_LIMIT_1M) {}

  private roll(): void {
    const minute = Math.floor(this.now() / 60_000)
    if (minute !== this.minute) {
      this.minute = minute
      this.used_.clear()
      this.refused.clear()
    }
  }

  private key(ip: string): string {
    return this.used_.has(ip) || this.used_.size < IPS_MAX ? ip : '*'
  }

  used(ip: string): number {
    this.roll()
    return this.used_.get(this.key(ip)) ?? 0
  }

  /** Adds a request's weight; throws 429 (then 418) once the minute's limit is passed. */
  charge(ip: string, weight: number): void {
    this.roll()
    const k = this.key(ip)
    const total = (this.used_.get(k) ?? 0) + weight
    this.used_.set(k, total)
    if (total <= this.limit) return
    const secondsLeft = 60 - Math.floor((this.now() % 60_000) / 1000)
    const refusals = (this.refused.get(k) ?? 0) + 1
    this.refused.set(k, refusals)
    if (refusals > REFUSALS_BEFORE_BAN) throw ipBanned((this.minute + 1) * 60_000, secondsLeft)
    throw tooManyRequests(this.limit, { interval: 'MINUTE', intervalNum: 1 }, secondsLeft)
  }
}
