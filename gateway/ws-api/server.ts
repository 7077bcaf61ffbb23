// The WebSocket APIs (API.md "WebSocket API"): futures at `/ws-fapi/v1` and `/ws-api/v1`, spot
// at `/ws-api/v3`, on the gateway's HTTP server. Each text frame is one request `{id, method,
// params}`; each gets one response `{id, status, result | error, rateLimits}`. Request weight
// is charged to the same per-IP budget as REST, new orders to the same per-account order
// counter. A spot connection may also carry user data stream subscriptions, whose events
// arrive between responses as `{subscriptionId, event}`.

import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { WebSocketServer, type WebSocket } from 'ws'
import type { GatewayContext } from '../context.js'
import { ApiError, invalidParam, invalidTimeUnit, unknownError } from '../errors.js'
import { timeUnitNamed, toMicroseconds } from '../time-unit.js'
import { rawJsonResponse } from '../client-errors.js'
import { looseBool, perpParam, spotParam } from '../market-params.js'
import type { ConnectionLimits } from '../ws/connection.js'
import { CLOSE, ManagedSocket } from '../ws/managed-socket.js'
import { DEFAULT_LIMITS } from '../ws/server.js'
import type { UserStreams } from '../user-data/user-streams.js'
import { clientIpOf } from '../client-ip.js'
import { JsonBytes } from '../pages.js'
import { METHODS, type Logon, type Method, type MethodEnv, type Params } from './methods.js'
import { SPOT_METHODS } from './spot-methods.js'
import { authenticateWs } from './signing.js'
import { StreamSubscriptions } from './subscriptions.js'

export const WS_API_PATHS = ['/ws-fapi/v1', '/ws-api/v1'] as const
export const SPOT_WS_API_PATHS = ['/ws-api/v3'] as const

type Id = number | string | null

/** Requests one connection may have in flight; more are refused rather than queued without bound. */
const IN_FLIGHT_MAX = 64
/** Weight charged for a frame that is not a request at all (so floods of junk are not free). */
const MALFORMED_WEIGHT = 1

export interface WsApi {
  /** Takes an upgrade for the WebSocket API's paths; false for any other path. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean
  readonly connections: ReadonlySet<WsApiConnection>
}

export interface WsApiOptions extends Partial<Pick<ConnectionLimits, 'maxBufferedBytes' | 'pingIntervalMs' | 'pongTimeoutMs' | 'lifetimeMs' | 'closeGraceMs'>> {
  maxPayload?: number
  connectionsMax?: number
}

function pathOf(url: string): string {
  const q = url.indexOf('?')
  return q < 0 ? url : url.slice(0, q)
}

/** A request's params as strings, as a query string would carry them; -1135 otherwise. */
function paramsOf(raw: unknown): Params {
  const p: Params = new Map()
  if (raw === undefined) return p
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ApiError(400, -1135, "Invalid 'params' in JSON request; expected an object.")
  }
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v === 'string') p.set(k, v)
    else if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean') p.set(k, String(v))
    // A list (symbols, permissions: Binance documents JSON arrays) as REST's query carries it: its JSON text.
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) p.set(k, JSON.stringify(v))
    else throw new ApiError(400, -1135, `Invalid JSON Request; JSON sent for parameter '${k}' is not valid.`)
  }
  return p
}

export class WsApiConnection extends ManagedSocket {
  private inFlight = 0
  private readonly logon: Logon
  private readonly env: MethodEnv
  private readonly methods: Record<string, Method>

  /** `users` for a spot connection (its subscriptions); undefined for a futures one. `returnRateLimits`: the URL's default. */
  constructor(ws: WebSocket, private readonly ip: string, private readonly app: FastifyInstance,
    ctx: GatewayContext, limits: ConnectionLimits, private readonly onEnd: (c: WsApiConnection) => void,
    users: UserStreams | undefined, returnRateLimits: boolean, micro = false) {
    super(ws, limits)
    this.logon = { session: undefined, authorizedSince: null, connectedSince: ctx.now(), returnRateLimits }
    this.methods = users === undefined ? METHODS : SPOT_METHODS
    this.env = users === undefined ? { ctx, listenKeys: app.listenKeys, orders: app.orders, logon: this.logon, micro: false }
      : { ctx, listenKeys: app.spotListenKeys, orders: app.spotOrders, logon: this.logon, micro,
        subscriptions: new StreamSubscriptions(users, (body) => this.send(body), ctx.now) }
    ws.on('message', (data, isBinary) => { void this.onMessage(isBinary ? null : data.toString()) })
  }

