// The seq up to which this node's state and projections both answer queries, and a bounded
// wait for it to reach a seq. Gateways use it for read-your-writes: a write is answered only
// once its seq is readable here, and a read that names a seq the client has seen waits for it.

interface Waiter {
  seq: number
  done: (reached: boolean) => void
  timer: NodeJS.Timeout
}

export class AppliedWatch {
  private current: number
  /** Sorted by seq, so an advance settles a prefix. */
  private waiters: Waiter[] = []

  constructor(seq = 0) { this.current = seq }

  get seq(): number { return this.current }

  /** Called as the node makes `seq` readable (never backwards). */
  advance(seq: number): void {
    if (seq <= this.current) return
    this.current = seq
    let n = 0
    while (n < this.waiters.length && this.waiters[n]!.seq <= seq) n++
    if (n === 0) return
    const settled = this.waiters.splice(0, n)
    for (const w of settled) { clearTimeout(w.timer); w.done(true) }
  }

  /** Resolves true once `seq` is readable, false if `timeoutMs` passes first. */
  until(seq: number, timeoutMs: number): Promise<boolean> {
    if (seq <= this.current) return Promise.resolve(true)
    return new Promise((resolve) => {
      const w: Waiter = {
        seq,
        done: resolve,
        timer: setTimeout(() => {
          const i = this.waiters.indexOf(w)
          if (i >= 0) this.waiters.splice(i, 1)
          resolve(false)
        }, timeoutMs),
      }
      let i = this.waiters.length
      while (i > 0 && this.waiters[i - 1]!.seq > seq) i--
      this.waiters.splice(i, 0, w)
    })
  }

  /** Settles every waiter as not reached (the node is stopping). */
  close(): void {
    for (const w of this.waiters.splice(0)) { clearTimeout(w.timer); w.done(false) }
  }
}
