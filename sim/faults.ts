// What can go wrong in one seed's run, drawn from the seed: each seed picks its own rates, so
// a batch of seeds covers calm runs, lossy ones, crash-heavy ones and partitioned ones.

import type { LinkFaults } from './world/network.js'
import type { Rng } from './random.js'

export interface FaultPlan {
  link: LinkFaults
  /** Mean virtual ms between crashes of some node (Infinity: none). */
  crashEveryMs: number
  /** Share of crashes that hit the sequencer. */
  sequencerShare: number
  /** How long a crashed node stays down, ms. */
  downMs: readonly [number, number]
  /** Chance a crash leaves the write in progress torn. */
  tornChance: number
  /** Mean virtual ms between partitions (Infinity: none), and how long one lasts. */
  partitionEveryMs: number
  partitionMs: readonly [number, number]
  /** Chance per second that one directed link turns slow and lossy for a while. */
  badLinkPerSecond: number
  /** Chance per second that wall time steps forward (NTP), far enough to expire GTD orders. */
  clockStepPerSecond: number
  /** fsync time, ms. */
  fsyncMs: readonly [number, number]
}

export const NO_FAULTS: FaultPlan = {
  link: { delayMinMs: 0.2, delayMaxMs: 1, loss: 0, duplicate: 0, corrupt: 0 },
  crashEveryMs: Infinity, sequencerShare: 0, downMs: [0, 0], tornChance: 0,
  partitionEveryMs: Infinity, partitionMs: [0, 0], badLinkPerSecond: 0, clockStepPerSecond: 0, fsyncMs: [0.5, 2],
}

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[rng.below(xs.length)]!

export function drawFaults(rng: Rng): FaultPlan {
  const maxDelay = pick(rng, [1, 3, 10, 30])
  return {
    link: {
      delayMinMs: maxDelay / 10,
      delayMaxMs: maxDelay,
      loss: pick(rng, [0, 0.001, 0.01, 0.05, 0.1]),
      duplicate: pick(rng, [0, 0.001, 0.01, 0.05]),
      corrupt: pick(rng, [0, 0.002, 0.005, 0.01]),
    },
    crashEveryMs: pick(rng, [Infinity, 6_000, 3_000, 1_500, 800]),
    sequencerShare: pick(rng, [0.3, 0.5, 0.7]),
    downMs: pick(rng, [[20, 200], [100, 1_000], [500, 3_000]] as const),
    tornChance: pick(rng, [0, 0.5, 0.9]),
    partitionEveryMs: pick(rng, [Infinity, 8_000, 3_000]),
    partitionMs: pick(rng, [[100, 1_000], [1_000, 4_000]] as const),
    badLinkPerSecond: pick(rng, [0, 0.2, 0.5]),
    clockStepPerSecond: pick(rng, [0, 0.05, 0.1]),
    fsyncMs: pick(rng, [[0.2, 1], [1, 5], [2, 15]] as const),
  }
}

/** One line describing a plan, for the report. */
export function describeFaults(f: FaultPlan): string {
  const every = (ms: number): string => ms === Infinity ? 'never' : `~${ms / 1000}s`
  return `delay ≤${f.link.delayMaxMs}ms loss ${f.link.loss} dup ${f.link.duplicate} corrupt ${f.link.corrupt}; ` +
    `crash ${every(f.crashEveryMs)} (seq ${f.sequencerShare}, down ${f.downMs[0]}-${f.downMs[1]}ms, torn ${f.tornChance}); ` +
    `partition ${every(f.partitionEveryMs)}; fsync ${f.fsyncMs[0]}-${f.fsyncMs[1]}ms`
}
