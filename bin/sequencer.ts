// `exchange start` / `exchange sequencer`: a sequencer node with its replication and command
// endpoints, the REST gateway over its state and projections, and /metrics.

import type { AddressInfo } from 'node:net'
import { buildGateway } from '../gateway/app.js'
import { INGRESS_PATH } from '../replica/ingress.js'
import type { Logger } from '../replica/node.js'
import { REPLICATION_PATH } from '../replica/replication.js'
import type { Config } from './config.js'
import { serveMetrics } from './metrics.js'
import { masterSecret, runNode } from './runtime.js'

export async function runSequencer(config: Config, logger: Logger, onFatal: (err: Error) => void): Promise<{ stop(): Promise<void> }> {
  const running = await runNode(config, 'sequencer', logger, onFatal)
  const { node, sequencer, replication, url } = running.replica
  let applied = 0
  node.onCommitted((c) => { applied += c.entries.length })
  const metrics = await serveMetrics(config.host, config.metricsPort, () => ({
    exchange_seq: node.state.seq,
    exchange_applied_entries_total: applied,
    exchange_commit_latency_ms: sequencer!.lastCommitMs,
    exchange_ingress_queue: sequencer!.queued,
    exchange_followers: replication!.followers,
  }))
  const gateway = await buildGateway({
    state: () => node.state, projections: running.projections, submit: (c) => sequencer!.submit(c),
    now: () => Date.now(), network: config.network, chainId: config.chainId,
    masterSecret: await masterSecret(config),
  })
  await gateway.listen({ host: config.host, port: config.port })
  const api = `http://${config.host}:${(gateway.server.address() as AddressInfo).port}`
  logger.info({ api, replication: url + REPLICATION_PATH, commands: url + INGRESS_PATH,
    metrics: `http://${config.host}:${config.metricsPort}/metrics` }, 'sequencer running')
  return {
    async stop() {
      await gateway.close()
      await running.stop()
      await new Promise((r) => metrics.close(r))
    },
  }
}
