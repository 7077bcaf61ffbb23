// Log archive benchmark (`--log-keep`, bin/log-archive.ts): a LevelDB log of 500,000 core
// workload entries in the sequencer's batch size, a snapshot every 10,000, then one archiver
// step keeping 50,000, at its fastest pace, while the log goes on taking synced appends at a
// busy sequencer's rate.
// Prints how fast entries move into segments, the main thread's share of the work, the
// appends' latency meanwhile against appends alone, and the disk before and after: LevelDB's
// bytes per entry against the gzipped segments'. No peer: what is compared is the log with
// and without its archiver.

import { execFileSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { LogArchiver, PACE_MAX } from '../bin/log-archive.js'
import type { Command } from '../core/commands.js'
import { GENESIS_HASH, hex, makeEntry, type LogEntry } from '../replica/entry.js'
import { LevelLogStore } from '../replica/level-log.js'
import { SnapshotStore } from '../replica/snapshot-store.js'
import { DEFAULT_WORKLOAD, generateWorkload } from '../sim/workload.js'
import { fixed, int, percentile, table, type Benchmark, type BenchSummary } from './lib/bench.js'

const ENTRIES = 500_000
const KEEP = 50_000
const CHECKPOINT = 10_000
/** Entries per appended batch: what the sequencer writes per sync under load. */
const BATCH = 100
/** The paced append rate, entries/s: a busy sequencer's. */
const RATE = 20_000
const APPENDS_ALONE_MS = 20_000

const megabytes = (dir: string): number => Number(execFileSync('du', ['-sk', dir]).toString().split('\t')[0]) / 1024

async function run(out: (line: string) => void): Promise<BenchSummary> {
  const root = await mkdtemp(path.join(tmpdir(), 'bench-archive-'))
  const log = new LevelLogStore(path.join(root, 'log'))
  const snapshots = new SnapshotStore(path.join(root, 'snapshots'))
  await log.open()
  await snapshots.open()
  try {
    const w = generateWorkload({ ...DEFAULT_WORKLOAD, commands: ENTRIES })
    const commands: Command[] = [...w.setup, ...w.stream]
    let prev = GENESIS_HASH
    let seq = 0
    const appendBatch = async (): Promise<LogEntry> => {
      const batch: LogEntry[] = []
      for (let i = 0; i < BATCH; i++) {
        seq++
        const e = makeEntry(seq, 1_700_000_000_000 + seq, commands[(seq - 1) % commands.length]!, prev)
        prev = e.hash
        batch.push(e)
      }
      await log.append(batch)
      return batch[BATCH - 1]!
    }
    while (seq < ENTRIES) {
      const last = await appendBatch()
      if (last.seq % CHECKPOINT === 0) {
        // The archiver reads only the metas; the bytes stand in for a state.
        await snapshots.save({ seq: last.seq, time: last.time, root: '0x' + '00'.repeat(32), hash: hex(last.hash) }, new Uint8Array(1024))
      }
    }
    const levelBefore = megabytes(path.join(root, 'log'))

    // Paced appends, as clients drive a sequencer: a batch every BATCH / RATE s, each timed from
    // when it was due to when it was durable (lateness included).
    const appendPaced = async (until: () => boolean): Promise<Float64Array> => {
      const every = (BATCH / RATE) * 1000
      const t0 = performance.now()
      const waits: number[] = []
      for (let i = 0; !until(); i++) {
        const due = t0 + i * every
        const now = performance.now()
        if (due > now) await new Promise((r) => setTimeout(r, due - now))
        await appendBatch()
        waits.push(performance.now() - due)
      }
      return Float64Array.from(waits).sort()
    }
    const aloneStart = performance.now()
    const alone = await appendPaced(() => performance.now() - aloneStart >= APPENDS_ALONE_MS)

    // At its fastest pace: a log growing by 10,000 entries a second or more.
    const archiver = new LogArchiver({ log, snapshots, dir: path.join(root, 'archive'), keep: KEEP, bound: () => Number.MAX_SAFE_INTEGER,
      entriesPerSecond: PACE_MAX })
    await archiver.open()
    const firstBefore = log.firstSeq
    const elu0 = performance.eventLoopUtilization()
    const t0 = performance.now()
    let done = false
    const stepping = archiver.step().finally(() => { done = true })
    const during = await appendPaced(() => done)
    const segments = await stepping
    const stepMs = performance.now() - t0
    const elu = performance.eventLoopUtilization(elu0)
    const archived = log.firstSeq - firstBefore
    const archiveMb = megabytes(path.join(root, 'archive'))
    const levelAfter = megabytes(path.join(root, 'log'))
    const held = log.lastSeq - log.firstSeq + 1
    const archiveRate = archived / (stepMs / 1000)

    out(`archive: a LevelDB log of ${int(ENTRIES)} core workload entries, a snapshot every ${int(CHECKPOINT)}; one archiver ` +
      `step keeping ${int(KEEP)}, at its fastest pace (${int(PACE_MAX)} entries/s), while synced batches of ${BATCH} are appended at ${int(RATE)} entries/s`)
    out('')
    for (const line of table(['append, due to durable', 'batches', 'p50 ms', 'p99 ms', 'max ms'], [
      ['alone', int(alone.length), fixed(percentile(alone, 50), 2), fixed(percentile(alone, 99), 2), fixed(alone[alone.length - 1]!, 2)],
      ['during the step', int(during.length), fixed(percentile(during, 50), 2), fixed(percentile(during, 99), 2), fixed(during[during.length - 1]!, 2)],
    ])) out(line)
    out('')
    for (const line of table(['archiver step', 'figure'], [
      ['entries archived (segments)', `${int(archived)} (${segments.length})`],
      ['time, s', fixed(stepMs / 1000, 2)],
      ['archived entries/s', int(archiveRate)],
      ['main thread busy, appends included', `${fixed(elu.utilization * 100, 0)}%`],
      ['LevelDB log before, MB (bytes/entry)', `${fixed(levelBefore, 1)} (${fixed((levelBefore * 1048576) / ENTRIES, 0)})`],
      ['LevelDB log after, MB (entries held)', `${fixed(levelAfter, 1)} (${int(held)})`],
      ['segments, MB (bytes/entry)', `${fixed(archiveMb, 1)} (${fixed((archiveMb * 1048576) / archived, 0)})`],
    ])) out(line)
    return {
      bench: 'archive', archivedPerSec: Math.round(archiveRate), stepSeconds: Number((stepMs / 1000).toFixed(2)),
      appendP99AloneMs: Number(percentile(alone, 99).toFixed(2)), appendP99DuringMs: Number(percentile(during, 99).toFixed(2)),
      segmentBytesPerEntry: Math.round((archiveMb * 1048576) / archived), levelBytesPerEntry: Math.round((levelBefore * 1048576) / ENTRIES),
    }
  } finally {
    await log.close()
    await snapshots.close()
    await rm(root, { recursive: true, force: true })
  }
}

export const benchmark: Benchmark = { name: 'archive', run }
