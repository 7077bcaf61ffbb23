// The stream connections' sockets in a process of their own. Writing one event to a thousand
// subscribers is a thousand system calls, and on loopback each one also runs the receiver's
// TCP path: done on the gateway's thread, that was most of its time and held up sequencing
// and apply. Here the gateway's thread sends each event once to the fan-out process (see
// fan-out-process.ts), which writes it to every subscriber. Node cannot move a socket to a
// worker thread, but a child process can receive one (the IPC channel passes the descriptor),
// so an upgrade request is routed here as before and its socket then handed over; the
// WebSocket handshake is completed there.
//
// The control protocol stays here (connection.ts), so its replies, the listen keys it accepts
// and the hub that feeds consult are unchanged; the child holds the socket side
// (stream-socket.ts: pings, lifetime, outbound bound, framing) and a copy of each connection's
// streams. Everything this side sends goes, in order, on the one IPC channel, so a reply is
// never overtaken by an event the client subscribed to before it, and a subscription is in
// place in the child before its reply is written.
//
// The child starts with the first connection handed over, as the helper threads start on first
// use (replica/worker-calls.ts): a gateway no stream client uses forks none (~0.3 s of CPU and
// ~50 MB saved), and that first client's handshake waits for the child to be up (~0.2 s).

import { fork, type ChildProcess } from 'node:child_process'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Frame, StreamHub, Subscriber } from './hub.js'
import type { SocketLimits } from './managed-socket.js'
import type { StreamConnection } from './connection.js'
import type { StreamLink } from './stream-socket.js'

/** What the child is started with (its one argument, as JSON). */
export interface FanOutConfig {
  limits: SocketLimits
  maxPayload: number
}

/** Work for the child, in order: [op, …args]. */
export type FanOutOp =
  | ['publish', stream: string, json: string, spot: boolean]
  | ['add', id: number, stream: string]
  | ['remove', id: number, stream: string]
  | ['reply', id: number, text: string]
  | ['combined', id: number, combined: boolean]
  | ['close', id: number, code: number, reason: string]
  | ['terminate', id: number]

export type ToFanOut =
  /** A routed upgrade request; its socket comes as the message's handle. */
  | { t: 'adopt'; id: number; method: string; url: string; headers: IncomingMessage['headers']; head: Buffer;
      combined: boolean; micro: boolean; streams: string[] }
  | { t: 'ops'; ops: FanOutOp[] }
  /** Drop every connection left and exit. */
  | { t: 'stop' }

/** What a client did (see SocketEvents), or that its connection ended. */
export type FanOutEvent = ['message', id: number, text: string | null] | ['control', id: number] | ['ended', id: number]

export type FromFanOut = { t: 'ready' } | { t: 'events'; events: FanOutEvent[] }

/** How long a stopping child may take before it is killed. */
const STOP_MS = 5_000

/** The child's entry: the compiled module beside this one. */
const CHILD = new URL('./fan-out-process.js', import.meta.url)

/** One stream's subscribers in the child, as the hub sees them: one subscriber, however many connections. */
class Relay implements Subscriber {
  count = 0
  constructor(private readonly out: FanOut) {}
  deliver(frame: Frame): void {
    this.out.op(['publish', frame.stream, frame.json, frame.spot])
  }
}

/** A connection's socket side, in the child. */
class RemoteLink implements StreamLink {
  /** Streams named before the handover: they travel with the socket. */
  initial: string[] | null = []
  live = true

  constructor(private readonly out: FanOut, readonly id: number) {}

  reply(text: string): void {
    if (this.live) this.out.op(['reply', this.id, text])
  }

  add(stream: string): void {
    this.out.hold(stream)
    if (this.initial !== null) this.initial.push(stream)
    else if (this.live) this.out.op(['add', this.id, stream])
  }

  remove(stream: string): void {
    this.out.release(stream)
    if (this.live) this.out.op(['remove', this.id, stream])
  }

  setCombined(combined: boolean): void {
    if (this.live) this.out.op(['combined', this.id, combined])
  }

  close(code: number, reason: string): void {
    if (!this.live) return
    this.live = false
    this.out.op(['close', this.id, code, reason])
  }

  terminate(): void {
    if (!this.live) return
    this.live = false
    this.out.op(['terminate', this.id])
  }
}

interface Held {
  conn: StreamConnection
  link: RemoteLink
}

export class FanOut {
  /** Started with the first connection handed over (a gateway no stream client uses forks none). */
  private child: ChildProcess | undefined
  private ready = false
  /** Messages (and handles) waiting for the child to be ready. */
  private backlog: [ToFanOut, Duplex?][] = []
  private ops: FanOutOp[] = []
  private flushing = false
  private readonly relays = new Map<string, Relay>()
  private readonly held = new Map<number, Held>()
  private nextId = 1
  private stopping = false

  constructor(private readonly hub: StreamHub, private readonly config: FanOutConfig,
    private readonly onError: (err: unknown) => void) {
    // A committed batch's events leave at once, not after the rest of the sequencer's turn.
    hub.onBatchEnd(() => this.flush())
  }

