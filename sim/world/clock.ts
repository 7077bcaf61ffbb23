// A node's clock in the simulator: wall time is the loop's virtual time plus a world-wide
// offset (which a fault can step forward, as NTP does), timers run on the loop. A crash
// cancels every timer of the dead process at once.

import type { Clock, Timer } from '../../replica/clock.js'
import type { EventLoop, Scheduled } from './loop.js'

export class SimClock implements Clock {
  private readonly timers = new Set<Scheduled>()
  private dead = false

  constructor(private readonly loop: EventLoop, private readonly wall: () => number) {}

  now(): number {
    return this.wall()
  }

  after(ms: number, fn: () => void): Timer {
    const s: Scheduled = this.loop.after(ms, () => {
      this.timers.delete(s)
      if (!this.dead) fn()
    })
    return this.track(s)
  }

  every(ms: number, fn: () => void): Timer {
    let current: Scheduled
    const timer = { cancel: () => { current.cancel(); this.timers.delete(timer) } }
    const arm = (): void => {
      current = this.loop.after(ms, () => {
        if (this.dead) return
        arm()
        fn()
      })
    }
    arm()
    this.timers.add(timer)
    return timer
  }

  /** The process died: none of its timers fires again. */
  kill(): void {
    this.dead = true
    for (const t of this.timers) t.cancel()
    this.timers.clear()
  }

  private track(s: Scheduled): Timer {
    this.timers.add(s)
    return { cancel: () => { s.cancel(); this.timers.delete(s) } }
  }
}
