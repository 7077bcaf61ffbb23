// Connections open per client address, bounded: the API port's TCP connections (connection-guard.ts,
// by peer address) and the WebSocket connections over every WebSocket path (ws/server.ts and
// ws-api/server.ts, by client address: behind a trusted proxy, the forwarded one). For WebSocket,
// the attempts bound (ws/connection-attempts.ts: 300 per 5 minutes) limits how fast one client
// opens connections, not how many it keeps: one opening its 300 every 5 minutes would hold all
// 10,000 a gateway serves within three hours. Counted on the gateway's thread, where every
// connection is known, whichever process holds its socket.

export class OpenPerIp {
  private readonly open = new Map<string, number>()

  constructor(readonly limit: number) {}

  /** Whether `ip` holds as many as it may: its next upgrade is refused. */
  full(ip: string): boolean {
    return (this.open.get(ip) ?? 0) >= this.limit
  }

  /** Counts a connection from `ip` as open; the function returned counts it closed (once). */
  opened(ip: string): () => void {
    this.open.set(ip, (this.open.get(ip) ?? 0) + 1)
    let done = false
    return () => {
      if (done) return
      done = true
      const left = this.open.get(ip)! - 1
      if (left === 0) this.open.delete(ip)
      else this.open.set(ip, left)
    }
  }
}
