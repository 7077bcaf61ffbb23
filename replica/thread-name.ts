// Names the calling thread for the operator's tools (`top -H`, `ps -L`, /proc/<pid>/task/*/comm),
// where every thread of a Node process is otherwise "node": which of them takes the CPU shows
// at a glance. Linux keeps the name per thread, 15 bytes at most, and /proc/thread-self/comm
// sets the calling thread's. Elsewhere this does nothing.

import { writeFileSync } from 'node:fs'

/** The longest name Linux keeps (16 bytes with the terminating NUL). */
const NAME_MAX = 15

/** Sets the calling thread's name; returns whether it was set. */
export function nameThread(name: string): boolean {
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, NAME_MAX))
    return true
  } catch {
    return false
  }
}
