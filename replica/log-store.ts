// The log store interface every node writes through. The LevelDB implementation is in
// level-log.ts; the simulator supplies an in-memory one with injectable faults.

import type { LogEntry } from './entry.js'

export interface LogStore {
  /** Opens the store, verifies the chain of its tail and truncates a torn or corrupt tail. */
  open(): Promise<void>
  close(): Promise<void>
  /** Seq of the last durable entry (0 when empty). */
  readonly lastSeq: number
  /** Hash of the last durable entry (GENESIS_HASH when empty). */
  readonly lastHash: Uint8Array
  /** Seq of the oldest entry still held (1 unless older entries were dropped after a snapshot). */
  readonly firstSeq: number
  /**
   * Appends entries that continue the chain (seq = lastSeq + 1, prevHash = lastHash, each
   * hash correct) as one durable batch; resolves only after the write is synced to disk.
   */
  append(entries: LogEntry[]): Promise<void>
  /** Entries from `fromSeq` to `toSeq` inclusive (at most `limit`), chain-verified. */
  read(fromSeq: number, toSeq?: number, limit?: number): Promise<LogEntry[]>
  /** Drops entries below `seq` (after a snapshot at seq - 1 or later is stored). */
  dropBefore(seq: number): Promise<void>
  /** Drops entries after `seq` (a follower resyncing from a snapshot). */
  truncateAfter(seq: number): Promise<void>
}
