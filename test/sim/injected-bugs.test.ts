// The simulator catches deliberate bugs within the CI budget: each test turns one switch of
// replica/test-faults.ts on and runs seeds until a checker fails, naming the seed to replay.

import t from 'tap'
import type { TestFault } from '../../replica/test-faults.js'
import type { SeedReport } from '../../sim/cluster.js'
import { ClusterWorker, type PlainClusterOptions } from '../helpers/cluster-worker.js'

const BUDGET = 10

// Seeds run in a worker thread, away from tap's watch on every promise (test/helpers/cluster-worker.ts).
const worker = new ClusterWorker()
t.teardown(() => worker.close())
/** The worker's bug switches after its latest run. */
let faultsAfter: Record<TestFault, boolean> | undefined
async function runCluster(o: PlainClusterOptions): Promise<SeedReport> {
  const run = await worker.run(o)
  faultsAfter = run.faultsAfter
  return run.report
}

async function firstFailure(bug: TestFault, mode: { standby?: boolean; election?: boolean } = {}): Promise<SeedReport | undefined> {
  for (let seed = 1; seed <= BUDGET; seed++) {
    const r = await runCluster({ seed, bugs: [bug], ...mode })
    if (!r.ok) return r
  }
  return undefined
}

t.test('acknowledging before fsync loses acknowledged commands', async (t) => {
  const r = await firstFailure('ackBeforeSync')
  t.ok(r, `caught within ${BUDGET} seeds`)
  t.match(r!.failures.join('\n'), /acknowledged seq \d+ \(client c\d\) (holds another command|is missing)/)
  t.match(r!.replay, /^npm run sim -- --seed \d+ --bug ackBeforeSync$/)
  t.equal(faultsAfter?.ackBeforeSync, false, 'the switch is off again')
})

t.test('a follower skipping the hash check on replicated batches diverges', async (t) => {
  const r = await firstFailure('skipWireHashCheck')
  t.ok(r, `caught within ${BUDGET} seeds`)
  t.match(r!.failures.join('\n'), /(checkpoint \d+: f\d has root|log differs from the sequencer's)/)
  t.equal(faultsAfter?.skipWireHashCheck, false, 'the switch is off again')
})

t.test('acknowledging before the standby holds a command loses acknowledged commands in a fail-over', async (t) => {
  const r = await firstFailure('ackBeforeReplicated', { standby: true })
  t.ok(r, `caught within ${BUDGET} seeds`)
  // Found at the end in the final log, or as it runs: the promoted standby gives out again the
  // seqs it lacked, so a client is acknowledged a seq below one it was before (the failures
  // kept may all be of that kind).
  t.match(r!.failures.join('\n'), /acknowledged seq \d+ \(client c\d\) (holds another command|is missing)|client c\d was acknowledged seq \d+ after seq \d+/)
  t.match(r!.replay, /^npm run sim -- --seed \d+ --standby --bug ackBeforeReplicated$/)
  t.equal(faultsAfter?.ackBeforeReplicated, false, 'the switch is off again')
})

// With elections a crashed leader usually restarts within its lease and wins the vote with what
// it acknowledged; only one cut off for longer (a partition) loses it: 6 of seeds 1-218 (56, 95,
// 115, 117, 212, 218).
t.test('with elections too: acknowledging before a standby holds a command loses it once another node leads (seed 56)', async (t) => {
  const r = await runCluster({ seed: 56, election: true, bugs: ['ackBeforeReplicated'] })
  t.notOk(r.ok, 'caught')
  t.match(r.failures.join('\n'), /acknowledged seq \d+ \(client c\d\) (holds another command|is missing)/)
  t.equal(r.replay, 'npm run sim -- --seed 56 --election --bug ackBeforeReplicated')
  const clean = await runCluster({ seed: 56, election: true })
  t.same(clean.failures, [], 'and without the bug the seed passes')
})
