// Whether a node's gateway should take traffic, for a load balancer's health check or a
// container's readiness probe (GET /ready on the metrics port). The sequencer writes a Tick every
// --tick-ms, so a node applying what it writes is never more than about that behind it; a node
// that lost its sequencer, is replaying a long log at start, or holds applying for its history
// read models falls behind, and what its gateway reads would be stale.

import type { RunningNode } from './runtime.js'

export interface Readiness {
  ready: boolean
  /** What this node is now: a standby elected to lead reads 'sequencer'. */
  role: 'sequencer' | 'standby' | 'follower'
  seq: number
  /** Wall-clock time minus the sequencer's time of the newest entry applied here, ms. */
  behindMs: number
  /** Why it is not ready. */
  reason?: string
}

/** A running node as `exchange` stops it: first drained (readiness off), then stopped. */
export interface RunningService {
  drain(): void
  stop(): Promise<void>
}

/** The default bound: a few tick intervals, and never less than 5 s. */
export function defaultReadyMaxBehindMs(tickIntervalMs: number): number {
  return Math.max(5_000, 3 * tickIntervalMs)
}

/**
 * The node's readiness; `draining` turns it off for good once the node is to stop (`--drain-ms`:
 * a load balancer then moves its traffic away while it still answers).
 */
export function readiness(running: RunningNode, o: { standby: boolean; maxBehindMs: number; now: () => number; draining: () => boolean }): () => Readiness {
  return () => {
    const { node } = running.replica
    const role = running.replica.sequencer ? 'sequencer' : o.standby ? 'standby' : 'follower'
    const behindMs = Math.max(0, o.now() - node.state.time)
    const draining = o.draining()
    const out: Readiness = { ready: !draining && behindMs <= o.maxBehindMs, role, seq: node.state.seq, behindMs }
    if (!out.ready) {
      out.reason = draining ? 'stopping: draining before the node stops (--drain-ms)'
        : !node.gate.open ? 'applying is held until the history read models catch up'
        : `the newest entry applied here is ${behindMs} ms old (at most ${o.maxBehindMs}): ` +
          (role === 'sequencer' ? 'the sequencer is not committing' : 'nothing new from the sequencer')
    }
    return out
  }
}
