// Opening a node's stores under its data directory (log, snapshots, projections) and
// restoring its state; projections are fed from every applied batch and flushed as they go.

import path from 'node:path'
import type { Logger } from '../replica/node.js'
import { ReplicaNode } from '../replica/node.js'
import { LevelLogStore } from '../replica/level-log.js'
import { createProjections, type Projections } from '../replica/projections/index.js'
import { SnapshotStore } from '../replica/snapshot-store.js'
import type { Config } from './config.js'

export interface OpenNode {
  node: ReplicaNode
  log: LevelLogStore
  snapshots: SnapshotStore
  projections: Projections
  close(): Promise<void>
}

export async function openNode(config: Config, logger: Logger): Promise<OpenNode> {
  const log = new LevelLogStore(path.join(config.dataDir, 'log'), { logger })
  const snapshots = new SnapshotStore(path.join(config.dataDir, 'snapshots'))
  await log.open()
  await snapshots.open()
  const projections = await createProjections(path.join(config.dataDir, 'projections'))
  const node = new ReplicaNode({ log, snapshots, checkpointInterval: config.checkpointInterval, logger })
  let flushing: Promise<void> = Promise.resolve()
  node.onCommitted((c) => {
    for (let i = 0; i < c.entries.length; i++) {
      const e = c.entries[i]!
      projections.apply(e.seq, e.time, c.results[i]!.events)
    }
    // Flushes run in order; one per batch keeps queries close behind the log.
    flushing = flushing.then(() => projections.flush()).catch((err: Error) => {
      logger.error({ err: err.message }, 'projections stopped')
    })
  })
  // Projections must see every entry: a snapshot newer than what they hold is not used.
  await node.restore(projections.lastSeq)
  await flushing
  logger.info({ seq: node.state.seq, firstSeq: log.firstSeq, projections: projections.lastSeq }, 'state restored')
  return {
    node, log, snapshots, projections,
    async close() {
      await flushing
      await projections.close()
      await log.close()
      await snapshots.close()
    },
  }
}
