// Determinism and snapshots on random streams (DESIGN.md §2, §5): the same entries give the
// same result bytes and state every time, and a state restored from a snapshot at any seq
// has the original's root and goes on giving the same results and state.
//
// Between checkpoints the states are compared by their state-root leaves rather than the
// root itself: the root is a pure function of the sorted leaves (core/root.ts), so equal
// leaves are the stronger check, and hashing every step would cost most of the time budget.
// Real roots are compared at the snapshot and at the end of every stream.

import t from 'tap'
import fc from 'fast-check'
import { pack } from 'msgpackr'
import { apply } from '../../core/apply.js'
import type { Entry } from '../../core/commands.js'
import { stateLeaves, stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { createState, type State } from '../../core/state.js'
import { commandStream, PROFILES } from '../../sim/model/commands.js'
import { entriesOf } from '../../sim/model/run.js'
import { runs } from '../helpers/property.js'

const markets = [PROFILES.BTCPERP, PROFILES.ETHPERP, PROFILES.BTCSPOT, PROFILES.ETHSPOT]

function step(state: State, entry: Entry): Buffer {
  return pack(apply(state, entry))
}

function leaves(state: State): string {
  return stateLeaves(state).join('\n')
}

/** Applies `entries` to both states, requiring the same result bytes and state at every step. */
function inStep(a: State, b: State, entries: readonly Entry[], what: string): void {
  for (const entry of entries) {
    const ra = step(a, entry)
    const rb = step(b, structuredClone(entry))
    if (!ra.equals(rb)) throw new Error(`seq ${entry.seq}${what}: result bytes differ`)
    if (a.seq !== b.seq || a.time !== b.time || leaves(a) !== leaves(b)) throw new Error(`seq ${entry.seq}${what}: states differ`)
  }
  if (stateRoot(a) !== stateRoot(b)) throw new Error(`seq ${a.seq}${what}: roots differ`)
}

t.test('the same stream applied twice gives the same result bytes and roots', async (t) => {
  fc.assert(fc.property(commandStream({ markets, maxLength: 250 }), (stream) => {
    inStep(createState(), createState(), entriesOf(stream), '')
  }), runs(30))
  t.pass()
})

t.test('a snapshot restores the root and the future', async (t) => {
  const arb = commandStream({ markets, maxLength: 250 })
    .chain((stream) => fc.tuple(fc.constant(stream), fc.integer({ min: 0, max: stream.length })))
  fc.assert(fc.property(arb, ([stream, cut]) => {
    const entries = entriesOf(stream)
    const at = entries.length - stream.length + cut
    const original = createState()
    for (const entry of entries.slice(0, at)) apply(original, entry)
    const bytes = encodeSnapshot(original)
    const restored = decodeSnapshot(bytes)
    if (stateRoot(restored) !== stateRoot(original)) throw new Error(`seq ${original.seq}: restored root differs`)
    if (restored.seq !== original.seq || restored.time !== original.time) throw new Error('restored seq or time differs')
    if (!Buffer.from(encodeSnapshot(restored)).equals(Buffer.from(bytes))) throw new Error(`seq ${original.seq}: re-encoded snapshot differs`)
    inStep(original, restored, entries.slice(at), ` after a snapshot at seq ${original.seq}`)
  }), runs(40))
  t.pass()
})
