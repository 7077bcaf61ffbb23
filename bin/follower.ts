// Runs a follower node: restores state from its own log, then replicates from a sequencer.

import { systemClock } from '../replica/clock.js'
import { Follower } from '../replica/follower.js'
import type { Logger } from '../replica/node.js'
import { wsNetwork } from '../replica/ws-network.js'
import type { Config } from './config.js'
import { serveMetrics } from './metrics.js'
import { openNode } from './runtime.js'

export async function runFollower(config: Config, logger: Logger, onFatal: (err: Error) => void): Promise<{ follower: Follower; stop(): Promise<void> }> {
  const opened = await openNode(config, logger)
  const { node } = opened
  node.onCheckpoint((cp) => logger.info({ seq: cp.seq, root: cp.root }, 'checkpoint'))
  let applied = 0
  node.onCommitted((c) => { applied += c.entries.length })
  const follower = new Follower({ node, network: wsNetwork, url: config.follow, clock: systemClock, logger, onFatal })
  follower.start()
  const metrics = await serveMetrics(config.host, config.metricsPort, () => ({
    exchange_seq: node.state.seq,
    exchange_applied_entries_total: applied,
    exchange_follower_lag_ms: follower.lastLagMs,
  }))
  logger.info({ follow: config.follow }, 'follower running')
  return {
    follower,
    async stop() {
      follower.stop()
      await follower.idle().catch(() => {})
      await new Promise((r) => metrics.close(r))
      await opened.close()
    },
  }
}
