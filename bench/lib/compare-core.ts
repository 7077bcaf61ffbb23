// Compares this build's core with another checkout's on the core benchmark's plain workload,
// in one process: `node --max-semi-space-size=64 --heap-growing-percent=400
// dist/bench/lib/compare-core.js <other checkout> [rounds]` (the other checkout built with
// `npx tsc`, its dependencies installed). Each build runs in a worker isolate of its own and
// the two take turns, one throughput pass each, alternating which goes first, for `rounds`
// rounds in each of two pairs of fresh workers. Separate runs of `npm run bench:core` drift with
// the machine by more than most changes cost (±10 % within minutes); passes a second apart
// share the drift, so the ratio of CPU time per pass is what this reports.

import { Worker } from 'node:worker_threads'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { int, table } from './bench.js'
import type { Pass } from '../core.js'

const here = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..')
const other = process.argv[2]
const rounds = Number(process.argv[3] ?? 10)

function start(root: string): Promise<Worker> {
  const w = new Worker(new URL('./compare-worker.js', import.meta.url), { workerData: { root } })
  return new Promise((res, rej) => {
    w.once('message', () => res(w))
    w.once('error', rej)
  })
}

function pass(w: Worker): Promise<Pass> {
  return new Promise((res) => {
    w.once('message', res)
    w.postMessage('pass')
  })
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1]!

async function main(): Promise<void> {
  if (other === undefined) throw new Error('usage: compare-core.js <other checkout> [rounds]')
  const runs = { here: [] as Pass[], other: [] as Pass[] }
  for (let pair = 0; pair < 2; pair++) {
    // Which build's worker starts first alternates by pair too: the first isolate started ran
    // up to 5 % slower than the second, whichever build it held (two workers of one build).
    const workers = pair % 2 === 0 ? { here: await start(here), other: await start(resolve(other)) }
      : { other: await start(resolve(other)), here: await start(here) }
    for (let r = 0; r < rounds; r++) {
      for (const k of r % 2 === 0 ? (['here', 'other'] as const) : (['other', 'here'] as const)) runs[k].push(await pass(workers[k]))
    }
    await Promise.all([workers.here.terminate(), workers.other.terminate()])
  }
  const ratio = median(runs.here.map((p, i) => p.cpu / runs.other[i]!.cpu))
  const rows = (['here', 'other'] as const).map((k) => [k === 'here' ? here : resolve(other), int(median(runs[k].map((p) => p.wall))),
    int(median(runs[k].map((p) => p.cpu))), runs[k].map((p) => int(p.cpu)).join(' ')])
  for (const line of table(['build', 'cmds/s (median)', 'cmds per CPU-s (median)', 'every pass, cmds per CPU-s'], rows)) console.log(line)
  console.log(JSON.stringify({ bench: 'compare-core', passes: runs.here.length, hereCpuMedian: Math.round(median(runs.here.map((p) => p.cpu))),
    otherCpuMedian: Math.round(median(runs.other.map((p) => p.cpu))), medianRatio: Number(ratio.toFixed(4)) }))
}

main().catch((err: unknown) => {
  process.stderr.write((err instanceof Error ? err.stack ?? err.message : String(err)) + '\n')
  process.exitCode = 1
})
