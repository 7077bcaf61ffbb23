// Who leads: the sequencer holds a lease in a consensus service (etcd in production, DESIGN.md
// §5), never an election of our own. Behind `LeaseKv` so the layer stays free of HTTP (the etcd
// client is bin/etcd.ts).
//
// Keys under the cluster's prefix:
//   leader              {node, url}, under the leader's lease. Its create revision is the
//                       epoch: it grows with every new leader, so it fences a deposed one.
//   term                {epoch, syncReplicas} of the newest leader, kept after its lease: the
//                       round the standbys vote in once its key is gone, and how many standbys
//                       held each command it acknowledged.
//   standbys/<node>     every standby of the cluster, kept after its lease (a standby that
//                       takes the lead leaves once its term is open, held by its own standbys;
//                       an operator removes one lost for good).
//   members/<node>      every standby that is up, under its lease.
//   votes/<epoch>/<node> {seq, epoch}: a standby's log once it stopped following (its last seq,
//                       and the newest term it holds: core/term.ts), in the round of `epoch`.
// A leader's first entry names its epoch (Lead), so a log says which term it reached. Of the
// standbys of one leader, each log is a prefix of the leader's, so the longest holds every entry
// any of them holds, and so every acknowledged one (replication.ts). A log of an older term (a
// former leader's, with a tail no one acknowledged) loses to one of a newer term, however long.
// The winner is the voter with the newest term and then the longest log, once every live
// member has voted and so have enough standbys: of M standbys with N holding each acknowledged
// command, any M - N + 1 include a holder of each. A standby down or restarting is not waited
// for beyond that; one that may hold what no voter holds is. Never one with an empty log.

import type { Clock, Timer } from './clock.js'
import type { Logger } from './node.js'

export interface KvRecord {
  key: string
  value: string
  /** The store's revision at the key's creation: grows with every key created anywhere. */
  createRevision: number
}

/** A key-value store with leases: what this module needs of etcd. */
export interface LeaseKv {
  /** A new lease that lapses `ttlMs` after its last renewal, taking its keys with it. */
  grant(ttlMs: number): Promise<string>
  /** Renews the lease: false once it has lapsed. */
  renew(lease: string): Promise<boolean>
  revoke(lease: string): Promise<void>
  /** Puts `value` at `key` under `lease` unless the key exists; the key as it then stands. */
  create(key: string, value: string, lease: string): Promise<{ created: boolean; record: KvRecord }>
  /** Puts `value` at `key`, under `lease` if given (else it stays until overwritten). */
  put(key: string, value: string, lease?: string): Promise<void>
  delete(key: string): Promise<void>
  get(key: string): Promise<KvRecord | undefined>
  list(prefix: string): Promise<KvRecord[]>
}

export interface Leader {
  epoch: number
  node: string
  /** Base URL of its replication and command endpoints. */
  url: string
}

export interface Vote {
  node: string
  /** The last seq of its log. */
  seq: number
  /** The newest term its log holds (State.epoch). */
  epoch: number
}

/** Another node leads, as the consensus service names it. */
export class NotLeaderError extends Error {
  override name = 'NotLeaderError'
  constructor(readonly leader: Leader) {
    super(`node ${leader.node} leads epoch ${leader.epoch} at ${leader.url}`)
  }
}

export class LeaseLostError extends Error {
  override name = 'LeaseLostError'
}

/**
 * etcd gave this node an epoch not above a term its log holds: its revisions started again (its
 * data were lost). An operator raises them (`exchange cluster raise-epoch`) and starts it again.
 */
export class EpochBehindError extends Error {
  override name = 'EpochBehindError'
  constructor(readonly held: number, readonly epoch: number) {
    super(`the log holds a later term (epoch ${held}) than etcd gave this leader (${epoch}): were etcd's data replaced? Its revisions must keep rising: ` +
      `\`exchange cluster raise-epoch ${held} --etcd …\` raises them past it, then start this node again`)
  }
}

