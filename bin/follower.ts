// `exchange replica --follow <url>`: a follower node with /metrics and its own REST gateway,
// which reads the follower's state and sends commands to the sequencer's ingress. With --etcd
// it finds the sequencer there, and a --standby elected to lead becomes the sequencer in place:
// its gateway then submits to its own sequencer, and it runs the chain services (with --rpc) and
// the embedded oracle (with --price-feed), which registers this node's key for every pair.

import type { Command } from '../core/commands.js'
import { IngressLink, sequencerBaseOf } from '../replica/ingress-link.js'
import type { Logger } from '../replica/node.js'
import type { Acknowledged } from '../replica/sequencer.js'
import type { ChainServices } from '../chain/services.js'
import { chainEnabled, startChain } from './chain.js'
import type { Config } from './config.js'
import { nodeGauges, serveMetrics } from './metrics.js'
import { readiness, type RunningService } from './readiness.js'
import { startPriceFeed, type PriceFeed } from './price-feed.js'
import { runNode } from './runtime.js'
import { serveGateway } from './serve-gateway.js'

export async function runFollower(config: Config, logger: Logger, onFatal: (err: Error) => void): Promise<RunningService> {
  const running = await runNode(config, 'follower', logger, onFatal)
  let draining = false
  const { replica } = running
  const { follower } = replica
  const election = replica.election
  const ingress = new IngressLink(running.network, election ? async () => {
    const leader = await election.leader()
    if (!leader) throw new Error('no sequencer leads')
    return sequencerBaseOf(leader.url)
  } : sequencerBaseOf(config.follow))
  let submit = (c: Command): Promise<Acknowledged> => ingress.submit(c)
  const { app: gateway, api, gauges: gatewayGauges } = await serveGateway(config, running, (c) => submit(c), logger)
  // Once this standby leads and its chain services run: what the operator has left for gas.
  let chainGauges = (): Record<string, number> => ({})
  const gauges = nodeGauges(running, gatewayGauges, () => ({
    exchange_follower_lag_ms: follower!.lastLagMs,
    exchange_follower_checkpoints_matched_total: follower!.checkpointsMatched,
    exchange_follower_checkpoint_matched_seq: follower!.lastMatchedSeq,
    exchange_follower_held_entries: follower!.heldEntries,
    ...chainGauges(),
  }))
  const metrics = await serveMetrics(config.host, config.metricsPort, gauges.gauges,
    readiness(running, { standby: config.standby, maxBehindMs: config.readyMaxBehindMs, now: () => Date.now(), draining: () => draining }))
  let chain: Promise<ChainServices> | undefined
  let feed: Promise<PriceFeed | undefined> | undefined
  replica.onPromoted(() => {
    const sequencer = replica.sequencer!
    submit = (c) => sequencer.submit(c)
    ingress.close()
    logger.info({ epoch: replica.node.state.epoch, url: replica.url, api }, 'this standby now leads: sequencer running')
    if (chainEnabled(config)) chain = startChain(config, running, (c) => sequencer.submit(c), logger)
    chain?.then((services) => { chainGauges = () => services.gauges() }, onFatal)
    // The oracle follows the lead; a feed that cannot start leaves the node leading without it.
    feed = startPriceFeed({ options: config.priceFeed, dataDir: config.dataDir, state: () => replica.node.state,
      submit: (c) => sequencer.submit(c), now: () => Date.now(), logger })
      .catch((err: Error) => { logger.error({ err: err.message }, 'price feed not started'); return undefined })
  })
  logger.info({ follow: config.follow || undefined, etcd: config.election.etcd.length > 0 ? config.election.etcd : undefined,
    standby: config.standby, api }, 'follower running')
  return {
    drain() { draining = true },
    async stop() {
      await (await feed)?.stop()
      await (await chain?.catch(() => undefined))?.stop()
      await gateway.close()
      ingress.close()
      await running.stop()
      await new Promise((r) => metrics.close(r))
      gauges.stop()
    },
  }
}
