// A background thread whose work is bounded yields the CPU to the thread that sequences,
// applies and answers orders. It runs at a lower priority, a higher nice value, which the
// scheduler weighs about a tenth as much as the default at +10:
// - the checkpoint root hasher, whose root per checkpoint may arrive a few milliseconds later
//   without changing anything (its effect alone, ~40–60 ms of CPU per checkpoint yielding, was
//   not measured);
// - the chain verifier, which checks and tapes stored batches read ahead of the thread that
//   applies them (up to REPLICA_LIMITS.readAheadBytesMax). In a replay on two cores it needs ~1.2
//   µs of CPU per entry against the applying thread's ~1.6, and the V8 threads compiling and
//   collecting want more: when all three want a core, the applying thread should get one. The
//   log bench's replay, 5 alternated pairs: 547,242 / 537,535 / 549,662 / 557,088 / 515,439
//   entries/s against 494,319 / 484,701 / 489,429 / 467,521 / 488,126 at the default.
//
// Not the projections' worker: its work grows with the order flow, and at a lower priority it
// fell further behind for as long as the load lasted (59,000–70,000 entries at the end of the
// gateway benchmark's closed loop, against ~200 at the default), which every read-your-writes
// query would wait for; the closed loop's higher figure was that work deferred, not saved
// (docs/BENCHMARKS.md, session 11). At the same priority the scheduler shares the cores and it
// keeps up.
//
// Linux keeps the nice value per thread, and setpriority() with a thread's id changes that
// thread alone; /proc/thread-self names the calling thread. Elsewhere this does nothing.

import { readlinkSync } from 'node:fs'
import { getPriority, setPriority } from 'node:os'

/** How much nicer than the process a background thread runs (nice values end at 19). */
export const BACKGROUND_NICE_INCREMENT = 10
const NICE_MAX = 19

/** The calling thread's id, from /proc/thread-self (a link to <pid>/task/<tid>). */
function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop())
    return Number.isSafeInteger(tid) && tid > 0 ? tid : undefined
  } catch {
    return undefined
  }
}

/**
 * Sets the calling thread's nice value; returns the one it had, to restore, or undefined when
 * it could not (another OS, or not permitted: raising a priority takes root or CAP_SYS_NICE).
 */
export function setThreadNice(nice: number): number | undefined {
  const tid = threadId()
  if (tid === undefined) return undefined
  try {
    const before = getPriority(tid)
    setPriority(tid, nice)
    return before
  } catch {
    return undefined
  }
}

/**
 * Lowers the calling thread's priority by `increment` nice steps (from what it has now);
 * returns its new nice value, or null where threads cannot be told apart or it is refused.
 */
export function lowerThreadPriority(increment = BACKGROUND_NICE_INCREMENT): number | null {
  const tid = threadId()
  if (tid === undefined) return null
  try {
    setPriority(tid, Math.min(NICE_MAX, getPriority(tid) + increment))
    return getPriority(tid)
  } catch {
    return null
  }
}
