// A replica, generic over its world: `createReplica({ log, network, clock, ... })` composes a
// node (state, checkpoints, snapshots) with either a sequencer (group commit, ticks, command
// ingress and replication endpoints) or a follower. Production passes LevelDB, WebSocket and
// the system clock; the simulator passes its fakes.

import { randomBytes } from 'node:crypto'
import type { Command, SetRules } from '../core/commands.js'
import { RULES_VERSION, seedDue } from '../core/rules.js'
import type { Clock } from './clock.js'
import { Follower } from './follower.js'
import { INGRESS_PATH, serveIngress } from './ingress.js'
import type { LogStore } from './log-store.js'
import type { Connection, Listener, Network } from './network.js'
import { type Checkpoint, ReplicaNode, type Logger, type SnapshotStoreLike } from './node.js'
import { REPLICATION_PATH, ReplicationServer } from './replication.js'
import type { RootSource } from './root-hasher.js'
import { Sequencer } from './sequencer.js'

export type Role =
  | { kind: 'sequencer'; host: string; port: number; tickIntervalMs?: number; genesis?: Command[];
      /** Standbys that must hold a command before it is acknowledged (replication.ts); 0: none. */
      syncReplicas?: number }
  | { kind: 'follower'; url: string; reconnectMs?: number; standby?: boolean }

export interface ReplicaOptions {
  log: LogStore
  network: Network
  clock: Clock
  role: Role
  snapshots?: SnapshotStoreLike
  checkpointInterval?: number
  logger?: Logger
  /** Restore from no snapshot newer than this (a consumer must see every later entry). */
  snapshotSeqMax?: number
  /** Computes checkpoint roots off the applying thread (node.ts); the simulator leaves it out. */
  roots?: RootSource
  /** Lets the caller attach listeners (projections) before the log is replayed. */
  beforeRestore?: (node: ReplicaNode) => void
  onFatal?: (err: Error) => void
  /** A follower: the newest anchored seq and its Vault, as its sequencer announces them (replication.ts). */
  onAnchored?: (seq: number, vault: string) => void
  /**
   * A sequencer: the leaf seed its declaration of salted rules writes (core/rules.ts), 0x hex.
   * 32 random bytes by default; the simulator passes its own so that a seed's run repeats.
   */
  leafSeed?: () => string
}

export interface Replica {
  node: ReplicaNode
  sequencer?: Sequencer
  follower?: Follower
  replication?: ReplicationServer
  /** Base URL of the sequencer's endpoints (replication and command ingress paths below it). */
  url?: string
  /**
   * The newest seq acknowledged or acknowledgeable: durable here (a follower: as listeners hear
   * of it), and on a sequencer with standbys, held by them. Only so far may a sequencer's chain
   * services act on the log: a standby promoted in its place may not hold what lies beyond.
   */
  committedSeq(): number
  stop(): Promise<void>
}