export interface LeadershipOptions {
  kv: LeaseKv
  clock: Clock
  /** Key prefix shared by the cluster's nodes, e.g. `/exchange/`. */
  prefix: string
  /** This node's name, unique in the cluster. */
  node: string
  /** How long the lease outlives this node's last renewal: a dead leader is replaced after about this. */
  leaseMs: number
  /** The standbys that hold each command this node acknowledges once it leads (--sync-replicas). */
  syncReplicas: number
  logger?: Logger
  /**
   * While leading: the lease lapsed, or could not be renewed within `leaseMs`, so another node
   * may lead by now. (A standby's lapsed lease is only `lapsed`: it joins again.)
   */
  onLost: (err: Error) => void
}

export class Leadership {
  private lease: string | undefined
  private renewing: Timer | undefined
  /** When the lease may lapse, as this node can tell: the last renewal asked for plus its length. */
  private deadline: Timer | undefined
  private stopped = false
  private leading = false
  /** This node's lease lapsed: its keys are gone until it starts again. */
  lapsed = false

  constructor(private readonly o: LeadershipOptions) {}

  get node(): string { return this.o.node }

  /** Takes this node's lease and keeps it renewed (a third of its length apart). */
  async start(): Promise<void> {
    this.renewing?.cancel()
    const asked = this.o.clock.now()
    const lease = await this.o.kv.grant(this.o.leaseMs)
    this.lease = lease
    this.lapsed = false
    this.arm(lease, asked)
    this.renewing = this.o.clock.every(Math.max(50, Math.floor(this.o.leaseMs / 3)), () => { void this.renew() })
  }

  /**
   * start(), tried again every `retryMs` while the consensus service does not answer (a
   * cluster's processes start in any order), saying so once per reason.
   */
  async startWhenReachable(retryMs: number): Promise<void> {
    let said: string | undefined
    for (;;) {
      try {
        await this.start()
        if (said !== undefined) this.o.logger?.info({}, 'the consensus service answers: lease taken')
        return
      } catch (err) {
        const reason = (err as Error).message
        if (reason !== said) this.o.logger?.warn({ reason }, 'cannot take this node\'s lease in the consensus service; retrying')
        said = reason
      }
      await new Promise<void>((resolve) => this.o.clock.after(retryMs, resolve))
    }
  }

  /** Registers this node as a standby of the cluster, and as up. */
  async join(): Promise<void> {
    await this.o.kv.put(this.key(`standbys/${this.o.node}`), '')
    await this.o.kv.put(this.key(`members/${this.o.node}`), '', this.leaseId())
  }

  /** The node leading now, if any. */
  leader(): Promise<Leader | undefined> {
    return readLeader(this.o.kv, this.o.prefix)
  }

  /** Leads unless a node (another, or this one under an older lease) does: this node's epoch, or the leader it found. */
  private async claim(url: string): Promise<{ won: true; epoch: number } | { won: false; leader: Leader }> {
    const { created, record } = await this.o.kv.create(this.key('leader'), JSON.stringify({ node: this.o.node, url }), this.leaseId())
    const leader = leaderOf(record)
    return created ? { won: true, epoch: leader.epoch } : { won: false, leader }
  }

