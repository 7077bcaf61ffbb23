// Running a node from the configuration: opens its stores under the data directory (log,
// snapshots, projections), feeds projections from every applied batch, and composes the
// replica for its role with LevelDB, WebSocket and the system clock.

import { rm } from 'node:fs/promises'
import path from 'node:path'
import { DEFAULT_GENESIS, genesisCommands } from '../core/genesis-spec.js'
import type { State } from '../core/state.js'
import { systemClock } from '../replica/clock.js'
import { LevelLogStore } from '../replica/level-log.js'
import { LogCorruptError } from '../replica/chain.js'
import type { Logger } from '../replica/node.js'
import { AppliedWatch } from '../replica/applied-watch.js'
import { createProjections, startProjectionsWorker, type Projections } from '../replica/projections/index.js'
import { PAGE_FORMATTER_URL } from '../gateway/page-format.js'
import { createReplica, type Election, type Replica, type Role } from '../replica/replica.js'
import { Leadership } from '../replica/leadership.js'
import { EtcdKv } from './etcd.js'
import { saveTailIn } from './rejoin.js'
import { rejoinAtStart } from '../replica/rewind.js'
import { RootHasher } from '../replica/root-hasher.js'
import type { Committed } from '../replica/sequencer.js'
import { BalanceProver } from '../replica/balance-prover.js'
import { SnapshotStore } from '../replica/snapshot-store.js'
import type { Network } from '../replica/network.js'
import { linkToken, wsNetworkWith } from '../replica/ws-network.js'
import { linkTlsOf, type Config } from './config.js'
import { catchUpFromArchive } from './catch-up.js'
import { LogArchiver } from './log-archive.js'
import { DiskSpace } from './disk-space.js'
import { HistoryUpkeep, retainedMarkets } from './history-upkeep.js'
import { OperatorError } from './operator-error.js'
import { loadMasterSecret } from './master-secret.js'

export interface RunningNode {
  replica: Replica
  /** The network of this node's internal links (replication, command ingress), open to holders of its master secret. */
  network: Network
  log: LevelLogStore
  projections: Projections
  /** The seq that state and projections both answer as of (read-your-writes). */
  applied: AppliedWatch
  /** Each applied batch, after the projections took it (the gateway's market streams). */
  onCommitted(listener: (c: Committed) => void): () => void
  /** Balance proofs from this node's checkpoint snapshots (GET /sapi/v1/account/balanceProof). */
  proofs: BalanceProver
  /** The log's archiver, with --log-keep. */
  archiver?: LogArchiver
  /** Prunes the history read models every --prune-interval-ms. */
  upkeep?: HistoryUpkeep
  /** The free space of the disks it writes (/metrics, and a warning when one is nearly full). */
  disk: DiskSpace
  /** The sequencer's chain services found the Vault's newest anchor: proofs default to it, here and on followers. */
  anchoredAt(seq: number, vault: string): void
  stop(): Promise<void>
}

/**
 * The log's archiver (--log-keep), run at start and after each checkpoint. A cut never passes
 * what the projections have written (a restart replays them from the log), what is committed
 * (a fail-over may cut back past the rest) or, once the log declares a chain, what is anchored
 * (anchoring reads the hashes of the checkpoints it anchors). A failed step (a full disk) is
 * logged and tried again at the next checkpoint: the log only grows meanwhile.
 */
async function startArchiver(config: Config, o: { log: LevelLogStore; snapshots: SnapshotStore; replica: Replica;
  projections: Projections; proofs: BalanceProver }, logger: Logger): Promise<LogArchiver> {
  const { node } = o.replica
  const archiver = new LogArchiver({
    log: o.log, snapshots: o.snapshots, dir: config.logArchive.dir, keep: config.logArchive.keep, logger,
    bound: () => Math.min(o.projections.flushedSeq, o.replica.committedSeq(),
      node.state.chain === null ? Number.MAX_SAFE_INTEGER : o.proofs.anchoredSeq ?? 0),
  })
  await archiver.open()
  const step = (): void => {
    archiver.step().catch((err: Error) => logger.warn({ err: err.message, dir: config.logArchive.dir }, 'log archiving failed; trying again at the next checkpoint'))
  }
  node.onCheckpoint(step)
  step()
  return archiver
}

/** Leadership through etcd when --etcd names it: the lease, and what a standby becomes once elected. */
function electionOf(config: Config, kind: Role['kind'], logger: Logger, onFatal: (err: Error) => void): Election | undefined {
  const { etcd, cluster, nodeId, leaseMs } = config.election
  if (etcd.length === 0) return undefined
  const leadership = new Leadership({ kv: new EtcdKv(etcd, Math.max(1000, Math.floor(leaseMs / 2))), clock: systemClock,
    prefix: `/${cluster}/`, node: nodeId, leaseMs, syncReplicas: config.syncReplicas, logger, onLost: onFatal })
  return {
    leadership, pollMs: Math.max(50, Math.floor(leaseMs / 6)),
    promoted: kind === 'follower' && config.standby
      ? { host: config.host, port: config.replicationPort, tickIntervalMs: config.tickIntervalMs, syncReplicas: config.syncReplicas }
      : undefined,
  }
}

