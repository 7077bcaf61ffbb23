// One seed's run of a whole cluster: the real sequencer, followers and core (createReplica)
// over the simulated disk, network and clock, client actors submitting generated workloads
// through the real ingress client, and faults (crashes with torn tails, lost, delayed,
// duplicated and reordered packets, partitions, clock steps) for a fault phase; then a healed
// phase in which the cluster must converge, and the checkers (checkers.ts, shadows.ts).
// With `standby`, the sequencer acknowledges only what its synchronous standby (f1) holds, and
// once in the fault phase its machine is lost: the standby's disk takes over the sequencer's
// address (a fail-over), and a new, empty machine joins as the standby.
// With `election`, the nodes find their leader through a simulated etcd (world/etcd.ts) as the
// CLI's --etcd nodes do: every node after the first sequencer's start is a standby, any crash
// (the leader's too) or partition (from etcd too) can end a lease and start an election, and a
// node whose log parts from the leader's rewinds when it restarts (replica/rewind.ts).

import { createHash } from 'node:crypto'
import fc from 'fast-check'
import type { CancelOrder, Command, PlaceOrder } from '../core/commands.js'
import { DEFAULT_GENESIS, genesisCommands } from '../core/genesis-spec.js'
import { oracleGenesis, oracleWalk } from './prices.js'
import type { Result } from '../core/events.js'
import { stateRoot } from '../core/root.js'
import type { State } from '../core/state.js'
import { sameHash, packr, hex, type LogEntry } from '../replica/entry.js'
import { IngressClient, IngressError } from '../replica/ingress.js'
import { LeaseLostError, Leadership, leaderOf, NotLeaderError, type Leader } from '../replica/leadership.js'
import type { Logger, ReplicaNode } from '../replica/node.js'
import { createReplica, type Replica } from '../replica/replica.js'
import { REPLICATION_PATH } from '../replica/replication.js'
import { DivergedError, rejoinAtStart } from '../replica/rewind.js'
import { TEST_FAULTS, type TestFault } from '../replica/test-faults.js'
import { Checks } from './checkers.js'
import { describeFaults, drawFaults, NO_FAULTS, type FaultPlan } from './faults.js'
import { commandStream, PROFILES, START_TIME, type TimedCommand } from './model/commands.js'
import { resolveCancel } from './model/run.js'
import { Rng } from './random.js'
import { runShadows } from './shadows.js'
import { SimClock } from './world/clock.js'
import { SimDisk, SimLogStore, SimSnapshotStore } from './world/disk.js'
import { ETCD_HOST, EtcdUnreachableError, SimEtcd } from './world/etcd.js'
import { EventLoop } from './world/loop.js'
import { SimNetwork } from './world/network.js'

/** Commands a price feed submits now (oracle prices, when the prices issue lands). */
export type PriceMoves = (ctx: { wallMs: number, rng: Rng }) => Command[]

export interface ClusterOptions {
  seed: number
  followers?: number
  clients?: number
  /** Commands each client draws (before its funding prelude). */
  commandsPerClient?: number
  /** Virtual ms of the fault phase, then at most healMs to converge. */
  faultMs?: number
  healMs?: number
  checkpointInterval?: number
  /** No faults at all (the same workload, for comparison). */
  calm?: boolean
  /** Injected bugs (replica/test-faults.ts) on for this run. */
  bugs?: readonly TestFault[]
  /** Price moves (default: sim/prices.ts's signed random walk); called every priceEveryMs of the fault phase. */
  priceMoves?: PriceMoves
  priceEveryMs?: number
  /** Batches of the final log the restarting shadow restarts before. */
  restartWindow?: number
  /** Sees every entry of the final log with its result, once (for diagnostics). */
  onResult?: (entry: LogEntry, result: Result) => void
  /** f1 is a synchronous standby (--sync-replicas 1), promoted once when the sequencer's machine is lost. */
  standby?: boolean
  /** Every node a standby (--sync-replicas 1) electing its leader through a simulated etcd. */
  election?: boolean
}

export interface SeedStats {
  submitted: number
  acked: number
  refused: number
  unknown: number
  logLength: number
  crashes: number
  sequencerCrashes: number
  tornTails: number
  partitions: number
  fatalRestarts: number
  /** Sequencer machines lost and replaced by their standby; with `election`, leaders elected after the first. */
  failovers: number
  /** Nodes that cut their log back to the leader's as they restarted (election). */
  rewinds: number
  lost: number
  duplicated: number
  corrupted: number
  broken: number
  checkpoints: number
  virtualMs: number
  events: number
  /** Perpetuals with an index price, and those whose funding settled at least once (final state). */
  priced: number
  fundingSettled: number
  /** From the final log's results: conditional orders triggered, liquidation and ADL orders, margin calls, shortfalls the insurance fund covered. */
  triggers: number
  liquidations: number
  adlFills: number
  marginCalls: number
  shortfalls: number
}

