// A standby's side of fail-over: it follows whichever sequencer the consensus service names
// (leadership.ts), and when that leader's lease lapses it stops taking anything from it,
// votes with what its log holds, and leads if the tally names it. Nothing here decides who
// is alive: the lease does.

import type { Clock, Timer } from './clock.js'
import type { Follower } from './follower.js'
import { NotLeaderError, type Leadership } from './leadership.js'
import type { LogStore } from './log-store.js'
import type { Logger } from './node.js'

export interface FailoverOptions {
  leadership: Leadership
  clock: Clock
  pollMs: number
  follower: Follower
  log: LogStore
  logger?: Logger
  /** Starts this node's sequencer and claims the lead: NotLeaderError if another node took it first. */
  promote(): Promise<void>
  onFatal(err: Error): void
}

export class Failover {
  /** The epoch of the leader this node last followed. */
  private following: number | undefined
  /** The epoch whose leader's lease lapsed and this node voted after, while no new leader is named. */
  private voted: number | undefined
  private timer: Timer | undefined
  private stopped = false
  private busy = false
  private leading = false
  /** The last failure to read who leads, logged once. */
  private lastError: string | undefined
  private waitingSaid = false

  constructor(private readonly o: FailoverOptions) {}

  async start(): Promise<void> {
    await this.o.leadership.start()
    await this.o.leadership.join()
    this.o.follower.start()
    this.timer = this.o.clock.every(this.o.pollMs, () => { void this.poll() })
    void this.poll()
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.timer?.cancel()
    // A leader's lease goes with it: the standbys elect another at once.
    await this.o.leadership.stop()
  }

  private async poll(): Promise<void> {
    if (this.busy || this.stopped || this.leading) return
    this.busy = true
    try {
      await this.step()
      this.lastError = undefined
    } catch (err) {
      const msg = (err as Error).message
      if (msg !== this.lastError) this.o.logger?.warn({ reason: msg }, 'fail-over: cannot read who leads; retrying')
      this.lastError = msg
    } finally {
      this.busy = false
    }
  }

  private async step(): Promise<void> {
    // etcd unreachable for a lease's length, or this process paused: its vote and membership lapsed with it.
    if (this.o.leadership.lapsed) {
      await this.o.leadership.start()
      await this.o.leadership.join()
      if (this.voted !== undefined) await this.o.leadership.vote(this.voted, this.o.log.lastSeq, this.o.follower.reportedEpoch === this.voted)
    }
    const leader = await this.o.leadership.leader()
    if (leader) {
      if (this.voted !== undefined) {
        this.o.logger?.info({ epoch: leader.epoch, node: leader.node }, 'fail-over: following the new leader')
        this.voted = undefined
        this.o.follower.start()
      }
      this.following = leader.epoch
      this.waitingSaid = false
      return
    }
    if (this.following === undefined) {
      // Never followed anyone: this node cannot know whether its log holds what was acknowledged.
      if (!this.waitingSaid) this.o.logger?.warn({}, 'fail-over: no sequencer leads; waiting for one (start `exchange sequencer --etcd` on the node with the longest log)')
      this.waitingSaid = true
      return
    }
    if (this.voted === undefined) await this.vote(this.following)
    const { winner, waitingFor } = await this.o.leadership.tally(this.following)
    if (winner === undefined) {
      if (!this.waitingSaid) this.o.logger?.warn({ epoch: this.following, waitingFor }, waitingFor.length > 0
        ? 'fail-over: waiting for every standby to vote' : 'fail-over: no standby of the last leader is left to take over')
      this.waitingSaid = true
      return
    }
    if (winner.node !== this.o.leadership.node) return
    this.o.logger?.info({ epoch: this.following, seq: winner.seq }, 'fail-over: elected; taking the lead')
    this.leading = true
    try {
      await this.o.promote()
      this.timer?.cancel()
    } catch (err) {
      this.leading = false
      // Another node claimed first: the next poll finds it and follows it.
      if (!(err instanceof NotLeaderError)) this.o.onFatal(err as Error)
    }
  }

  /** Stops taking entries from the lapsed leader, and says what this log holds. */
  private async vote(epoch: number): Promise<void> {
    this.o.follower.stop()
    await this.o.follower.idle()
    const seq = this.o.log.lastSeq
    const eligible = this.o.follower.reportedEpoch === epoch
    await this.o.leadership.vote(epoch, seq, eligible)
    this.voted = epoch
    this.waitingSaid = false
    this.o.logger?.warn({ epoch, seq, eligible }, 'fail-over: the leader\'s lease lapsed; voted')
  }
}
