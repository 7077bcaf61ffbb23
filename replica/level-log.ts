// The durable log on LevelDB: one msgpack value per appended batch, keyed by the big-endian
// seq of its first entry, synced before append() resolves; open() verifies and repairs the tail.

import { stat } from 'node:fs/promises'
import path from 'node:path'
import { Level } from 'level'
import { makeDir } from './make-dir.js'
import { NoLogError, openLevel } from './level-open.js'
import { assert } from '../core/assert.js'
import { checkBatch, decodeBatch, encodeEntries, truncateBatch, type CheckedBatch, type Verdict } from './batch-codec.js'
import { checkContinues, checkLink, LogCorruptError } from './chain.js'
import { chainVerifier, VerifierUnavailableError, type ChainVerifier } from './chain-verifier.js'
import { GENESIS_HASH, HASH_BYTES, packr, sameHash, type LogEntry } from './entry.js'
import type { Logger, LogStore } from './log-store.js'
import { REPLICA_LIMITS } from '../core/limits.js'
import { keySeq, keySpaces, seqKey, SYNC, type LogKeySpaces } from './level-keys.js'
import { ReadAhead, type BatchIterator } from './level-read-ahead.js'
import { repairTail } from './level-tail.js'

type Bytes = Uint8Array
// The `base` record in the meta key space is the (seq, hash) just before firstSeq, which the
// first batch must link to. It moves only at dropBefore and reset and is their commit point.
const BASE_KEY = 'base'
const BASE_FORMAT = 1
// The `committed` record: knownCommitted (log-store.ts), written in the batch of the append that raised it.
const COMMITTED_KEY = 'committed'
/** Reads of at least this many entries check hashes on the chain verifier's thread. */
const VERIFY_IN_WORKER_FROM = 16_384

export interface LevelLogOptions {
  logger?: Logger
  /**
   * Where reads recompute hashes: on a second thread (chain-verifier.ts) while this one
   * decodes and the caller applies, or inline; it is the same check either way. 'auto' (the
   * default) uses the thread for reads of at least 16,384 entries, where it pays for the
   * copy and the round trip, once the thread is up ('always' waits for it). Appends always
   * check inline: measured, the thread did not pay there (the second core is busy with
   * LevelDB and the collector while the sequencer runs).
   */
  verifyInWorker?: 'auto' | 'always' | 'never'
  /**
   * Opens only a log that is there and holds entries (the tools that read one: audit, replay,
   * export-log, prove): otherwise NoLogError, and nothing is created. A mistyped --data would
   * else be audited as an empty log, and pass. Nor is anything repaired: a tail that breaks the
   * chain, which a node would drop, ends readBatches as LogCorruptError, so an audit reports it.
   */
  existing?: boolean
  /** The verifier thread to use; the process's own by default. */
  verifier?: ChainVerifier
}

/** `level` is classic-level on Node, which compacts a key range; its browser typings do not say so. */
interface Compactable {
  compactRange(start: Bytes, end: Bytes, options: { keyEncoding: 'view' }): Promise<void>
}

/** `batches`, then `err`: a read that reaches the end of what holds reports what does not. */
async function* thenFail<T>(batches: AsyncIterable<T>, err: Error): AsyncGenerator<T> {
  yield* batches
  throw err
}

const droppedError = (seq: number, firstSeq: number): RangeError => new RangeError(`seq ${seq} was dropped; the log starts at ${firstSeq}`)

export class LevelLogStore implements LogStore {
  #db: Level<Bytes, Bytes> | undefined
  #spaces: LogKeySpaces | undefined
  #baseSeq = 0
  #baseHash: Bytes = GENESIS_HASH
  #lastSeq = 0
  #lastHash: Bytes = GENESIS_HASH
  #knownCommitted = 0
  // Appends and truncations each check then write; two at once would both pass the check.
  // dropBefore touches only the head (batches below the new base, the base record), so it may
  // run while an append writes the tail (the log's archiver, bin/log-archive.ts), not beside
  // a truncation or reset.
  #writing: 'append' | 'cut' | undefined
  #dropping: Promise<void> | undefined
  #verifierWarned = false
  /** What breaks the chain after lastSeq, found by a reader (`existing`), which repairs nothing. */
  #damagedTail: LogCorruptError | undefined

  constructor(readonly dir: string, private readonly options: LevelLogOptions = {}) {}

