// Runs a sequencer node: restores state, writes genesis into an empty log, sequences
// commands with group commit and ticks, serves replication and metrics.

import { genesisCommands, DEFAULT_GENESIS } from '../core/genesis-spec.js'
import { systemClock } from '../replica/clock.js'
import type { Logger } from '../replica/node.js'
import { INGRESS_PATH, serveIngress } from '../replica/ingress.js'
import { REPLICATION_PATH, ReplicationServer } from '../replica/replication.js'
import { Sequencer } from '../replica/sequencer.js'
import { wsNetwork } from '../replica/ws-network.js'
import type { Config } from './config.js'
import { serveMetrics } from './metrics.js'
import { openNode, type OpenNode } from './runtime.js'

export interface RunningSequencer {
  opened: OpenNode
  sequencer: Sequencer
  replicationUrl: string
  stop(): Promise<void>
}

export async function runSequencer(config: Config, logger: Logger, onFatal: (err: Error) => void): Promise<RunningSequencer> {
  const opened = await openNode(config, logger)
  const { node, log } = opened
  const replication = new ReplicationServer({ log, snapshots: opened.snapshots, logger })
  node.onCommitted((c) => replication.publish(c))
  node.onCheckpoint((cp) => {
    logger.info({ seq: cp.seq, root: cp.root }, 'checkpoint')
    replication.publishCheckpoint(cp)
  })
  const sequencer = new Sequencer({
    log, state: node.state, clock: systemClock, tickIntervalMs: config.tickIntervalMs,
    applyEntry: (e) => node.applyEntry(e),
    onCommit: (c) => {
      node.committed(c)
      void node.flushSnapshots().catch(onFatal)
    },
    onFatal,
  })
  sequencer.start()
  if (log.lastSeq === 0) {
    const results = await Promise.all(genesisCommands(DEFAULT_GENESIS).map((c) => sequencer.submit(c)))
    const bad = results.find((r) => !r.result.ok)
    if (bad) throw new Error(`genesis command at seq ${bad.seq} rejected`)
    logger.info({ seq: log.lastSeq }, 'genesis written')
  }
  const listener = await wsNetwork.listen(config.host, config.replicationPort, (conn, path) => {
    if (path === REPLICATION_PATH) replication.attach(conn)
    else if (path === INGRESS_PATH) serveIngress(conn, sequencer)
    else conn.close(`unknown path ${path}`)
  })
  let applied = 0
  node.onCommitted((c) => { applied += c.entries.length })
  const metrics = await serveMetrics(config.host, config.metricsPort, () => ({
    exchange_seq: node.state.seq,
    exchange_applied_entries_total: applied,
    exchange_commit_latency_ms: sequencer.lastCommitMs,
    exchange_ingress_queue: sequencer.queued,
    exchange_followers: replication.followers,
  }))
  logger.info({ replication: listener.url + REPLICATION_PATH, commands: listener.url + INGRESS_PATH, metrics: `http://${config.host}:${config.metricsPort}/metrics` }, 'sequencer running')
  return {
    opened, sequencer, replicationUrl: listener.url + REPLICATION_PATH,
    async stop() {
      await sequencer.stop()
      replication.close()
      await listener.close()
      await new Promise((r) => metrics.close(r))
      await opened.close()
    },
  }
}
