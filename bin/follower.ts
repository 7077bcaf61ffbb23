// `exchange replica --follow <url>`: a follower node with /metrics and its own REST gateway,
// which reads the follower's state and sends commands to the sequencer's ingress.

import { IngressLink, sequencerBaseOf } from '../replica/ingress-link.js'
import type { Logger } from '../replica/node.js'
import type { Config } from './config.js'
import { nodeGauges, serveMetrics } from './metrics.js'
import { runNode } from './runtime.js'
import { serveGateway } from './serve-gateway.js'

export async function runFollower(config: Config, logger: Logger, onFatal: (err: Error) => void): Promise<{ stop(): Promise<void> }> {
  const running = await runNode(config, 'follower', logger, onFatal)
  const { follower } = running.replica
  const ingress = new IngressLink(running.network, sequencerBaseOf(config.follow))
  const { app: gateway, api, requestTime } = await serveGateway(config, running, (c) => ingress.submit(c), logger)
  const gauges = nodeGauges(running, requestTime, () => ({
    exchange_follower_lag_ms: follower!.lastLagMs,
    exchange_follower_checkpoints_matched_total: follower!.checkpointsMatched,
    exchange_follower_checkpoint_matched_seq: follower!.lastMatchedSeq,
  }))
  const metrics = await serveMetrics(config.host, config.metricsPort, gauges.gauges)
  logger.info({ follow: config.follow, api }, 'follower running')
  return {
    async stop() {
      await gateway.close()
      ingress.close()
      await running.stop()
      await new Promise((r) => metrics.close(r))
      gauges.stop()
    },
  }
}
