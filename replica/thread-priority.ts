// Background threads (the projections' writer, the checkpoint root hasher) yield the CPU to the
// thread that sequences, applies and answers orders. On a machine with few cores they compete
// for it: under the gateway benchmark's order flow the projections' worker uses more than half
// as much CPU as the main thread, and while it holds a core an order's answer can wait. Their work
// can lag by milliseconds without anyone noticing (queries wait for what they must read; roots
// are announced when ready), so they run at a lower priority: a higher nice value, which the
// scheduler weighs about a tenth as much as the default at +10. Measured in docs/BENCHMARKS.md
// (session 11).
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