export async function createReplica(o: ReplicaOptions): Promise<Replica> {
  const onFatal = o.onFatal ?? ((err: Error) => { throw err })
  const node = new ReplicaNode({ log: o.log, snapshots: o.snapshots, checkpointInterval: o.checkpointInterval, logger: o.logger,
    roots: o.roots })
  o.beforeRestore?.(node)
  await node.restore(o.snapshotSeqMax)
  o.logger?.info({ seq: node.state.seq, firstSeq: o.log.firstSeq, rules: node.state.rules }, 'state restored')
  const flush = (): void => { void node.flushSnapshots().catch(onFatal) }
  if (o.role.kind === 'follower') {
    const follower = new Follower({ node, network: o.network, url: o.role.url, clock: o.clock, logger: o.logger,
      reconnectMs: o.role.reconnectMs, onFatal, onAnchored: o.onAnchored, standby: o.role.standby })
    follower.start()
    return {
      node, follower, committedSeq: () => o.log.lastSeq,
      async stop() { follower.stop(); await follower.idle().catch(() => {}) },
    }
  }
  const syncReplicas = o.role.syncReplicas ?? 0
  let sequencer: Sequencer | undefined
  const replication = new ReplicationServer({ log: o.log, snapshots: o.snapshots, logger: o.logger, roots: () => node.roots,
    checkpointInterval: node.checkpointInterval, syncReplicas, onReplicated: (seq) => sequencer?.replicatedTo(seq) })
  const committedSeq = (): number => (syncReplicas > 0 ? replication.committedSeq : o.log.lastSeq)
  // A checkpoint's root goes out once its entry is durable (a sequencer that crashed before the
  // write would have announced a root for an entry it never wrote: found by the cluster
  // simulator) and before the batch holding it, so followers hold the root when they get there.
  // A root computed off-thread may come after its batch went out: it goes at once (followers
  // keep roots announced for checkpoints they have not rooted yet, follower.ts).
  const roots: Checkpoint[] = []
  // (With standbys, once replicated: a standby promoted in its place might hold another entry there.)
  node.onCheckpoint((cp) => {
    if (cp.seq <= committedSeq()) replication.publishCheckpoint(cp)
    else roots.push(cp)
  })
  node.onCommitted((c) => {
    const last = c.entries[c.entries.length - 1]!.seq
    while (roots.length > 0 && roots[0]!.seq <= last) replication.publishCheckpoint(roots.shift()!)
    replication.publish(c)
  })
  const seq = new Sequencer({
    log: o.log, state: node.state, clock: o.clock, tickIntervalMs: o.role.tickIntervalMs,
    applyEntry: (e) => node.applyEntry(e), gate: node.gate,
    onCommit: (c) => { node.committed(c); flush() },
    replicated: syncReplicas > 0 ? { onDurable: (c) => replication.publishDurable(c) } : undefined,
    onFatal,
  })
  sequencer = seq
  seq.start()
  const fresh = o.log.lastSeq === 0
  // With standbys, even the rules and genesis below wait for one to hold them: the replication
  // port opens first. Commands from gateways wait until those are written.
  let ready = false
  const serve = (conn: Connection, path: string): void => {
    if (path === REPLICATION_PATH) replication.attach(conn)
    else if (path === INGRESS_PATH && ready) serveIngress(conn, seq)
    else if (path === INGRESS_PATH) conn.close('the sequencer is starting')
    else conn.close(`unknown path ${path}`)
  }
  const early = syncReplicas > 0 ? await o.network.listen(o.role.host, o.role.port, serve) : undefined
  if (early) {
    o.logger?.info({ syncReplicas, url: early.url + REPLICATION_PATH }, 'waiting for standbys to hold each command')
    // A log this node wrote before may end in entries no standby holds: one entry more, held by
    // them, holds the rest (their chain reaches it), and only then do other followers get any.
    if (!fresh) await seq.submit({ type: 'Tick' })
  }
  // The rules this build applies hold from here on (core/rules.ts): declared first on a new log,
  // and at the first start of a newer build on an older one.
  if (node.state.rules < RULES_VERSION) {
    const declaration: SetRules = { type: 'SetRules', version: RULES_VERSION }
    // The secret every later root's leaf salts derive from: in the log, and nowhere a user reads.
    if (seedDue(node.state, RULES_VERSION)) declaration.leafSeed = o.leafSeed?.() ?? `0x${randomBytes(32).toString('hex')}`
    const ack = await seq.submit(declaration)
    if (!ack.result.ok) throw new Error(`rules ${RULES_VERSION} not declared at seq ${ack.seq}: ${ack.result.code}`)
    o.logger?.info({ seq: ack.seq, rules: RULES_VERSION }, 'rules declared')
  }
  if (fresh && o.role.genesis) {
    const acks = await Promise.all(o.role.genesis.map((c) => seq.submit(c)))
    const bad = acks.find((a) => !a.result.ok)
    if (bad) throw new Error(`genesis command at seq ${bad.seq} rejected: ${bad.result.ok ? '' : bad.result.code}`)
  }
  ready = true
  const listener: Listener = early ?? await o.network.listen(o.role.host, o.role.port, serve)
  return {
    node, sequencer: seq, replication, url: listener.url, committedSeq,
    async stop() {
      await seq.stop()
      replication.close()
      await listener.close()
      await node.rootsDelivered()
      await node.flushSnapshots()
    },
  }
}
