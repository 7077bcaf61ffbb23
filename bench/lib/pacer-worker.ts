// The open loop's clock, in a thread of its own. libuv's timers count whole milliseconds, so
// a generator paced by them sent each request up to ~1.3 ms after it was due (p50 0.6 ms at
// 5,000/s), and that wait counted in the exchange's latency. This thread sleeps until each
// send is due with Atomics.wait, which takes fractional milliseconds, and posts the generator
// how many requests are due by then; a message wakes the generator's event loop at once.

import { parentPort } from 'node:worker_threads'
import { monotonicMs } from './clock.js'
import { setThreadNice } from './thread-priority.js'

export interface PacerSetup {
  /** When request 0 is due, on monotonicMs' clock. */
  startMs: number
  intervalMs: number
  total: number
  /** Int32 flag: the generator sets it to 1 and notifies to stop the pacer early. */
  stop: SharedArrayBuffer
  /** This thread's nice value, as the generator's (thread-priority.ts); undefined leaves it. */
  nice: number | undefined
}

parentPort!.once('message', ({ startMs, intervalMs, total, stop, nice }: PacerSetup) => {
  if (nice !== undefined) setThreadNice(nice)
  const flag = new Int32Array(stop)
  for (let due = 0; due < total;) {
    const wait = startMs + due * intervalMs - monotonicMs()
    if (wait > 0) {
      // Anything but a timeout means the generator asked to stop.
      if (Atomics.wait(flag, 0, 0, wait) !== 'timed-out') break
      continue
    }
    due = Math.min(total, Math.floor((monotonicMs() - startMs) / intervalMs) + 1)
    parentPort!.postMessage(due)
  }
  parentPort!.close()
})
