// Deliberate bugs for the simulator's own tests (test/sim/injected-bugs.test.ts): each switch
// turns one of the replica layer's promises off, so a test can show the simulator notices.
// All are off unless a test turns them on; the normal path pays one property read.

import { chainHash, HASH_BYTES } from './entry.js'
import { skipValue } from './msgpack-skip.js'

export const TEST_FAULTS = {
  /** Sequencer: answer submitters as soon as their batch's write starts, not once it is synced. */
  ackBeforeSync: false,
  /** Sequencer with standbys: answer submitters once their batch is durable here, not once a standby holds it. */
  ackBeforeReplicated: false,
  /** Follower: take a replicated batch's hashes from its bodies instead of checking the sent ones. */
  skipWireHashCheck: false,
}

export type TestFault = keyof typeof TEST_FAULTS

/** The hashes a batch's bodies chain to after `prevHash`: what skipWireHashCheck trusts. */
export function rehashBodies(prevHash: Uint8Array, hashes: Uint8Array, bodies: Uint8Array): Uint8Array {
  const out = new Uint8Array(hashes.length)
  let prev = prevHash
  let start = 0
  for (let at = 0; at < out.length && start < bodies.length; at += HASH_BYTES) {
    const end = skipValue(bodies, start)
    if (end < 0) break
    const h = chainHash(prev, bodies.subarray(start, end))
    out.set(h, at)
    prev = h
    start = end
  }
  return out
}
