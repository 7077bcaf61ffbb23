// Opening a node's stores under its data directory and restoring its state.

import path from 'node:path'
import type { Logger } from '../replica/node.js'
import { ReplicaNode } from '../replica/node.js'
import { LevelLogStore } from '../replica/level-log.js'
import { SnapshotStore } from '../replica/snapshot-store.js'
import type { Config } from './config.js'

export interface OpenNode {
  node: ReplicaNode
  log: LevelLogStore
  snapshots: SnapshotStore
  close(): Promise<void>
}

export async function openNode(config: Config, logger: Logger): Promise<OpenNode> {
  const log = new LevelLogStore(path.join(config.dataDir, 'log'), { logger })
  const snapshots = new SnapshotStore(path.join(config.dataDir, 'snapshots'))
  await log.open()
  await snapshots.open()
  const node = new ReplicaNode({ log, snapshots, checkpointInterval: config.checkpointInterval, logger })
  await node.restore()
  logger.info({ seq: node.state.seq, firstSeq: log.firstSeq }, 'state restored')
  return {
    node, log, snapshots,
    async close() {
      await log.close()
      await snapshots.close()
    },
  }
}