  /**
   * Leads, as claim() does, or throws NotLeaderError. A record of this node under an older lease
   * (a run before a restart) is waited out: leading under a lease that is about to lapse would
   * leave the standbys electing another leader beside it. An epoch not above `heldEpoch` (the
   * newest term this node's log holds) could open no term: the claim is given up with the lease,
   * before any term is written, and EpochBehindError thrown.
   */
  async lead(url: string, heldEpoch = 0): Promise<number> {
    for (;;) {
      if (this.lapsed) throw new LeaseLostError('this node\'s lease lapsed before it claimed the lead')
      const r = await this.claim(url)
      if (r.won && this.lapsed) {
        // The claim went in under a lease this node already counts as lapsed (its deadline
        // passed while the claim was on its way): no renewal keeps it, and nothing would tell
        // this node when etcd drops it. Given up with the lease (found by the simulator: a
        // standby elected just as its lease lapsed led on after etcd had deleted its key).
        await this.o.kv.revoke(this.leaseId()).catch(() => undefined)
        throw new LeaseLostError('this node\'s lease lapsed as it claimed the lead: claim given up')
      }
      if (r.won && r.epoch <= heldEpoch) {
        await this.stop()
        throw new EpochBehindError(heldEpoch, r.epoch)
      }
      if (r.won) {
        this.leading = true
        await this.o.kv.put(this.key('term'), JSON.stringify({ epoch: r.epoch, syncReplicas: this.o.syncReplicas }))
        return r.epoch
      }
      if (r.leader.node !== this.o.node) throw new NotLeaderError(r.leader)
      this.o.logger?.warn({ epoch: r.leader.epoch }, 'a previous run of this node still holds the lead; waiting for its lease to lapse')
      await new Promise<void>((resolve) => this.o.clock.after(Math.max(50, Math.floor(this.o.leaseMs / 5)), resolve))
    }
  }

  /**
   * This leader's term is open: its Lead entry, and so everything before it, is held by its
   * --sync-replicas standbys. Only now does it leave the standbys the next vote waits for: until
   * then it may be the one standby holding what the last leader acknowledged (found by the
   * simulator: a leader that died before any standby held its first entry left an election to
   * the one standby that lacked them).
   */
  async termOpen(): Promise<void> {
    await this.o.kv.delete(this.key(`standbys/${this.o.node}`))
  }

  /** The newest leader there was (its key may be gone): its epoch, the round to vote in, and its --sync-replicas. */
  term(): Promise<Term | undefined> {
    return readTerm(this.o.kv, this.o.prefix)
  }

  /** Says what this node's log holds (its last seq and newest term), once it stopped following, in `round`. */
  async vote(round: number, log: { seq: number; epoch: number }): Promise<void> {
    await this.o.kv.put(this.key(`votes/${round}/${this.o.node}`), JSON.stringify(log), this.leaseId())
  }

  /** The standby to lead in `round` (tallyVotes). */
  tally(round: number, syncReplicas: number): Promise<Tally> {
    return tallyVotes(this.o.kv, this.o.prefix, round, syncReplicas)
  }

  /** Gives the lease up: this node's keys go at once (a leader stepping down is replaced without waiting for it to lapse). */
  async stop(): Promise<void> {
    this.renewing?.cancel()
    this.deadline?.cancel()
    this.stopped = true
    if (this.lease !== undefined) await this.o.kv.revoke(this.lease).catch(() => undefined)
  }

  private async renew(): Promise<void> {
    const lease = this.lease
    if (this.stopped || this.lapsed || lease === undefined) return
    // Counted from before the call: etcd renewed it then at the earliest.
    const asked = this.o.clock.now()
    let alive: boolean
    try {
      alive = await this.o.kv.renew(lease)
    } catch {
      // Unreachable: still ours until the deadline, which then says so.
      return
    }
    if (!alive) return this.lose(lease, 'lease lapsed')
    if (lease === this.lease && !this.lapsed) this.arm(lease, asked)
  }

  /**
   * A leader stops at the moment its lease may have lapsed, not at the next failed renewal: a
   * standby may be elected from then on, and every acknowledgement after it could be lost.
   */
  private arm(lease: string, from: number): void {
    this.deadline?.cancel()
    this.deadline = this.o.clock.after(Math.max(0, from + this.o.leaseMs - this.o.clock.now()),
      () => this.lose(lease, `lease not renewed for ${this.o.leaseMs} ms`))
  }

  private lose(lease: string, why: string): void {
    if (this.stopped || this.lapsed || lease !== this.lease) return
    this.lapsed = true
    this.renewing?.cancel()
    this.deadline?.cancel()
    if (!this.leading) {
      this.o.logger?.warn({ node: this.o.node, reason: why }, 'standby lease lapsed; joining again')
      return
    }
    this.o.logger?.error({ node: this.o.node, reason: why }, 'leadership lease lost')
    this.o.onLost(new LeaseLostError(`${why}: another node may lead now`))
  }

