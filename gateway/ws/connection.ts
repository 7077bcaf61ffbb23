// One market-stream connection: Binance's control protocol (SUBSCRIBE, UNSUBSCRIBE,
// LIST_SUBSCRIPTIONS, SET_PROPERTY, GET_PROPERTY) with its exact replies, and the limits that
// keep one client from costing the others: incoming messages per second, streams per
// connection here; a bounded outbound buffer, server pings with a pong deadline, and a
// lifetime on its socket side (stream-socket.ts), which may live in the fan-out process.

import { CLOSE } from './managed-socket.js'
import { requestIdJson } from './request-id.js'
import type { SocketEvents, StreamLink } from './stream-socket.js'
import { canonicalStreamName, hubStream, parseStream } from './streams.js'

export interface ConnectionLimits {
  /** Incoming frames (messages, pings, pongs) allowed in any one second; more closes the connection. */
  messagesPerSecond: number
  streamsMax: number
  /** Bytes the socket may hold unsent; a consumer past it is cut off. */
  maxBufferedBytes: number
  pingIntervalMs: number
  /** A connection that has not answered a ping for this long is dropped. */
  pongTimeoutMs: number
  lifetimeMs: number
  /** How long a closing connection gets to finish its close handshake before it is destroyed. */
  closeGraceMs: number
}

const METHODS = ['SUBSCRIBE', 'UNSUBSCRIBE', 'LIST_SUBSCRIPTIONS', 'SET_PROPERTY', 'GET_PROPERTY'] as const

/** A reply error in Binance's stream shape: code 0..3 and its message. */
class ControlError extends Error {
  constructor(readonly code: number, msg: string) { super(msg) }

  /**
   * `{"code","msg","id"}`: API.md's `{code, msg}`, with the request's id as Binance's table of
   * these errors shows it; without `id` when the request's could not be read.
   */
  reply(idJson: string | undefined): string {
    const body = `"code":${this.code},"msg":${JSON.stringify(this.message)}`
    return idJson === undefined ? `{${body}}` : `{${body},"id":${idJson}}`
  }
}

const invalid = (msg: string) => new ControlError(2, `Invalid request: ${msg}`)

/** Stream names beyond the market streams (the user data stream's listen keys). */
export interface ExtraStreams {
  /** Whether `name`, not a market stream name, is one of these streams now. */
  accepts(name: string): boolean
  /** A connection has subscribed to `name` (one it accepted). */
  subscribed?(name: string): void
}

/**
 * One connection. `streams` holds the names as the client wrote them; on the spot stream host
 * (`spotHost`) the all-market ones denote that host's streams (hubStream).
 */
export class StreamConnection implements SocketEvents {
  readonly streams = new Set<string>()
  /** Arrival times (monotonic ms) of the incoming frames of the last second. */
  private arrivals: number[] = []
  private open = true

  constructor(private readonly link: StreamLink, private combined: boolean,
    private readonly streamLimits: Pick<ConnectionLimits, 'messagesPerSecond' | 'streamsMax'>,
    private readonly onEnd: (c: StreamConnection) => void, private readonly onError: (err: unknown) => void,
    private readonly extra?: ExtraStreams, private readonly spotHost = false) {}

  get isOpen(): boolean { return this.open }

  /** Subscribes to names already validated (the URL's streams). */
  subscribeAll(names: string[]): void {
    for (const n of names) this.subscribe(n)
  }

  message(text: string | null): void {
    if (this.countIncoming()) this.onMessage(text)
  }

  control(): void {
    this.countIncoming()
  }

  /** The socket side ended (the client went, or a limit of its own cut it off). */
  ended(): void {
    if (!this.open) return
    this.open = false
    for (const s of this.streams) this.link.remove(hubStream(s, this.spotHost))
    this.streams.clear()
    this.onEnd(this)
  }

  /** Closes with a close frame (after every reply already sent). */
  close(code: number, reason: string): void {
    if (!this.open) return
    this.ended()
    this.link.close(code, reason)
  }

  /** Drops the connection without a handshake. */
  terminate(): void {
    this.ended()
    this.link.terminate()
  }

  /** Counts a frame against the per-second limit; false (and closed) past it. */
  private countIncoming(): boolean {
    if (!this.isOpen) return false
    const now = performance.now()
    const a = this.arrivals
    while (a.length > 0 && now - a[0]! >= 1000) a.shift()
    a.push(now)
    if (a.length > this.streamLimits.messagesPerSecond) {
      this.close(CLOSE.policy, 'Too many messages')
      return false
    }
    return true
  }

