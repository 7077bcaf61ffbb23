// The consensus service in the simulator: the part of etcd leadership.ts uses (LeaseKv), on the
// loop's virtual time. A lease lapses `ttl` after its last renewal and takes its keys with it;
// every write raises the revision, and a key keeps the revision it was created at (the epoch).
// Each process reaches it through a view of its own: a request takes effect after a short delay
// and is answered after another; a host cut off from `ETCD_HOST` by a partition gets an error
// after a timeout, as etcd's client would; a process that crashed never hears back (its
// continuations would be a dead process acting).

import type { KvRecord, LeaseKv } from '../../replica/leadership.js'
import type { Rng } from '../random.js'
import type { EventLoop, Scheduled } from './loop.js'
import type { SimNetwork } from './network.js'

/** The name partitions use for the etcd cluster. */
export const ETCD_HOST = 'etcd'
/** How long a request to an unreachable etcd takes to fail. */
const UNREACHABLE_MS = 500

/** A request from a host cut off from etcd, failing as etcd's client does after its timeout. */
export class EtcdUnreachableError extends Error {
  override name = 'EtcdUnreachableError'
}

interface Key {
  value: string
  createRevision: number
  lease?: string
}

export class SimEtcd {
  private revision = 0
  private nextLease = 1
  private readonly keys = new Map<string, Key>()
  private readonly leases = new Map<string, { ttlMs: number; lapse: Scheduled }>()

  constructor(private readonly loop: EventLoop, private readonly rng: Rng, private readonly net: SimNetwork) {}

  /** Whether `key` exists now (the simulator's own look, no delay). */
  has(key: string): boolean {
    return this.keys.has(key)
  }

  /** The key as it stands now (the simulator's own look, no delay). */
  peek(key: string): KvRecord | undefined {
    return this.record(key)
  }

  /** The LeaseKv a process on `host` uses; `alive` says whether that process still runs. */
  view(host: string, alive: () => boolean): LeaseKv {
    const call = <T>(op: () => T): Promise<T> => new Promise<T>((resolve, reject) => {
      if (!this.net.reachable(host, ETCD_HOST)) {
        this.loop.after(UNREACHABLE_MS, () => { if (alive()) reject(new EtcdUnreachableError(`etcd unreachable from ${host}`)) })
        return
      }
      this.loop.after(this.delay(), () => {
        let out: { ok: true; value: T } | { ok: false; err: Error }
        try { out = { ok: true, value: op() } } catch (err) { out = { ok: false, err: err as Error } }
        this.loop.after(this.delay(), () => {
          if (!alive()) return
          if (out.ok) resolve(out.value)
          else reject(out.err)
        })
      })
    })
    return {
      grant: (ttlMs) => call(() => this.grant(ttlMs)),
      renew: (lease) => call(() => this.renew(lease)),
      revoke: (lease) => call(() => this.revoke(lease)),
      create: (key, value, lease) => call(() => this.create(key, value, lease)),
      put: (key, value, lease) => call(() => this.put(key, value, lease)),
      delete: (key) => call(() => { this.remove(key) }),
      get: (key) => call(() => this.record(key)),
      list: (prefix) => call(() => [...this.keys.keys()].filter((k) => k.startsWith(prefix)).sort().map((k) => this.record(k)!)),
    }
  }

  private delay(): number {
    return 0.5 + 2 * (this.rng.u32() / 4294967296)
  }

  private grant(ttlMs: number): string {
    const id = String(this.nextLease++)
    this.leases.set(id, { ttlMs, lapse: this.loop.after(ttlMs, () => this.revoke(id)) })
    return id
  }

  private renew(id: string): boolean {
    const lease = this.leases.get(id)
    if (lease === undefined) return false
    lease.lapse.cancel()
    lease.lapse = this.loop.after(lease.ttlMs, () => this.revoke(id))
    return true
  }

  private revoke(id: string): void {
    const lease = this.leases.get(id)
    if (lease === undefined) return
    lease.lapse.cancel()
    this.leases.delete(id)
    for (const [k, v] of [...this.keys]) if (v.lease === id) this.remove(k)
    this.loop.record(`etcd lease ${id} ended`)
  }

  private create(key: string, value: string, lease: string): { created: boolean; record: KvRecord } {
    if (!this.leases.has(lease)) throw new Error('etcdserver: requested lease not found')
    const created = !this.keys.has(key)
    if (created) this.write(key, value, lease)
    return { created, record: this.record(key)! }
  }

  private put(key: string, value: string, lease?: string): void {
    if (lease !== undefined && !this.leases.has(lease)) throw new Error('etcdserver: requested lease not found')
    this.write(key, value, lease)
  }

  private write(key: string, value: string, lease: string | undefined): void {
    this.revision++
    const old = this.keys.get(key)
    this.keys.set(key, { value, lease, createRevision: old?.createRevision ?? this.revision })
    this.loop.record(`etcd put ${key}`)
  }

  private remove(key: string): void {
    if (!this.keys.delete(key)) return
    this.revision++
    this.loop.record(`etcd delete ${key}`)
  }

  private record(key: string): KvRecord | undefined {
    const k = this.keys.get(key)
    return k && { key, value: k.value, createRevision: k.createRevision }
  }
}
