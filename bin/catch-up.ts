// `exchange replica --catch-up-from DIR`: a follower whose end its sequencer's log no longer
// reaches (down longer than the sequencer's --log-keep, or new and empty) first appends what it
// lacks from the sequencer's log archive (bin/log-archive.ts), read where the operator keeps
// it, then follows from the archive's end. Each entry is appended as a replicated one is: the
// seq after the log's last, its hash recomputed and chained to the log's own, so an archive of
// another log, or one with a hole, is refused where it stops continuing this one.

import { readdir } from 'node:fs/promises'
import path from 'node:path'
import { readLogFile, SEGMENT_NAME } from '../chain/log-file.js'
import type { LogEntry } from '../replica/entry.js'
import type { LevelLogStore } from '../replica/level-log.js'
import { OperatorError } from './operator-error.js'

/** Entries per durable write, as restore.ts writes them. */
const BATCH = 2_000

/** Appends the archive's entries after `log`'s end; how many. Segments wholly before it are not read. */
export async function catchUpFromArchive(log: LevelLogStore, dir: string): Promise<number> {
  const names = await readdir(dir).catch((err: Error) => { throw new OperatorError(`--catch-up-from ${dir}: ${err.message}`) })
  const segments = names.map((n) => ({ n, m: SEGMENT_NAME.exec(n) }))
    .filter((s) => s.m !== null && Number(s.m[2]) > log.lastSeq).map((s) => s.n).sort()
  const start = log.lastSeq
  let pending: LogEntry[] = []
  const flush = async (): Promise<void> => {
    if (pending.length > 0) await log.append(pending)
    pending = []
  }
  try {
    for (const name of segments) {
      const file = await readLogFile(path.join(dir, name))
      for await (const batch of file.batches) {
        for (const e of batch) {
          if (e.seq <= log.lastSeq + pending.length) continue
          pending.push(e)
          if (pending.length >= BATCH) await flush()
        }
      }
    }
    await flush()
  } catch (err) {
    throw new OperatorError(`--catch-up-from ${dir}: ${(err as Error).message} (this log ends at ${log.lastSeq})`)
  }
  return log.lastSeq - start
}