export interface SeedReport {
  seed: number
  ok: boolean
  failures: string[]
  faults: string
  stats: SeedStats
  traceHash: string
  /** The one-line command that replays this seed exactly. */
  replay: string
}

export const DEFAULTS = {
  followers: 2, clients: 3, commandsPerClient: 120, faultMs: 12_000, healMs: 30_000, checkpointInterval: 25,
  // The restarting shadow restarts before every batch of the log (about 1 s more a seed).
  priceEveryMs: 1_000, restartWindow: Number.MAX_SAFE_INTEGER,
} as const

const SEQ_HOST = 'seq'
/** The synchronous standby's machine, with `standby`. */
const STANDBY = 'f1'
const PORT = 7000
const SEQ_URL = `sim://${SEQ_HOST}:${PORT}`
const TICK_MS = 1_000
const RECONNECT_MS = 100
const MAX_IN_FLIGHT = 4
/** With `election`: the cluster's keys in the simulated etcd, and its lease (etcd's shortest). */
const PREFIX = '/sim/'
const LEASE_MS = 2_000

/** The replay line for a seed and the options that differ from the defaults. */
export function replayCommand(o: ClusterOptions): string {
  const parts = ['npm run sim --', `--seed ${o.seed}`]
  if (o.followers !== undefined && o.followers !== DEFAULTS.followers) parts.push(`--followers ${o.followers}`)
  if (o.clients !== undefined && o.clients !== DEFAULTS.clients) parts.push(`--clients ${o.clients}`)
  if (o.commandsPerClient !== undefined && o.commandsPerClient !== DEFAULTS.commandsPerClient) parts.push(`--commands ${o.commandsPerClient}`)
  if (o.faultMs !== undefined && o.faultMs !== DEFAULTS.faultMs) parts.push(`--fault-ms ${o.faultMs}`)
  if (o.restartWindow !== undefined && o.restartWindow !== DEFAULTS.restartWindow) parts.push(`--restart-window ${o.restartWindow}`)
  if (o.calm) parts.push('--calm')
  if (o.standby) parts.push('--standby')
  if (o.election) parts.push('--election')
  for (const b of o.bugs ?? []) parts.push(`--bug ${b}`)
  return parts.join(' ')
}

/** A simulated machine running one replica process, restarted after every crash. */
class SimNode {
  /** Its machine's disk; a fail-over moves the standby's here (lose()). */
  disk = new SimDisk()
  replica: Replica | null = null
  up = false
  incarnation = 0
  private clock: SimClock | null = null
  private store: SimLogStore | null = null
  private restartTimer: { cancel(): void } | null = null

  constructor(readonly name: string, readonly sequencer: boolean, private readonly w: World) {}

  get node(): ReplicaNode | undefined { return this.replica?.node }

