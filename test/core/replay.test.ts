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
import { commandStream, PROFILES, START_TIME, type TimedCommand } from '../../sim/model/commands.js'
import type { ListLeg, SetRules } from '../../core/commands.js'
import { ORDER_STRATEGIES } from '../../core/rules.js'
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

const SPOT_IDS: ReadonlySet<number> = new Set(markets.filter((m) => m.kind === 'SPOT').map((m) => m.marketId))

/** Rules 7's strategy tags (core/strategy.ts) by a number: both, a strategyId alone or a strategyType alone. */
function tags(n: number): { strategyId?: number; strategyType?: number } {
  return n % 3 === 0 ? { strategyId: n, strategyType: 1_000_000 + n } : n % 3 === 1 ? { strategyId: n } : { strategyType: 2_000_000 + n }
}

/**
 * The stream with strategy tags on its spot orders and every list's orders, by their place in the
 * stream (no draws of their own), and without any rules declaration (`declare`: with the newest first).
 */
function tagged(stream: readonly TimedCommand[], declare: boolean): TimedCommand[] {
  const out = stream.filter((c) => c.command.type !== 'SetRules').map((tc, i): TimedCommand => {
    const c = tc.command
    const leg = (l: ListLeg | undefined, k: number): ListLeg | undefined => (l === undefined ? l : { ...l, ...tags(k) })
    if (c.type === 'PlaceOrder' && SPOT_IDS.has(c.marketId)) return { ...tc, command: { ...c, ...tags(i) } }
    if (c.type === 'PlaceOrderList') return { ...tc, command: { ...c, above: leg(c.above, i)!, below: leg(c.below, i + 1)! } }
    if (c.type === 'PlaceOtoList') {
      return { ...tc, command: { ...c, working: { ...c.working, ...tags(i) }, pending: leg(c.pending, i + 1),
        pendingAbove: leg(c.pendingAbove, i + 1), pendingBelow: leg(c.pendingBelow, i + 2) } }
    }
    return tc
  })
  const rules: SetRules = { type: 'SetRules', version: ORDER_STRATEGIES, leafSeed: '0x' + '7e'.repeat(32) }
  return declare ? [{ time: out[0]?.time ?? START_TIME, command: rules }, ...out] : out
}

t.test('under rules before 7, strategy tags change nothing: a tagged stream gives the untagged one\'s result bytes and roots', async (t) => {
  fc.assert(fc.property(commandStream({ markets, maxLength: 250, extended: true }), (stream) => {
    const plain = entriesOf(stream.filter((c) => c.command.type !== 'SetRules'))
    const withTags = entriesOf(tagged(stream, false))
    const a = createState()
    const b = createState()
    for (let i = 0; i < plain.length; i++) {
      if (!step(a, plain[i]!).equals(step(b, withTags[i]!))) throw new Error(`seq ${plain[i]!.seq}: result bytes differ`)
      if (leaves(a) !== leaves(b)) throw new Error(`seq ${plain[i]!.seq}: states differ`)
    }
    if (stateRoot(a) !== stateRoot(b)) throw new Error('roots differ')
  }), runs(20))
  t.pass()
})

t.test('rules 7: a snapshot of a tagged stream restores its tags, its root and its future', async (t) => {
  let tagsSeen = 0
  const arb = commandStream({ markets, maxLength: 250, extended: true })
    .chain((stream) => fc.tuple(fc.constant(stream), fc.integer({ min: 0, max: stream.length })))
  fc.assert(fc.property(arb, ([stream, cut]) => {
    const timed = tagged(stream, true)
    const entries = entriesOf(timed)
    const at = Math.min(entries.length, entries.length - timed.length + 1 + cut)
    const original = createState()
    for (const entry of entries.slice(0, at)) apply(original, entry)
    tagsSeen += stateLeaves(original).filter((l) => l.startsWith('strategy|')).length
    const bytes = encodeSnapshot(original)
    const restored = decodeSnapshot(bytes)
    if (leaves(restored) !== leaves(original)) throw new Error(`seq ${original.seq}: restored leaves differ`)
    if (stateRoot(restored) !== stateRoot(original)) throw new Error(`seq ${original.seq}: restored root differs`)
    if (!Buffer.from(encodeSnapshot(restored)).equals(Buffer.from(bytes))) throw new Error(`seq ${original.seq}: re-encoded snapshot differs`)
    inStep(original, restored, entries.slice(at), ` after a snapshot at seq ${original.seq}`)
  }), runs(30))
  t.ok(tagsSeen > 0, `${tagsSeen} tagged orders open at the snapshots`)
})