  private subscribe(name: string): void {
    if (this.streams.has(name)) return
    this.streams.add(name)
    this.link.add(hubStream(name, this.spotHost))
    if (parseStream(name) === null) this.extra?.subscribed?.(name)
  }

  /** The streams `params` names, each as it is kept (canonicalStreamName), or a refusal naming the first that is none. */
  private streamParams(params: unknown): string[] {
    if (!Array.isArray(params)) throw invalid('params must be an array of stream names')
    return params.map((p: unknown) => {
      const name = canonicalStreamName(p)
      if (name !== null) return name
      if (typeof p === 'string' && this.extra?.accepts(p) === true) return p
      throw invalid(`invalid stream name ${JSON.stringify(p)}`)
    })
  }

  private onMessage(text: string | null): void {
    let reply: string
    try {
      reply = this.handle(text)
    } catch (err) {
      // Thrown on into the socket's listener it would take the whole process down: a bug of
      // ours is reported, and costs only this connection.
      this.onError(err)
      this.close(CLOSE.internal, 'Internal error')
      return
    }
    this.link.reply(reply)
  }

  /** The reply to a client's frame: `{"result","id"}`, or a ControlError's. */
  private handle(text: string | null): string {
    if (text === null) return new ControlError(3, 'Invalid JSON: expected a text frame').reply(undefined)
    let req: unknown
    try {
      req = JSON.parse(text)
    } catch (err) {
      return new ControlError(3, `Invalid JSON: ${(err as Error).message}`).reply(undefined)
    }
    if (typeof req !== 'object' || req === null || Array.isArray(req)) return invalid('expected a JSON object').reply(undefined)
    const r = req as Record<string, unknown>
    // Every later refusal carries the id, when the request has one Binance takes.
    const idJson = requestIdJson(text, r)
    try {
      const method = this.method(r)
      // Binance's text, though it takes more than unsigned integers (request-id.ts).
      if (idJson === undefined) throw invalid('request ID must be an unsigned integer')
      return `{"result":${JSON.stringify(this.run(method, r.params))},"id":${idJson}}`
    } catch (err) {
      if (err instanceof ControlError) return err.reply(idJson)
      throw err
    }
  }

  /** The request's method, or the refusal Binance gives for a missing or unknown one. */
  private method(r: Readonly<Record<string, unknown>>): (typeof METHODS)[number] {
    if (!('method' in r)) throw invalid('missing field `method`')
    const method = r.method
    if (typeof method !== 'string' || !(METHODS as readonly string[]).includes(method)) {
      // Not String(method): a parsed object's own `toString` key would make that throw.
      throw invalid(`unknown variant \`${typeof method === 'string' ? method : JSON.stringify(method)}\`, expected one of ${METHODS.map((m) => `\`${m}\``).join(', ')}`)
    }
    return method as (typeof METHODS)[number]
  }

  private run(method: (typeof METHODS)[number], params: unknown): unknown {
    switch (method) {
      case 'SUBSCRIBE': {
        const names = this.streamParams(params)
        const added = names.filter((n) => !this.streams.has(n))
        if (new Set(added).size + this.streams.size > this.streamLimits.streamsMax) {
          throw invalid(`too many streams; at most ${this.streamLimits.streamsMax} per connection`)
        }
        for (const n of added) this.subscribe(n)
        return null
      }
      case 'UNSUBSCRIBE':
        for (const n of this.streamParams(params)) {
          if (this.streams.delete(n)) this.link.remove(hubStream(n, this.spotHost))
        }
        return null
      case 'LIST_SUBSCRIPTIONS':
        return [...this.streams]
      case 'SET_PROPERTY': {
        const [, value] = propertyParams(params, 2)
        if (typeof value !== 'boolean') throw new ControlError(1, 'Invalid value type: expected Boolean')
        this.combined = value
        this.link.setCombined(value)
        return null
      }
      case 'GET_PROPERTY':
        propertyParams(params, 1)
        return this.combined
    }
  }
}

/** [name, value?] of SET_PROPERTY / GET_PROPERTY; `combined` is the only property. */
function propertyParams(params: unknown, arity: number): unknown[] {
  if (!Array.isArray(params) || params.length === 0) throw invalid('property name must be a string')
  if (params.length > arity) throw invalid('too many parameters')
  if (typeof params[0] !== 'string') throw invalid('property name must be a string')
  if (params[0] !== 'combined') throw new ControlError(0, 'Unknown property')
  return params
}
