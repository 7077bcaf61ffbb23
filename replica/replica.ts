// A replica, generic over its world: `createReplica({ log, network, clock, ... })` composes a
// node (state, checkpoints, snapshots) with either a sequencer (group commit, ticks, command
// ingress and replication endpoints) or a follower; with an election (etcd), a standby becomes
// the sequencer in place when elected. Production passes LevelDB, WebSocket and
// the system clock; the simulator passes its fakes.

import { randomBytes } from 'node:crypto'
import type { Command, SetRules } from '../core/commands.js'
import { RULES_VERSION, seedDue } from '../core/rules.js'
import type { Clock } from './clock.js'
import { Failover } from './failover.js'
import { Follower } from './follower.js'
import { INGRESS_PATH, serveIngress } from './ingress.js'
import { EpochBehindError, type Leadership } from './leadership.js'
import type { LogStore } from './log-store.js'
import type { Connection, Listener, Network } from './network.js'
import { type Checkpoint, ReplicaNode, type Logger, type SnapshotStoreLike } from './node.js'
import { REPLICATION_PATH, ReplicationServer } from './replication.js'
import type { RootSource } from './root-hasher.js'
import { Sequencer } from './sequencer.js'

export interface SequencerRole {
  kind: 'sequencer'; host: string; port: number; tickIntervalMs?: number; genesis?: Command[]
  /** Standbys that must hold a command before it is acknowledged (replication.ts); 0: none. */
  syncReplicas?: number
}

export type Role =
  | SequencerRole
  | { kind: 'follower'; url: string; reconnectMs?: number; standby?: boolean }

/**
 * Leadership through a consensus service (leadership.ts): a sequencer serves only once it holds
 * the lease, and stops if it loses it; followers find the leader there; a standby takes the lead
 * when its leader's lease lapses and the vote names it: newest term, then longest log (failover.ts).
 */
export interface Election {
  leadership: Leadership
  /** How often a standby looks at who leads. */
  pollMs: number
  /** What a standby becomes when elected (its host and port for replication and commands). */
  promoted?: Omit<SequencerRole, 'kind' | 'genesis'>
}

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
  /**
   * A standby: the newest seq its listeners (projections kept on disk) already hold. What its log
   * holds past it was written before it stopped and may never have been committed: replayed into
   * its state, it is held from them until its sequencer says it is (follower.ts). Unset: none held.
   */
  listenersSeq?: number
  /**
   * A follower whose listeners must see every entry (the CLI's projections): a snapshot the
   * sequencer sends in place of entries its log no longer holds, from `neededFrom` on, is
   * refused rather than installed, stopping the follower with this error (follower.ts). Unset:
   * installed.
   */
  everyEntry?: (neededFrom: number, snapshotSeq: number) => string
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
  election?: Election
}

