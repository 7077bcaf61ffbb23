// `exchange restore --log <file> --data <dir>`: a node's log rebuilt from an exported one
// (`export-log`, chain/log-file.ts), the cold backup for when every machine holding the log is
// lost. Each entry is appended as a node appends what it replicates: seq by seq, each hash
// recomputed over its stored bytes and chained to the one before, so a file edited or cut in
// the middle is refused where it breaks. Entries go to a directory beside the log's and move
// into place only once all of them are durable: a restore that fails leaves no log behind (nor
// the data directory, when it made it), and one that succeeds leaves a log a node starts on as
// it would after a stop (its state replayed from genesis, its history read models rebuilt from
// the log).

import { rename, rm, rmdir, stat } from 'node:fs/promises'
import path from 'node:path'
import { readLogFile } from '../chain/log-file.js'
import type { LogEntry } from '../replica/entry.js'
import { LevelLogStore } from '../replica/level-log.js'
import { syncPath } from '../replica/sync-path.js'
import { OperatorError, saidAs } from './operator-error.js'

/** Entries per durable write: a synced write each, so large enough that syncs do not dominate. */
const BATCH = 2_000

export interface Restored {
  entries: number
  lastSeq: number
  /** The last entry's hash, hex: compare it with the anchored one or the exporting node's. */
  lastHash: string
}

/** Restores the log in `file` as `dataDir`'s log, which must not exist yet. */
export async function restoreLog(file: string, dataDir: string): Promise<Restored> {
  const dir = path.join(dataDir, 'log')
  if (await stat(dir).catch(() => undefined) !== undefined) {
    throw new OperatorError(`${dir} exists: restore into a data directory that holds no log (a node's log is never overwritten)`)
  }
  const staging = path.join(dataDir, 'log.restoring')
  const madeDataDir = await stat(dataDir).catch(() => undefined) === undefined
  // What a restore cut short left there (never a log a node runs on: those are only at `dir`).
  await rm(staging, { recursive: true, force: true })
  const reader = await readLogFile(file).catch((err: unknown) => { throw saidAs(err, `restore from ${file}`) })
  const log = new LevelLogStore(staging)
  await log.open()
  let moved = false
  try {
    let batch: LogEntry[] = []
    try {
      for await (const entries of reader.batches) {
        batch.push(...entries)
        if (batch.length >= BATCH) {
          await log.append(batch)
          batch = []
        }
      }
      if (batch.length > 0) await log.append(batch)
    } catch (err) {
      // The reader names the record it could not read, an append the seq whose chain breaks.
      throw new OperatorError(`restore from ${file}: ${(err as Error).message}; nothing restored`)
    }
    if (log.lastSeq === 0) throw new OperatorError(`restore from ${file}: the file holds no entries; nothing restored`)
    const restored = { entries: log.lastSeq, lastSeq: log.lastSeq, lastHash: Buffer.from(log.lastHash).toString('hex') }
    await log.close()
    await rename(staging, dir)
    moved = true
    // The rename is durable once the data directory is synced: a power cut could undo it else.
    await syncPath(dataDir)
    return restored
  } finally {
    if (!moved) {
      await log.close()
      await rm(staging, { recursive: true, force: true })
      // Only if still empty: whatever else an operator put there since stays.
      if (madeDataDir) await rmdir(dataDir).catch(() => {})
    }
  }
}
