// A manual clock for replica tests: time moves and timers fire only when the test says.

import type { Clock, Timer } from '../../replica/clock.js'

export class ManualClock implements Clock {
  private timers: { at: number; every: number; fn: () => void; live: boolean }[] = []

  constructor(public time = 1_700_000_000_000) {}

  now(): number { return this.time }

  every(ms: number, fn: () => void): Timer { return this.add(ms, ms, fn) }

  after(ms: number, fn: () => void): Timer { return this.add(ms, 0, fn) }

  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const end = this.time + ms
    for (;;) {
      const due = this.timers.filter((t) => t.live && t.at <= end).sort((a, b) => a.at - b.at)[0]
      if (!due) break
      this.time = Math.max(this.time, due.at)
      if (due.every > 0) due.at += due.every
      else due.live = false
      due.fn()
    }
    this.time = end
  }

  private add(ms: number, every: number, fn: () => void): Timer {
    const t = { at: this.time + ms, every, fn, live: true }
    this.timers.push(t)
    return { cancel: () => { t.live = false } }
  }
}