  protected ended(): void {
    this.env.subscriptions?.dispose()
    this.onEnd(this)
  }

  private send(body: object): void {
    this.sendText(JSON.stringify(body))
  }

  private weightLimit(): object {
    const w = this.app.weights
    return { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: w.limit, count: w.used(this.ip) }
  }

  private async onMessage(text: string | null): Promise<void> {
    let id: Id = null
    let name = ''
    // The account whose new-order counts the answer reports (set once an order is counted, refused or not).
    let orderKey: string | undefined
    let withLimits = this.logon.returnRateLimits
    let pastOrderLimit: ApiError | undefined
    let body: { status: number; result?: unknown; error?: object }
    this.inFlight++
    try {
      const req = this.parse(text)
      id = req.id
      // Refused with the request's own id, which was valid, so the client can match the reply.
      if (typeof req.method !== 'string') {
        this.app.weights.charge(this.ip, MALFORMED_WEIGHT)
        throw new ApiError(400, -1102, "Mandatory parameter 'method' was not sent, was empty/null, or malformed.")
      }
      name = req.method
      if (this.inFlight > IN_FLIGHT_MAX) throw new ApiError(429, -1003, 'Too many requests queued.')
      const p = paramsOf(req.params)
      // A request may ask for rateLimits, or for none, whatever its connection's default.
      withLimits = looseBool(p, 'returnRateLimits') ?? withLimits
      // Own keys only: `constructor` or `toString` must not find Object.prototype's.
      const method = Object.hasOwn(this.methods, req.method) ? this.methods[req.method] : undefined
      if (method === undefined) {
        this.app.weights.charge(this.ip, MALFORMED_WEIGHT)
        throw new ApiError(400, -1020, 'This operation is not supported.')
      }
      this.app.weights.charge(this.ip, typeof method.weight === 'number' ? method.weight : method.weight(p))
      const a = method.security === 'NONE' ? undefined : authenticateWs(this.env.ctx, p, method.security, this.logon.session)
      if (method.countsOrder) {
        // An unknown symbol is refused before the order counts (as on REST); spot orders count apart.
        ;(this.env.listenKeys.stream === 'SPOT' ? spotParam : perpParam)(this.env.ctx.state(), p)
        orderKey = `${a!.session.account}/${a!.session.sub}`
        try {
          for (let i = 0; i < Number(method.countsOrder); i++) this.env.orders.count(orderKey)
        } catch (err) {
          if (!(err instanceof ApiError) || err.code !== -1015 || method.pastOrderLimit?.(p) !== true) throw err
          pastOrderLimit = err
        }
      }
      const result = await method.run(this.env, a, p, pastOrderLimit)
      // Pages are made in the connection's unit; every other answer is converted here.
      body = { status: 200, result: this.env.micro && !(result instanceof JsonBytes) ? toMicroseconds(result) : result }
    } catch (err) {
      // Nothing a client sends may escape: anything but a refusal is answered as -1000.
      const api = err instanceof ApiError ? err : unknownError()
      if (!(err instanceof ApiError)) this.app.serverError(err, `WebSocket API ${name}`)
      this.app.refusals.add('ws', api.code)
      body = { status: api.status, error: api.toBody() }
    } finally {
      this.inFlight--
    }
    const rateLimits = withLimits ? this.rateLimits(orderKey) : undefined
    if (body.result instanceof JsonBytes) this.sendText(spliced(id, body.status, body.result, rateLimits))
    else this.send(rateLimits === undefined ? { id, ...body } : { id, ...body, rateLimits })
  }

  /** An answer's rateLimits: the address's request weight, and the account's order counts after an order (-1015 too). */
  private rateLimits(orderKey: string | undefined): object[] {
    const out: object[] = [this.weightLimit()]
    if (orderKey !== undefined) {
      const u = this.env.orders.usage(orderKey)
      out.push(
        { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: u.limit10s, count: u.n10s },
        { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: u.limit1m, count: u.n1m },
      )
    }
    return out
  }

