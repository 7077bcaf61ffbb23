// The gateway's HTTP application: fastify with Binance's request conventions (query and
// form-body parameters, raw bytes kept for signatures), its error shape for every failure,
// usage headers, one plugin per resource family, and the OpenAPI document built from their schemas.

import Fastify, { type FastifyError, type FastifyInstance } from 'fastify'
import { ApiError, notFound, timeout, unknownError } from './errors.js'
import type { GatewayContext } from './context.js'
import { generalRoutes } from './routes/general.js'
import { accountRoutes } from './routes/account.js'
import { historyDownloadRoutes } from './routes/history-downloads.js'
import { accountConfigRoutes } from './routes/account-config.js'
import { capitalRoutes } from './routes/capital.js'
import { accountStatusRoutes } from './routes/account-status.js'
import { userAssetRoutes } from './routes/user-assets.js'
import { futuresDataRoutes } from './routes/futures-data.js'
import { marketRoutes } from './routes/market.js'
import { registerOpenApi } from './openapi.js'
import { listenKeyRoutes } from './routes/listen-key.js'
import { ListenKeys } from './user-data/listen-keys.js'
import { checkResponses } from './response-check.js'
import { lazySerializers } from './lazy-serializers.js'
import { clientErrorHandler, httpRefusalHooks } from './client-errors.js'
import { positionRoutes } from './routes/positions.js'
import { sessionRoutes } from './routes/session.js'
import { spotTradeRoutes } from './routes/spot-trade.js'
import { tradeRoutes } from './routes/trade.js'
import { algoOrderRoutes } from './routes/algo-orders.js'
import { walletRoutes } from './routes/wallet.js'
import { subAccountRoutes } from './routes/sub-accounts.js'
import { balanceProofRoutes } from './routes/balance-proof.js'
import { timeUnitHooks } from './time-unit.js'
import { corsHooks } from './cors.js'
import { compressionHooks } from './compression.js'
import { fastifyTrustProxy } from './client-ip.js'
import { WeightCounter } from './weights.js'
import { sapiUsageHeaders, sapiWeights } from './sapi.js'
import { OrderCounter } from './order-counter.js'
import { readYourWrites } from './consistency.js'
import { Refusals } from './refusals.js'
import { CONNECTIONS_PER_IP, defaultConnectionsMax, guardConnections } from './connection-guard.js'
import { OpenPerIp } from './open-per-ip.js'

export interface GatewayOptions {
  /** Request body cap, bytes. */
  bodyLimit?: number
  /** How long a command may take to be sequenced and applied before -1007 (spec: 10 s). */
  processingTimeoutMs?: number
  /** How long a request naming a seq (X-EXCHANGE-SEQ) waits for it before 503. */
  readWaitMs?: number
  logger?: boolean
  /**
   * Hears every request answered -1000 (500): an exception in our own code, which the client
   * cannot explain and the operator must see. Default: Fastify's logger (off unless `logger`).
   */
  onServerError?: (err: unknown, what: string) => void
  /** Tests: answer 500 when a response schema loses or changes a field (response-check.ts). */
  checkResponses?: boolean
  /** How long a connection may take to send a request head (default 10 s). */
  headersTimeoutMs?: number
  /** How long a connection may go with nothing sent or received before it is closed (default 2 minutes). */
  idleTimeoutMs?: number
}

/**
 * A sequencer that is overloaded or stopping is busy (503 -1008), not a client error; a command
 * it may or may not have taken is -1007, status unknown.
 */
function submitError(err: unknown): ApiError {
  if (err instanceof ApiError) return err
  const code = (err as { code?: unknown } | null)?.code
  if (code === 'OVERLOADED' || code === 'STOPPED' || code === 'DISCONNECTED') {
    return new ApiError(503, -1008, 'Server is currently overloaded with other requests. Please try again in a few minutes.')
  }
  // Written by a sequencer that stopped before its standbys held it (replica/sequencer.ts).
  if (code === 'OUTCOME_UNKNOWN') return timeout()
  return unknownError()
}

