// The open loop's load generator stands in for clients on machines of their own, whose sends
// the exchange's work cannot hold up. Sharing two cores with the exchange, its thread waited
// for a core (p99 ~2.7 ms late at 5,000/s), and that wait counted in the exchange's latency.
// A thread's nice value is its own on Linux (setpriority on its thread id), so the generator
// and its pacer raise theirs for the open loop alone; the closed loops share the cores as
// equals. Raising a priority takes root or CAP_SYS_NICE: without either, nothing changes and
// the bench says so.

import { readlinkSync } from 'node:fs'
import { getPriority, setPriority } from 'node:os'

/** The nice value the open loop's generator threads ask for (-20 highest, 0 normal). */
export const OPEN_LOOP_NICE = -10

/** The calling thread's id, from /proc/thread-self (a link to <pid>/task/<tid>). */
function threadId(): number | undefined {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop())
  } catch {
    return undefined
  }
}

/**
 * Sets the calling thread's nice value; returns the one it had, to restore, or undefined when
 * it could not (another OS, or not permitted).
 */
export function setThreadNice(nice: number): number | undefined {
  const tid = threadId()
  if (tid === undefined || !Number.isSafeInteger(tid)) return undefined
  try {
    const before = getPriority(tid)
    setPriority(tid, nice)
    return before
  } catch {
    return undefined
  }
}
