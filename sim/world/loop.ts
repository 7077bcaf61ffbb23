// The simulator's one event loop: virtual time, events run in (time, order scheduled) order,
// and after each event every promise it set off settles before the next event runs. Nothing
// here reads a real clock or waits on real I/O, so a seed replays event for event; the trace
// hash (everything observable, in order) proves it.

import { createHash, type Hash } from 'node:crypto'

const TRACE = process.env.SIM_TRACE === '1'

export interface Scheduled {
  cancel(): void
}

interface Event {
  time: number
  order: number
  fn: () => void
  cancelled: boolean
}

export class EventLoop {
  now: number
  private heap: Event[] = []
  private order = 0
  private readonly trace: Hash = createHash('sha256')
  events = 0
  /** Exceptions thrown by event handlers: always a failure of the run. */
  readonly errors: string[] = []

  constructor(start: number) {
    this.now = start
  }

  at(time: number, fn: () => void): Scheduled {
    const e: Event = { time: Math.max(time, this.now), order: this.order++, fn, cancelled: false }
    this.push(e)
    return { cancel: () => { e.cancelled = true } }
  }

  after(ms: number, fn: () => void): Scheduled {
    return this.at(this.now + ms, fn)
  }

  /** Adds a line to the trace hash (and prints it to stderr under SIM_TRACE=1, to follow a seed). */
  record(line: string): void {
    this.trace.update(`${this.now} ${line}\n`)
    if (TRACE) process.stderr.write(`${this.now} ${line}\n`)
  }

  traceHash(): string {
    return this.trace.copy().digest('hex')
  }

  /** Runs events up to `until` (virtual ms) or until `stop()` says so after an event. */
  async run(until: number, stop?: () => boolean): Promise<void> {
    // Promise chains started before the call may schedule the first events.
    await settle()
    if (stop?.()) return
    while (this.heap.length > 0 && this.heap[0]!.time <= until) {
      const e = this.pop()
      if (e.cancelled) continue
      this.now = e.time
      this.events++
      try {
        e.fn()
      } catch (err) {
        this.errors.push(`t=${this.now}: ${(err as Error).stack ?? String(err)}`)
      }
      // Every microtask the event set off (promise chains in the replica code) runs now.
      await settle()
      if (stop?.()) return
    }
    if (this.now < until) this.now = until
  }

  private push(e: Event): void {
    const h = this.heap
    h.push(e)
    let i = h.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!before(h[i]!, h[p]!)) break
      ;[h[i], h[p]] = [h[p]!, h[i]!]
      i = p
    }
  }

  private pop(): Event {
    const h = this.heap
    const top = h[0]!
    const last = h.pop()!
    if (h.length > 0) {
      h[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < h.length && before(h[l]!, h[m]!)) m = l
        if (r < h.length && before(h[r]!, h[m]!)) m = r
        if (m === i) break
        ;[h[i], h[m]] = [h[m]!, h[i]!]
        i = m
      }
    }
    return top
  }
}

function before(a: Event, b: Event): boolean {
  return a.time < b.time || (a.time === b.time && a.order < b.order)
}

/** Resolves once the microtask queue is empty (a macrotask runs only after it drains). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
