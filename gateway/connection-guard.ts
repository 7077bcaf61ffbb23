// The API port's TCP connections, bounded per peer address and in all. A connection holds a
// file descriptor from its accept on, before it sends a byte, so request weights cannot bound
// it: one client opening connections and sending nothing filled the process's descriptor table
// within a second (a limit of 1,200: 1,156 held), and then every other client, /metrics and
// /ready were refused, and LevelDB could open no new file. Node closes a connection that sends
// no whole request head within `headersTimeout`, but a client that opens new ones as fast
// keeps the table full. So: at most `perIp` open connections from one address (trusted
// proxies, which carry many clients, excepted: limit them there), and at most `max` in all,
// below the descriptor limit, so the log, the projections and the metrics keep theirs.

import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import proxyAddr from '@fastify/proxy-addr'
import type { TrustProxy } from './client-ip.js'
import { OpenPerIp } from './open-per-ip.js'

export interface ConnectionLimits {
  /** Open connections from one address. */
  perIp: number
  /** Open connections in all. */
  max: number
}

/** Open connections from one address, by default: a bot's pool, many times over. */
export const CONNECTIONS_PER_IP = 1_000

/** Descriptors kept for everything but client connections: two LevelDBs' open tables (1,000 each), files, workers, pipes. */
const RESERVED_FDS = 2_500

/** The default for `max`, from this process's descriptor limit (Node raises the soft limit to the hard one as it starts). */
export function defaultConnectionsMax(): number {
  return connectionsMaxFor(readLimits())
}

/**
 * `max` for a process whose /proc/self/limits reads `limits`: its descriptor limit less what the
 * exchange needs itself, and at least half of a small limit. 10,000 where the limit cannot be read.
 */
export function connectionsMaxFor(limits: string | undefined): number {
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(limits ?? '')
  if (m === null) return 10_000
  const fds = m[1] === 'unlimited' ? 1_000_000 : Number(m[1])
  return Math.max(Math.floor(fds / 2), fds - RESERVED_FDS)
}

function readLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8')
  } catch {
    return undefined
  }
}

/** What the guard answers a refused connection with, in Binance's shape, and closes it. */
function refusal(status: string, code: number, msg: string): string {
  const body = JSON.stringify({ code, msg })
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
}

export interface ConnectionGuard {
  /** Connections open now (admitted, not yet closed). */
  readonly open: number
}

/**
 * Counts `server`'s connections as they are accepted and refuses those past the limits with a
 * 429 (-1003) or 503 (-1008) written straight to the socket; `refused` hears each code.
 */
export function guardConnections(server: Server, limits: ConnectionLimits, trust: TrustProxy,
  refused: (code: number) => void): ConnectionGuard {
  const trusted = trust.length === 0 ? () => false : proxyAddr.compile([...trust])
  const perIp = new OpenPerIp(limits.perIp)
  let open = 0
  const tooMany = refusal('429 Too Many Requests', -1003,
    `Too many connections from this address: at most ${limits.perIp} at once. Reuse connections (keep-alive) or close some.`)
  const overloaded = refusal('503 Service Unavailable', -1008, 'Server is currently overloaded with other requests. Please try again in a few minutes.')
  const refuse = (socket: Socket, answer: string, code: number): void => {
    refused(code)
    // What the peer sends is read and dropped (unread bytes would make the close a reset, which
    // can discard the answer before the peer reads it); the answer fits the socket's buffer, and
    // a peer that never reads it is cut off all the same.
    socket.on('error', () => {})
    socket.resume()
    socket.end(answer)
    socket.setTimeout(1_000, () => socket.destroy())
  }
  // The HTTP server's own handling (its parser) runs only for admitted connections: a refused
  // one never has a request read, let alone answered.
  const serve = server.listeners('connection') as ((socket: Socket) => void)[]
  server.removeAllListeners('connection')
  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress ?? ''
    if (open >= limits.max) return refuse(socket, overloaded, -1008)
    const exempt = trusted(ip, 0)
    if (!exempt && perIp.full(ip)) return refuse(socket, tooMany, -1003)
    for (const listener of serve) listener.call(server, socket)
    open++
    const closed = exempt ? undefined : perIp.opened(ip)
    socket.once('close', () => {
      open--
      closed?.()
    })
  })
  return { get open() { return open } }
}
