// A background thread whose work is bounded yields the CPU to the thread that sequences,
// applies and answers orders: the checkpoint root hasher, whose root per checkpoint may arrive a
// few milliseconds later without changing anything. It runs at a lower priority, a higher nice
// value, which the scheduler weighs about a tenth as much as the default at +10. (Its effect
// alone, ~40–60 ms of CPU per checkpoint yielding, was not measured.)
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

/**
 * Lowers the calling thread's priority by `increment` nice steps (from what it has now);
 * returns its new nice value, or null where threads cannot be told apart or it is refused.
 */
export function lowerThreadPriority(increment = BACKGROUND_NICE_INCREMENT): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop())
    if (!Number.isSafeInteger(tid) || tid <= 0) return null
    const nice = Math.min(NICE_MAX, getPriority(tid) + increment)
    setPriority(tid, nice)
    return getPriority(tid)
  } catch {
    return null
  }
}
