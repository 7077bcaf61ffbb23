// What every gateway WebSocket connection does the same way, streams and the WebSocket API
// alike: server pings with a pong deadline, a lifetime, a close handshake with a grace period,
// and a bounded outbound buffer (a client that does not read is cut off, never waited for).

import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import type { ConnectionLimits } from './connection.js'

/** Close codes sent to clients: standard ones, with reasons saying which limit was hit. */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  policy: 1008,
} as const

export type SocketLimits = Pick<ConnectionLimits, 'maxBufferedBytes' | 'pingIntervalMs' | 'pongTimeoutMs' | 'lifetimeMs' | 'closeGraceMs'>

/** Sockets corked this turn; one callback uncorks them all (not one per socket: there may be thousands). */
let corked: Duplex[] = []

function uncorkAll(): void {
  const all = corked
  corked = []
  for (const s of all) s.uncork()
}

export abstract class ManagedSocket {
  private open = true
  private lastPongAt = performance.now()
  private readonly timers: NodeJS.Timeout[] = []

  /**
   * `socket`, the connection's TCP socket when the caller has it, lets every frame sent in one
   * turn of the event loop leave in one write: a committed batch's trades and depth for one
   * client cost one system call, not one each (on loopback a write costs the kernel's whole
   * receive path, and at a thousand subscribers those calls were most of the gateway's time).
   */
  constructor(protected readonly ws: WebSocket, protected readonly limits: SocketLimits, private readonly socket?: Duplex) {
    ws.on('pong', () => { this.lastPongAt = performance.now() })
    ws.on('close', () => this.end())
    ws.on('error', () => this.end())
    this.timers.push(setInterval(() => this.heartbeat(), limits.pingIntervalMs))
    this.timers.push(setTimeout(() => this.close(CLOSE.normal, 'Connection lifetime reached'), limits.lifetimeMs))
  }

  get isOpen(): boolean { return this.open }

  /** Closes with a close frame, then destroys the socket if the client does not finish the handshake. */
  close(code: number, reason: string): void {
    if (!this.open) return
    this.end()
    this.ws.close(code, reason)
    setTimeout(() => this.ws.terminate(), this.limits.closeGraceMs).unref()
  }

  /** Drops the connection without a handshake (server shutdown, a dead peer). */
  terminate(): void {
    this.end()
    this.ws.terminate()
  }

  /** Sends a text frame (a string, or its UTF-8 bytes), or cuts the connection off when too much is already waiting. */
  protected sendText(text: string | Buffer): void {
    if (!this.writable()) return
    this.ws.send(text, { binary: false })
  }

  /**
   * Sends a frame already encoded whole (hub.ts `Frame.wire`), straight to the TCP socket:
   * `ws` would frame the same bytes again for every connection. Safe beside `ws`'s own sends
   * because they never queue (no compression is negotiated), so order is kept. Needs `socket`.
   */
  protected sendEncoded(frame: Buffer): void {
    // Nothing after a close frame, whichever side sent it (`ws` drops its own sends then too).
    if (this.ws.readyState !== this.ws.OPEN || !this.writable()) return
    this.socket!.write(frame)
  }

  /** Whether a frame may be sent now (corking the socket for this turn); cuts off a consumer too slow. */
  private writable(): boolean {
    if (!this.open) return false
    // The bound: a consumer that lets this much pile up is cut off rather than slow the feed
    // or let memory grow; it reconnects and resynchronizes like any client after a drop.
    if (this.ws.bufferedAmount > this.limits.maxBufferedBytes) {
      this.close(CLOSE.policy, 'Outbound queue full: consumer too slow')
      return false
    }
    const socket = this.socket
    if (socket !== undefined && socket.writableCorked === 0) {
      socket.cork()
      if (corked.push(socket) === 1) process.nextTick(uncorkAll)
    }
    return true
  }

  /** Called once, when the connection ends for any reason. */
  protected abstract ended(): void

  private end(): void {
    if (!this.open) return
    this.open = false
    for (const t of this.timers) clearTimeout(t)
    this.ended()
  }

  private heartbeat(): void {
    if (performance.now() - this.lastPongAt > this.limits.pongTimeoutMs) {
      this.terminate()
      return
    }
    this.ws.ping()
  }
}
