// Snapshots on LevelDB in their own directory: the encodeSnapshot() bytes and a meta record
// (seq, time, state root, hash of the log entry at seq) per snapshot, both keyed by seq.

import { createHash } from 'node:crypto'
import { Level } from 'level'
import { makeDir } from './make-dir.js'
import { openLevel } from './level-open.js'
import { assert } from '../core/assert.js'
import { packr, sameHash } from './entry.js'
import { keySeq, seqKey, SYNC } from './level-keys.js'
import { REPLICA_LIMITS } from '../core/limits.js'

type Bytes = Uint8Array
const FORMAT = 1

export interface SnapshotMeta {
  seq: number
  time: number
  /** State root at seq, 0x-prefixed hex as stateRoot() gives it. */
  root: string
  /** Hash of the log entry at seq, hex (as entry.ts hex() gives it): the log continues from it. */
  hash: string
}

export interface Snapshot {
  meta: SnapshotMeta
  bytes: Uint8Array
}

const digest = (bytes: Bytes): Bytes => createHash('sha256').update(bytes).digest()

function spaces(db: Level<Bytes, Bytes>) {
  return {
    meta: db.sublevel<Bytes, Bytes>('meta', { keyEncoding: 'view', valueEncoding: 'view' }),
    data: db.sublevel<Bytes, Bytes>('data', { keyEncoding: 'view', valueEncoding: 'view' }),
  }
}

// The meta record also keeps a digest of the bytes, checked on every load: a snapshot that
// does not read back exactly as saved must never be installed.
function decodeMeta(key: Bytes, value: Bytes): SnapshotMeta & { digest: Bytes } {
  const [format, seq, time, root, hash, bytesDigest] = packr.unpack(value) as [number, number, number, string, string, Bytes]
  assert(format === FORMAT && seq === keySeq(key), `snapshot meta at ${keySeq(key)} unreadable`)
  return { seq, time, root, hash, digest: bytesDigest }
}

export class SnapshotStore {
  #db: Level<Bytes, Bytes> | undefined
  #spaces: ReturnType<typeof spaces> | undefined
  /**
   * Snapshots pruning keeps whatever their age, by what needs them: 'proofs', the one balance
   * proofs are served from (balance-prover.ts); 'base', the oldest a log cut by its archiver
   * can restart from (bin/log-archive.ts).
   */
  readonly #pinned = new Map<string, number>()

  constructor(readonly dir: string) {}

  async open(): Promise<void> {
    assert(this.#db === undefined, 'snapshot store already open')
    await makeDir(this.dir)
    const db = new Level<Bytes, Bytes>(this.dir, { keyEncoding: 'view', valueEncoding: 'view' })
    await openLevel(db, this.dir)
    this.#db = db
    this.#spaces = spaces(db)
  }

  async close(): Promise<void> {
    const db = this.#db
    this.#db = this.#spaces = undefined
    await db?.close()
  }

  /** Stores a snapshot durably (meta and bytes in one synced write), then prunes past the limit. */
  async save(meta: SnapshotMeta, bytes: Uint8Array): Promise<void> {
    const { meta: metas, data } = this.#open()
    assert(Number.isSafeInteger(meta.seq) && meta.seq >= 1 && Number.isSafeInteger(meta.time), `snapshot at seq ${meta.seq}`)
    assert(/^0x[0-9a-f]{64}$/.test(meta.root), `snapshot root ${meta.root}`)
    assert(/^[0-9a-f]{64}$/.test(meta.hash) && bytes.length > 0, 'snapshot hash or bytes missing')
    const key = seqKey(meta.seq)
    const record = packr.pack([FORMAT, meta.seq, meta.time, meta.root, meta.hash, digest(bytes)])
    await this.#db!.batch([
      { type: 'put', sublevel: metas, key, value: record },
      { type: 'put', sublevel: data, key, value: bytes },
    ], SYNC)
    await this.prune(REPLICA_LIMITS.snapshotsKeptMax)
  }

  async latest(): Promise<Snapshot | undefined> {
    const [entry] = await this.#open().meta.iterator({ reverse: true, limit: 1 }).all()
    return entry && this.#load(entry[0], entry[1])
  }

  async at(seq: number): Promise<Snapshot | undefined> {
    const key = seqKey(seq)
    const value = await this.#open().meta.get(key)
    return value && this.#load(key, value)
  }

  /** Metas of every stored snapshot, oldest first. */
  async list(): Promise<SnapshotMeta[]> {
    const entries = await this.#open().meta.iterator({ limit: REPLICA_LIMITS.snapshotsKeptMax * 2 }).all()
    return entries.map(([key, value]) => {
      const { digest: _, ...meta } = decodeMeta(key, value)
      return meta
    })
  }

  /** Keeps the snapshot at `seq` through pruning for `purpose` from now on, instead of the one before (undefined: none). */
  pin(purpose: string, seq: number | undefined): void {
    if (seq === undefined) this.#pinned.delete(purpose)
    else this.#pinned.set(purpose, seq)
  }

  /** Keeps the newest `keep` snapshots and the pinned ones, and deletes the rest. */
  async prune(keep: number): Promise<void> {
    const { meta, data } = this.#open()
    assert(Number.isSafeInteger(keep) && keep >= 1, `prune keeps ${keep}`)
    const old = await meta.keys({ reverse: true }).all()
    const pinned = new Set(this.#pinned.values())
    const ops = old.slice(keep).filter((key) => !pinned.has(keySeq(key))).flatMap((key) => [
      { type: 'del' as const, sublevel: meta, key },
      { type: 'del' as const, sublevel: data, key },
    ])
    if (ops.length > 0) await this.#db!.batch(ops, SYNC)
  }

  /** Deletes every snapshot after `seq` (the log was cut back to it: rewind.ts), pinned or not. */
  async dropAfter(seq: number): Promise<void> {
    const { meta, data } = this.#open()
    const newer = await meta.keys({ gt: seqKey(seq) }).all()
    for (const [purpose, pinned] of this.#pinned) if (pinned > seq) this.#pinned.delete(purpose)
    const ops = newer.flatMap((key) => [{ type: 'del' as const, sublevel: meta, key }, { type: 'del' as const, sublevel: data, key }])
    if (ops.length > 0) await this.#db!.batch(ops, SYNC)
  }

  async #load(key: Bytes, value: Bytes): Promise<Snapshot> {
    const { digest: expected, ...meta } = decodeMeta(key, value)
    const bytes = await this.#open().data.get(key)
    assert(bytes !== undefined && sameHash(digest(bytes), expected), `snapshot at seq ${meta.seq} does not match its digest`)
    return { meta, bytes }
  }

  #open(): ReturnType<typeof spaces> {
    assert(this.#spaces !== undefined, 'snapshot store is not open')
    return this.#spaces
  }
}
