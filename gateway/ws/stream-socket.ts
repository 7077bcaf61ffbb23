// The socket side of one market-stream connection: it holds the WebSocket, takes frames from
// a hub for the streams it was given, and reports what the client sends. The control protocol
// (connection.ts) drives it, either directly in the gateway's process or, when the fan-out
// runs in its own process (fan-out.ts), through that process's messages: the same class
// serves both, so pings, the lifetime, the outbound bound and the framing are one code.

import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import type { Frame, StreamHub, Subscriber } from './hub.js'
import { ManagedSocket, type SocketLimits } from './managed-socket.js'

/** What a client did, in the order it did it. */
export interface SocketEvents {
  /** A data frame: its text, or null for a binary one. */
  message(text: string | null): void
  /** A ping or pong frame from the client (they count against the incoming limit). */
  control(): void
  /** The connection ended, for any reason. */
  ended(): void
}

/** What the control protocol asks of a connection's socket side. */
export interface StreamLink {
  /** Sends a control reply. */
  reply(text: string): void
  /** Starts (stops) delivering a stream's events. */
  add(stream: string): void
  remove(stream: string): void
  /** Whether events come wrapped as `{"stream","data"}`. */
  setCombined(combined: boolean): void
  close(code: number, reason: string): void
  terminate(): void
}

export class StreamSocket extends ManagedSocket implements Subscriber, StreamLink {
  private events: SocketEvents | undefined
  /** Streams this socket takes from the hub. */
  private readonly held = new Set<string>()

  /** `micro`: opened with `timeUnit=MICROSECOND`, so spot markets' events come with their times in µs. */
  constructor(ws: WebSocket, socket: Duplex, limits: SocketLimits, private readonly hub: StreamHub,
    private combined: boolean, private readonly micro = false) {
    super(ws, limits, socket)
    ws.on('message', (data, isBinary) => this.events?.message(isBinary ? null : data.toString()))
    ws.on('ping', () => this.events?.control())
    ws.on('pong', () => this.events?.control())
  }

  /** Where the client's frames go; set once, right after the handshake. */
  listen(events: SocketEvents): void {
    this.events = events
  }

  deliver(frame: Frame): void {
    this.sendEncoded(frame.wire(this.combined, this.micro))
  }

  reply(text: string): void {
    this.sendText(text)
  }

  add(stream: string): void {
    if (!this.isOpen) return
    this.held.add(stream)
    this.hub.add(stream, this)
  }

  remove(stream: string): void {
    if (this.held.delete(stream)) this.hub.remove(stream, this)
  }

  setCombined(combined: boolean): void {
    this.combined = combined
  }

  protected ended(): void {
    for (const s of this.held) this.hub.remove(s, this)
    this.held.clear()
    this.events?.ended()
  }
}