  /** The request in a frame; malformed ones are charged and refused in Binance's shape. */
  private parse(text: string | null): { id: Id; method: unknown; params: unknown } {
    let req: unknown
    try {
      if (text === null) throw new SyntaxError('binary frame')
      req = JSON.parse(text)
    } catch {
      this.app.weights.charge(this.ip, MALFORMED_WEIGHT)
      throw new ApiError(400, -1135, 'Invalid JSON Request.')
    }
    if (typeof req !== 'object' || req === null || Array.isArray(req)) {
      this.app.weights.charge(this.ip, MALFORMED_WEIGHT)
      throw new ApiError(400, -1135, 'Invalid JSON Request.')
    }
    const r = req as Record<string, unknown>
    const rawId = r.id
    const idOk = rawId === null || (typeof rawId === 'number' && Number.isSafeInteger(rawId))
      || (typeof rawId === 'string' && rawId.length <= 64)
    if (!idOk) {
      this.app.weights.charge(this.ip, MALFORMED_WEIGHT)
      throw new ApiError(400, -1135, "Invalid JSON Request; 'id' must be an integer or a string of at most 64 characters.")
    }
    return { id: rawId as Id, method: r.method, params: r.params }
  }
}

/** Serves the WebSocket APIs on `app`'s server (its upgrades are handed over by the stream server). */
export function attachWsApi(app: FastifyInstance, users: UserStreams, o: WsApiOptions = {}): WsApi {
  const limits: ConnectionLimits = { ...DEFAULT_LIMITS }
  for (const k of ['maxBufferedBytes', 'pingIntervalMs', 'pongTimeoutMs', 'lifetimeMs', 'closeGraceMs'] as const) {
    const v = o[k]
    if (v !== undefined) limits[k] = v
  }
  const connections = new Set<WsApiConnection>()
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxPayload ?? 64 * 1024 })
  const connectionsMax = o.connectionsMax ?? 10_000
  const clientIp = clientIpOf(app.gatewayCtx.trustProxy ?? [])
  app.addHook('preClose', async () => {
    for (const c of [...connections]) c.close(CLOSE.goingAway, 'Server shutting down')
    for (const c of [...connections]) c.terminate()
    await new Promise<void>((resolve) => wss.close(() => resolve()))
  })
  return {
    connections,
    handleUpgrade(req, socket, head) {
      const path = pathOf(req.url ?? '/')
      const spot = (SPOT_WS_API_PATHS as readonly string[]).includes(path)
      if (!spot && !(WS_API_PATHS as readonly string[]).includes(path)) return false
      if (connections.size >= connectionsMax) {
        const text = JSON.stringify({ code: -1008, msg: 'Server is currently overloaded with other requests. Please try again in a few minutes.' })
        socket.end(`HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`)
        return true
      }
      const query = new URLSearchParams((req.url ?? '').slice(path.length))
      // returnRateLimits=false on the URL leaves rateLimits out of the connection's answers (a request may say otherwise).
      const returnRateLimits = query.get('returnRateLimits')?.toLowerCase()
      // Binance spot's timeUnit (any case): MICROSECOND puts every time of the answers in µs. USD-M's API has none.
      const timeUnit = spot ? query.get('timeUnit') ?? undefined : undefined
      const refusal = returnRateLimits !== undefined && returnRateLimits !== 'true' && returnRateLimits !== 'false' ? invalidParam('returnRateLimits')
        : timeUnit !== undefined && timeUnitNamed(timeUnit) === undefined ? invalidTimeUnit() : undefined
      if (refusal !== undefined) {
        app.refusals.add('ws', refusal.code)
        socket.end(rawJsonResponse(refusal.status, refusal.toBody()))
        return true
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const ip = clientIp(req)
        // Counted with the streams' (the stream server refused the upgrade if the address held its share).
        const closed = app.wsOpen.opened(ip)
        // The app's context (with the processing deadline and read-your-writes), as REST uses.
        connections.add(new WsApiConnection(ws, ip, app, app.gatewayCtx, limits, (c) => { connections.delete(c); closed() },
          spot ? users : undefined, returnRateLimits !== 'false', timeUnit !== undefined && timeUnitNamed(timeUnit) === 'MICROSECOND'))
      })
      return true
    },
  }
}

/** An answer whose result is a page (gateway/pages.ts): its bytes between the answer's other fields, not decoded. */
function spliced(id: Id, status: number, result: JsonBytes, rateLimits: object[] | undefined): Buffer {
  const head = `${JSON.stringify({ id, status }).slice(0, -1)},"result":`
  const tail = rateLimits === undefined ? '}' : `,"rateLimits":${JSON.stringify(rateLimits)}}`
  return Buffer.concat([Buffer.from(head), result.bytes, Buffer.from(tail)])
}
