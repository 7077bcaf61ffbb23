// A real exchange process for the benchmarks that measure it from outside (`exchange start`
// on loopback with its own data directory, master secret and ports), and the CPU time it
// uses, read from /proc so a figure per request holds up when other work shares the cores.

import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const HOST = '127.0.0.1'
/** The embedded default's chain id, which the accounts' session signatures are made in. */
export const CHAIN_ID = 31337

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/exchange.js')

export interface ExchangeProcess {
  child: ChildProcess
  port: number
  replicationPort: number
  /** Its Prometheus /metrics port. */
  metricsPort: number
  secret: Buffer
  nodeFlags: string[]
  /** Sends SIGTERM (SIGKILL after 30 s), waits for the exit, removes the data directory. */
  stop(): Promise<void>
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, HOST, () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
  })
}

async function untilServing(port: number, exited: () => string | null): Promise<void> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const why = exited()
    if (why !== null) throw new Error(`the exchange exited before serving: ${why}`)
    try {
      if ((await fetch(`http://${HOST}:${port}/fapi/v1/ping`)).ok) return
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error('the exchange did not start serving within 60 s')
    await new Promise((r) => setTimeout(r, 100))
  }
}

/**
 * The node flags `npm start` runs the exchange with (package.json), so the benchmarks measure
 * it as deployed, followed by those in the environment variable `envName` (e.g. `--cpu-prof`).
 */
export function exchangeNodeFlags(envName: string): string[] {
  return ['--max-semi-space-size=64', '--heap-growing-percent=400', ...(process.env[envName] ?? '').split(/\s+/).filter(Boolean)]
}

/**
 * Starts `exchange start` with `flags` added and resolves once it serves REST. `nodeFlags`
 * go to node itself (e.g. `--cpu-prof`).
 */
export async function startExchange(name: string, flags: string[], nodeFlags: string[]): Promise<ExchangeProcess> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `bench-${name}-`))
  const [port, replicationPort, metricsPort] = [await freePort(), await freePort(), await freePort()]
  const secret = randomBytes(32)
  const child = spawn(process.execPath, [...nodeFlags, BIN, 'start', '--data', dir, '--host', HOST, '--port', String(port),
    '--replication-port', String(replicationPort), '--metrics-port', String(metricsPort), '--log-level', 'warn',
    '--master-secret', secret.toString('hex'), '--chain-id', String(CHAIN_ID), ...flags], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000) })
  let exit: string | null = null
  const exited = new Promise<void>((r) => child.once('exit', (code, signal) => { exit = `${code ?? signal}: ${stderr.slice(-2000)}`; r() }))
  const stop = async (): Promise<void> => {
    // SIGTERM lets the exchange stop cleanly (and write a --cpu-prof profile).
    if (exit === null) child.kill('SIGTERM')
    const kill = setTimeout(() => child.kill('SIGKILL'), 30_000)
    await exited
    clearTimeout(kill)
    await rm(dir, { recursive: true, force: true })
  }
  try {
    await untilServing(port, () => exit)
  } catch (err) {
    await stop()
    throw err
  }
  return { child, port, replicationPort, metricsPort, secret, nodeFlags, stop }
}

/** The exchange's /metrics gauges (Prometheus text, one `name value` line each). */
export async function scrapeMetrics(ex: Pick<ExchangeProcess, 'metricsPort'>): Promise<Record<string, number>> {
  const text = await (await fetch(`http://${HOST}:${ex.metricsPort}/metrics`)).text()
  const out: Record<string, number> = {}
  for (const line of text.split('\n')) {
    const m = /^([a-z0-9_]+) (\S+)$/.exec(line)
    if (m !== null) out[m[1]!] = Number(m[2])
  }
  return out
}

/** The processes `pid` started (the gateway's WebSocket fan-out process, say), from /proc. */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/**
 * CPU seconds a process has used (user + system, all its threads), from /proc/<pid>/stat,
 * or its main thread's alone (/proc/<pid>/task/<pid>/stat).
 */
export function cpuSeconds(pid: number, mainThread = false): number {
  try {
    return statCpuSeconds(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`)
  } catch {
    return NaN
  }
}

/** User + system CPU seconds from a /proc `stat` file (a process's or a thread's). */
function statCpuSeconds(file: string): number {
  const stat = readFileSync(file, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // utime and stime (fields 14 and 15 of the line, 12 and 13 after the name), in 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** What cpuByThread() calls the threads that do not name themselves: V8's, libuv's, LevelDB's. */
export const UNNAMED_THREADS = 'other'

/**
 * CPU seconds by thread of a process, from /proc/<pid>/task: `main` for its main thread, the
 * exchange's own threads by the names they give themselves (replica/thread-name.ts), and
 * every other one summed under UNNAMED_THREADS. A thread that has ended is no longer counted.
 */
export function cpuByThread(pid: number): Map<string, number> {
  const out = new Map<string, number>()
  let tids: string[]
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return out
  }
  for (const tid of tids) {
    try {
      const name = Number(tid) === pid ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
      const key = name === 'node' ? UNNAMED_THREADS : name
      out.set(key, (out.get(key) ?? 0) + statCpuSeconds(`/proc/${pid}/task/${tid}/stat`))
    } catch { /* the thread ended meanwhile */ }
  }
  return out
}
