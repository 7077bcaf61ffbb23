// `npm test`: runs the compiled test files (dist/test/**/*.test.js), each a node-tap test file,
// in plain node processes, `jobs` at a time, then the `serial` ones two at a time (package.json
// "tap": jobs, serial, timeout; tap's runner would run each serial one alone). Why not tap's
// runner: on Node 20 it loads every test file through its module loader (@tapjs/processinfo,
// for coverage, which it cannot switch off), ~1–2 s of CPU a file, about a quarter of the
// suite's CPU (docs/BENCHMARKS.md, session 54). `npx tap <file>` still runs one file as before.
//
// Output is TAP: each file's own output as a subtest, then `ok N - <file> # time=…ms`, and the
// totals line tap's runner prints (`# { total: N, pass: N, fail: N }`), counted from each
// file's own totals line. A file that fails, times out or dies without its totals fails.
//
// Arguments: files or folders under dist/test to run instead of all of them.

import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

interface TapConfig { jobs?: number; serial?: string[]; timeout?: number }

const config = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { tap?: TapConfig }).tap ?? {}
const JOBS = config.jobs ?? 4
const SERIAL = new Set(config.serial ?? [])
const TIMEOUT_S = config.timeout ?? 300
/**
 * The longest files (each 30–90 s on a 2-core machine; BENCHMARKS.md keeps the timings), the
 * serial ones' first, start first in their group, so that none of them is left running alone at
 * the end while the cores idle. Order only: a file missing from the list runs in its turn.
 */
const LONGEST_FIRST = ['e2e/auto-failover', 'e2e/etcd-replaced', 'e2e/log-archive', 'bin/operator-errors', 'chain/live-proof', 'sim/cluster', 'clients/ccxt-spot',
  'chain/fee-withdrawal', 'chain/chain-kill', 'replica/level-log', 'e2e/internal-link', 'clients/spot-stream-host', 'clients/ccxt',
  'core/liquidation-budget', 'chain/audit'].map((f) => `dist/test/${f}.test.js`)
/**
 * The serial files (fail-over: etcd leases, kills, elections) run two at a time once the rest
 * are done, so each has one other beside it, as when the suite ran two files at a time: alone,
 * each kept one of the two cores busy (their 8 took 158 s; two at a time, 117 s).
 */
const SERIAL_JOBS = 2
/** After its own timeout a file's tap reports what hung; a file still running this much later is killed. */
const KILL_GRACE_MS = 30_000

/** The test files under `dir` (relative to the project), sorted. */
function testFiles(dir: string): string[] {
  const full = path.join(ROOT, dir)
  if (!existsSync(full)) {
    process.stderr.write(`no such test file or folder: ${dir} (the compiled tests are under dist/test: npm run build)\n`)
    process.exit(2)
  }
  if (statSync(full).isFile()) return [dir]
  return (readdirSync(full, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.test.js'))
    .map((f) => path.join(dir, f).split(path.sep).join('/'))
    .sort()
}

interface Totals { total: number; pass: number; fail: number; skip: number; todo: number }

const noTotals = (): Totals => ({ total: 0, pass: 0, fail: 0, skip: 0, todo: 0 })

/** A file's totals from the line tap prints last: `# { total: 3, pass: 2, fail: 1 }`. */
function totalsOf(stdout: string): Totals | undefined {
  const m = [...stdout.matchAll(/^# \{ (total: \d+.*) \}$/gm)].pop()
  if (!m) return undefined
  const t = noTotals()
  for (const part of m[1]!.split(', ')) {
    const [k, v] = part.split(': ')
    if (k !== undefined && k in t) t[k as keyof Totals] = Number(v)
  }
  return t
}

interface FileResult { file: string; ok: boolean; ms: number; totals: Totals; output: string }

function runFile(file: string): Promise<FileResult> {
  const started = performance.now()
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--enable-source-maps', path.join(ROOT, file)], {
      cwd: ROOT,
      env: { ...process.env, TAP_TIMEOUT: String(TIMEOUT_S) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (b: Buffer) => { stdout += b.toString() })
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString() })
    let killed = false
    const timer = setTimeout(() => { killed = true; child.kill('SIGKILL') }, TIMEOUT_S * 1000 + KILL_GRACE_MS)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const totals = totalsOf(stdout)
      const ok = code === 0 && totals !== undefined && totals.fail === 0
      const why = killed ? `killed: still running ${TIMEOUT_S} s + ${KILL_GRACE_MS / 1000} s after it started`
        : totals === undefined ? `ended (${signal ?? `exit ${code}`}) without its totals` : code !== 0 ? `exit ${code ?? signal}` : ''
      let output = stdout
      if (!ok) {
        if (why) output += `# ${why}\n`
        if (stderr) output += stderr.split('\n').map((l) => `# stderr: ${l}`).join('\n') + '\n'
      }
      // A file that failed without a failed assertion of its own (it died, hung or exited
      // non-zero after its tests) counts one failure more, so the totals say it failed too.
      const counted = totals ?? noTotals()
      if (!ok && counted.fail === 0) { counted.total += 1; counted.fail += 1 }
      resolve({ file, ok, ms: performance.now() - started, totals: counted, output })
    })
  })
}

async function main(args: string[]): Promise<void> {
  const files = [...new Set((args.length > 0 ? args : ['dist/test']).flatMap((a) => testFiles(a.replace(/\/$/, ''))))]
  const started = performance.now()
  const sum = noTotals()
  let n = 0
  process.stdout.write('TAP version 14\n')
  const report = (r: FileResult): void => {
    n++
    for (const k of Object.keys(sum) as (keyof Totals)[]) sum[k] += r.totals[k]
    const body = r.output.replace(/^TAP version \d+\n/, '').replace(/\n$/, '').split('\n').map((l) => (l ? `    ${l}` : l)).join('\n')
    process.stdout.write(`# Subtest: ${r.file}\n${body}\n${r.ok ? 'ok' : 'not ok'} ${n} - ${r.file} # time=${r.ms.toFixed(3)}ms\n\n`)
  }
  // The parallel files `JOBS` at a time, then the serial ones `SERIAL_JOBS` at a time, longest first.
  const rank = (f: string): number => { const i = LONGEST_FIRST.indexOf(f); return i < 0 ? LONGEST_FIRST.length : i }
  const pool = (group: string[], jobs: number): Promise<void[]> => {
    const queue = group.sort((a, b) => rank(a) - rank(b))
    return Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, async () => {
      for (let f = queue.shift(); f !== undefined; f = queue.shift()) report(await runFile(f))
    }))
  }
  await pool(files.filter((f) => !SERIAL.has(f)), JOBS)
  await pool(files.filter((f) => SERIAL.has(f)), SERIAL_JOBS)
  process.stdout.write(`1..${n}\n`)
  const shown = Object.entries(sum).filter(([k, v]) => v > 0 || k === 'total' || k === 'pass').map(([k, v]) => `${k}: ${v}`).join(', ')
  process.stdout.write(`# { ${shown} }\n# time=${(performance.now() - started).toFixed(3)}ms\n`)
  // A file that failed counted at least one failure (runFile), so the totals say it.
  if (sum.fail > 0) process.exitCode = 1
}

await main(process.argv.slice(2))
