// WebSocket market streams on the gateway's HTTP server: the paths Binance clients build
// (raw `/ws/<streams>`, combined `/stream?streams=`, the routed `/public/…` and `/market/…`
// forms, and the spot stream host's `/spot/ws…`, `/spot/stream…`), each upgraded into a
// StreamConnection fed by one MarketFeed; `timeUnit=MICROSECOND` in the URL makes a spot
// market's events come in µs (hub.ts Frame). The user data stream and the WebSocket API
// (gateway/ws-api) are further routes on the same server.
// The connections' sockets live on this thread or, with `fanOut: 'process'`, in a fan-out
// process that does their writing (fan-out.ts); routing and the control protocol stay here.

import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { WebSocketServer } from 'ws'
import { assert } from '../../core/assert.js'
import type { GatewayContext } from '../context.js'
import { rawJsonResponse } from '../client-errors.js'
import type { Refusals } from '../refusals.js'
import { upgradeOriginAllowed } from '../cors.js'
import { clientIpOf } from '../client-ip.js'
import { invalidTimeUnit, notFound, originNotAllowed } from '../errors.js'
import { timeUnitNamed, type TimeUnit } from '../time-unit.js'
import { ATTEMPTS_PER_5M, ConnectionAttempts } from './connection-attempts.js'
import { StreamConnection, type ConnectionLimits, type ExtraStreams } from './connection.js'
import { FanOut } from './fan-out.js'
import { handshakeRefusal } from './handshake.js'
import { CLOSE } from './managed-socket.js'
import { StreamHub } from './hub.js'
import { StreamSocket } from './stream-socket.js'
import { BINANCE_CADENCES, MarketFeed, type FeedCadences } from './market-feed.js'
import { canonicalStreamName, STREAMS_PER_CONNECTION_MAX } from './streams.js'

export interface WebSocketOptions extends Partial<ConnectionLimits> {
  /** Largest incoming message, bytes (a SUBSCRIBE of 1024 names fits easily). */
  maxPayload?: number
  /** Open connections this gateway serves; further upgrades are refused with 503. */
  connectionsMax?: number
  cadences?: Partial<FeedCadences>
  /** The hub to publish through, when another feed (user data) shares it; default a new one. */
  hub?: StreamHub
  /** Streams beyond the market ones, accepted in paths and SUBSCRIBE (listen keys). */
  extraStreams?: ExtraStreams
  /** Errors inside the feed or a connection (never a client's doing). Default: logged by the app's logger. */
  onError?: (err: unknown) => void
  /** Another server on the same port (the WebSocket API): takes the upgrades of its own paths. */
  otherUpgrades?: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean
  /**
   * Where the connections' sockets live: 'inline' on this thread; 'process' in a child process
   * that writes every event to every subscriber, so a thousand subscribers cost this thread
   * one message per event instead of a thousand writes. Clients see no difference. Default inline.
   */
  fanOut?: 'inline' | 'process'
}

export const DEFAULT_LIMITS: ConnectionLimits = {
  messagesPerSecond: 10,
  streamsMax: STREAMS_PER_CONNECTION_MAX,
  maxBufferedBytes: 4 * 1024 * 1024,
  pingIntervalMs: 3 * 60_000,
  pongTimeoutMs: 10 * 60_000,
  lifetimeMs: 24 * 60 * 60_000,
  closeGraceMs: 5_000,
}

export interface MarketStreams {
  hub: StreamHub
  feed: MarketFeed
  /** Open connections. */
  readonly connections: ReadonlySet<StreamConnection>
  /** The fan-out process holding their sockets, with `fanOut: 'process'`. */
  readonly fanOut?: FanOut
}

/**
 * A request path the streams serve: whether payloads are combined, the streams named in it,
 * whether it is on the spot stream host (`/spot/ws…`, `/spot/stream…`: streams.ts, hubStream),
 * and whether it asks for Binance spot's `timeUnit=MICROSECOND` (spot markets' events in µs).
 */
interface Route {
  combined: boolean
  streams: string[]
  spotHost: boolean
  micro: boolean
}

class RouteError extends Error {
  constructor(readonly status: number, readonly body: { code: number; msg: string }) { super(JSON.stringify(body)) }
}

const CONNECTIONS_MAX = 10_000

