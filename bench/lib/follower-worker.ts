// A follower in a worker thread for the log benchmark: its own LevelDB log and core state,
// replicating over loopback WebSocket; reports lag samples (ms) when told to stop: from the
// sequencer's stamp (the follower's own figures) and, per applied group, its last seq and
// the epoch time (sub-millisecond, comparable across threads) it was applied at, which the
// benchmark matches with the sequencer's commit times. With `standby`, a synchronous standby.

import { parentPort, workerData } from 'node:worker_threads'
import { systemClock } from '../../replica/clock.js'
import { Follower } from '../../replica/follower.js'
import { LevelLogStore } from '../../replica/level-log.js'
import { ReplicaNode } from '../../replica/node.js'
import { wsNetwork } from '../../replica/ws-network.js'

const { dir, url, standby } = workerData as { dir: string; url: string; standby?: boolean }
const log = new LevelLogStore(dir)
await log.open()
const node = new ReplicaNode({ log })
await node.restore()
/** [last seq, epoch ms] of every group applied. */
const applied: number[] = []
const follower = new Follower({ node, network: wsNetwork, url, clock: systemClock,
  onApplied: (entries) => { applied.push(entries[entries.length - 1]!.seq, performance.timeOrigin + performance.now()) },
  onFatal: (err) => parentPort!.postMessage({ error: err.message }), standby })
follower.start()
parentPort!.postMessage({ ready: true })
parentPort!.on('message', async (m: { stop?: boolean; waitSeq?: number; forget?: boolean }) => {
  if (m.waitSeq !== undefined) {
    // Reached means applied and durable here.
    while (node.state.seq < m.waitSeq || log.lastSeq < m.waitSeq) await new Promise((r) => setTimeout(r, 2))
    // Samples so far were the warm-up's: only what comes after is measured.
    if (m.forget) {
      follower.lagSamplesMs.length = 0
      follower.durableLagSamplesMs.length = 0
      applied.length = 0
    }
    parentPort!.postMessage({ reached: node.state.seq })
  }
  if (m.stop) {
    follower.stop()
    await follower.idle().catch(() => {})
    await log.close()
    parentPort!.postMessage({ lagsMs: follower.lagSamplesMs, durableLagsMs: follower.durableLagSamplesMs, applied, seq: node.state.seq })
  }
})