  start(): void {
    const { w } = this
    if (this.up) return
    this.restartTimer?.cancel()
    this.restartTimer = null
    const inc = ++this.incarnation
    this.up = true
    w.net.restart(this.name)
    w.loop.record(`start ${this.name}#${inc}`)
    const clock = this.clock = new SimClock(w.loop, () => w.wall())
    const store = this.store = new SimLogStore(this.disk, {
      syncMs: () => w.plan.fsyncMs[0] + (w.plan.fsyncMs[1] - w.plan.fsyncMs[0]) * (w.rng.u32() / 4294967296),
      after: (ms, fn) => w.loop.after(ms, fn),
    })
    const torn = this.disk.tornTails
    let watching: { ready(): void } | undefined
    const live = (): boolean => inc === this.incarnation && this.up
    // With an election: the first sequencer starts as one until a term is open; every later start is a standby's.
    const leadership = w.etcd && new Leadership({ kv: w.etcd.view(this.name, live), clock, prefix: PREFIX, node: this.name, leaseMs: LEASE_MS,
      syncReplicas: 1, logger: traced(this.name, w), onLost: (err) => this.fatal(err, inc) })
    const sequencer = this.sequencer && (leadership === undefined || !w.etcd!.has(PREFIX + 'term'))
    const snapshots = new SimSnapshotStore(this.disk)
    const boot = async (): Promise<void> => {
      await store.open()
      w.stats.tornTails += this.disk.tornTails - torn
      if (leadership && !sequencer) {
        const fork = await rejoinAtStart({ log: store, snapshots, network: w.net.view(this.name), clock, leader: () => leadership.leader(), self: this.name,
          logger: traced(this.name, w) })
        if (fork !== undefined && live()) {
          w.stats.rewinds++
          w.checks.rewound(this.name, fork)
          w.loop.record(`rewound ${this.name} to ${fork}`)
        }
      }
      const replica = await createReplica({
        log: store, network: w.net.view(this.name), clock, logger: traced(this.name, w),
        role: sequencer
          ? { kind: 'sequencer', host: this.name, port: PORT, tickIntervalMs: TICK_MS,
              genesis: [...genesisCommands(DEFAULT_GENESIS), ...(w.o.priceMoves ? oracleGenesis() : [])], syncReplicas: w.o.standby || leadership ? 1 : 0 }
          : { kind: 'follower', url: SEQ_URL + REPLICATION_PATH, reconnectMs: RECONNECT_MS, standby: leadership !== undefined || (w.o.standby && this.name === STANDBY) },
        election: leadership && { leadership, pollMs: Math.floor(LEASE_MS / 6),
          promoted: { host: this.name, port: PORT, tickIntervalMs: TICK_MS, syncReplicas: 1 } },
        snapshots,
        checkpointInterval: w.o.checkpointInterval,
        // Its listeners (the checks) start empty: a standby holds its whole replay until it is committed.
        listenersSeq: 0,
        beforeRestore: (node) => { watching = w.checks.watch(this.name, node) },
        onFatal: (err) => this.fatal(err, inc),
        // The run's own, drawn from its seed without touching the fault stream: a seed's run repeats.
        leafSeed: () => `0x${createHash('sha256').update(`sim leaf seed ${w.o.seed}`).digest('hex')}`,
      })
      if (inc !== this.incarnation) return
      this.replica = replica
      replica.onPromoted(() => {
        w.stats.failovers++
        w.loop.record(`${this.name} leads`)
      })
      w.checks.served(this.name, replica.node.state.seq)
      watching?.ready()
    }
    boot().catch((err: Error) => { if (live()) this.fatal(err, inc) })
  }

  /** Whether this node sequences now (with an election: once promoted, until it stops). */
  get leading(): boolean {
    return this.up && this.replica?.sequencer !== undefined
  }

  crash(): void {
    if (!this.up) return
    this.up = false
    this.w.net.crash(this.name)
    this.clock?.kill()
    this.store?.crash(this.w.rng, this.w.plan.tornChance)
    this.replica = null
  }

  /**
   * Crash while a write is in progress (the moment that tears tails and tests "acknowledged
   * means durable"), or now if none starts within half a second; back after `downMs`.
   */
  crashInWrite(downMs: number): void {
    const { w } = this
    const store = this.store
    if (store === null || !this.up) return
    const inc = this.incarnation
    const live = (): boolean => inc === this.incarnation && this.up
    const fallback = w.loop.after(500, () => { if (live()) this.bounce(downMs) })
    store.onWrite = () => {
      store.onWrite = null
      fallback.cancel()
      const syncMs = w.plan.fsyncMs[0]
      w.loop.after(syncMs * (w.rng.u32() / 4294967296), () => { if (live()) this.bounce(downMs) })
    }
  }

  /** The machine is lost: it crashes and is not restarted (until start() is called for its replacement). */
  lose(): void {
    this.restartTimer?.cancel()
    this.restartTimer = null
    this.crash()
  }

  /** Crash now, come back after `downMs`. */
  bounce(downMs: number): void {
    this.crash()
    this.restartTimer?.cancel()
    this.restartTimer = this.w.loop.after(downMs, () => this.start())
  }

  /** The process stops on an error it cannot continue past; a supervisor restarts it. */
  private fatal(err: Error, inc: number): void {
    const { w } = this
    if (inc !== this.incarnation || !this.up) return
    w.stats.fatalRestarts++
    w.loop.record(`fatal ${this.name}: ${err.message}`)
    // Followers stop on corrupt frames by design; with an election, a leader cut off from etcd (or
    // any node starting while it is), and a node whose log parted from the leader's (it rewinds as
    // it restarts); anything else is a bug.
    const designed = w.o.election
      ? err instanceof DivergedError || err instanceof LeaseLostError || err instanceof NotLeaderError || err instanceof EtcdUnreachableError ||
        (!this.leading && w.net.stats.corrupted > 0)
      : !this.sequencer && w.net.stats.corrupted > 0
    if (!designed) w.checks.fail(`${this.name} stopped: ${err.message}`)
    w.loop.after(0, () => { if (inc === this.incarnation && this.up) this.bounce(300) })
  }
}

