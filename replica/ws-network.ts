// The replication network over WebSocket binary frames. The port carries the log (every
// account's orders) and the command ingress (any command, deposits included), so an exchange
// node opens it only to peers that hold its master secret: they send a token derived from it
// on the upgrade (`Authorization: Bearer …`), and an upgrade without it is refused with 401.
// With a certificate and key the port speaks TLS (wss://), so the log and the token cross a
// network encrypted; a peer trusts the certificate by the CA file it is given, or the system's.

import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { WebSocket, WebSocketServer } from 'ws'
import type { Connection, Network } from './network.js'

/** TLS of the internal links, PEM: a listener's certificate and key; a connection's trusted CA (absent: the system's). */
export interface LinkTls {
  cert?: Buffer
  key?: Buffer
  ca?: Buffer
}

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

/**
 * Connections a listener holds at most, and how long one may take to send its upgrade request:
 * the port takes only peers with the secret, but anyone who reaches it can open connections, and
 * each holds a descriptor the log and the projections need (gateway/connection-guard.ts).
 */
const LINK_CONNECTIONS_MAX = 1_024
const LINK_HEADERS_TIMEOUT_MS = 10_000

/** The internal links' token of a master secret: an HMAC of it, so the secret itself never travels. */
export function linkToken(masterSecret: Uint8Array): string {
  return createHmac('sha256', masterSecret).update('perp-exchange internal link v1').digest('hex')
}

/**
 * The network over WebSocket; with `token`, listeners take only upgrades that carry it and
 * connections send it. Without one (tests' own rigs on loopback), neither. With `tls.cert` and
 * `tls.key`, listeners speak TLS; connections to wss:// URLs trust `tls.ca` (or the system's CAs).
 */
export function wsNetworkWith(token?: string, tls: LinkTls = {}): Network {
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`)
  const authorized = (header: string | undefined): boolean => {
    if (expected === undefined) return true
    const given = Buffer.from(header ?? '')
    return given.length === expected.length && timingSafeEqual(given, expected)
  }
  return {
    listen(host, port, onConnection) {
      return new Promise((resolve, reject) => {
        const options = { maxPayload: 1 << 20,
          verifyClient: (info: { req: { headers: { authorization?: string } } }, done: (ok: boolean, code?: number) => void) =>
            authorized(info.req.headers.authorization) ? done(true) : done(false, 401) }
        // The WebSocket server rides an HTTP(S) server of its own, which owns the port.
        const secure = tls.cert !== undefined && tls.key !== undefined
        const serverOptions = { headersTimeout: LINK_HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1_000 }
        const listening: Server = secure ? createHttpsServer({ cert: tls.cert, key: tls.key, ...serverOptions }) : createHttpServer(serverOptions)
        listening.maxConnections = LINK_CONNECTIONS_MAX
        // What `ws` answers a plain request on a port of its own.
        listening.on('request', (_req, res) => { res.writeHead(426, { 'content-type': 'text/plain' }); res.end('Upgrade Required') })
        const server = new WebSocketServer({ server: listening, ...options })
        listening.once('error', reject)
        server.on('connection', (ws, req) => onConnection(wrap(ws), new URL(req.url ?? '/', 'ws://x').pathname))
        listening.once('listening', () => {
          const addr = listening.address()
          const actualPort = typeof addr === 'object' && addr ? addr.port : port
          resolve({
            url: `${secure ? 'wss' : 'ws'}://${host}:${actualPort}`,
            close: () => new Promise<void>((r) => {
              for (const c of server.clients) c.terminate()
              server.close(() => listening.close(() => r()))
            }),
          })
        })
        listening.listen(port, host)
      })
    },
    connect(url) {
      return new Promise((resolve, reject) => {
        const ws = new WebSocket(url, { maxPayload: 512 << 20, ...(tls.ca !== undefined ? { ca: tls.ca } : {}),
          ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }) })
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
