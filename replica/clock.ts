// Time for the replica layer, behind an interface so the simulator can drive it.

export interface Timer {
  cancel(): void
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
  every(ms: number, fn: () => void): Timer
  after(ms: number, fn: () => void): Timer
}

export const systemClock: Clock = {
  now: () => Date.now(),
  every(ms, fn) {
    const h = setInterval(fn, ms)
    h.unref?.()
    return { cancel: () => clearInterval(h) }
  },
  after(ms, fn) {
    const h = setTimeout(fn, ms)
    h.unref?.()
    return { cancel: () => clearTimeout(h) }
  },
}
