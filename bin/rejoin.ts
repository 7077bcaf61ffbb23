// A node of an etcd cluster rejoining the elected leader's log (replica/rewind.ts), as the CLI
// runs it: the entries a rewind drops go to a file under the data directory (runtime.ts rewinds
// at start, and builds projections that took any of them again), and a follower that finds its
// log parted from the leader's while running (DivergedError) is restarted in the same process,
// and so rewinds.

import path from 'node:path'
import { makeDir } from '../replica/make-dir.js'
import { writeLogFile } from '../chain/log-file.js'
import type { Clock } from '../replica/clock.js'
import type { LogEntry } from '../replica/entry.js'
import type { Logger } from '../replica/node.js'
import { DivergedError } from '../replica/rewind.js'
import type { RunningService } from './readiness.js'

/** Where the dropped entries of a rewind go: `<data>/diverged/<first seq>-<last seq>.log`, in the export format (chain/log-file.ts). */
export function divergedFile(dataDir: string, tail: readonly LogEntry[]): string {
  return path.join(dataDir, 'diverged', `${tail[0]!.seq}-${tail[tail.length - 1]!.seq}.log`)
}

/** The tail a rewind drops, kept in a file under the data directory (divergedFile). */
export function saveTailIn(dataDir: string, logger: Logger): (tail: LogEntry[]) => Promise<void> {
  return async (tail) => {
    const file = divergedFile(dataDir, tail)
    await makeDir(path.dirname(file))
    await writeLogFile(file, (async function* () { yield tail })())
    logger.warn({ file, entries: tail.length }, 'entries the leader does not hold kept in a file')
  }
}

/**
 * Runs a follower and restarts it, in this process, each time its log parts from the leader's
 * (DivergedError): the restart rewinds it. Any other fault, or more than `maxRestarts` within a
 * minute, goes to `fatal`.
 */
export async function runRejoining(start: (onFault: (err: Error) => void) => Promise<RunningService>, clock: Clock,
  logger: Logger, fatal: (err: Error) => void, maxRestarts = 3): Promise<RunningService> {
  let running: RunningService | undefined
  let draining = false
  let restarting: Promise<void> | undefined
  let pending: Error | undefined
  let stopped = false
  const restarts: number[] = []
  const restart = (err: Error): void => {
    const now = clock.now()
    while (restarts.length > 0 && restarts[0]! < now - 60_000) restarts.shift()
    if (restarts.length >= maxRestarts) return fatal(new Error(`${err.message} (${restarts.length} restarts within a minute did not rewind it)`))
    restarts.push(now)
    logger.warn({ err: err.message }, 'this log parted from the leader\'s: restarting to rewind it')
    const old = running
    running = undefined
    restarting = (async () => {
      await old!.stop()
      if (stopped) return
      running = await start(onFault)
      if (draining) running.drain()
      after()
    })().catch(fatal)
  }
  // A fault while starting waits for the start to finish.
  const after = (): void => {
    const err = pending
    pending = undefined
    if (err) restart(err)
  }
  const onFault = (err: Error): void => {
    if (!(err instanceof DivergedError)) return fatal(err)
    if (stopped || pending) return
    if (running === undefined) pending = err
    else restart(err)
  }
  running = await start(onFault)
  after()
  return {
    drain() {
      draining = true
      running?.drain()
    },
    async stop() {
      stopped = true
      await restarting
      await running?.stop()
    },
  }
}
