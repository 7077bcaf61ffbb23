// The gateway's HTTP application: fastify with Binance's request conventions (query and
// form-body parameters, raw bytes kept for signatures), its error shape for every failure,
// usage headers, and one plugin per resource family.

import Fastify, { type FastifyError, type FastifyInstance } from 'fastify'
import { ApiError, notFound, timeout, unknownError } from './errors.js'
import type { GatewayContext } from './context.js'
import { generalRoutes } from './routes/general.js'
import { accountRoutes } from './routes/account.js'
import { marketRoutes } from './routes/market.js'
import { positionRoutes } from './routes/positions.js'
import { sessionRoutes } from './routes/session.js'
import { spotTradeRoutes } from './routes/spot-trade.js'
import { tradeRoutes } from './routes/trade.js'
import { walletRoutes } from './routes/wallet.js'
import { WeightCounter } from './weights.js'

export interface GatewayOptions {
  /** Request body cap, bytes. */
  bodyLimit?: number
  /** How long a command may take to be sequenced and applied before -1007 (spec: 10 s). */
  processingTimeoutMs?: number
  logger?: boolean
}

/** A sequencer that is overloaded or stopping is busy (503 -1008), not a client error. */
function submitError(err: unknown): ApiError {
  if (err instanceof ApiError) return err
  const code = (err as { code?: unknown } | null)?.code
  if (code === 'OVERLOADED' || code === 'STOPPED' || code === 'DISCONNECTED') {
    return new ApiError(503, -1008, 'Server is currently overloaded with other requests. Please try again in a few minutes.')
  }
  return unknownError()
}

/**
 * The spec abandons processing after 10 s: the client hears -1007 (status unknown, as the
 * command may still be sequenced) rather than waiting on a stalled sequencer.
 */
function withDeadline(ctx: GatewayContext, ms: number): GatewayContext {
  return {
    ...ctx,
    submit: (command) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(timeout()), ms)
      ctx.submit(command).then(
        (a) => { clearTimeout(timer); resolve(a) },
        (err: unknown) => { clearTimeout(timer); reject(submitError(err)) },
      )
    }),
  }
}

export async function buildGateway(base: GatewayContext, o: GatewayOptions = {}): Promise<FastifyInstance> {
  const ctx = withDeadline(base, o.processingTimeoutMs ?? 10_000)
  const app = Fastify({ logger: o.logger ?? false, bodyLimit: o.bodyLimit ?? 64 * 1024, trustProxy: false })
  // Bodies stay raw strings: the signature covers them byte for byte; params.ts parses them.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, body))
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body))

  const weights = new WeightCounter(ctx.now)
  app.decorate('weights', weights)
  app.addHook('onSend', async (req, reply) => {
    reply.header('X-MBX-USED-WEIGHT-1M', String(weights.used(req.ip)))
  })

  app.setErrorHandler((err: FastifyError | ApiError, _req, reply) => {
    const api = err instanceof ApiError ? err
      : err.statusCode === 413 ? new ApiError(413, -1101, 'Request body too large.')
      : err.statusCode !== undefined && err.statusCode < 500 ? new ApiError(400, -1100, err.message)
      : unknownError()
    if (api.retryAfterSec !== undefined) reply.header('Retry-After', String(api.retryAfterSec))
    void reply.status(api.status).send(api.toBody())
  })
  app.setNotFoundHandler((_req, reply) => {
    const api = notFound()
    void reply.status(api.status).send(api.toBody())
  })

  await app.register(generalRoutes, { ctx, weights })
  await app.register(marketRoutes, { ctx, weights })
  await app.register(sessionRoutes, { ctx, weights })
  await app.register(accountRoutes, { ctx, weights })
  await app.register(tradeRoutes, { ctx, weights })
  await app.register(walletRoutes, { ctx, weights })
  await app.register(positionRoutes, { ctx, weights })
  await app.register(spotTradeRoutes, { ctx, weights })
  return app
}
