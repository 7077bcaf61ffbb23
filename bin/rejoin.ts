// A node of an etcd cluster rejoining the elected leader's log (replica/rewind.ts): at start, a
// follower or standby whose log ends in entries the leader does not hold cuts them off, keeping
// them in a file under the data directory, and its projections, if they took any of them, are
// built again from the log. A follower that finds its log parted from the leader's while running
// (DivergedError) is restarted in the same process, and so rewinds.

import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { writeLogFile } from '../chain/log-file.js'
import type { Clock } from '../replica/clock.js'
import type { LogEntry } from '../replica/entry.js'
import type { Leadership } from '../replica/leadership.js'
import type { LogStore } from '../replica/log-store.js'
import type { Network } from '../replica/network.js'
import type { Logger, SnapshotStoreLike } from '../replica/node.js'
import { DivergedError, leaderHashes, rewindToLeader } from '../replica/rewind.js'

/** Where the dropped entries of a rewind go: `<data>/diverged/<first seq>-<last seq>.log`, in the export format (chain/log-file.ts). */
export function divergedFile(dataDir: string, tail: readonly LogEntry[]): string {
  return path.join(dataDir, 'diverged', `${tail[0]!.seq}-${tail[tail.length - 1]!.seq}.log`)
}

/**
 * Before a follower restores: if a leader is named and reachable, cuts the log back to where the
 * leader's continues it. The seq it was cut to, or undefined when nothing was cut.
 */
export async function rewindAtStart(o: { dataDir: string; log: LogStore; snapshots: SnapshotStoreLike; network: Network; clock: Clock;
  leadership: Leadership; logger: Logger }): Promise<number | undefined> {
  if (o.log.lastSeq === 0) return undefined
  const leader = await o.leadership.leader()
  if (leader === undefined || leader.node === o.leadership.node) return undefined
  let link: Awaited<ReturnType<typeof leaderHashes>>
  try {
    link = await leaderHashes(o.network, o.clock, leader)
  } catch (err) {
    // Checked again when it follows: a log the leader does not continue stops it, and the restart rewinds.
    o.logger.warn({ leader: leader.node, err: (err as Error).message }, 'cannot reach the leader to check this log against it; following')
    return undefined
  }
  try {
    return await rewindToLeader({ log: o.log, snapshots: o.snapshots, leader, hashesOf: link.ask, logger: o.logger,
      saveTail: async (tail) => {
        const file = divergedFile(o.dataDir, tail)
        await mkdir(path.dirname(file), { recursive: true })
        await writeLogFile(file, (async function* () { yield tail })())
        o.logger.warn({ file, entries: tail.length }, 'entries the leader does not hold kept in a file')
      } })
  } finally {
    link.close()
  }
}

/**
 * Runs a follower and restarts it, in this process, each time its log parts from the leader's
 * (DivergedError): the restart rewinds it. Any other fault, or more than `maxRestarts` within a
 * minute, goes to `fatal`.
 */
export async function runRejoining(start: (onFault: (err: Error) => void) => Promise<{ stop(): Promise<void> }>, clock: Clock,
  logger: Logger, fatal: (err: Error) => void, maxRestarts = 3): Promise<{ stop(): Promise<void> }> {
  let running: { stop(): Promise<void> } | undefined
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
    async stop() {
      stopped = true
      await restarting
      await running?.stop()
    },
  }
}