export interface Replica {
  node: ReplicaNode
  /** A sequencer's parts; a standby's too, once elected (onPromoted). */
  sequencer?: Sequencer
  follower?: Follower
  replication?: ReplicationServer
  /** Base URL of the sequencer's endpoints (replication and command ingress paths below it). */
  url?: string
  /** Who leads, when a consensus service says (ReplicaOptions.election). */
  election?: Leadership
  /** A standby: called once it leads, with its sequencer running. */
  onPromoted(fn: () => void): void
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
  const standby = o.role.kind === 'follower' && o.role.standby === true
  const held = await node.restore(o.snapshotSeqMax, standby ? o.listenersSeq : undefined)
  const heldEntries = held.reduce((n, g) => n + g.entries.length, 0)
  o.logger?.info({ seq: node.state.seq, firstSeq: o.log.firstSeq, rules: node.state.rules, heldEntries: heldEntries || undefined }, 'state restored')
  const election = o.election
  if (o.role.kind === 'follower') {
    const leader = election && (() => election.leadership.leader())
    const follower = new Follower({ node, network: o.network, url: o.role.url, clock: o.clock, logger: o.logger,
      reconnectMs: o.role.reconnectMs, onFatal, onAnchored: o.onAnchored, standby: o.role.standby, leader, held, everyEntry: o.everyEntry })
    const promoted: (() => void)[] = []
    let parts: SequencerParts | undefined
    const failover = election?.promoted && o.role.standby ? new Failover({
      leadership: election.leadership, clock: o.clock, pollMs: election.pollMs, follower, log: o.log, logger: o.logger, onFatal,
      epoch: () => node.state.epoch,
      promote: async () => {
        const role: SequencerRole = { kind: 'sequencer', ...election.promoted! }
        // Once its claim is won its log is the one that goes on: what it held back from its
        // listeners (not yet committed by the old leader) goes out before anything it writes.
        parts = await startSequencer(node, o, role, onFatal, election.leadership, () => follower.releaseHeld())
        Object.assign(replica, { sequencer: parts.sequencer, replication: parts.replication, url: parts.url })
        for (const fn of promoted) fn()
      },
    }) : undefined
    const replica: Replica = {
      node, follower, election: election?.leadership,
      committedSeq: () => parts?.committedSeq() ?? o.log.lastSeq,
      onPromoted: (fn) => { promoted.push(fn) },
      async stop() {
        failover?.stop()
        follower.stop()
        await follower.idle().catch(() => {})
        await parts?.stop()
        // Its lease goes last, once it sequences no more: leading, a standby then takes over at once.
        if (failover) await election!.leadership.stop()
      },
    }
    if (failover) failover.start()
    else follower.start()
    return replica
  }
  if (election) await election.leadership.startWhenReachable(election.pollMs)
  const parts = await startSequencer(node, o, o.role, onFatal, election?.leadership)
    .catch(async (err: unknown) => { await election?.leadership.stop(); throw err })
  return {
    node, sequencer: parts.sequencer, replication: parts.replication, url: parts.url,
    election: election?.leadership, committedSeq: () => parts.committedSeq(), onPromoted: () => {},
    async stop() {
      await parts.stop()
      // Its lease goes with it: a standby takes over at once rather than when it would lapse.
      await election?.leadership.stop()
    },
  }
}

/**
 * Writes the Lead entry of this leader's term (core/term.ts) and, once its standbys hold it
 * (the acknowledgement), leaves the standbys an election waits for (Leadership.termOpen).
 */
async function openTerm(sequencer: Sequencer, replica: ReplicaNode, epoch: number, leadership: Leadership): Promise<void> {
  const held = replica.state.epoch
  const ack = await sequencer.submit({ type: 'Lead', epoch, node: leadership.node })
  if (ack.result.ok) return leadership.termOpen()
  if (held >= epoch) throw new EpochBehindError(held, epoch)
  throw new Error(`term of epoch ${epoch} not opened at seq ${ack.seq}: ${ack.result.code}`)
}

interface SequencerParts {
  sequencer: Sequencer
  replication: ReplicationServer
  url: string
  committedSeq(): number
  stop(): Promise<void>
}

/**
 * The sequencer's side on a restored node: group commit, ticks, replication and command
 * endpoints. With `leadership`, it first listens, then leads only once its claim is won, before
 * writing anything, and the first entry it writes on a log (after a new log's rules and genesis)
 * opens its term (Lead).
 */
