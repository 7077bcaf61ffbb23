// Shadow replicas over the sequencer's final log, each reaching its state another way: one
// restarts (restores from its snapshots and log) before every batch of a window, one sees only the log
// and replays it from genesis (checking the core's invariants and id sequences as it goes, and
// after every batch that no account is below maintenance unless in liquidation),
// one starts from a snapshot. All must pass every checkpoint with the same root and end at
// the sequencer's root.

import type { Result } from '../core/events.js'
import type { LogEntry } from '../replica/entry.js'
import { ReplicaNode } from '../replica/node.js'
import { stateRoot } from '../core/root.js'
import type { Checks } from './checkers.js'
import { IdMonitor, maintenanceViolations } from './model/invariants.js'
import { SimDisk, SimLogStore, SimSnapshotStore, type DiskIo } from './world/disk.js'

/** Writes that sync at once: shadows run outside the event loop. */
const instant: DiskIo = { syncMs: () => 0, after: (_ms, fn) => { queueMicrotask(fn); return { cancel() {} } } }

async function openStore(disk: SimDisk): Promise<SimLogStore> {
  const store = new SimLogStore(disk, instant)
  await store.open()
  return store
}

function finalRoot(checks: Checks, name: string, node: ReplicaNode, root: string, lastSeq: number): void {
  if (node.state.seq !== lastSeq) checks.fail(`${name} ended at seq ${node.state.seq}, the log at ${lastSeq}`)
  const r = stateRoot(node.state)
  if (r !== root) checks.fail(`${name} ends with root ${r}, the sequencer with ${root}`)
}

/**
 * `restartFrom` and `restartBatches` choose the window of batches the restarting shadow
 * restarts before (the seed picks where it starts); `seen` gets every entry with its result once.
 */
export async function runShadows(checks: Checks, source: SimDisk, interval: number, root: string,
  restartFrom: number, restartBatches: number, seen?: (e: LogEntry, r: Result) => void): Promise<void> {
  const batches: LogEntry[][] = source.batches.map((b) => b.slice())
  const lastSeq = source.last().seq

  // Log only, from genesis, checking invariants at each batch that crosses a checkpoint.
  {
    const disk = new SimDisk()
    disk.batches = batches.slice()
    const node = new ReplicaNode({ log: await openStore(disk), checkpointInterval: interval })
    checks.watch('shadow-log', node)
    const ids = new IdMonitor()
    node.onCommitted((c) => {
      for (let i = 0; i < c.entries.length; i++) {
        for (const v of ids.see(c.entries[i]!, c.results[i]!)) checks.fail(`shadow-log: ${v}`)
        seen?.(c.entries[i]!, c.results[i]!)
      }
      // Liquidation keeps every account above maintenance (checked after each batch; cheap: a few accounts).
      for (const v of maintenanceViolations(node.state).slice(0, 3)) checks.fail(`shadow-log at seq ${node.state.seq}: ${v}`)
      const first = c.entries[0]!.seq
      const last = c.entries[c.entries.length - 1]!.seq
      if (Math.floor(last / interval) > Math.floor((first - 1) / interval)) checks.invariants('shadow-log', node.state)
    })
    await node.restore()
    finalRoot(checks, 'shadow-log', node, root, lastSeq)
  }

  // Restarted before every batch of a window (a restart decodes a snapshot and recomputes its
  // root, ~10 ms, so the window keeps a seed's cost bounded); plain appends outside it.
  {
    const disk = new SimDisk()
    const from = Math.max(0, Math.min(restartFrom, batches.length - restartBatches))
    let log = await openStore(disk)
    let node = new ReplicaNode({ log, snapshots: new SimSnapshotStore(disk), checkpointInterval: interval })
    checks.watch('shadow-restart', node)
    await node.restore()
    for (let i = 0; i < batches.length; i++) {
      if (i >= from && i < from + restartBatches) {
        await log.close()
        log = await openStore(disk)
        node = new ReplicaNode({ log, snapshots: new SimSnapshotStore(disk), checkpointInterval: interval })
        checks.watch('shadow-restart', node)
        await node.restore()
      }
      await log.append(batches[i]!)
      node.applyBatch(batches[i]!)
      await node.flushSnapshots()
    }
    finalRoot(checks, 'shadow-restart', node, root, lastSeq)
  }

  // From the oldest snapshot the sequencer kept, then the log after it.
  {
    const snaps = [...source.snapshots.values()].sort((a, b) => a.meta.seq - b.meta.seq)
    const snap = snaps[0]
    if (snap === undefined) return
    const disk = new SimDisk()
    disk.snapshots.set(snap.meta.seq, snap)
    disk.base = { seq: snap.meta.seq, hash: Buffer.from(snap.meta.hash, 'hex') }
    for (const b of batches) {
      const rest = b.filter((e) => e.seq > snap.meta.seq)
      if (rest.length > 0) disk.batches.push(rest)
    }
    const node = new ReplicaNode({ log: await openStore(disk), snapshots: new SimSnapshotStore(disk), checkpointInterval: interval })
    checks.watch('shadow-snapshot', node)
    await node.restore()
    finalRoot(checks, 'shadow-snapshot', node, root, lastSeq)
  }
}
