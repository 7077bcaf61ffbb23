// Who leads: the sequencer holds a lease in a consensus service (etcd in production, DESIGN.md
// §5), never an election of our own. Behind `LeaseKv` so the layer stays free of HTTP (the etcd
// client is bin/etcd.ts).
//
// Keys under the cluster's prefix:
//   leader              {node, url}, under the leader's lease. Its create revision is the
//                       epoch: it grows with every new leader, so it fences a deposed one.
//   members/<node>      every standby that may take over, under its lease.
//   votes/<epoch>/<node> {seq, eligible}: what a standby's log holds once it stopped following
//                       the leader of `epoch`, whose key is gone.
// A standby's log is a prefix of its sequencer's, so of all the standbys' logs the longest holds
// every entry any standby holds, and so every acknowledged one (replication.ts). The winner is
// therefore the eligible standby with the longest log, once every live member has voted.

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
  put(key: string, value: string, lease: string): Promise<void>
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
  seq: number
  /** Whether it was a standby of that leader (reported entries to it): a new, empty standby is not. */
  eligible: boolean
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

export interface LeadershipOptions {
  kv: LeaseKv
  clock: Clock
  /** Key prefix shared by the cluster's nodes, e.g. `/exchange/`. */
  prefix: string
  /** This node's name, unique in the cluster. */
  node: string
  /** How long the lease outlives this node's last renewal: a dead leader is replaced after about this. */
  leaseMs: number
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

  /** Registers this node as a standby that may take over. */
  async join(): Promise<void> {
    await this.o.kv.put(this.key(`members/${this.o.node}`), '', this.leaseId())
  }

  /** The node leading now, if any. */
  async leader(): Promise<Leader | undefined> {
    const r = await this.o.kv.get(this.key('leader'))
    return r && leaderOf(r)
  }

  /** Leads unless a node (another, or this one under an older lease) does: this node's epoch, or the leader it found. */
  async claim(url: string): Promise<{ won: true; epoch: number } | { won: false; leader: Leader }> {
    const { created, record } = await this.o.kv.create(this.key('leader'), JSON.stringify({ node: this.o.node, url }), this.leaseId())
    const leader = leaderOf(record)
    return created ? { won: true, epoch: leader.epoch } : { won: false, leader }
  }

  /**
   * Leads, as claim() does, or throws NotLeaderError. A record of this node under an older lease
   * (a run before a restart) is waited out: leading under a lease that is about to lapse would
   * leave the standbys electing another leader beside it.
   */
  async lead(url: string): Promise<number> {
    for (;;) {
      const r = await this.claim(url)
      if (r.won) {
        this.leading = true
        return r.epoch
      }
      if (r.leader.node !== this.o.node) throw new NotLeaderError(r.leader)
      this.o.logger?.warn({ epoch: r.leader.epoch }, 'a previous run of this node still holds the lead; waiting for its lease to lapse')
      await new Promise<void>((resolve) => this.o.clock.after(Math.max(50, Math.floor(this.o.leaseMs / 5)), resolve))
    }
  }

  /** Says what this node's log holds, once it stopped following the leader of `epoch`. */
  async vote(epoch: number, seq: number, eligible: boolean): Promise<void> {
    await this.o.kv.put(this.key(`votes/${epoch}/${this.o.node}`), JSON.stringify({ seq, eligible }), this.leaseId())
  }

  /**
   * The standby to lead after the leader of `epoch`: undefined while a live member has not voted
   * (`waitingFor` names them), or when no voter is eligible.
   */
  async tally(epoch: number): Promise<{ winner?: Vote; waitingFor: string[] }> {
    const [members, records] = await Promise.all([this.o.kv.list(this.key('members/')), this.o.kv.list(this.key(`votes/${epoch}/`))])
    const votes = new Map<string, Vote>()
    for (const r of records) {
      const v = parseJson(r.value) as { seq?: unknown; eligible?: unknown } | undefined
      const node = r.key.slice(r.key.lastIndexOf('/') + 1)
      if (v && Number.isSafeInteger(v.seq)) votes.set(node, { node, seq: v.seq as number, eligible: v.eligible === true })
    }
    const waitingFor = members.map((m) => m.key.slice(m.key.lastIndexOf('/') + 1)).filter((n) => !votes.has(n))
    if (waitingFor.length > 0) return { waitingFor }
    let winner: Vote | undefined
    for (const v of votes.values()) {
      if (!v.eligible) continue
      if (!winner || v.seq > winner.seq || (v.seq === winner.seq && v.node > winner.node)) winner = v
    }
    return { winner, waitingFor }
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

function leaderOf(r: KvRecord): Leader {
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