/**
 * The spec abandons processing after 10 s: the client hears -1007 (status unknown, as the
 * command may still be sequenced) rather than waiting on a stalled sequencer. Within that
 * time the answer also waits until the command's seq is readable on this gateway, so the
 * client's next read here sees its write (read-your-writes).
 */
function withDeadline(ctx: GatewayContext, ms: number): GatewayContext {
  return {
    ...ctx,
    submit: (command) => new Promise((resolve, reject) => {
      const deadline = Date.now() + ms
      const timer = setTimeout(() => reject(timeout()), ms)
      ctx.submit(command).then(
        async (a) => {
          const readable = await ctx.applied.until(a.seq, Math.max(0, deadline - Date.now()))
          clearTimeout(timer)
          if (readable) resolve(a)
          else reject(timeout())
        },
        (err: unknown) => { clearTimeout(timer); reject(submitError(err)) },
      )
    }),
  }
}

export async function buildGateway(base: GatewayContext, o: GatewayOptions = {}): Promise<FastifyInstance> {
  const ctx = withDeadline(base, o.processingTimeoutMs ?? 10_000)
  const serializers = lazySerializers()
  const app = Fastify({ logger: o.logger ?? false, bodyLimit: o.bodyLimit ?? 64 * 1024, trustProxy: fastifyTrustProxy(ctx.trustProxy ?? []),
    clientErrorHandler,
    // A connection must send its request head within 10 s (Node's default: 60) and the whole
    // request within 30 (fastify's: never), checked every second: slow senders hold no descriptor
    // for long. One with nothing sent or received for 2 minutes is closed (fastify's default:
    // never): a client that asks for a long answer and never reads it would hold the answer's
    // bytes and the descriptor for good. (WebSocket sockets leave this behind at the upgrade.)
    // No Host on an HTTP/1.1 request is refused by httpRefusalHooks, in Binance's shape, not by
    // Node (400 with no body).
    http: { headersTimeout: o.headersTimeoutMs ?? 10_000, connectionsCheckingInterval: Math.min(1_000, o.headersTimeoutMs ?? 1_000),
      requireHostHeader: false },
    requestTimeout: 30_000,
    connectionTimeout: o.idleTimeoutMs ?? 120_000,
    // A kept-alive connection waiting for its next request is closed after fastify's 72 s (longer
    // than a load balancer's usual 60 s idle time, so the balancer closes first), or the idle
    // time when that is shorter: it is idle too.
    keepAliveTimeout: Math.min(72_000, o.idleTimeoutMs ?? 120_000),
    schemaController: { compilersFactory: { buildSerializer: serializers.factory } } })
  app.decorate('compileSerializers', serializers.compileAll)
  // Request schemas are for the document only: our own code parses and refuses every
  // parameter with Binance's codes. Validating them anyway cost each signed POST with its
  // parameters in the body an Ajv run and a thrown-away Error (its querystring lacks the
  // required timestamp and signature): 4% of the exchange's CPU under order load.
  app.setValidatorCompiler(() => () => true)
  // Bodies stay raw strings: the signature covers them byte for byte; params.ts parses them.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, body))
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body))
  // A JSON body carries no parameters on Binance (query string or form body only), and Binance's
  // own connectors send every request as application/json with an empty body, their parameters
  // in the query string: fastify's JSON parser refused that empty body, so they could not place
  // an order. A JSON body is read as no body.
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, _body, done) => done(null, ''))
  // First, so that every answer to a page, a refusal too, carries its CORS headers.
  corsHooks(app, ctx.corsOrigins ?? '*')
  // A CONNECT, an Expect other than 100-continue, no Host: Node's bodiless answers made Binance's.
  httpRefusalHooks(app)
  // X-MBX-TIME-UNIT: checked on every request, applied to every body before serialization.
  timeUnitHooks(app)

  readYourWrites(app, ctx, o.readWaitMs ?? 5_000)
  const weights = new WeightCounter(ctx.now, ctx.rateLimits?.weight1m)
  app.decorate('weights', weights)
  // The user data streams' keys: the listenKey routes make them, the WebSocket server reads them.
  const sessionLive = (apiKey: string): boolean => {
    const s = ctx.state().sessions.get(apiKey)
    return s !== undefined && s.expiresAt > ctx.now()
  }
  const listenKeys = new ListenKeys(ctx.masterSecret, ctx, sessionLive)
  const spotListenKeys = new ListenKeys(ctx.masterSecret, ctx, sessionLive, 'SPOT')
  app.decorate('listenKeys', listenKeys)
  app.decorate('spotListenKeys', spotListenKeys)
  // Shared with the WebSocket API (gateway/ws-api): one order budget and one context for both.
  const orders = new OrderCounter(ctx.now, ctx.rateLimits)
  app.decorate('orders', orders)
  // Spot orders count apart, as on Binance (spot and futures are separate venues).
  const spotOrders = new OrderCounter(ctx.now, ctx.rateLimits)
  app.decorate('spotOrders', spotOrders)
  app.decorate('gatewayCtx', ctx)
  app.decorate('serverError', o.onServerError ?? ((err: unknown, what: string) => app.log.error({ err }, what)))
  const refusals = new Refusals()
  app.decorate('refusals', refusals)
  const perIp = ctx.rateLimits?.connectionsPerIp ?? CONNECTIONS_PER_IP
  app.decorate('connectionGuard', guardConnections(app.server, { perIp, max: ctx.rateLimits?.connectionsMax ?? defaultConnectionsMax() },
    ctx.trustProxy ?? [], (code) => refusals.add('rest', code)))
  app.decorate('wsOpen', new OpenPerIp(perIp))
  // One per-account budget for every UID-weighted /sapi route, as Binance's UID limit is one.
  const sapi = sapiWeights(ctx)
  app.addHook('onSend', (req, reply, _payload, done) => {
    reply.header('X-MBX-USED-WEIGHT-1M', String(weights.used(req.ip)))
    if (req.url.startsWith('/sapi/')) void reply.headers(sapiUsageHeaders(req, weights, sapi))
    done()
  })

  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    const api = err instanceof ApiError ? err
      : err.statusCode === 413 ? new ApiError(413, -1101, 'Request body too large.')
      : err.statusCode !== undefined && err.statusCode < 500 ? new ApiError(400, -1100, err.message)
      : unknownError()
    if (api.code === -1000) app.serverError(err, `${req.method} ${req.routeOptions.url ?? req.url.split('?')[0]}`)
    if (api.retryAfterSec !== undefined) reply.header('Retry-After', String(api.retryAfterSec))
    if (api.headers !== undefined) void reply.headers(api.headers)
    refusals.add('rest', api.code)
    void reply.status(api.status).send(api.toBody())
  })
  app.setNotFoundHandler((_req, reply) => {
    const api = notFound()
    refusals.add('rest', api.code)
    void reply.status(api.status).send(api.toBody())
  })

  if (o.checkResponses) checkResponses(app)
  // Last of the onSend hooks: it turns the body into bytes no other hook could read.
  compressionHooks(app)
  // Before the routes: the document generator collects them as they register.
  await registerOpenApi(app, weights)
  await app.register(generalRoutes, { ctx, weights })
  await app.register(marketRoutes, { ctx, weights })
  await app.register(futuresDataRoutes, { ctx, weights })
  await app.register(sessionRoutes, { ctx, weights })
  await app.register(accountRoutes, { ctx, weights })
  await app.register(historyDownloadRoutes, { ctx, weights })
  await app.register(tradeRoutes, { ctx, weights, orders })
  await app.register(algoOrderRoutes, { ctx, weights, orders })
  await app.register(walletRoutes, { ctx, weights, sapi })
  await app.register(capitalRoutes, { ctx, weights })
  await app.register(subAccountRoutes, { ctx, weights, sapi })
  await app.register(accountStatusRoutes, { ctx, weights })
  await app.register(balanceProofRoutes, { ctx, weights })
  await app.register(userAssetRoutes, { ctx, weights })
  await app.register(accountConfigRoutes, { ctx, weights })
  await app.register(positionRoutes, { ctx, weights })
  await app.register(spotTradeRoutes, { ctx, weights, orders: spotOrders })
  await app.register(listenKeyRoutes, { ctx, weights, listenKeys, spotListenKeys })
  return app
}