async function startSequencer(node: ReplicaNode, o: ReplicaOptions, role: SequencerRole, onFatal: (err: Error) => void,
  leadership?: Leadership, claimed?: () => void): Promise<SequencerParts> {
  const flush = (): void => { void node.flushSnapshots().catch(onFatal) }
  const syncReplicas = role.syncReplicas ?? 0
  let replication: ReplicationServer | undefined
  let seq: Sequencer | undefined
  const fresh = o.log.lastSeq === 0
  // With standbys, even the rules and genesis below wait for one to hold them: the replication
  // port opens first (and before the claim, which names its URL). Commands from gateways wait
  // until those are written.
  let ready = false
  const serve = (conn: Connection, path: string): void => {
    if (replication === undefined || seq === undefined) conn.close('this node does not lead yet')
    else if (path === REPLICATION_PATH) replication.attach(conn)
    else if (path === INGRESS_PATH && ready) serveIngress(conn, seq)
    else if (path === INGRESS_PATH) conn.close('the sequencer is starting')
    else conn.close(`unknown path ${path}`)
  }
  const early = syncReplicas > 0 || leadership ? await o.network.listen(role.host, role.port, serve) : undefined
  let epoch: number | undefined
  if (leadership) {
    try {
      epoch = await leadership.lead(early!.url, node.state.epoch)
    } catch (err) {
      await early!.close()
      throw err
    }
    o.logger?.info({ epoch, url: early!.url }, 'leading')
    claimed?.()
  }
  const server = new ReplicationServer({ log: o.log, snapshots: o.snapshots, logger: o.logger, roots: () => node.roots,
    checkpointInterval: node.checkpointInterval, syncReplicas, epoch, onReplicated: (s) => seq?.replicatedTo(s) })
  const committedSeq = (): number => (syncReplicas > 0 ? server.committedSeq : o.log.lastSeq)
  // A checkpoint's root goes out once its entry is durable (a sequencer that crashed before the
  // write would have announced a root for an entry it never wrote: found by the cluster
  // simulator) and before the batch holding it, so followers hold the root when they get there.
  // A root computed off-thread may come after its batch went out: it goes at once (followers
  // keep roots announced for checkpoints they have not rooted yet, follower.ts).
  const roots: Checkpoint[] = []
  // (With standbys, once replicated: a standby promoted in its place might hold another entry there.)
  node.onCheckpoint((cp) => {
    if (cp.seq <= committedSeq()) server.publishCheckpoint(cp)
    else roots.push(cp)
  })
  node.onCommitted((c) => {
    const last = c.entries[c.entries.length - 1]!.seq
    while (roots.length > 0 && roots[0]!.seq <= last) server.publishCheckpoint(roots.shift()!)
    server.publish(c)
  })
  const sequencer = new Sequencer({
    log: o.log, state: node.state, clock: o.clock, tickIntervalMs: role.tickIntervalMs,
    applyEntry: (e) => node.applyEntry(e), gate: node.gate,
    onCommit: (c) => { node.committed(c); flush() },
    replicated: syncReplicas > 0 ? { onDurable: (c) => server.publishDurable(c) } : undefined,
    onFatal,
  })
  replication = server
  seq = sequencer
  sequencer.start()
  if (early) {
    o.logger?.info({ syncReplicas, url: early.url + REPLICATION_PATH }, 'waiting for standbys to hold each command')
    // A log this node wrote before may end in entries no standby holds: one entry more, held by
    // them, holds the rest (their chain reaches it), and only then do other followers get any.
    // Elected, that entry opens its term.
    if (!fresh && leadership) await openTerm(sequencer, node, epoch!, leadership)
    else if (!fresh && syncReplicas > 0) await sequencer.submit({ type: 'Tick' })
  }
  // The rules this build applies hold from here on (core/rules.ts): declared first on a new log,
  // and at the first start of a newer build on an older one.
  if (node.state.rules < RULES_VERSION) {
    const declaration: SetRules = { type: 'SetRules', version: RULES_VERSION }
    // The secret every later root's leaf salts derive from: in the log, and nowhere a user reads.
    if (seedDue(node.state, RULES_VERSION)) declaration.leafSeed = o.leafSeed?.() ?? `0x${randomBytes(32).toString('hex')}`
    const ack = await sequencer.submit(declaration)
    if (!ack.result.ok) throw new Error(`rules ${RULES_VERSION} not declared at seq ${ack.seq}: ${ack.result.code}`)
    o.logger?.info({ seq: ack.seq, rules: RULES_VERSION }, 'rules declared')
  }
  if (fresh && role.genesis) {
    const acks = await Promise.all(role.genesis.map((c) => sequencer.submit(c)))
    const bad = acks.find((a) => !a.result.ok)
    if (bad) throw new Error(`genesis command at seq ${bad.seq} rejected: ${bad.result.ok ? '' : bad.result.code}`)
  }
  if (fresh && leadership) await openTerm(sequencer, node, epoch!, leadership)
  ready = true
  const listener: Listener = early ?? await o.network.listen(role.host, role.port, serve)
  return {
    sequencer, replication: server, url: listener.url, committedSeq,
    async stop() {
      await sequencer.stop()
      server.close()
      await listener.close()
      await node.rootsDelivered()
      await node.flushSnapshots()
    },
  }
}
