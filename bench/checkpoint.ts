// Checkpoint benchmark: how long a checkpoint holds up the thread that sequences and applies.
// The core workload runs until its books hold a few thousand open orders; then, every 10,000
// commands (the exchange's default interval), the same checkpoint is taken both ways: in place
// (state root and snapshot on the applying thread, as the simulator does) and as the CLI's
// nodes take it (the snapshot here, its root on replica/root-hasher.ts's thread). Both roots
// must agree. Prints the applying thread's time per checkpoint for each, and how long the
// off-thread root took to arrive. The log declares this build's rules first, as a sequencer
// writes it, so its leaves are salted (core/root.ts) like every node's of this build.

import { apply } from '../core/apply.js'
import type { Command } from '../core/commands.js'
import { stateRoot } from '../core/root.js'
import { RULES_VERSION } from '../core/rules.js'
import { encodeSnapshot } from '../core/snapshot.js'
import { createState } from '../core/state.js'
import { RootHasher } from '../replica/root-hasher.js'
import { DEFAULT_WORKLOAD, generateWorkload } from '../sim/workload.js'
import { fixed, int, percentile, table, type Benchmark, type BenchSummary } from './lib/bench.js'

/** Commands applied before the first checkpoint, so the books are full. */
const WARM_COMMANDS = 200_000
const INTERVAL = 10_000
const CHECKPOINTS = 15

const sorted = (xs: number[]): Float64Array => Float64Array.from(xs).sort()

async function run(out: (line: string) => void): Promise<BenchSummary> {
  const w = generateWorkload({ ...DEFAULT_WORKLOAD, commands: WARM_COMMANDS + INTERVAL * CHECKPOINTS })
  const declaration: Command = { type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + 'be'.repeat(32) }
  const commands = [declaration, ...w.setup, ...w.stream]
  const state = createState()
  let seq = 0
  const advance = (n: number): void => {
    for (let i = 0; i < n; i++) apply(state, { seq: seq + 1, time: 1_000 + seq, command: commands[seq++]! })
  }
  advance(1 + w.setup.length + WARM_COMMANDS)
  const hasher = new RootHasher()
  try {
    // The thread is started and its first root computed before anything is timed.
    await hasher.rootOf(encodeSnapshot(state))
    const inPlace: number[] = []
    const offThread: number[] = []
    const rootArrives: number[] = []
    let openOrders = 0
    let snapshotBytes = 0
    for (let i = 0; i < CHECKPOINTS; i++) {
      advance(INTERVAL)
      let t = performance.now()
      const root = stateRoot(state)
      encodeSnapshot(state)
      inPlace.push(performance.now() - t)
      t = performance.now()
      const bytes = encodeSnapshot(state)
      const pending = hasher.rootOf(bytes)
      offThread.push(performance.now() - t)
      const theirs = await pending
      rootArrives.push(performance.now() - t)
      if (theirs !== root) throw new Error(`checkpoint ${state.seq}: the thread's root ${theirs} differs from ${root}`)
      snapshotBytes = bytes.length
      openOrders = 0
      for (const account of state.accounts.values()) for (const sub of account.subs) for (const n of sub?.openByMarket.values() ?? []) openOrders += n
    }
    const a = sorted(inPlace)
    const b = sorted(offThread)
    const c = sorted(rootArrives)
    out(`checkpoint: core workload, ${int(WARM_COMMANDS)} commands first, then a checkpoint every ${int(INTERVAL)}; ` +
      `${int(openOrders)} open orders and a ${int(snapshotBytes)}-byte snapshot at the last`)
    out('')
    for (const line of table(['applying thread per checkpoint', 'p50 ms', 'max ms'], [
      ['in place: state root + snapshot', fixed(percentile(a, 50), 2), fixed(a[a.length - 1]!, 2)],
      ['off-thread: snapshot + hand-over', fixed(percentile(b, 50), 2), fixed(b[b.length - 1]!, 2)],
      ['  (its root arrives after)', fixed(percentile(c, 50), 2), fixed(c[c.length - 1]!, 2)],
    ])) out(line)
    const ratio = percentile(a, 50) / percentile(b, 50)
    out(`the applying thread is held ${fixed(ratio, 1)}× shorter per checkpoint (p50); all ${CHECKPOINTS} roots agreed`)
    return { bench: 'checkpoint', inPlaceP50Ms: Number(percentile(a, 50).toFixed(2)), offThreadP50Ms: Number(percentile(b, 50).toFixed(2)),
      offThreadMaxMs: Number(b[b.length - 1]!.toFixed(2)), ratio: Number(ratio.toFixed(1)) }
  } finally {
    await hasher.close()
  }
}

export const benchmark: Benchmark = { name: 'checkpoint', run }
