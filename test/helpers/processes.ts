// Real `exchange` processes for end-to-end tests: spawned from the compiled CLI on loopback,
// killed with SIGKILL, their JSON log lines watched for what they announce.

import { spawn, type ChildProcess } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { Network } from '../../replica/network.js'
import { linkToken, wsNetworkWith } from '../../replica/ws-network.js'
import { freePort } from '../../replica/free-port.js'
import { EXCHANGE_BIN, NODE, NODE_ARGS } from './paths.js'
import { reaped } from './reaper.js'

/**
 * How long `waitFor` waits by default: a bound that turns a hang into a failure, not a
 * measure. tap runs four test files at a time on two cores, and this machine's cores run
 * at times three times slower than at others, so a start that takes 3 s alone can take 20.
 */
const WAIT_MS = 60_000

/** A node's /metrics gauges (Prometheus text, one `name value` line each) on loopback `port`. */
export async function scrapeGauges(port: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  const out: Record<string, number> = {}
  for (const m of text.matchAll(/^([a-z][a-z0-9_]*(?:\{[^}]*\})?) (\S+)$/gm)) out[m[1]!] = Number(m[2])
  return out
}

/** The last seq a node's /metrics says it applied (0 while it does not answer). */
export async function appliedSeq(metricsPort: number): Promise<number> {
  return (await scrapeGauges(metricsPort).catch(() => ({} as Record<string, number>))).exchange_seq ?? 0
}

/** Whether every node (by metrics port) applies up to `target` within `ms`. */
export async function reachedAll(ports: number[], target: number, ms = 20_000): Promise<boolean> {
  const deadline = Date.now() + ms
  for (;;) {
    if ((await Promise.all(ports.map(appliedSeq))).every((s) => s >= target)) return true
    if (Date.now() > deadline) return false
    await new Promise((r) => setTimeout(r, 100))
  }
}

export interface Proc {
  child: ChildProcess
  lines: Record<string, unknown>[]
  /** Resolves with the first log line matching `pred`. */
  waitFor(pred: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>
  kill(signal?: NodeJS.Signals): Promise<void>
  /** Resolves once the process has exited (its code then in child.exitCode). */
  exited: Promise<void>
  /** What it wrote to stderr so far. */
  stderr(): string
}

/** Runs an `exchange` command to its end: its exit code and all its output ('close', not 'exit': the pipes may still hold some at exit). */
export function exchangeCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = reaped(spawn(NODE, [...NODE_ARGS, EXCHANGE_BIN, ...args]))
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (b: Buffer) => { stdout += b.toString() })
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString() })
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

export function startExchange(args: string[]): Proc {
  // Tests assert exact books and trades: `start`'s market-making bot runs only where a test asks for it.
  const botSet = args.some((a) => a === '--bot' || a.startsWith('--bot=') || a === '--no-bot')
  if (args[0] === 'start' && !botSet) args = [...args, '--bot', 'off']
  const child = reaped(spawn(NODE, [...NODE_ARGS, EXCHANGE_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }))
  const lines: Record<string, unknown>[] = []
  const waiters: { pred: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = []
  let buf = ''
  let stderr = ''
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString()
    let i: number
    while ((i = buf.indexOf('\n')) >= 0) {
      const text = buf.slice(0, i)
      buf = buf.slice(i + 1)
      let line: Record<string, unknown>
      try { line = JSON.parse(text) } catch { continue }
      lines.push(line)
      for (const w of [...waiters]) if (w.pred(line)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(line) }
    }
  })
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString() })
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  return {
    child, lines, exited,
    stderr: () => stderr,
    waitFor(pred, timeoutMs = WAIT_MS) {
      const found = lines.find(pred)
      if (found) return Promise.resolve(found)
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`timed out waiting; stderr: ${stderr.slice(-2000)}`)), timeoutMs)
        waiters.push({ pred, resolve: (l) => { clearTimeout(t); resolve(l) } })
      })
    },
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
    },
  }
}

export interface GatewayPair {
  /** The sequencer's and the follower's REST ports. */
  apiA: number
  apiB: number
  /** The sequencer's replication port (its internal links). */
  repl: number
  /** The sequencer's and the follower's metrics ports. */
  metA: number
  metB: number
  seq: Proc
  fol: Proc
  /** The demo account `start` funded (its credentials, from demo-account.json). */
  demo: { address: string; apiKey: string; secretKey: string }
}

/**
 * A sequencer node and a follower node, each serving the API, both running until the test
 * ends (their data directories removed then); resolves once the demo account is funded and
 * the follower runs. `extra` flags go to both, `startExtra` to the sequencer only.
 */