/** A trader (or admin tool) submitting its stream through the ingress client. */
class SimClient {
  private ingress: IngressClient | null = null
  private connecting = false
  private next = 0
  /** Per perpetual, the price its orders were last centred on (kept while the sequencer is down). */
  private readonly centre = new Map<number, number>()
  inFlight = 0
  stopped = false

  constructor(readonly name: string, private readonly stream: TimedCommand[], private readonly w: World) {}

  get done(): boolean { return (this.stopped || this.next >= this.stream.length) && this.inFlight === 0 }

  start(): void {
    this.w.loop.after(1, () => this.step())
  }

  private step(): void {
    const { w } = this
    if (this.stopped || this.next >= this.stream.length) return
    if (this.ingress === null) {
      this.connect()
      w.loop.after(RECONNECT_MS, () => this.step())
      return
    }
    if (this.inFlight < MAX_IN_FLIGHT) this.submit(this.stream[this.next++]!)
    // Think time: the stream's gaps stretched so the stream spans the fault phase, pauses capped.
    const dt = this.next < this.stream.length ? this.stream[this.next]!.time - this.stream[this.next - 1]!.time : 5
    w.loop.after(Math.min(Math.max(1, dt * 3), 250), () => this.step())
  }

  private connect(): void {
    if (this.connecting) return
    this.connecting = true
    const url = this.w.sequencerUrl()
    if (url === undefined) { this.connecting = false; return }
    IngressClient.connect(this.w.net.view(this.name), url).then((c) => {
      this.connecting = false
      this.ingress = c
    }, () => { this.connecting = false })
  }

  private submit(t: TimedCommand): void {
    const { w } = this
    const command = this.concrete(t)
    if (command === null) return
    const client = this.ingress!
    const key = w.checks.submitted(command)
    this.inFlight++
    w.stats.submitted++
    client.submit(command).then((a) => {
      this.inFlight--
      w.stats.acked++
      w.loop.record(`ack ${this.name} ${a.seq}`)
      w.checks.acked(this.name, a.seq, key)
    }, (err: Error) => {
      this.inFlight--
      if (err instanceof IngressError && (err.code === 'DISCONNECTED' || err.code === 'OUTCOME_UNKNOWN')) {
        // Its fate is unknown: a client that cannot tell does not send it again.
        w.stats.unknown++
        if (this.ingress === client) this.ingress = null
      } else {
        w.stats.refused++
      }
    })
  }

  /**
   * A perpetual order's prices (limit, stop, activation) moved from the generator's fixed mid
   * to the market's mark price now, so books, triggers and liquidations follow the oracle.
   */
  private recentred(c: PlaceOrder, state: State | undefined): PlaceOrder {
    const mid = PERP_MIDS.get(c.marketId)
    if (mid === undefined) return c
    const m = state?.markets[c.marketId]
    if (m?.kind === 'PERP' && m.markPriceTicks > 0) this.centre.set(c.marketId, m.markPriceTicks)
    const delta = (this.centre.get(c.marketId) ?? mid) - mid
    if (delta === 0) return c
    const out = { ...c }
    if (c.priceTicks !== undefined) out.priceTicks = shift(c.priceTicks, mid, delta)
    if (c.stopPriceTicks !== undefined) out.stopPriceTicks = shift(c.stopPriceTicks, mid, delta)
    if (c.activationPriceTicks !== undefined) out.activationPriceTicks = shift(c.activationPriceTicks, mid, delta)
    return out
  }

