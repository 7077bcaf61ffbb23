// A sequencer serving replication over loopback WebSocket, and the pieces follower tests
// share: a log whose appends the test holds, and a bounded wait.

import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { Command } from '../../core/commands.js'
import { DEFAULT_GENESIS, genesisCommands } from '../../core/genesis-spec.js'
import { systemClock } from '../../replica/clock.js'
import type { LogEntry } from '../../replica/entry.js'
import { MemoryLogStore } from '../../replica/memory-log.js'
import { ReplicaNode, type Logger } from '../../replica/node.js'
import { REPLICATION_PATH, ReplicationServer } from '../../replica/replication.js'
import type { RootSource } from '../../replica/root-hasher.js'
import { Sequencer } from '../../replica/sequencer.js'
import { SnapshotStore } from '../../replica/snapshot-store.js'
import { wsNetwork } from '../../replica/ws-network.js'

export interface Teardown { teardown(fn: () => unknown): void }

export const A = '0x' + 'a'.repeat(40)
export const deposit = (n: number): Command =>
  ({ type: 'Deposit', account: A, sub: 0, asset: 'USDT', amount: 1000 + n, wallet: 'PERP', ref: `d${n}` })
/** A resting limit order of A's (buys at 40,000.0 and sells at 70,000.0 never cross). */
export const order = (n: number): Command => ({ type: 'PlaceOrder', account: A, sub: 0, marketId: 1, side: n % 2 ? 'BUY' : 'SELL',
  orderType: 'LIMIT', priceTicks: n % 2 ? 400_000 : 700_000, qtyLots: 1, clientOrderId: `c${n}` })

/**
 * A sequencer on a memory log at genesis, serving replication on a loopback port. With
 * `syncReplicas` it acknowledges only what that many standbys hold, so it starts without genesis
 * (nothing could be acknowledged before a standby connects): the test submits `genesis`.
 */
export async function leader(t: Teardown, o: { snapshots?: SnapshotStore; checkpointInterval?: number; roots?: RootSource;
  syncReplicas?: number; batchMax?: number; ingressQueueMax?: number; logger?: Logger; epoch?: number } = {}) {
  const log = new MemoryLogStore()
  await log.open()
  const node = new ReplicaNode({ log, snapshots: o.snapshots, checkpointInterval: o.checkpointInterval ?? 10, roots: o.roots })
  const sync = o.syncReplicas ?? 0
  let seq: Sequencer | undefined
  const server = new ReplicationServer({ log, snapshots: o.snapshots, roots: () => node.roots, checkpointInterval: node.checkpointInterval,
    syncReplicas: sync, onReplicated: (s) => seq?.replicatedTo(s), logger: o.logger, epoch: o.epoch })
  node.onCommitted((c) => server.publish(c))
  node.onCheckpoint((cp) => server.publishCheckpoint(cp))
  seq = new Sequencer({ log, state: node.state, clock: systemClock, applyEntry: (e) => node.applyEntry(e),
    onCommit: (c) => { node.committed(c); void node.flushSnapshots() }, batchMax: o.batchMax, ingressQueueMax: o.ingressQueueMax,
    replicated: sync > 0 ? { onDurable: (c) => server.publishDurable(c) } : undefined })
  const sequencer = seq
  const listener = await wsNetwork.listen('127.0.0.1', 0, (conn) => server.attach(conn))
  t.teardown(async () => { server.close(); await listener.close(); await sequencer.stop() })
  const submit = (cs: Command[]) => Promise.all(cs.map((c) => sequencer.submit(c)))
  const genesis = () => submit(genesisCommands(DEFAULT_GENESIS))
  if (sync === 0) await genesis()
  return { log, node, server, seq: sequencer, submit, genesis, url: listener.url + REPLICATION_PATH, base: listener.url }
}

/** A memory log whose appends wait until the test opens the gate, counting them. */
export class GatedLog extends MemoryLogStore {
  private gate: Promise<void> = Promise.resolve()
  release: () => void = () => {}
  appends: number[] = []
  hold(): void { this.gate = new Promise((r) => { this.release = r }) }
  override async append(entries: LogEntry[], committed?: number): Promise<void> {
    await this.gate
    this.appends.push(entries.length)
    return super.append(entries, committed)
  }
}

/** Waits until `cond` holds; throws after `ms`. */
export async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached')
    await new Promise((r) => setTimeout(r, 5))
  }
}

/**
 * A sequencer with snapshots whose log no longer reaches back to genesis: 40 deposits, then
 * everything up to its newest snapshot dropped. `snapshotSeq`: where the retained log starts after.
 */
export async function truncatedLeader(t: Teardown) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'snap-'))
  const snapshots = new SnapshotStore(dir)
  await snapshots.open()
  t.teardown(async () => { await snapshots.close(); await rm(dir, { recursive: true, force: true }) })
  const L = await leader(t, { snapshots })
  await L.submit(Array.from({ length: 40 }, (_, i) => deposit(i)))
  // A checkpoint is saved once its entry is durable: waiting for the state alone let the
  // last one be saved after `latest` was read (and a follower install that one instead).
  await until(() => L.node.state.seq >= 40 && L.log.lastSeq >= L.node.state.seq)
  await L.node.flushSnapshots()
  const latest = (await snapshots.latest())!
  await L.log.dropBefore(latest.meta.seq + 1)
  return { L, snapshotSeq: latest.meta.seq }
}
