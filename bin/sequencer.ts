// `exchange start` / `exchange sequencer`: a sequencer node with its replication and command
// endpoints, the REST gateway over its state and projections, and /metrics.

import { INGRESS_PATH } from '../replica/ingress.js'
import type { Logger } from '../replica/node.js'
import { REPLICATION_PATH } from '../replica/replication.js'
import type { Config } from './config.js'
import { nodeGauges, serveMetrics } from './metrics.js'
import { readiness, type RunningService } from './readiness.js'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { createFundedAccount, saveDemoAccount } from './demo-account.js'
import { runNode } from './runtime.js'
import { chainEnabled, startChain } from './chain.js'
import type { ChainServices } from '../chain/services.js'
import { serveGateway } from './serve-gateway.js'
import { startPriceFeed } from './price-feed.js'
import { startBot } from './bot.js'

export async function runSequencer(config: Config, logger: Logger, onFatal: (err: Error) => void): Promise<RunningService> {
  const running = await runNode(config, 'sequencer', logger, onFatal)
  let draining = false
  const { node, sequencer, replication, url } = running.replica
  const { app: gateway, ctx, api, gauges: gatewayGauges } = await serveGateway(config, running, (c) => sequencer!.submit(c), logger)
  let chain: ChainServices | undefined
  const gauges = nodeGauges(running, gatewayGauges, () => ({
    exchange_commit_latency_ms: sequencer!.lastCommitMs,
    exchange_ingress_queue: sequencer!.queued,
    exchange_followers: replication!.followers,
    exchange_standbys: replication!.standbys,
    exchange_replicated_seq: replication!.replicated,
    ...chain?.gauges(),
  }))
  const metrics = await serveMetrics(config.host, config.metricsPort, gauges.gauges,
    readiness(running, { standby: false, maxBehindMs: config.readyMaxBehindMs, now: () => Date.now(), draining: () => draining }))
  const secret = ctx.masterSecret
  chain = chainEnabled(config) ? await startChain(config, running, (c) => sequencer!.submit(c), logger) : undefined
  logger.info({ api, rules: node.state.rules, replication: url + REPLICATION_PATH, commands: url + INGRESS_PATH,
    metrics: `http://${config.host}:${config.metricsPort}/metrics` }, 'sequencer running')
  if (config.command === 'start' && !existsSync(path.join(config.dataDir, 'demo-account.json'))) {
    // The embedded default comes with a funded account, so a newcomer can trade at once.
    const demo = await createFundedAccount({ submit: (c) => sequencer!.submit(c), now: () => Date.now(),
      chainId: config.chainId, masterSecret: secret, usdt: 100_000, fundOnChain: chain?.fundOnChain })
    const file = await saveDemoAccount(config.dataDir, demo)
    logger.info({ file, address: demo.address, apiKey: demo.apiKey, secretKey: demo.secretKey }, 'demo account funded')
    process.stdout.write(`\ndemo account (saved in ${file}):\n  API key    ${demo.apiKey}\n  secret key ${demo.secretKey}\n  address    ${demo.address}\n  REST       ${api}\n\n`)
  }
  // `start` publishes index prices itself (unless --price-feed off); a bare sequencer only when
  // --price-feed asks, and otherwise leaves that to an external oracle.
  const feed = await startPriceFeed({ options: config.priceFeed, dataDir: config.dataDir,
    state: () => node.state, submit: (c) => sequencer!.submit(c), now: () => Date.now(), logger })
  // And a market maker quoting around that index, so the books, trades and charts are alive.
  const bot = config.command === 'start' && config.bot.enabled ? await startBot({ api, dataDir: config.dataDir,
    intervalMs: config.bot.intervalMs, chainId: config.chainId, masterSecret: secret, state: () => node.state,
    submit: (c) => sequencer!.submit(c), fundOnChain: chain?.fundOnChain, deployment: chain?.deployment, logger }) : undefined
  return {
    drain() { draining = true },
    async stop() {
      await bot?.stop()
      await feed?.stop()
      await chain?.stop()
      await gateway.close()
      await running.stop()
      await new Promise((r) => metrics.close(r))
      gauges.stop()
    },
  }
}