  private leaseId(): string {
    if (this.lease === undefined) throw new Error('leadership not started')
    return this.lease
  }

  private key(rest: string): string {
    return this.o.prefix + rest
  }
}

/** The node leading the cluster under `prefix` now, if any: what a client reads to find the sequencer. */
export async function readLeader(kv: LeaseKv, prefix: string): Promise<Leader | undefined> {
  const r = await kv.get(prefix + 'leader')
  return r && leaderOf(r)
}

export interface Term {
  epoch: number
  syncReplicas: number
}

/** The newest leader there was under `prefix` (its key may be gone): its epoch, the round to vote in, and its --sync-replicas. */
export async function readTerm(kv: LeaseKv, prefix: string): Promise<Term | undefined> {
  const r = await kv.get(prefix + 'term')
  const v = r && parseJson(r.value) as { epoch?: unknown; syncReplicas?: unknown } | undefined
  if (!Number.isSafeInteger(v?.epoch)) return undefined
  return { epoch: v!.epoch as number, syncReplicas: Number.isSafeInteger(v!.syncReplicas) ? v!.syncReplicas as number : 1 }
}

export interface Tally {
  /** The standby to lead, once enough have voted. */
  winner?: Vote
  /** Those not voted that the tally waits for. */
  waitingFor: string[]
  /** Every vote cast in the round. */
  votes: Vote[]
}

/**
 * The standby to lead in `round`, whose leader acknowledged what `syncReplicas` standbys held:
 * undefined while a live member has not voted, or fewer standbys than it takes to hold every
 * acknowledged command have (`waitingFor` names those not voted), or when every voter's log is empty.
 */
export async function tallyVotes(kv: LeaseKv, prefix: string, round: number, syncReplicas: number): Promise<Tally> {
  const [standbys, members, records] = await Promise.all([kv.list(prefix + 'standbys/'), kv.list(prefix + 'members/'),
    kv.list(prefix + `votes/${round}/`)])
  const votes = new Map<string, Vote>()
  for (const r of records) {
    const v = parseJson(r.value) as { seq?: unknown; epoch?: unknown } | undefined
    const node = nameOf(r)
    if (v && Number.isSafeInteger(v.seq) && Number.isSafeInteger(v.epoch)) votes.set(node, { node, seq: v.seq as number, epoch: v.epoch as number })
  }
  const cast = [...votes.values()]
  const live = members.map(nameOf).filter((n) => !votes.has(n))
  if (live.length > 0) return { waitingFor: live, votes: cast }
  const registered = standbys.map(nameOf)
  const need = registered.length - Math.max(1, syncReplicas) + 1
  if (registered.filter((n) => votes.has(n)).length < need) return { waitingFor: registered.filter((n) => !votes.has(n)), votes: cast }
  let winner: Vote | undefined
  for (const v of cast) {
    if (v.seq === 0) continue
    if (!winner || v.epoch > winner.epoch || (v.epoch === winner.epoch && (v.seq > winner.seq || (v.seq === winner.seq && v.node > winner.node)))) winner = v
  }
  return { winner, waitingFor: [], votes: cast }
}

/** The node a key under members/, standbys/ or votes/ names. */
export function nameOf(r: KvRecord): string {
  return r.key.slice(r.key.lastIndexOf('/') + 1)
}

/** The leader a `leader` record names, its epoch the record's create revision. */
export function leaderOf(r: KvRecord): Leader {
  const v = parseJson(r.value) as { node?: unknown; url?: unknown } | undefined
  if (typeof v?.node !== 'string' || typeof v.url !== 'string') throw new Error(`malformed leader record at ${r.key}: ${r.value}`)
  return { epoch: r.createRevision, node: v.node, url: v.url }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