const PATH = /^\/(?:(public|market|private|spot)\/)?(ws|stream)(?:\/(.*))?$/
/** A connection counter some clients put after /ws/ (ccxt's spot: /ws/0, /ws/1, ...), not a stream. */
const COUNTER = /^\d{1,9}$/

/**
 * A query parameter percent-decoded but with `+` kept: a stream name may hold one (Binance spot's
 * `<s>@kline_1d@+08:00`) and never a space, so form decoding (`+` as space) would spoil it.
 */
function queryParam(search: string, name: string): string | undefined {
  for (const part of search.slice(1).split('&')) {
    const eq = part.indexOf('=')
    if ((eq < 0 ? part : part.slice(0, eq)) !== name) continue
    try {
      return decodeURIComponent(eq < 0 ? '' : part.slice(eq + 1))
    } catch {
      throw new RouteError(400, { code: -1100, msg: 'Illegal characters found in a parameter.' })
    }
  }
  return undefined
}

/**
 * The route of an upgrade request, or a RouteError (404 for other paths, 400 for bad names).
 * `/private/…` takes the stream (a listen key) from `?listenKey=`.
 */
export function routeOf(url: string, streamsMax: number, extra?: ExtraStreams): Route {
  let u: URL
  try {
    u = new URL(url, 'http://localhost')
  } catch {
    throw new RouteError(400, { code: -1100, msg: 'Illegal characters found in a parameter.' })
  }
  const m = PATH.exec(u.pathname)
  if (m === null) {
    const api = notFound()
    throw new RouteError(api.status, api.toBody())
  }
  const spotHost = m[1] === 'spot'
  const routed = m[1] !== undefined && !spotHost
  const combined = m[2] === 'stream'
  const names = combined
    ? (queryParam(u.search, 'streams') ?? '').split('/')
    : (m[3] ?? '').split('/')
  if (m[1] === 'private') names.push(u.searchParams.get('listenKey') ?? '')
  const streams: string[] = []
  for (const n of names) {
    if (n === '') continue
    const name = canonicalStreamName(n) ?? (extra?.accepts(n) === true ? n : null)
    if (name === null) {
      // The routed forms take any trailing segment; the plain ones name streams only (or a counter).
      if ((routed || COUNTER.test(n)) && !combined) continue
      throw new RouteError(400, { code: 2, msg: `Invalid request: invalid stream name ${JSON.stringify(n)}` })
    }
    if (!streams.includes(name)) streams.push(name)
  }
  if (streams.length > streamsMax) {
    throw new RouteError(400, { code: 2, msg: `Invalid request: too many streams; at most ${streamsMax} per connection` })
  }
  return { combined, streams, spotHost, micro: timeUnitParam(u.search) === 'MICROSECOND' }
}

/**
 * `timeUnit`, on any path (spot markets stream on every one); a value other than MILLISECOND or
 * MICROSECOND (any case) refuses the connection as X-MBX-TIME-UNIT refuses a request: -1194.
 */
function timeUnitParam(search: string): TimeUnit | undefined {
  const v = queryParam(search, 'timeUnit')
  if (v === undefined) return undefined
  const unit = timeUnitNamed(v)
  if (unit === undefined) {
    const e = invalidTimeUnit()
    throw new RouteError(e.status, e.toBody())
  }
  return unit
}

/** Answers an upgrade request with `status` and `body`; `header`, a whole header line, said too. */
function refuseWith(refusals: Refusals, socket: Duplex, status: number, body: { code: number; msg: string }, header?: string): void {
  // Among the WebSocket APIs' refusals on /metrics: a handshake refused is one too.
  refusals.add('ws', body.code)
  socket.end(rawJsonResponse(status, body, header))
}

/**
 * Serves the market streams on `app`'s server. Call before `listen`; the streams stop, and
 * every connection is dropped, when the app closes.
 */
