// The log store interface every node writes through. The LevelDB implementation is in
// level-log.ts; memory-log.ts is the in-memory one the simulator extends with faults.

import type { LogEntry } from './entry.js'

/** The part of a pino logger the stores use. */
export interface Logger {
  warn(obj: object, msg: string): void
}

export interface LogStore {
  /** Opens the store, verifies the chain of its tail and truncates a torn or corrupt tail. */
  open(): Promise<void>
  close(): Promise<void>
  /** Seq of the last durable entry (firstSeq - 1 when none is held, 0 for a new log). */
  readonly lastSeq: number
  /** Hash of the last durable entry (GENESIS_HASH for a new log, the reset hash after reset). */
  readonly lastHash: Uint8Array
  /** Seq of the oldest entry still held (1 unless older entries were dropped after a snapshot). */
  readonly firstSeq: number
  /**
   * Appends entries that continue the chain (seq = lastSeq + 1, prevHash = lastHash, each
   * hash correct) as one durable batch; resolves only after the write is synced to disk.
   * Each hash is checked over the bytes that will be stored: a sealed entry's own body
   * (entry.ts), recomputed unless it was computed or checked over that body when the entry
   * was sealed (makeEntry, a verified read or replicated batch), any other entry's fields
   * encoded now. Throws AppendRefusedError, changing nothing, when they do not. `committed`,
   * when above knownCommitted, raises it in the same write.
   */
  append(entries: LogEntry[], committed?: number): Promise<void>
  /**
   * The newest seq this node knew to be committed at an append (`committed`, written with that
   * batch and as durable as it): held by the standbys its leader waited for, so in the log of
   * any leader elected after. 0 when none was recorded. A rewind never cuts below it (rewind.ts).
   */
  readonly knownCommitted: number
  /**
   * Entries from `fromSeq` (at least firstSeq) to `toSeq` inclusive (default lastSeq), at most
   * `limit` (default and maximum REPLICA_LIMITS.readEntriesMax), chain-verified, sealed with
   * their stored bodies where the store keeps them. Throws LogCorruptError on a gap or a
   * hash mismatch.
   */
  read(fromSeq: number, toSeq?: number, limit?: number): Promise<LogEntry[]>
  /**
   * Every entry from `fromSeq` (default firstSeq) to the lastSeq at the call, in stored
   * batches, chain-verified across batches: the fast path for replay.
   */
  readBatches(fromSeq?: number): AsyncIterable<LogEntry[]>
  /** Drops whole batches below `seq` (after a snapshot at seq - 1 or later is stored). */
  dropBefore(seq: number): Promise<void>
  /** Drops entries after `seq` (a follower resyncing from a snapshot). */
  truncateAfter(seq: number): Promise<void>
  /**
   * Drops every entry and continues the chain from (seq, hash): firstSeq = seq + 1. A follower
   * does this when it installs a snapshot taken at `seq`, whose entry had hash `hash`.
   */
  reset(seq: number, hash: Uint8Array): Promise<void>
}
