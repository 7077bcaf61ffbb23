// Holds a node's applying while a consumer of its batches is too far behind: the projections,
// whose worker writes each batch after the node applied it. Nothing else bounds that gap, so a
// slow disk, a compaction stall or an order flow the worker cannot keep up with would grow its
// queue (memory) and every read-your-writes wait without end. While the gate is held the
// sequencer takes no new batch (its ingress queue fills, and then refuses with "overloaded"), a
// follower stops taking what it receives (its inbox fills, and it reconnects to catch up
// later), and a replay at start waits between stored batches. The runtime holds and releases
// it (bin/runtime.ts); nothing in the core sees it, so applying stays deterministic.

export class ApplyGate {
  #held = false
  #waiting: (() => void)[] = []
  readonly #onRelease: (() => void)[] = []
  /** Times it has been held since start (metrics). */
  holds = 0

  get open(): boolean {
    return !this.#held
  }

  /** Stops new applying until release(); holding a held gate changes nothing. */
  hold(): void {
    if (this.#held) return
    this.#held = true
    this.holds++
  }

  /** Lets applying go on: wakes whatever waits, then the release listeners. */
  release(): void {
    if (!this.#held) return
    this.#held = false
    const waiting = this.#waiting
    this.#waiting = []
    for (const wake of waiting) wake()
    for (const fn of this.#onRelease) fn()
  }

  /** Resolves at once when open, else at the next release. */
  whenOpen(): Promise<void> {
    if (!this.#held) return Promise.resolve()
    return new Promise((resolve) => this.#waiting.push(resolve))
  }

  /** Calls `fn` at every release (the sequencer's pump, which is not waiting on a promise). */
  onRelease(fn: () => void): void {
    this.#onRelease.push(fn)
  }
}