export async function startGatewayPair(t: { teardown(fn: () => Promise<void>): void }, secret: string, extra: string[],
  startExtra: string[] = []): Promise<GatewayPair> {
  const [dirA, dirB] = [await mkdtemp(path.join(os.tmpdir(), 'pair-a-')), await mkdtemp(path.join(os.tmpdir(), 'pair-b-'))]
  const [apiA, apiB, repl, metA, metB] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()]
  const common = ['--master-secret', secret, ...extra]
  const seq = startExchange(['start', '--data', dirA, '--port', String(apiA), '--replication-port', String(repl),
    '--metrics-port', String(metA), ...startExtra, ...common])
  const fol = startExchange(['replica', '--data', dirB, '--port', String(apiB), '--metrics-port', String(metB),
    '--follow', `ws://127.0.0.1:${repl}/replication`, ...common])
  t.teardown(async () => {
    await Promise.all([seq.kill(), fol.kill()])
    const gone = { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }
    await Promise.all([rm(dirA, gone), rm(dirB, gone)])
  })
  await seq.waitFor((l) => l.msg === 'demo account funded')
  await fol.waitFor((l) => l.msg === 'follower running')
  const demo = JSON.parse(await readFile(path.join(dirA, 'demo-account.json'), 'utf8')) as GatewayPair['demo']
  return { apiA, apiB, repl, metA, metB, seq, fol, demo }
}

/**
 * A request to the REST API at `base` signed by `who` (HMAC over the query, as clients sign): its
 * status, parsed body and the seq the answer names (X-Exchange-Seq; 0: none). `headers`: more to send.
 */
export async function signedRequest(base: string, who: { apiKey: string; secretKey: string }, method: string, p: string,
  params: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<{ status: number; body: any; seq: number }> {
  const q = new URLSearchParams({ ...params, timestamp: String(Date.now()) }).toString()
  const sig = createHmac('sha256', who.secretKey).update(q).digest('hex')
  const r = await fetch(`${base}${p}?${q}&signature=${sig}`, { method, headers: { 'X-MBX-APIKEY': who.apiKey, ...headers } })
  return { status: r.status, body: await r.json(), seq: Number(r.headers.get('x-exchange-seq') ?? 0) }
}

/** The demo account `start` funds (demo-account.json). */
export interface DemoAccount { address: string; apiKey: string; secretKey: string }

export interface RestartableNode {
  dir: string
  api: number
  metrics: number
  /** Its replication port (followers connect here). */
  repl: number
  /** The running process (after start()). */
  readonly proc: Proc
  /** Starts `exchange start` on the same data directory and ports; resolves once it sequences. */
  start(): Promise<void>
  /** The demo account, once funded. */
  demo(): Promise<DemoAccount>
  /** A request signed by `who` (HMAC over the query), with its status and parsed body. */
  call(who: DemoAccount, method: string, path: string, params?: Record<string, string>): Promise<{ status: number; body: any }>
}

/**
 * One `exchange start` node on a data directory and ports of its own that a test may stop and
 * start again (both removed at the end); `extra` flags go to every start. It runs no price feed,
 * whose band around an index of 30,000 would refuse the tests' orders once its first price lands.
 */
export async function restartableNode(t: { teardown(fn: () => Promise<void>): void }, name: string, secret: string,
  extra: string[] = []): Promise<RestartableNode> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `${name}-`))
  const [api, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  let proc: Proc | undefined
  t.teardown(async () => {
    await proc?.kill()
    await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  })
  return {
    dir, api, metrics, repl,
    get proc() { return proc! },
    async start() {
      proc = startExchange(['start', '--data', dir, '--port', String(api), '--replication-port', String(repl),
        '--metrics-port', String(metrics), '--master-secret', secret, '--price-feed', 'off', ...extra])
      await proc.waitFor((l) => l.msg === 'sequencer running', 30_000)
    },
    async demo() {
      await proc!.waitFor((l) => l.msg === 'demo account funded')
      return JSON.parse(await readFile(path.join(dir, 'demo-account.json'), 'utf8')) as DemoAccount
    },
    call: (who, method, p, params = {}) => signedRequest(`http://127.0.0.1:${api}`, who, method, p, params),
  }
}

/**
 * The network into a node's internal port (replication, command ingress), for one with this
 * master secret (hex); `ca`: the PEM a TLS port's certificate is trusted by.
 */
export function internalLink(secretHex: string, ca?: Buffer): Network {
  return wsNetworkWith(linkToken(Buffer.from(secretHex, 'hex')), ca === undefined ? {} : { ca })
}

/** Runs `body` with the processes it starts (killed at teardown); a failure says what each of them logged last. */
export async function explained<T extends { teardown(fn: () => unknown): void }>(t: T, body: (t: T, procs: Proc[]) => Promise<void>): Promise<void> {
  const procs: Proc[] = []
  t.teardown(() => Promise.all(procs.map((p) => p.kill())))
  try {
    await body(t, procs)
  } catch (err) {
    const tails = procs.map((p, i) => `process ${i} (${p.child.spawnargs.slice(p.child.spawnargs.indexOf(EXCHANGE_BIN) + 1).slice(0, 2).join(' ')}):\n${p.lines.slice(-8).map((l) => JSON.stringify(l).slice(0, 300)).join('\n')}`)
    throw new Error(`${(err as Error).message}\n${tails.join('\n')}`)
  }
}
