// What every gateway WebSocket connection does the same way, streams and the WebSocket API
// alike: server pings with a pong deadline, a lifetime, a close handshake with a grace period,
// and a bounded outbound buffer (a client that does not read is cut off, never waited for).

import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import type { ConnectionLimits } from './connection.js'
import { startRun, type Pending, type Run } from './outbox.js'

/** Close codes sent to clients: standard ones, with reasons saying which limit was hit. */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  policy: 1008,
  internal: 1011,
} as const

export type SocketLimits = Pick<ConnectionLimits, 'maxBufferedBytes' | 'pingIntervalMs' | 'pongTimeoutMs' | 'lifetimeMs' | 'closeGraceMs'>

export abstract class ManagedSocket implements Pending {
  private open = true
  /** Frames queued this turn (outbox.ts), written together at its end. */
  private pending: Run | undefined
  private lastPongAt = performance.now()
  private readonly timers: NodeJS.Timeout[] = []

  /**
   * `socket`, the connection's TCP socket when the caller has it, takes the stream frames
   * (sendEncoded): every frame sent in one turn of the event loop leaves in one write.
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
    // Frames queued before the close leave before its frame.
    this.flushPending()
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
    // After the frames queued before it.
    this.flushPending()
    if (!this.writable()) return
    this.ws.send(text, { binary: false })
  }

  /**
   * Queues a frame already encoded whole (hub.ts `Frame.wire`) for the end of the turn, when
   * the turn's frames go straight to the TCP socket in one write (outbox.ts): `ws` would frame
   * the same bytes again for every connection. Safe beside `ws`'s own sends because they never
   * queue (no compression is negotiated) and the frames queued go first. Needs `socket`.
   */
  protected sendEncoded(frame: Buffer): void {
    // Nothing after a close frame, whichever side sent it (`ws` drops its own sends then too).
    if (!this.open || this.ws.readyState !== this.ws.OPEN) return
    this.pending = (this.pending ?? startRun(this)).followedBy(frame)
  }

  /** Writes the frames queued this turn, if any (outbox.ts calls it at the turn's end). */
  flushPending(): void {
    const run = this.pending
    if (run === undefined) return
    this.pending = undefined
    if (this.ws.readyState !== this.ws.OPEN || !this.writable()) return
    this.socket!.write(run.bytes())
  }

  /** Whether a frame may be sent now; cuts off a consumer too slow. */
  private writable(): boolean {
    if (!this.open) return false
    // The bound: a consumer that lets this much pile up is cut off rather than slow the feed
    // or let memory grow; it reconnects and resynchronizes like any client after a drop.
    if (this.ws.bufferedAmount > this.limits.maxBufferedBytes) {
      this.close(CLOSE.policy, 'Outbound queue full: consumer too slow')
      return false
    }
    return true
  }

  /** Called once, when the connection ends for any reason. */
  protected abstract ended(): void

  private end(): void {
    if (!this.open) return
    this.open = false
    this.pending = undefined
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