  /** The command as this client sends it now: its cancels aimed at its open orders, dates from now. */
  private concrete(t: TimedCommand): Command | null {
    const { w } = this
    let c = t.command
    if (c.type === 'Tick') return null
    const state = w.reference().node?.state
    if (t.cancelPick !== undefined && c.type === 'CancelOrder' && state !== undefined) {
      const cancel = c
      const resolved = resolveCancel(state, cancel, t.cancelPick)
      // Now and then amend the order instead of canceling it.
      const sub = state.accounts.get(c.account)?.subs[c.sub]
      const o = resolved.orderId !== undefined ? sub && [...sub.orders.values()].find((x) => x.orderId === resolved.orderId && x.market.marketId === cancel.marketId) : undefined
      if (o !== undefined && t.cancelPick % 3 === 0 && o.market.kind === 'SPOT') {
        // A spot order is amended in place: about half of what is left taken off.
        return { type: 'AmendKeepPriority', account: cancel.account, sub: cancel.sub, marketId: cancel.marketId, orderId: o.orderId,
          qtyLots: o.executedQtyLots + Math.ceil((o.origQtyLots - o.executedQtyLots) / 2) }
      }
      if (o !== undefined && t.cancelPick % 3 === 0) {
        return { type: 'ModifyOrder', account: cancel.account, sub: cancel.sub, marketId: cancel.marketId, orderId: o.orderId, side: o.side,
          priceTicks: o.priceTicks + (t.cancelPick % 2 === 0 ? 1 : -1), qtyLots: o.origQtyLots }
      }
      c = resolved satisfies CancelOrder
    }
    if (c.type === 'PlaceOrder' && c.goodTillDate !== undefined) c = { ...c, goodTillDate: w.wall() + (c.goodTillDate - t.time) } satisfies PlaceOrder
    if (c.type === 'PlaceOrder') c = this.recentred(c, state)
    if (c.type === 'Deposit' && !c.ref.startsWith('shared-')) c = { ...c, ref: `${this.name}:${c.ref}` }
    return normalize(c)
  }
}

/** The perpetuals as clients trade them: orders up to about 9 000 and 6 000 USDT, so thin wallets run high leverage. */
const SIM_BTCPERP = { ...PROFILES.BTCPERP, maxLots: 300 }
const SIM_ETHPERP = { ...PROFILES.ETHPERP, maxLots: 3_000 }

/** The generator's mid of each perpetual (its prices are offsets from it). */
const PERP_MIDS = new Map<number, number>([SIM_BTCPERP, SIM_ETHPERP].map((p) => [p.marketId, p.midTicks]))

/** A price the generator meant (within 10 % of its mid; a deliberately bad one is left alone) moved by `delta`. */
function shift(price: number | undefined, mid: number, delta: number): number | undefined {
  return price === undefined || Math.abs(price - mid) > mid / 10 ? price : price + delta
}

/** The command as it comes back from the wire (msgpack drops undefined fields). */
function normalize(c: Command): Command {
  return packr.unpack(packr.pack(c)) as Command
}

/** Everything one run shares. */
class World {
  readonly loop = new EventLoop(START_TIME)
  readonly rng: Rng
  readonly net: SimNetwork
  readonly plan: FaultPlan
  readonly checks: Checks
  readonly nodes: SimNode[] = []
  readonly clients: SimClient[] = []
  /** With `election`: the consensus service. */
  readonly etcd: SimEtcd | undefined
  /** Wall time starts 6 s before a funding boundary (00:00 UTC + 8 h), so each run settles funding. */
  wallOffset = 8 * 3_600_000 - 6_000
  readonly stats: SeedStats = {
    submitted: 0, acked: 0, refused: 0, unknown: 0, logLength: 0, crashes: 0, sequencerCrashes: 0, tornTails: 0, partitions: 0,
    fatalRestarts: 0, failovers: 0, lost: 0, duplicated: 0, corrupted: 0, broken: 0, checkpoints: 0, virtualMs: 0, events: 0,
    priced: 0, fundingSettled: 0, triggers: 0, liquidations: 0, adlFills: 0, marginCalls: 0, shortfalls: 0, rewinds: 0,
  }

  constructor(readonly o: Required<Omit<ClusterOptions, 'priceMoves' | 'bugs' | 'onResult' | 'standby' | 'election'>> &
    Pick<ClusterOptions, 'priceMoves' | 'bugs' | 'onResult' | 'standby' | 'election'>) {
    this.rng = new Rng(o.seed)
    this.plan = o.calm ? NO_FAULTS : drawFaults(this.rng)
    this.net = new SimNetwork(this.loop, this.rng)
    this.net.faults = this.plan.link
    // With an election, a node that held a tail no one acknowledged had roots there that are not the final log's, until it rewinds.
    this.checks = new Checks(this.loop, o.election === true)
    this.etcd = o.election ? new SimEtcd(this.loop, this.rng, this.net) : undefined
  }

  wall(): number { return Math.floor(this.loop.now) + this.wallOffset }

  /** The node sequencing now: the first one, or with an election the one etcd names, while it leads. */
  leader(): SimNode | undefined {
    if (this.etcd === undefined) return this.nodes[0]!.replica !== null ? this.nodes[0] : undefined
    const named = this.named()?.node
    return this.nodes.find((n) => n.name === named && n.leading)
  }

