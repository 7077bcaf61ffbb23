// The log's archiver (`--log-keep N`): a node's LevelDB log grows with every command (about
// 107 bytes an entry of the core workload), so a node told to keep N entries moves what is
// older into archive segments, files in the export format (chain/log-file.ts) that an audit, a
// proof or a restore reads as one log when given their directory, and drops it from the
// LevelDB log. Operators move the segments wherever they keep history; the node never reads
// them again.
//
// A cut is made only at a checkpoint a snapshot holds (the node restarts from it, and a
// follower too far behind is sent it; the snapshot for the next cut is pinned as it is taken),
// and never past what the rest of the node still needs from the log: the bound the caller
// gives (its projections' durable seq, the committed seq, the anchored seq when a chain is
// declared). A segment is durable (synced, renamed, its directory synced) before its entries
// are dropped, so a crash between the two leaves both, and the next step writes a segment
// from the same first seq again, which replaces the one left.

import { readdir, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { packChecked, SEGMENT_NAME, segmentName, writeRecords } from '../chain/log-file.js'
import type { LevelLogStore } from '../replica/level-log.js'
import type { Logger } from '../replica/node.js'
import { makeDir } from '../replica/make-dir.js'
import { syncPath } from '../replica/sync-path.js'
import type { SnapshotMeta } from '../replica/snapshot-store.js'

/**
 * The pace of archiving, entries per second: twice the rate the log grew at since the last
 * segment, within these bounds. Each archived entry costs the node ~2.8 µs of its main thread
 * and ~4 µs more on other threads (read, check, gzip, write): spread at about the rate the log
 * grows, a few per cent of its work; taken at once, a cut of a million entries at full speed
 * held both cores of a 2-core machine for 4 s (bench:archive; bench:gateway with
 * GATEWAY_BENCH_FLAGS puts a cut under client load). The floor lets a quiet node archive a
 * long log it was started on in hours, not days (100 million entries: 5.6 h).
 */
export const PACE_MIN = 5_000
export const PACE_MAX = 20_000

/** Entries per segment at most: a first cut of a long log is written as several files. */
export const SEGMENT_ENTRIES_MAX = 1_000_000

export interface ArchiveSnapshots {
  list(): Promise<SnapshotMeta[]>
  pin(purpose: string, seq: number | undefined): void
}

/** The log it cuts: LevelLogStore's, read as stored. */
export type ArchivedLog = Pick<LevelLogStore, 'firstSeq' | 'lastSeq' | 'readStored' | 'dropBefore'>

export interface LogArchiverOptions {
  log: ArchivedLog
  snapshots: ArchiveSnapshots
  dir: string
  /** Entries the log keeps at least (counted back from its last). */
  keep: number
  /** The newest seq a cut may reach, from what else reads the log. */
  bound: () => number
  logger?: Logger
  /** Entries per segment at most (tests make it small). */
  segmentEntriesMax?: number
  /** Entries archived per second, in place of the pace the log's growth sets (PACE_MIN, PACE_MAX). */
  entriesPerSecond?: number
  /** Milliseconds now, for the log's growth rate (performance.now by default). */
  now?: () => number
}

export interface Segment {
  file: string
  first: number
  last: number
}

export class LogArchiver {
  #running: Promise<Segment[]> | undefined
  #archived = 0
  #closed = false
  /** The snapshot the last cut was made at (the log restarts from it), and the one pinned for the next. */
  #base: number | undefined
  #next: number | undefined
  /** Where the log stood at the last step, for its growth rate; the pace that sets. */
  #seen: { at: number; lastSeq: number } | undefined
  #pace = PACE_MIN

  constructor(private readonly o: LogArchiverOptions) {}

  /** The pace of the last step, entries per second. */
  get pace(): number { return this.#pace }

  /** Segments written since the process started. */
  get segmentsWritten(): number { return this.#archived }

  /**
   * Pins the oldest snapshot the log can restart from: a restart whose projections are behind
   * the newer ones goes back to it (replica/node.ts), and it must still be there.
   */
  async open(): Promise<void> {
    await makeDir(this.o.dir)
    await this.#pinBase()
  }

  /** Archives and drops what may go now; one step at a time (a call during one waits for it). */
  step(): Promise<Segment[]> {
    if (this.#closed) return Promise.resolve([])
    if (this.#running) return this.#running
    const running = this.#run().finally(() => { this.#running = undefined })
    this.#running = running
    return running
  }

  /** Takes no more steps and waits for the one under way (before the log closes). */
  async close(): Promise<void> {
    this.#closed = true
    await this.#running?.catch(() => {})
  }

  async #run(): Promise<Segment[]> {
    const written: Segment[] = []
    while (!this.#closed) {
      const segment = await this.#cutOnce()
      if (segment === undefined) break
      written.push(segment)
    }
    await this.#pinNext()
    return written
  }

  /** Twice the rate the log grew at since the last segment, within PACE_MIN and PACE_MAX. */
  #paceFromGrowth(): number {
    const now = this.o.now?.() ?? performance.now()
    const seen = this.#seen
    this.#seen = { at: now, lastSeq: this.o.log.lastSeq }
    if (seen === undefined || now <= seen.at) return PACE_MIN
    const growth = ((this.o.log.lastSeq - seen.lastSeq) * 1000) / (now - seen.at)
    return Math.min(PACE_MAX, Math.max(PACE_MIN, Math.round(2 * growth)))
  }

  /**
   * A node keeps only its newest few snapshots, all within the entries the log keeps: the next
   * cut's snapshot is pinned when taken, until the log has grown past it by the keep (so the
   * log holds between `keep` entries and about twice as many).
   */
  async #pinNext(): Promise<void> {
    const { log, snapshots } = this.o
    if (this.#next !== undefined && this.#next > (this.#base ?? 0)) return
    const newest = (await snapshots.list()).pop()
    this.#next = newest !== undefined && newest.seq > (this.#base ?? 0) && newest.seq >= log.firstSeq ? newest.seq : undefined
    snapshots.pin('next-cut', this.#next)
  }

  async #cutOnce(): Promise<Segment | undefined> {
    const { log, snapshots } = this.o
    // For each segment: a long first cut follows the log's growth as it goes.
    this.#pace = this.o.entriesPerSecond ?? this.#paceFromGrowth()
    const limit = Math.min(log.lastSeq - this.o.keep, this.o.bound())
    // The newest snapshot within the limit that leaves something to drop.
    const at = (await snapshots.list()).filter((m) => m.seq >= log.firstSeq && m.seq <= limit).pop()
    if (at === undefined) return undefined
    const max = this.o.segmentEntriesMax ?? SEGMENT_ENTRIES_MAX
    const first = log.firstSeq
    // Whole stored batches only: dropBefore drops whole batches, and the next segment must
    // start where this one ends.
    let last = first - 1
    const rate = this.#pace
    async function* upToCut(): AsyncGenerator<Uint8Array> {
      const start = performance.now()
      for await (const batch of log.readStored(first)) {
        const end = batch.seq + batch.count - 1
        if (end > at!.seq || (end - first + 1 > max && last >= first)) return
        last = end
        yield packChecked(batch)
        // Paced (PACE_MIN, PACE_MAX): the node's own work goes first.
        const ahead = (last - first + 1) / rate * 1000 - (performance.now() - start)
        if (ahead > 0) await new Promise((r) => setTimeout(r, ahead))
      }
    }
    await makeDir(this.o.dir)
    // Never a segment's name until it is whole and synced: readers take only those.
    const file = path.join(this.o.dir, `${String(first).padStart(12, '0')}.partial`)
    try {
      await writeRecords(file, upToCut(), { gzip: true })
    } finally {
      if (last < first) await rm(file, { force: true })
    }
    if (last < first) return undefined
    const name = path.join(this.o.dir, segmentName(first, last))
    await syncPath(file)
    await rename(file, name)
    await syncPath(this.o.dir)
    // A segment a crash left from the same first seq (the drop after it never made) holds a
    // part of this one: replaced, or the directory would not read as one log.
    for (const old of await readdir(this.o.dir)) {
      const m = SEGMENT_NAME.exec(old)
      if (m !== null && Number(m[1]) === first && old !== path.basename(name)) await rm(path.join(this.o.dir, old), { force: true })
    }
    // The restart point first: pruning must keep it once the entries before it are gone.
    snapshots.pin('base', at.seq)
    this.#base = at.seq
    await log.dropBefore(last + 1)
    this.#archived++
    this.o.logger?.info({ segment: path.basename(name), entries: last - first + 1, firstSeq: log.firstSeq }, 'log archived and cut')
    return { file: name, first, last }
  }

  async #pinBase(): Promise<void> {
    const { log, snapshots } = this.o
    if (log.firstSeq === 1) return
    const base = (await snapshots.list()).find((m) => m.seq >= log.firstSeq - 1)
    snapshots.pin('base', base?.seq)
    this.#base = base?.seq
  }
}