  get lastSeq(): number { return this.#lastSeq }
  get lastHash(): Bytes { return this.#lastHash }
  get firstSeq(): number { return this.#baseSeq + 1 }
  get knownCommitted(): number { return this.#knownCommitted }

  async open(): Promise<void> {
    assert(this.#db === undefined, 'log store already open')
    const existing = this.options.existing === true
    if (existing) {
      // Every LevelDB has a CURRENT file.
      const current = await stat(path.join(this.dir, 'CURRENT')).catch(() => undefined)
      if (current?.isFile() !== true) throw new NoLogError(this.dir, 'no log')
    } else {
      await makeDir(this.dir)
    }
    const db = new Level<Bytes, Bytes>(this.dir, { keyEncoding: 'view', valueEncoding: 'view', createIfMissing: !existing })
    await openLevel(db, this.dir)
    this.#db = db
    const spaces = this.#spaces = keySpaces(db)
    try {
      await this.#loadBase()
      const committed = await spaces.meta.get(COMMITTED_KEY)
      if (committed !== undefined && committed.length !== 8) throw new LogCorruptError(0, 'the log\'s committed record is unreadable')
      this.#knownCommitted = committed === undefined ? 0 : keySeq(committed)
      // Batches below the base are what an interrupted dropBefore left behind (a reader leaves
      // them: reads start at the base).
      if (!existing) await spaces.log.clear({ lt: seqKey(this.#baseSeq + 1) })
      const tail = await repairTail(spaces.log, this.#baseSeq, this.#baseHash, this.options.logger, existing)
      this.#lastSeq = tail.seq
      this.#lastHash = tail.hash
      this.#damagedTail = tail.damaged
      if (existing && this.#lastSeq === 0) throw tail.damaged ?? new NoLogError(this.dir, 'a log with no entries')
    } catch (err) {
      await this.close()
      throw err
    }
  }

  async close(): Promise<void> {
    const db = this.#db
    this.#db = this.#spaces = undefined
    await db?.close()
  }

  async append(entries: LogEntry[], committed = 0): Promise<void> {
    const { log, meta } = this.#open()
    this.#beginWrite('append')
    try {
      // Checked in full before anything is written: a refused batch changes nothing.
      const bodies = checkContinues(this.#lastSeq, this.#lastHash, entries)
      const key = seqKey(entries[0]!.seq)
      const value = encodeEntries(entries, bodies)
      if (committed > this.#knownCommitted) {
        assert(Number.isSafeInteger(committed), `append with committed ${committed}`)
        // One write: the record is never newer than the entries it speaks for.
        await this.#db!.batch()
          .put(key, value, { sublevel: log })
          .put(COMMITTED_KEY, seqKey(committed), { sublevel: meta })
          .write(SYNC)
        this.#knownCommitted = committed
      } else {
        await log.put(key, value, SYNC)
      }
      const last = entries[entries.length - 1]!
      this.#lastSeq = last.seq
      this.#lastHash = Uint8Array.from(last.hash)
    } finally {
      this.#writing = undefined
    }
  }

  async read(fromSeq: number, toSeq = this.#lastSeq, limit: number = REPLICA_LIMITS.readEntriesMax): Promise<LogEntry[]> {
    assert(Number.isSafeInteger(limit) && limit >= 1 && limit <= REPLICA_LIMITS.readEntriesMax, `read limit ${limit}`)
    assert(Number.isSafeInteger(toSeq), `read toSeq ${toSeq}`)
    const out: LogEntry[] = []
    for await (const batch of this.#batches(fromSeq, Math.min(toSeq, this.#lastSeq, fromSeq + limit - 1))) {
      for (const e of batch) out.push(e)
    }
    return out
  }

  /** The batches from `fromSeq` to the last; a reader's (`existing`) then fails with the damaged tail it found, if any. */
  readBatches(fromSeq = this.firstSeq): AsyncIterable<LogEntry[]> {
    const batches = this.#batches(fromSeq, this.#lastSeq)
    return this.#damagedTail === undefined ? batches : thenFail(batches, this.#damagedTail)
  }

  /**
   * The stored batches from the one starting at `fromSeq` to the last, each checked against its
   * hashes and chained to the one before, no command decoded: what the log's archiver copies
   * out (bin/log-archive.ts), making none of the objects a read of entries makes.
   */
  async *readStored(fromSeq: number): AsyncGenerator<CheckedBatch> {
    const { log } = this.#open()
    if (fromSeq < this.firstSeq) throw droppedError(fromSeq, this.firstSeq)
    if (fromSeq > this.#lastSeq) return
    const it = log.iterator({ gte: seqKey(fromSeq) })
    const ahead = this.#readAhead(it, this.#lastSeq - fromSeq + 1)
    let prev: Bytes | undefined = fromSeq === this.firstSeq ? this.#baseHash : undefined
    let next = fromSeq
    try {
      for (let stored = await ahead.next(); stored !== undefined; stored = await ahead.next()) {
        if (stored.seq !== next) {
          throw next === fromSeq && fromSeq < this.firstSeq ? droppedError(fromSeq, this.firstSeq)
            : new LogCorruptError(next, next === fromSeq ? `no batch starts at ${fromSeq}` : 'gap: no batch holds it')
        }
        const batch = checkBatch(stored.seq, stored.bytes, await this.#verdict(stored.verdict))
        if (prev !== undefined && !sameHash(prev, batch.prevHash)) throw new LogCorruptError(stored.seq, 'the batch does not link to the one before')
        const last = (batch.count - 1) * HASH_BYTES
        prev = batch.hashes.subarray(last, last + HASH_BYTES)
        next = stored.seq + batch.count
        yield batch
      }
    } finally {
      await ahead.settle()
      await it.close()
    }
  }

  async dropBefore(seq: number): Promise<void> {
    assert(this.#dropping === undefined && this.#writing !== 'cut', 'dropBefore beside another drop, a truncation or a reset')
    const dropping = this.#drop(seq)
    this.#dropping = dropping.catch(() => {})
    try {
      await dropping
    } finally {
      this.#dropping = undefined
    }
  }

  async #drop(seq: number): Promise<void> {
    const { log } = this.#open()
    assert(Number.isSafeInteger(seq) && seq <= this.#lastSeq + 1, `dropBefore(${seq}) past lastSeq ${this.#lastSeq}`)
    if (seq <= this.firstSeq) return
    let base = { seq: this.#lastSeq, hash: this.#lastHash }
    if (seq <= this.#lastSeq) {
      // Keep the batch holding seq; the new base is the last entry of the batch before it.
      const [kept] = await log.iterator({ lte: seqKey(seq), reverse: true, limit: 1 }).all()
      const [before] = await log.iterator({ lt: kept![0], reverse: true, limit: 1 }).all()
      if (before === undefined) return
      const first = decodeBatch(keySeq(kept![0]), kept![1])[0]!
      const previous = decodeBatch(keySeq(before[0]), before[1])
      base = previous[previous.length - 1]!
      checkLink(base.seq, base.hash, first)
    }
    await this.#writeBase(base.seq, base.hash)
    await log.clear({ lt: seqKey(base.seq + 1) })
    // Deleted keys keep their space until a compaction passes over them, which LevelDB does
    // not do soon for a range nothing writes to again: measured, a cut log took as much disk.
    await (this.#db as unknown as Compactable).compactRange(log.prefixKey(seqKey(0), 'view'), log.prefixKey(seqKey(base.seq + 1), 'view'), { keyEncoding: 'view' })
  }

  async truncateAfter(seq: number): Promise<void> {
    const { log } = this.#open()
    await this.#dropped()
    assert(Number.isSafeInteger(seq) && seq >= this.#baseSeq,
      `truncateAfter(${seq}) below firstSeq - 1 (${this.#baseSeq}); reset instead`)
    if (seq >= this.#lastSeq) return
    this.#beginWrite('cut')
    try {
      if (seq === this.#baseSeq) return await this.#clearAll(this.#baseSeq, this.#baseHash)
      const [found] = await log.iterator({ lte: seqKey(seq), reverse: true, limit: 1 }).all()
      if (found === undefined) throw new LogCorruptError(seq, 'gap: no batch holds it')
      const [key, bytes] = found
      const cut = truncateBatch(keySeq(key), bytes, seq - keySeq(key) + 1)
      // Newest first, so a crash part-way leaves a shorter log that is still a valid prefix.
      await log.clear({ gt: key, reverse: true })
      // Rewritten even when unchanged: it is also the synced write that makes the clear durable.
      await log.put(key, cut.bytes, SYNC)
      this.#lastSeq = seq
      this.#lastHash = cut.last.hash
    } finally {
      this.#writing = undefined
    }
  }

  async reset(seq: number, hash: Uint8Array): Promise<void> {
    this.#open()
    assert(Number.isSafeInteger(seq) && seq >= 0 && hash.length === 32, `reset(${seq}) with a ${hash.length}-byte hash`)
    await this.#dropped()
    this.#beginWrite('cut')
    try {
      await this.#clearAll(seq, Uint8Array.from(hash))
    } finally {
      this.#writing = undefined
    }
  }

  // Entries go newest first and the base is written last, so a crash part-way leaves a valid
  // prefix of the old log under the old base.
  async #clearAll(seq: number, hash: Bytes): Promise<void> {
    await this.#open().log.clear({ reverse: true })
    await this.#writeBase(seq, hash)
    this.#lastSeq = seq
    this.#lastHash = hash
  }

  async *#batches(fromSeq: number, toSeq: number): AsyncGenerator<LogEntry[]> {
    const { log } = this.#open()
    assert(Number.isSafeInteger(fromSeq), `read fromSeq ${fromSeq}`)
    if (fromSeq < this.firstSeq) throw droppedError(fromSeq, this.firstSeq)
    if (fromSeq > toSeq) return
    const [startKey] = await log.keys({ lte: seqKey(fromSeq), reverse: true, limit: 1 }).all()
    if (startKey === undefined) throw new LogCorruptError(fromSeq, 'gap: no batch holds it')
    let prev: { seq: number, hash: Bytes } | undefined
    if (keySeq(startKey) === this.firstSeq) prev = { seq: this.#baseSeq, hash: this.#baseHash }
    const it = log.iterator({ gte: startKey, lte: seqKey(toSeq) })
    const ahead = this.#readAhead(it, toSeq - fromSeq + 1)
    let first = true
    try {
      for (let batch = await ahead.next(); batch !== undefined; batch = await ahead.next()) {
        const start = batch.seq
        // The batch holding fromSeq went between finding its key and opening the iterator: a
        // dropBefore meanwhile (never skip silently to the next one).
        if (first && start > fromSeq) {
          throw fromSeq < this.firstSeq ? droppedError(fromSeq, this.firstSeq) : new LogCorruptError(fromSeq, 'gap: no batch holds it')
        }
        first = false
        const entries = decodeBatch(start, batch.bytes, await this.#verdict(batch.verdict))
        if (prev !== undefined) checkLink(prev.seq, prev.hash, entries[0]!)
        prev = entries[entries.length - 1]!
        const lo = Math.max(0, fromSeq - start)
        const hi = Math.min(entries.length, toSeq - start + 1)
        if (lo < hi) yield lo === 0 && hi === entries.length ? entries : entries.slice(lo, hi)
      }
    } finally {
      await ahead.settle()
      await it.close()
    }
    if (prev === undefined && fromSeq < this.firstSeq) throw droppedError(fromSeq, this.firstSeq)
    if (prev === undefined || prev.seq < toSeq) {
      throw new LogCorruptError(prev === undefined ? fromSeq : prev.seq + 1, 'gap: missing entries')
    }
  }

  /** Reads ahead of `entries` entries from `it`, checking hashes on the verifier thread where that pays (verifyInWorker). */
  #readAhead(it: BatchIterator, entries: number): ReadAhead {
    const mode = this.options.verifyInWorker ?? 'auto'
    const inWorker = mode === 'always' || (mode === 'auto' && entries >= VERIFY_IN_WORKER_FROM)
    return new ReadAhead(it, inWorker ? this.options.verifier ?? chainVerifier : undefined, mode === 'always')
  }

  async #loadBase(): Promise<void> {
    this.#baseSeq = 0
    this.#baseHash = GENESIS_HASH
    const bytes = await this.#open().meta.get(BASE_KEY)
    if (bytes === undefined) return
    let base: unknown
    try {
      base = packr.unpack(bytes)
    } catch {
      base = undefined
    }
    const [format, seq, hash] = (Array.isArray(base) ? base : []) as unknown[]
    if (format !== BASE_FORMAT || !Number.isSafeInteger(seq) || !(hash instanceof Uint8Array) || hash.length !== 32) {
      throw new LogCorruptError(0, 'the log base record is unreadable')
    }
    this.#baseSeq = seq as number
    this.#baseHash = hash
  }

  async #writeBase(seq: number, hash: Bytes): Promise<void> {
    await this.#open().meta.put(BASE_KEY, packr.pack([BASE_FORMAT, seq, hash]), SYNC)
    this.#baseSeq = seq
    this.#baseHash = hash
  }

  #open(): LogKeySpaces {
    assert(this.#spaces !== undefined, 'log store is not open')
    return this.#spaces
  }

  /** The verifier's answer; undefined (check inline) if there was no question or no answer. */
  async #verdict(verdict: Promise<Verdict> | undefined): Promise<Verdict | undefined> {
    try {
      return await verdict
    } catch (err) {
      if (!(err instanceof VerifierUnavailableError)) throw err
      if (!this.#verifierWarned) this.options.logger?.warn({ err: err.message }, 'chain verifier thread unavailable; checking hashes inline')
      this.#verifierWarned = true
      return undefined
    }
  }

  /** Waits out a dropBefore in progress (a truncation or reset cannot run beside one). */
  async #dropped(): Promise<void> {
    while (this.#dropping !== undefined) await this.#dropping
  }

  #beginWrite(kind: 'append' | 'cut'): void {
    assert(this.#writing === undefined && (kind === 'append' || this.#dropping === undefined), 'concurrent writes to the log')
    this.#writing = kind
  }
}

