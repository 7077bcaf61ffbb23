// WebSocket connection attempts per IP: Binance's 300 per 5 minutes, over every WebSocket path
// of a gateway (market streams, user data streams, the WebSocket API). Without it one client
// could take every connection the gateway serves (`connectionsMax`), and everyone else would
// be refused. Windows are whole 5-minute spans of server time.

import { IpWindows } from '../ip-windows.js'

export const ATTEMPTS_PER_5M = 300
const WINDOW_MS = 5 * 60_000

export class ConnectionAttempts extends IpWindows {
  constructor(now: () => number, limit = ATTEMPTS_PER_5M) {
    super(now, limit, WINDOW_MS)
  }
}
