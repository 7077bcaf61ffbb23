// WebSocket connection attempts per IP: Binance's 300 per 5 minutes, over every WebSocket path
// of a gateway (market streams, user data streams, the WebSocket API). Without it one client
// could take every connection the gateway serves (`connectionsMax`), and everyone else would
// be refused. Windows are whole 5-minute spans of server time; the map holds one span only.

export const ATTEMPTS_PER_5M = 300
const WINDOW_MS = 5 * 60_000
/** Distinct IPs tracked in one window; past it, new IPs share one count. */
const IPS_MAX = 100_000

export class ConnectionAttempts {
  private window = -1
  private readonly counts = new Map<string, number>()

  constructor(private readonly now: () => number, readonly limit = ATTEMPTS_PER_5M) {}

  /** Counts an attempt from `ip`: undefined if admitted, else the seconds until the next window. */
  admit(ip: string): number | undefined {
    const now = this.now()
    const window = Math.floor(now / WINDOW_MS)
    if (window !== this.window) {
      this.window = window
      this.counts.clear()
    }
    const key = this.counts.has(ip) || this.counts.size < IPS_MAX ? ip : '*'
    const n = (this.counts.get(key) ?? 0) + 1
    this.counts.set(key, n)
    return n <= this.limit ? undefined : Math.ceil(((window + 1) * WINDOW_MS - now) / 1000)
  }
}
