// The CI budget of the cluster simulator: a fixed run of seeds, each with its own fault rates
// (crashes with torn tails, lossy and partitioned links, corrupt replication frames, clock
// steps) and signed oracle price moves across a funding boundary, must pass every checker;
// and a seed replays exactly (same trace hash twice).

import t from 'tap'
import { runCluster } from '../../sim/cluster.js'

/** Seeds 1..CI_SEEDS: about 3.5 s each on the 2-core development machine. */
const CI_SEEDS = 15

t.test(`seeds 1..${CI_SEEDS} pass every checker`, async (t) => {
  for (let seed = 1; seed <= CI_SEEDS; seed++) {
    const r = await runCluster({ seed })
    t.same(r.failures, [], `seed ${r.seed} (${r.faults}); replay: ${r.replay}`)
    t.ok(r.stats.acked > 0 && r.stats.logLength > r.stats.acked, `seed ${seed}: ${r.stats.acked} acknowledged, log of ${r.stats.logLength}`)
    t.same([r.stats.priced, r.stats.fundingSettled], [2, 2], `seed ${seed}: oracle prices reached both perpetuals and funding settled`)
  }
})

t.test('a seed replays exactly', async (t) => {
  const a = await runCluster({ seed: 2 })
  const b = await runCluster({ seed: 2 })
  t.equal(b.traceHash, a.traceHash, 'same trace hash')
  t.same(b.stats, a.stats, 'same statistics')
  t.ok(a.stats.crashes > 0, `the seed crashed nodes (${a.stats.crashes})`)
})
