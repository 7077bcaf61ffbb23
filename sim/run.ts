// `npm run sim -- --seeds N [--seed S] [--bug NAME] [--calm] [--followers F] [--clients C]
// [--commands K] [--fault-ms MS] [--restart-window B] [--standby] [--election]`: runs seeds S, S+1, … (default S = 1) of the cluster
// simulator with a progress bar on stderr and a summary table on stdout. Exits 1 when any
// seed fails, printing each failing seed's failures and the line that replays it.

import { runCluster, type ClusterOptions, type SeedReport } from './cluster.js'
import { TEST_FAULTS, type TestFault } from '../replica/test-faults.js'

interface Args { seeds: number, first: number, base: Omit<ClusterOptions, 'seed'>, verbose: boolean }

function parse(argv: string[]): Args {
  const args: Args = { seeds: 1, first: 1, base: {}, verbose: false }
  const bugs: TestFault[] = []
  let seedsGiven = false
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!
    const value = (): number => {
      const v = Number(argv[++i])
      if (!Number.isSafeInteger(v)) throw new Error(`${flag} needs an integer`)
      return v
    }
    switch (flag) {
      case '--seeds': args.seeds = value(); seedsGiven = true; break
      case '--seed': args.first = value(); if (!seedsGiven) args.seeds = 1; break
      case '--followers': args.base.followers = value(); break
      case '--clients': args.base.clients = value(); break
      case '--commands': args.base.commandsPerClient = value(); break
      case '--fault-ms': args.base.faultMs = value(); break
      case '--restart-window': args.base.restartWindow = value(); break
      case '--calm': args.base.calm = true; break
      case '--standby': args.base.standby = true; break
      case '--election': args.base.election = true; break
      case '--verbose': args.verbose = true; break
      case '--bug': {
        const b = argv[++i] as TestFault
        if (!(b in TEST_FAULTS)) throw new Error(`--bug takes one of ${Object.keys(TEST_FAULTS).join(', ')}`)
        bugs.push(b)
        break
      }
      default: throw new Error(`unknown option ${flag}`)
    }
  }
  if (bugs.length > 0) args.base.bugs = bugs
  return args
}

function bar(done: number, total: number, failed: number, started: number): string {
  const width = 30
  const full = Math.round((done / total) * width)
  const secs = ((Date.now() - started) / 1000).toFixed(0)
  return `\r[${'#'.repeat(full)}${'.'.repeat(width - full)}] ${done}/${total} seeds, ${failed} failed, ${secs}s`
}

function table(reports: SeedReport[]): string {
  const head = ['seed', 'result', 'log', 'acked', 'unknown', 'crashes(seq)', 'failovers', 'rewinds', 'torn', 'partitions', 'lost', 'dup', 'corrupt', 'restarts', 'checkpoints', 'priced/funded', 'triggers', 'liq', 'adl', 'shortfall', 'mcall', 'virtual s']
  const rows = reports.map((r) => {
    const s = r.stats
    return [String(r.seed), r.ok ? 'ok' : 'FAIL', String(s.logLength), String(s.acked), String(s.unknown), `${s.crashes}(${s.sequencerCrashes})`,
      String(s.failovers), String(s.rewinds), String(s.tornTails), String(s.partitions), String(s.lost), String(s.duplicated), String(s.corrupted), String(s.fatalRestarts),
      String(s.checkpoints), `${s.priced}/${s.fundingSettled}`, String(s.triggers), String(s.liquidations), String(s.adlFills),
      String(s.shortfalls), String(s.marginCalls), (s.virtualMs / 1000).toFixed(1)]
  })
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]): string => cells.map((c, i) => c.padStart(widths[i]!)).join('  ')
  return [line(head), ...rows.map(line)].join('\n')
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2))
  const reports: SeedReport[] = []
  const started = Date.now()
  let failed = 0
  for (let i = 0; i < args.seeds; i++) {
    const seed = args.first + i
    process.stderr.write(bar(i, args.seeds, failed, started))
    const r = await runCluster({ ...args.base, seed })
    reports.push(r)
    if (!r.ok) failed++
    if (args.verbose) process.stderr.write(`\nseed ${seed}: ${r.faults}\n  trace ${r.traceHash}\n`)
  }
  process.stderr.write(bar(args.seeds, args.seeds, failed, started) + '\n')
  console.log(table(reports))
  for (const r of reports.filter((x) => !x.ok)) {
    console.log(`\nseed ${r.seed} FAILED (${r.faults})`)
    for (const f of r.failures) console.log(`  - ${f}`)
    console.log(`  replay: ${r.replay}`)
  }
  const sum = (k: 'triggers' | 'liquidations' | 'adlFills' | 'shortfalls' | 'marginCalls'): number => reports.reduce((n, r) => n + r.stats[k], 0)
  console.log(`\ntotals: ${sum('triggers')} triggers, ${sum('liquidations')} liquidation orders, ${sum('adlFills')} ADL fills, ` +
    `${sum('shortfalls')} shortfalls covered by the insurance fund, ${sum('marginCalls')} margin calls`)
  console.log(`\n${args.seeds - failed}/${args.seeds} seeds passed in ${((Date.now() - started) / 1000).toFixed(1)}s`)
  process.exitCode = failed > 0 ? 1 : 0
}

main().catch((err: Error) => {
  console.error(err.message)
  process.exitCode = 2
})