  /** The child's process id (none before the first connection; it changes when a child that died is replaced). */
  get pid(): number | undefined {
    return this.child?.pid
  }

  /**
   * Hands an upgraded request's socket to the child. `connect` makes the connection's control
   * side over the link it is given and subscribes the request's streams; they are sent with
   * the socket, so they are in place before the handshake completes.
   */
  adopt(req: IncomingMessage, socket: Duplex, head: Buffer, combined: boolean, micro: boolean,
    connect: (link: StreamLink, onEnd: () => void) => StreamConnection): StreamConnection {
    const id = this.nextId++
    const link = new RemoteLink(this, id)
    const conn = connect(link, () => this.held.delete(id))
    const streams = link.initial!
    link.initial = null
    if (!conn.isOpen) {
      socket.destroy()
      return conn
    }
    this.held.set(id, { conn, link })
    // Everything queued so far goes first: the socket must not overtake it.
    this.flush()
    this.send({ t: 'adopt', id, method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, head, combined, micro, streams }, socket)
    return conn
  }

  op(o: FanOutOp): void {
    this.ops.push(o)
    if (this.flushing) return
    this.flushing = true
    // One message per turn, or per committed batch when the feed says it is done (batchEnd).
    process.nextTick(() => this.flush())
  }

  hold(stream: string): void {
    let r = this.relays.get(stream)
    if (r === undefined) {
      this.relays.set(stream, r = new Relay(this))
      this.hub.add(stream, r)
    }
    r.count++
  }

  release(stream: string): void {
    const r = this.relays.get(stream)
    if (r === undefined || --r.count > 0) return
    this.relays.delete(stream)
    this.hub.remove(stream, r)
  }

  /** Drops what is left (after the caller closed what it wanted closed) and waits for the child to exit. */
  async stop(): Promise<void> {
    this.stopping = true
    this.flush()
    const child = this.child
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    this.send({ t: 'stop' })
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_MS)
    await exited
    clearTimeout(kill)
  }

  private flush(): void {
    this.flushing = false
    if (this.ops.length === 0) return
    const ops = this.ops
    this.ops = []
    this.send({ t: 'ops', ops })
  }

  private send(m: ToFanOut, handle?: Duplex): void {
    if (this.child === undefined) {
      // Nothing was ever handed over: nothing to start a process for once stopping.
      if (this.stopping) {
        handle?.destroy()
        return
      }
      this.spawn()
    }
    if (!this.ready) {
      this.backlog.push([m, handle])
      return
    }
    this.write(m, handle)
  }

  private write(m: ToFanOut, handle?: Duplex): void {
    // A failed send means the child is gone; its exit handler ends the connections.
    const failed = (err: Error | null) => { if (err !== null && !this.stopping) this.onError(err) }
    const child = this.child!
    if (handle === undefined) {
      child.send(m, failed)
      return
    }
    // Node tracks a socket it passes by the server that accepted it, and then makes that
    // server's close wait for the child to report it closed: a wait that never ends once the
    // child has exited. The child owns the socket alone: the server forgets it, and the husk
    // left here (its descriptor gone with the send) is ended as a closed socket would be.
    const socket = handle as Duplex & { server?: unknown; _handle?: { readStop?(): number } | null }
    socket.server = null
    // This side's copy of the descriptor stays open until the child acknowledges the handle,
    // and Node leaves it reading, with what it reads dropped: a frame the client sends as soon
    // as the child's handshake reply arrives (a SUBSCRIBE) could be read and lost here. Node
    // offers no public way to stop a socket's reads (pause() only stops delivering them), so
    // its handle is told directly, as `pauseOnConnect` would have kept it for a plain server.
    socket._handle?.readStop?.()
    child.send(m, socket as never, (err) => {
      failed(err)
      socket.destroy()
    })
  }

  private spawn(): void {
    const child = fork(CHILD, [JSON.stringify(this.config)], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    this.child = child
    this.ready = false
    child.on('message', (m: FromFanOut) => {
      if (m.t === 'ready') {
        this.ready = true
        const backlog = this.backlog
        this.backlog = []
        for (const [msg, handle] of backlog) this.write(msg, handle)
        return
      }
      for (const e of m.events) {
        const h = this.held.get(e[1])
        if (h === undefined) continue
        if (e[0] === 'message') h.conn.message(e[2])
        else if (e[0] === 'control') h.conn.control()
        else {
          h.link.live = false
          h.conn.ended()
        }
      }
    })
    child.on('error', (err) => { if (!this.stopping) this.onError(err) })
    child.once('exit', (code, signal) => {
      if (this.stopping) return
      // Its clients lost their connections with it; they reconnect like after any drop.
      this.onError(new Error(`WebSocket fan-out process exited (${code ?? signal}); restarting it`))
      for (const [, socket] of this.backlog) socket?.destroy()
      this.backlog = []
      this.ops = []
      for (const h of [...this.held.values()]) {
        h.link.live = false
        h.conn.ended()
      }
      this.spawn()
    })
  }
}
