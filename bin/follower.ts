// `exchange replica --follow <url>`: a follower node with /metrics.

import type { Logger } from '../replica/node.js'
import type { Config } from './config.js'
import { serveMetrics } from './metrics.js'
import { runNode } from './runtime.js'

export async function runFollower(config: Config, logger: Logger, onFatal: (err: Error) => void): Promise<{ stop(): Promise<void> }> {
  const running = await runNode(config, 'follower', logger, onFatal)
  const { node, follower } = running.replica
  let applied = 0
  node.onCommitted((c) => { applied += c.entries.length })
  const metrics = await serveMetrics(config.host, config.metricsPort, () => ({
    exchange_seq: node.state.seq,
    exchange_applied_entries_total: applied,
    exchange_follower_lag_ms: follower!.lastLagMs,
  }))
  logger.info({ follow: config.follow }, 'follower running')
  return {
    async stop() {
      await running.stop()
      await new Promise((r) => metrics.close(r))
    },
  }
}
