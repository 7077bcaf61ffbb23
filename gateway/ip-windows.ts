// Counts per client address over whole windows of server time (`windowMs`): what the per-IP
// budgets that are not request weight count (WebSocket connection attempts, new accounts). The
// map holds one window only; past IPS_MAX distinct addresses in it, new ones share one count.

/** Distinct IPs tracked in one window; past it, new IPs share one count. */
const IPS_MAX = 100_000

export class IpWindows {
  private window = -1
  private readonly counts = new Map<string, number>()

  constructor(private readonly now: () => number, readonly limit: number, readonly windowMs: number) {}

  /** Counts one from `ip`: undefined if within the limit, else the seconds until the next window. */
  admit(ip: string): number | undefined {
    const now = this.now()
    const window = Math.floor(now / this.windowMs)
    if (window !== this.window) {
      this.window = window
      this.counts.clear()
    }
    const key = this.counts.has(ip) || this.counts.size < IPS_MAX ? ip : '*'
    const n = (this.counts.get(key) ?? 0) + 1
    this.counts.set(key, n)
    return n <= this.limit ? undefined : Math.ceil(((window + 1) * this.windowMs - now) / 1000)
  }
}