  /** The leader etcd names now (what a node reads with readLeader, without the delay). */
  private named(): Leader | undefined {
    const r = this.etcd!.peek(PREFIX + 'leader')
    return r && leaderOf(r)
  }

  /** The node whose state clients aim their cancels at, and whose log is the final one: the leader, else the first. */
  reference(): SimNode {
    return this.leader() ?? this.nodes[0]!
  }

  /** Where clients send commands: the first node, or the leader etcd names (undefined while none does). */
  sequencerUrl(): string | undefined {
    return this.etcd === undefined ? SEQ_URL : this.named()?.url
  }
}

export async function runCluster(options: ClusterOptions): Promise<SeedReport> {
  const o = { ...DEFAULTS, calm: false, ...options }
  if (o.standby && o.election) throw new Error('--standby and --election are two ways to fail over: choose one')
  // Oracle prices move in every run unless the caller brings its own moves.
  o.priceMoves ??= oracleWalk()
  const saved = { ...TEST_FAULTS }
  for (const b of o.bugs ?? []) TEST_FAULTS[b] = true
  try {
    return await run(new World(o))
  } finally {
    Object.assign(TEST_FAULTS, saved)
  }
}

async function run(w: World): Promise<SeedReport> {
  const { o, loop, plan } = w
  const seq = new SimNode(SEQ_HOST, true, w)
  w.nodes.push(seq)
  for (let i = 1; i <= o.followers; i++) w.nodes.push(new SimNode(`f${i}`, false, w))
  // Each client trades the six model accounts on all four markets; its stream comes from the seed.
  for (let i = 1; i <= o.clients; i++) {
    const [stream] = fc.sample(commandStream({
      markets: [SIM_BTCPERP, SIM_ETHPERP, PROFILES.BTCSPOT, PROFILES.ETHSPOT], accounts: 6,
      minLength: o.commandsPerClient, maxLength: o.commandsPerClient, extended: true,
    }), { seed: (o.seed * 7919 + i) | 0, numRuns: 1 })
    w.clients.push(new SimClient(`c${i}`, stream!, w))
  }

  for (const n of w.nodes) n.start()
  // Genesis first: clients start once the sequencer serves.
  await loop.run(loop.now + 10_000, () => w.leader() !== undefined)
  for (const c of w.clients) c.start()
  const faultEnd = loop.now + o.faultMs
  if (!o.calm) scheduleFaults(w, faultEnd)
  if (o.standby) scheduleFailover(w, faultEnd)
  if (o.priceMoves) schedulePrices(w, faultEnd)

  await loop.run(faultEnd)
  // Healed phase: the network is calm, every node comes back, clients finish what is in flight.
  w.net.heal()
  for (const c of w.clients) c.stopped = true
  for (const n of w.nodes) n.start()
  loop.record('healed')
  const healEnd = faultEnd + o.healMs
  let converged = false
  await loop.run(healEnd, () => (converged = convergedNow(w)))
  if (!converged) {
    w.checks.fail(`did not converge within ${o.healMs} ms of healing: ${positions(w)}`)
    if (w.nodes.every((n) => n.node !== undefined)) compareRoots(w)
  } else {
    await finalChecks(w)
  }
  for (const e of loop.errors) w.checks.fail(`uncaught in an event: ${e}`)

  const ns = w.net.stats
  const final = w.reference()
  w.stats.logLength = final.disk.last().seq
  for (const m of final.node?.state.markets ?? []) {
    if (m?.kind !== 'PERP' || m.prices.indexE8 === 0) continue
    w.stats.priced++
    // The first boundary the run crosses is 8 h; a settlement moves the next one past it.
    if (m.prices.nextFundingTime > 8 * 3_600_000) w.stats.fundingSettled++
  }
  Object.assign(w.stats, { lost: ns.lost, duplicated: ns.duplicated, corrupted: ns.corrupted, broken: ns.broken,
    virtualMs: loop.now - START_TIME, events: loop.events, checkpoints: w.checks.checkpoints })
  for (const n of w.nodes) n.crash()
  return {
    seed: o.seed, ok: w.checks.failures.length === 0, failures: w.checks.failures, faults: o.calm ? 'calm' : describeFaults(plan),
    stats: w.stats, traceHash: loop.traceHash(), replay: replayCommand({ ...o }),
  }
}

