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

export abstract class ManagedSocket {
  private open = true
  private lastPongAt = performance.now()
  private readonly timers: NodeJS.Timeout[] = []
  private corked = false

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
    if (!this.open) return
    // The bound: a consumer that lets this much pile up is cut off rather than slow the feed
    // or let memory grow; it reconnects and resynchronizes like any client after a drop.
    if (this.ws.bufferedAmount > this.limits.maxBufferedBytes) {
      this.close(CLOSE.policy, 'Outbound queue full: consumer too slow')
      return
    }
    if (this.socket !== undefined && !this.corked) {
      this.corked = true
      this.socket.cork()
      process.nextTick(this.uncork)
    }
    this.ws.send(text, { binary: false })
  }

  private readonly uncork = (): void => {
    this.corked = false
    this.socket!.uncork()
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