export async function runNode(config: Config, kind: Role['kind'], logger: Logger,
  onFatal: (err: Error) => void): Promise<RunningNode> {
  const log = new LevelLogStore(path.join(config.dataDir, 'log'), { logger })
  const snapshots = new SnapshotStore(path.join(config.dataDir, 'snapshots'))
  await damagedLogSaid(log.dir, log.open())
  await snapshots.open()
  if (kind === 'follower' && config.catchUpFrom) {
    const appended = await catchUpFromArchive(log, config.catchUpFrom)
    logger.info({ appended, lastSeq: log.lastSeq, from: config.catchUpFrom }, 'caught up from the log archive')
  }
  const election = electionOf(config, kind, logger, onFatal)
  // A data directory restored without its gateway-secret gets a new one, and with it every
  // session's API secret changes: said once the state shows sessions to lose.
  const { secret, madeIn: secretMadeIn } = await loadMasterSecret(config)
  const network = wsNetworkWith(linkToken(secret), linkTlsOf(config))
  // A follower of an elected leader first cuts off what its log holds beyond the leader's (bin/rejoin.ts).
  const fork = election && kind === 'follower'
    ? await rejoinAtStart({ log, snapshots, network, clock: systemClock, leader: () => election.leadership.leader(), self: election.leadership.node,
      logger, saveTail: saveTailIn(config.dataDir, logger) })
    : undefined
  // In a worker thread: the main thread sends each batch's events and reads through it.
  // EXCHANGE_PROJECTIONS=inline keeps them on the main thread (to compare the two).
  const projectionsPath = path.join(config.dataDir, 'projections')
  // Long lists are formatted where they are read (gateway/pages.ts).
  const projectionsOptions = { pageFormatter: PAGE_FORMATTER_URL }
  const openProjections = (): Promise<Projections> => process.env.EXCHANGE_PROJECTIONS === 'inline'
    ? createProjections(projectionsPath, projectionsOptions) : startProjectionsWorker(projectionsPath, projectionsOptions)
  let opened = await openProjections()
  // Only a rewind leaves them past the log (this one, or one a crash interrupted before this
  // step), and only a follower of an elected leader rewinds: elsewhere the log lost entries it
  // had made durable (the projections take an entry only then).
  if (opened.lastSeq > log.lastSeq) {
    if (election === undefined) {
      await opened.close()
      throw new OperatorError(damagedLog(log.dir, `it ends at seq ${log.lastSeq}, but the history read models hold entries to ` +
        `${opened.lastSeq}: it lost entries it had written`))
    }
    logger.warn({ projectionsSeq: opened.lastSeq, logSeq: log.lastSeq, fork }, 'the projections took entries the log no longer holds: building them again from the log')
    await opened.close()
    await rm(projectionsPath, { recursive: true, force: true })
    opened = await openProjections()
  }
  const projections = opened
  let flushing: Promise<void> = Promise.resolve()
  /** A failed flush stops the node once; the flushes after it fail the same way. */
  let failed = false
  const applied = new AppliedWatch(projections.flushedSeq)
  const batchListeners = new Set<(c: Committed) => void>()
  const role: Role = kind === 'sequencer'
    ? { kind, host: config.host, port: config.replicationPort, tickIntervalMs: config.tickIntervalMs,
        genesis: genesisCommands(DEFAULT_GENESIS), syncReplicas: config.syncReplicas }
    : { kind, url: config.follow, standby: config.standby }
  // Checkpoint roots on a thread of their own: hashing the whole state would stall applying.
  const roots = new RootHasher()
  roots.warm()
  const proofs = new BalanceProver(snapshots)
  const replica = await damagedLogSaid(log.dir, createReplica({
    onAnchored: (seq, vault) => proofs.anchoredAt(seq, vault),
    log, snapshots, network, clock: systemClock, role, logger, onFatal,
    checkpointInterval: config.checkpointInterval, roots, election,
    // Projections must see every entry: a snapshot newer than what they hold is not used, and
    // one a sequencer sends in place of entries its log no longer holds is refused.
    snapshotSeqMax: projections.lastSeq,
    everyEntry: (neededFrom, snapshotSeq) => `the sequencer's log no longer reaches back to seq ${neededFrom} (it sent a snapshot at ` +
      `${snapshotSeq}: its archiver, --log-keep, moved what came before into its archive), and its history read models need ` +
      'every entry: start it with --catch-up-from <the archive\'s directory>, or make it again from the archive ' +
      '(exchange restore --log <archive directory> --data <new directory>)',
    // A standby's log may end in entries never committed (a fail-over would drop them): its
    // projections get them only once its sequencer says they are.
    listenersSeq: projections.lastSeq,
    beforeRestore: (node) => {
      node.onCheckpoint((cp) => logger.info({ seq: cp.seq, root: cp.root }, 'checkpoint'))
      const behindMax = config.projectionsBehindMax
      const behind = (): number => projections.lastSeq - projections.flushedSeq
      // Bounds the projections' backlog (replica/apply-gate.ts): held at behindMax entries,
      // released at half of it, so a hold lasts while they write a good part of it.
      const release = (): void => {
        if (node.gate.open || behind() > behindMax / 2) return
        node.gate.release()
        logger.info({ seq: node.state.seq, behind: behind() }, 'projections caught up; applying again')
      }
      node.onCommitted((c) => {
        for (let i = 0; i < c.entries.length; i++) {
          const e = c.entries[i]!
          projections.apply(e.seq, e.time, c.results[i]!.events)
        }
        // A flush per batch gets it written even when no query asks for it (the worker's
        // flushes share a message). Readable is what a query will see (readableSeq): in the
        // worker, every entry applied, as a query writes what is pending first; so writes are
        // answered without waiting for the projections' own.
        const flushed = projections.flush()
        applied.advance(projections.readableSeq)
        if (behindMax > 0 && node.gate.open && behind() >= behindMax) {
          node.gate.hold()
          logger.warn({ seq: node.state.seq, behind: behind() }, 'projections far behind; holding new commands until they catch up')
        }
        flushing = flushed.then(() => {
          applied.advance(projections.readableSeq)
          release()
        }, (err: unknown) => {
          if (!failed) onFatal(err instanceof Error ? err : new Error(String(err)))
          failed = true
        })
        for (const fn of batchListeners) fn(c)
      })
    },
  }))
  if (secretMadeIn !== undefined) warnSessionsLost(replica.node.state, secretMadeIn, logger)
  const archiver = config.logArchive.keep > 0 ? await startArchiver(config, { log, snapshots, replica, projections, proofs }, logger) : undefined
  const upkeep = config.pruneIntervalMs > 0
    ? new HistoryUpkeep({ projections, markets: () => retainedMarkets(replica.node.state), intervalMs: config.pruneIntervalMs, logger })
    : undefined
  const disk = new DiskSpace([{ name: 'data', path: config.dataDir },
    ...(archiver === undefined ? [] : [{ name: 'log-archive', path: config.logArchive.dir }])], logger)
  return {
    replica, network, log, projections, applied, proofs, archiver, upkeep, disk,
    anchoredAt(seq, vault) {
      proofs.anchoredAt(seq, vault)
      replica.replication?.publishAnchored(seq, vault)
    },
    onCommitted(listener) {
      batchListeners.add(listener)
      return () => { batchListeners.delete(listener) }
    },
    async stop() {
      applied.close()
      // Whatever waits on a held gate goes on, and sees the stop.
      replica.node.gate.release()
      await archiver?.close()
      await upkeep?.close()
      disk.close()
      await replica.stop()
      await roots.close()
      await proofs.close()
      await flushing
      await projections.close()
      await log.close()
      await snapshots.close()
    },
  }
}