export function attachWebSocket(app: FastifyInstance, ctx: GatewayContext, o: WebSocketOptions = {}): MarketStreams {
  const limits: ConnectionLimits = { ...DEFAULT_LIMITS }
  for (const k of Object.keys(DEFAULT_LIMITS) as (keyof ConnectionLimits)[]) {
    const v = o[k]
    if (v !== undefined) limits[k] = v
    assert(Number.isSafeInteger(limits[k]) && limits[k] > 0, `WebSocket limit ${k} must be a positive integer`)
  }
  const onError = o.onError ?? ((err: unknown) => app.log.error({ err }, 'market streams failed'))
  const hub = o.hub ?? new StreamHub()
  const feed = new MarketFeed(ctx, hub, { ...BINANCE_CADENCES, ...o.cadences }, onError)
  const connections = new Set<StreamConnection>()
  const maxPayload = o.maxPayload ?? 64 * 1024
  const wss = new WebSocketServer({ noServer: true, maxPayload })
  const fanOut = o.fanOut === 'process' ? new FanOut(hub, { limits, maxPayload }, onError) : undefined
  feed.start()

  const connectionsMax = o.connectionsMax ?? CONNECTIONS_MAX
  // Counted here, before the WebSocket API takes its paths, so one count covers every path.
  const attempts = new ConnectionAttempts(ctx.now, ctx.rateLimits?.wsConnections5m ?? ATTEMPTS_PER_5M)
  const corsOrigins = ctx.corsOrigins ?? '*'
  const clientIp = clientIpOf(ctx.trustProxy ?? [])
  const refuse = (socket: Duplex, status: number, body: { code: number; msg: string }, header?: string): void =>
    refuseWith(app.refusals, socket, status, body, header)
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A peer resetting mid-handshake must not become an unhandled 'error'.
    socket.on('error', () => socket.destroy())
    const ip = clientIp(req)
    const wait = attempts.admit(ip)
    if (wait !== undefined) {
      refuse(socket, 429, { code: -1003, msg: `Too many connection attempts; current limit is ${attempts.limit} per 5 minutes per IP. Retry after ${wait} s.` }, `Retry-After: ${wait}`)
      return
    }
    if (app.wsOpen.full(ip)) {
      refuse(socket, 429, { code: -1003, msg: `Too many open connections; current limit is ${app.wsOpen.limit} per IP. Close some, or subscribe to more streams on one.` })
      return
    }
    // For every path, the WebSocket API's too.
    const bad = handshakeRefusal(req)
    if (bad !== undefined) {
      refuse(socket, bad.status, bad.body, bad.header)
      return
    }
    // Browsers leave a WebSocket's origin for the server to judge (cors.ts).
    if (!upgradeOriginAllowed(corsOrigins, req)) {
      const e = originNotAllowed(String(req.headers.origin))
      refuse(socket, e.status, e.toBody())
      return
    }
    if (o.otherUpgrades?.(req, socket, head) === true) return
    if (connections.size >= connectionsMax) {
      refuse(socket, 503, { code: -1008, msg: 'Server is currently overloaded with other requests. Please try again in a few minutes.' })
      return
    }
    let route: Route
    try {
      route = routeOf(req.url ?? '/', limits.streamsMax, o.extraStreams)
    } catch (err) {
      // Nothing a client sends may escape this listener: it would take the process down.
      const e = err instanceof RouteError ? err : new RouteError(400, { code: -1000, msg: 'An unknown error occured while processing the request.' })
      refuse(socket, e.status, e.body)
      return
    }
    if (fanOut !== undefined) {
      fanOut.adopt(req, socket, head, route.combined, route.micro, (link, onEnd) => {
        const closed = app.wsOpen.opened(ip)
        const c = new StreamConnection(link, route.combined, limits, (c) => { connections.delete(c); closed(); onEnd() }, onError, o.extraStreams, route.spotHost)
        connections.add(c)
        c.subscribeAll(route.streams)
        return c
      })
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const s = new StreamSocket(ws, socket, limits, hub, route.combined, route.micro)
      const closed = app.wsOpen.opened(ip)
      const conn = new StreamConnection(s, route.combined, limits, (c) => { connections.delete(c); closed() }, onError, o.extraStreams, route.spotHost)
      s.listen(conn)
      connections.add(conn)
      conn.subscribeAll(route.streams)
    })
  }
  app.server.on('upgrade', onUpgrade)
  app.addHook('preClose', async () => {
    app.server.off('upgrade', onUpgrade)
    feed.stop()
    for (const c of [...connections]) c.close(CLOSE.goingAway, 'Server shutting down')
    for (const c of [...connections]) c.terminate()
    await fanOut?.stop()
    await new Promise<void>((resolve) => wss.close(() => resolve()))
  })
  return { hub, feed, connections, fanOut }
}
