// The replication network over WebSocket binary frames. The port carries the log (every
// account's orders) and the command ingress (any command, deposits included), so an exchange
// node opens it only to peers that hold its master secret: they send a token derived from it
// on the upgrade (`Authorization: Bearer …`), and an upgrade without it is refused with 401.

import { createHmac, timingSafeEqual } from 'node:crypto'
import { WebSocket, WebSocketServer } from 'ws'
import type { Connection, Network } from './network.js'

function wrap(ws: WebSocket): Connection {
  return {
    send: (m) => ws.send(m, { binary: true }),
    get bufferedBytes() { return ws.bufferedAmount },
    onMessage: (fn) => ws.on('message', (data: Buffer) => fn(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))),
    onClose: (fn) => {
      ws.on('close', (code, reason) => fn(reason.toString() || `closed (${code})`))
      ws.on('error', (err) => fn(err.message))
    },
    close: (reason) => ws.close(1000, reason?.slice(0, 120)),
  }
}

/** The internal links' token of a master secret: an HMAC of it, so the secret itself never travels. */
export function linkToken(masterSecret: Uint8Array): string {
  return createHmac('sha256', masterSecret).update('perp-exchange internal link v1').digest('hex')
}

/**
 * The network over WebSocket; with `token`, listeners take only upgrades that carry it and
 * connections send it. Without one (tests' own rigs on loopback), neither.
 */
export function wsNetworkWith(token?: string): Network {
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`)
  const authorized = (header: string | undefined): boolean => {
    if (expected === undefined) return true
    const given = Buffer.from(header ?? '')
    return given.length === expected.length && timingSafeEqual(given, expected)
  }
  return {
    listen(host, port, onConnection) {
      return new Promise((resolve, reject) => {
        const server = new WebSocketServer({ host, port, maxPayload: 1 << 20,
          verifyClient: (info, done) => authorized(info.req.headers.authorization) ? done(true) : done(false, 401) })
        server.once('error', reject)
        server.on('connection', (ws, req) => onConnection(wrap(ws), new URL(req.url ?? '/', 'ws://x').pathname))
        server.once('listening', () => {
          const addr = server.address()
          const actualPort = typeof addr === 'object' && addr ? addr.port : port
          resolve({
            url: `ws://${host}:${actualPort}`,
            close: () => new Promise<void>((r) => {
              for (const c of server.clients) c.terminate()
              server.close(() => r())
            }),
          })
        })
      })
    },
    connect(url) {
      return new Promise((resolve, reject) => {
        const ws = new WebSocket(url, { maxPayload: 512 << 20, ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }) })
        ws.once('open', () => resolve(wrap(ws)))
        ws.once('unexpected-response', (_req, res) => {
          ws.terminate()
          reject(new Error(res.statusCode === 401
            ? `${url} refused the link (401): it runs with another master secret`
            : `${url} answered the upgrade with HTTP ${res.statusCode}`))
        })
        ws.once('error', reject)
      })
    },
  }
}

/** The unauthenticated network: for tests' and benchmarks' own rigs, never an exchange node's port. */
export const wsNetwork: Network = wsNetworkWith()
