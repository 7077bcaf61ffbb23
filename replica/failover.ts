// A standby's side of fail-over: it follows whichever sequencer the consensus service names
// (leadership.ts), and when that leader's lease lapses it stops taking anything from it,
// votes with what its log holds, and leads if the tally names it. Nothing here decides who
// is alive: the lease does.

import type { Clock, Timer } from './clock.js'
import type { Follower } from './follower.js'
import { LeaseLostError, NotLeaderError, type Leadership } from './leadership.js'
import type { LogStore } from './log-store.js'
import type { Logger } from './node.js'

export interface FailoverOptions {
  leadership: Leadership
  clock: Clock
  pollMs: number
  follower: Follower
  log: LogStore
  /** The newest term this node's log holds (State.epoch, core/term.ts). */
  epoch(): number
  logger?: Logger
  /** Starts this node's sequencer and claims the lead: NotLeaderError if another node took it first. */
  promote(): Promise<void>
  onFatal(err: Error): void
}

export class Failover {
  /** The round this node voted in, while no leader is named. */
  private voted: number | undefined
  private timer: Timer | undefined
  private stopped = false
  private busy = false
  private leading = false
  /** Registered in the consensus service (its lease and standbys/ key): it follows only then. */
  private joined = false
  /** The last failure to read who leads, logged once. */
  private lastError: string | undefined
  /** What it waits for, said once per kind. */
  private said: string | undefined

  constructor(private readonly o: FailoverOptions) {}

  /**
   * Joins the cluster and follows its leader. While the consensus service cannot be reached (a
   * cluster's processes start in any order) the polls go on trying, and the node follows only
   * once it is a registered standby: the leader counts any standby that holds a command toward
   * acknowledging it, and an election waits only for registered ones.
   */
  start(): void {
    this.timer = this.o.clock.every(this.o.pollMs, () => { void this.poll() })
    void this.poll()
  }

  /** Looks at who leads no more (the lease stays until leadership.stop()). */
  stop(): void {
    this.stopped = true
    this.timer?.cancel()
  }

  private async poll(): Promise<void> {
    if (this.busy || this.stopped || this.leading) return
    this.busy = true
    try {
      await this.step()
      this.lastError = undefined
    } catch (err) {
      const msg = (err as Error).message
      if (msg !== this.lastError) {
        this.o.logger?.warn({ reason: msg }, this.joined ? 'fail-over: cannot read who leads; retrying'
          : 'fail-over: cannot join the cluster in the consensus service; retrying (following once joined)')
      }
      this.lastError = msg
    } finally {
      this.busy = false
    }
  }

  private async step(): Promise<void> {
    const { leadership } = this.o
    if (!this.joined) {
      await leadership.start()
      await leadership.join()
      this.joined = true
      if (this.stopped) return
      this.o.logger?.info({ node: leadership.node }, 'fail-over: joined the cluster as a standby')
      this.o.follower.start()
    } else if (leadership.lapsed) {
      // etcd unreachable for a lease's length, or this process paused: its membership and vote lapsed with it.
      await leadership.start()
      await leadership.join()
      if (this.voted !== undefined) await leadership.vote(this.voted, this.logHeld())
    }
    // The term before the leader: a leader claims `leader` before it writes `term`, so a term
    // read first and no leader read after means that term's leader is gone, and any later leader
    // has a newer epoch than the round voted in. Read the other way round, a leader claiming in
    // between left a vote in its own term's round, which the next election then counted as this
    // node's log (found by the simulator: a standby holding acknowledged entries was counted at
    // its log before them, and another node was elected).
    const term = await leadership.term()
    const leader = await leadership.leader()
    if (leader) {
      if (this.voted !== undefined) {
        this.o.logger?.info({ epoch: leader.epoch, node: leader.node }, 'fail-over: following the new leader')
        this.voted = undefined
        this.o.follower.start()
      }
      this.said = undefined
      return
    }
    if (term === undefined) return this.say('fail-over: no sequencer has led this cluster yet; waiting for one (exchange sequencer --etcd …)', {})
    const round = term.epoch
    if (this.voted !== round) await this.vote(round)
    const { winner, waitingFor } = await leadership.tally(round, term.syncReplicas)
    if (winner === undefined) {
      return waitingFor.length > 0 ? this.say('fail-over: waiting for every standby to vote', { round, waitingFor })
        : this.say('fail-over: no standby holds any of the log; waiting for one that does', { round })
    }
    if (winner.node !== leadership.node) return
    this.o.logger?.info({ round, seq: winner.seq, epoch: winner.epoch }, 'fail-over: elected; taking the lead')
    this.leading = true
    try {
      await this.o.promote()
      this.timer?.cancel()
    } catch (err) {
      this.leading = false
      // Another node claimed first: the next poll finds it and follows it. Or this node's lease
      // lapsed as it claimed: the next poll joins again and votes.
      if (!(err instanceof NotLeaderError || err instanceof LeaseLostError)) this.o.onFatal(err as Error)
    }
  }

  /** Stops taking entries from whoever led, and says what this log holds. */
  private async vote(round: number): Promise<void> {
    this.o.follower.stop()
    await this.o.follower.idle()
    const held = this.logHeld()
    await this.o.leadership.vote(round, held)
    this.voted = round
    this.said = undefined
    this.o.logger?.warn({ round, ...held }, 'fail-over: no leader; voted')
  }

  private logHeld(): { seq: number; epoch: number } {
    return { seq: this.o.log.lastSeq, epoch: this.o.epoch() }
  }

  private say(msg: string, fields: object): void {
    if (this.said !== msg) this.o.logger?.warn(fields, msg)
    this.said = msg
  }
}