/**
 * Warns when a gateway secret made now replaces the one the state's live HMAC sessions were
 * made under (their API secrets derive from it): their keys answer -1022 until each signs in
 * again. Sessions keyed by a public key do not depend on it.
 */
function warnSessionsLost(state: State, file: string, logger: Logger): void {
  let sessions = 0
  for (const s of state.sessions.values()) if (s.rsaPublicKey === undefined && s.expiresAt > state.time) sessions++
  if (sessions === 0) return
  logger.warn({ sessions, file }, 'a new gateway secret was made, but the log holds live sessions made under another: their API keys no ' +
    'longer verify (-1022) until they sign in again; to keep them, stop the node and put the kept gateway-secret back (docs/REPLICA.md, "Backup and restore")')
}

/**
 * `started`, or what to do when the log it replays is damaged (LogCorruptError: an entry whose
 * hash, link or seq is wrong, as a disk that lost or changed what LevelDB wrote leaves it).
 */
async function damagedLogSaid<T>(dir: string, started: Promise<T>): Promise<T> {
  try {
    return await started
  } catch (err) {
    if (!(err instanceof LogCorruptError)) throw err
    throw new OperatorError(damagedLog(dir, err.message))
  }
}

/** What to do with the damaged log in `dir`: the log is the record, never mended in place but made again from a whole copy. */
function damagedLog(dir: string, what: string): string {
  return `the log in ${dir} is damaged (${what}): the node did not start. Make it again from a whole copy ` +
    '(a standby\'s or follower\'s log, exchange export-log --data <its data> --out FILE while it is stopped; an export; the log archive): ' +
    'exchange restore --log FILE --data <a new directory>, then start the node there with this one\'s gateway-secret ' +
    '(docs/REPLICA.md, "A damaged disk")'
}
