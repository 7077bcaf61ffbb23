// The REST gateway over a running node: its state, projections and readable seq, with
// commands going to `submit` (the sequencer in this process, or a remote one by ingress).

import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { Command } from '../core/commands.js'
import { buildGateway } from '../gateway/app.js'
import type { GatewayContext } from '../gateway/context.js'
import { attachStreams } from '../gateway/ws/attach.js'
import type { Acknowledged } from '../replica/sequencer.js'
import type { Logger } from '../replica/node.js'
import type { Config } from './config.js'
import { gatewayGauges, requestTime, type Gauges } from './metrics.js'
import { masterSecret } from './master-secret.js'
import type { RunningNode } from './runtime.js'

export interface ServedGateway {
  app: FastifyInstance
  ctx: GatewayContext
  /** The API's base URL. */
  api: string
  /** The gateway's gauges for /metrics: request time, responses by status, refusals, WebSocket connections. */
  gauges: Gauges
}

export async function serveGateway(config: Config, running: RunningNode,
  submit: (c: Command) => Promise<Acknowledged>, logger: Logger): Promise<ServedGateway> {
  const node = running.replica.node
  const ctx: GatewayContext = {
    state: () => node.state, projections: running.projections, submit, applied: running.applied,
    now: () => Date.now(), network: config.network, chainId: config.chainId,
    masterSecret: await masterSecret(config), rateLimits: config.rateLimits, corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
    onCommitted: (listener) => running.onCommitted(listener),
    balanceProofs: running.proofs,
  }
  const app = await buildGateway(ctx, { readWaitMs: config.readWaitMs,
    onServerError: (err, what) => logger.error({ err: err instanceof Error ? err.stack : String(err), request: what }, 'request failed: answered -1000') })
  const timing = requestTime(app)
  const streams = attachStreams(app, ctx, { fanOut: config.wsFanOut ?? 'process' })
  const served = gatewayGauges(app, streams)
  await app.listen({ host: config.host, port: config.port })
  return { app, ctx, api: `http://${config.host}:${(app.server.address() as AddressInfo).port}`,
    gauges: () => ({ ...timing.gauges(), ...served() }) }
}