/** Adds one result's triggers, liquidations, ADL fills, margin calls and shortfalls to the seed's counts. */
function count(stats: SeedStats, r: Result): void {
  // A conditional order fires into a NEW record (placed) or an EXPIRED one with its reason.
  const fired = new Set<string>()
  for (const e of r.events) {
    if (e.type === 'order' && e.cond !== undefined && e.cond.triggerTime > 0 && (e.execType === 'NEW' || e.cond.reason !== '')) {
      fired.add(`${e.marketId}:${e.orderId}`)
    }
    else if (e.type === 'forceOrder') stats[e.autoCloseType === 'ADL' ? 'adlFills' : 'liquidations']++
    else if (e.type === 'marginCall') stats.marginCalls++
    else if (e.type === 'insurance' && e.reason === 'SHORTFALL') stats.shortfalls++
  }
  stats.triggers += fired.size
}

function scheduleFaults(w: World, until: number): void {
  const { loop, rng, plan, nodes } = w
  const uniform = (lo: number, hi: number): number => lo + (hi - lo) * (rng.u32() / 4294967296)
  if (plan.crashEveryMs !== Infinity) {
    const crash = (): void => {
      if (loop.now >= until) return
      // The sequencer's share of crashes goes to whichever node leads now.
      const lead = w.etcd ? w.reference() : nodes[0]!
      const others = nodes.filter((n) => n !== lead)
      const victim = rng.chance(plan.sequencerShare) ? lead : others[rng.below(others.length)]!
      if (victim.up) {
        w.stats.crashes++
        if (victim === lead) w.stats.sequencerCrashes++
        const down = uniform(plan.downMs[0], plan.downMs[1])
        if (rng.chance(0.6)) victim.crashInWrite(down)
        else victim.bounce(down)
      }
      loop.after(uniform(0.5, 1.5) * plan.crashEveryMs, crash)
    }
    loop.after(uniform(0.2, 1) * plan.crashEveryMs, crash)
  }
  if (plan.partitionEveryMs !== Infinity) {
    const split = (): void => {
      if (loop.now >= until) return
      // One node (or a client) cut off from everyone else for a while.
      const names = [...nodes.map((n) => n.name), ...w.clients.map((c) => c.name), ...(w.etcd ? [ETCD_HOST] : [])]
      const lonely = names[rng.below(names.length)]!
      for (const other of names) if (other !== lonely) w.net.partition(lonely, other)
      w.stats.partitions++
      loop.record(`partition ${lonely}`)
      loop.after(uniform(plan.partitionMs[0], plan.partitionMs[1]), () => {
        if (loop.now < until) { w.net.heal(); w.net.faults = plan.link }
      })
      loop.after(uniform(0.5, 1.5) * plan.partitionEveryMs, split)
    }
    loop.after(uniform(0.2, 1) * plan.partitionEveryMs, split)
  }
  const perSecond = (): void => {
    if (loop.now >= until) return
    if (rng.chance(plan.badLinkPerSecond)) {
      const names = nodes.map((n) => n.name)
      const a = names[rng.below(names.length)]!
      const b = names[rng.below(names.length)]!
      if (a !== b) {
        w.net.setLink(a, b, { ...plan.link, delayMinMs: 20, delayMaxMs: 200, loss: Math.max(plan.link.loss, 0.2) })
        loop.after(uniform(200, 2_000), () => w.net.setLink(a, b, undefined))
      }
    }
    if (rng.chance(plan.clockStepPerSecond)) {
      // Wall time jumps 11 minutes: resting GTD orders come due on the next Tick.
      w.wallOffset += 660_000
      loop.record('clock step')
    }
    loop.after(1_000, perSecond)
  }
  loop.after(1_000, perSecond)
}

/**
 * Once in the fault phase, at a time drawn from the seed, the sequencer's machine is lost with its disk. The standby stops where it stands
 * (its tail torn like any crash's) and its disk comes up at the sequencer's address, as an
 * operator promotes it (docs/REPLICA.md); a new machine with an empty disk takes the standby's
 * place and catches up from scratch. Every acknowledged command must be in the final log.
 */
function scheduleFailover(w: World, until: number): void {
  const { loop, rng, o } = w
  const at = (0.3 + 0.5 * (rng.u32() / 4294967296)) * o.faultMs
  loop.after(at, () => {
    if (loop.now >= until) return
    const [seq, standby] = w.nodes as [SimNode, SimNode]
    seq.lose()
    standby.lose()
    seq.disk = standby.disk
    standby.disk = new SimDisk()
    w.checks.replaced(standby.name)
    w.stats.failovers++
    loop.record('failover')
    loop.after(300, () => { seq.start(); standby.start() })
  })
}

/**
 * The price feed: every priceEveryMs the walk takes a step, and the step's prices are sent at
 * once if the feed is connected, else as soon as it (re)connects, unless a newer step replaced
 * them. (Sending only at the next step lost every price in seeds where the sequencer crashes
 * more often than once a second.)
 */
function schedulePrices(w: World, until: number): void {
  const { loop, o } = w
  let client: IngressClient | null = null
  let connecting = false
  let pending: Command[] = []
  const flush = (): void => {
    if (client === null || pending.length === 0 || loop.now >= until) return
    const c = client
    for (const command of pending) {
      w.checks.submitted(normalize(command))
      c.submit(normalize(command)).catch(() => {
        if (client !== c) return
        client = null
        loop.after(RECONNECT_MS, connect)
      })
    }
    pending = []
  }
  const connect = (): void => {
    if (client !== null || connecting || loop.now >= until) return
    connecting = true
    const url = w.sequencerUrl()
    if (url === undefined) {
      connecting = false
      loop.after(RECONNECT_MS, connect)
      return
    }
    IngressClient.connect(w.net.view('prices'), url).then((c) => {
      connecting = false
      client = c
      flush()
    }, () => {
      connecting = false
      loop.after(RECONNECT_MS, connect)
    })
  }
  const step = (): void => {
    if (loop.now >= until) return
    pending = o.priceMoves!({ wallMs: w.wall(), rng: w.rng })
    if (client === null) connect()
    else flush()
    loop.after(o.priceEveryMs, step)
  }
  loop.after(o.priceEveryMs, step)
}

function convergedNow(w: World): boolean {
  const seq = w.leader()
  const followers = w.nodes.filter((n) => n !== seq)
  const s = seq?.node
  if (s === undefined || !w.clients.every((c) => c.done)) return false
  if (s.state.seq !== s.log.lastSeq) return false
  for (const f of followers) {
    const n = f.node
    if (n === undefined || n.state.seq !== s.state.seq || n.log.lastSeq !== s.log.lastSeq || !sameHash(n.log.lastHash, s.log.lastHash)) return false
  }
  return true
}

function positions(w: World): string {
  return w.nodes.map((n) => `${n.name} ${n.up ? '' : '(down) '}applied ${n.node?.state.seq ?? '-'} log ${n.node?.log.lastSeq ?? n.disk.last().seq}`).join(', ') +
    `; clients in flight ${w.clients.map((c) => c.inFlight).join('/')}`
}

/** Every node's log head and state root against the sequencer's; returns the sequencer's root. */
function compareRoots(w: World): string {
  const seq = w.reference()
  const s = seq.node!
  const root = stateRoot(s.state)
  for (const n of w.nodes.filter((x) => x !== seq)) {
    const f = n.node!
    if (f.log.lastSeq === s.log.lastSeq && !sameHash(f.log.lastHash, s.log.lastHash)) {
      w.checks.fail(`${n.name}'s log differs from the sequencer's (same length ${f.log.lastSeq}, different head hash)`)
    }
    const r = stateRoot(f.state)
    if (f.state.seq === s.state.seq && r !== root) w.checks.fail(`final state root of ${n.name} ${r} differs from the sequencer's ${root}`)
  }
  return root
}

async function finalChecks(w: World): Promise<void> {
  const seq = w.reference()
  const entries: LogEntry[] = seq.disk.batches.flat()
  w.checks.finalLog(entries)
  const root = compareRoots(w)
  w.checks.invariants('sequencer (final)', seq.node!.state)
  await runShadows(w.checks, seq.disk, w.o.checkpointInterval, root, w.rng.below(seq.disk.batches.length), w.o.restartWindow,
    (e, r) => { count(w.stats, r); w.o.onResult?.(e, r) })
  // Last: the shadows' roots over the final log are compared too (with an election, only here).
  w.checks.finalRoots()
  w.loop.record(`final ${entries.length} ${hex(seq.disk.last().hash)} ${root}`)
}

/**
 * What a node logs, on stderr with its virtual time, when SIM_LOG names it (`SIM_LOG=seq,f1 npm
 * run sim -- --seed 3`): how to see why a seed failed. Nothing otherwise.
 */
function traced(name: string, w: World): Logger | undefined {
  if (!process.env.SIM_LOG?.split(',').includes(name)) return undefined
  const out = (level: string) => (o: object, msg?: string): void => {
    process.stderr.write(`${(w.loop.now - START_TIME).toFixed(1)} ${name} ${level} ${msg ?? ''} ${JSON.stringify(o)}\n`)
  }
  return { info: out('info'), warn: out('warn'), error: out('error') }
}
