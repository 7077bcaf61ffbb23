// WebSocket benchmark (issue 5): subscribers of one symbol's depth and trade streams on a
// real exchange process (`exchange start`, chain and price feed off) while book-changing
// orders flow at a fixed rate through the sequencer's ingress. Each subscriber holds the
// combined stream `btcusdtperp@depth@100ms/btcusdtperp@trade`; every message's delay is
// measured from the time the sequencer stamped on the core entry it reports (`T`) to its
// arrival at the client, so it covers sequencing, apply, the stream build, serialization and
// the socket. `T` is whole milliseconds, so delays read up to 1 ms long. A depth diff's `T` is
// its newest entry's: the diff's own 100 ms batching of older entries is by design and not
// counted. Subscribers live in worker threads of this process and share the cores with the
// exchange; they use a minimal WebSocket client (bench/lib/light-ws-client.ts) and read the
// few numbers they need in place, so that the thousand clients cost less than the server.
// Since everything shares the cores, the bench also prints CPU time per delivered message:
// the exchange's (main thread, fan-out process) and the subscriber threads'. Under load they
// fall as well, as more events leave in each write, so compare them at similar loads.
//
// WS_BENCH_SUBSCRIBERS (default 1,000), WS_BENCH_RATE (book-changing commands/s, default
// 2,000), WS_BENCH_NODE_FLAGS (extra node flags for the exchange, e.g. --cpu-prof; the
// fan-out process inherits them), WS_BENCH_FAN_OUT (the exchange's --ws-fan-out: process,
// its default, or inline, for comparison).

import os from 'node:os'
import { Worker } from 'node:worker_threads'
import { createFundedAccount, type DemoAccount } from '../bin/demo-account.js'
import type { Command } from '../core/commands.js'
import { IngressClient } from '../replica/ingress.js'
import { linkToken, wsNetworkWith } from '../replica/ws-network.js'
import { fixed, int, percentile, table, type Benchmark, type BenchSummary } from './lib/bench.js'
import { CHAIN_ID, childPids, cpuSeconds, exchangeNodeFlags, HOST, startExchange } from './lib/exchange-process.js'
import type { SubscriberCommand, SubscriberReport, SubscriberSetup } from './lib/ws-subscriber-worker.js'

const SUBSCRIBERS = Number(process.env.WS_BENCH_SUBSCRIBERS ?? 1_000)
const RATE = Number(process.env.WS_BENCH_RATE ?? 2_000)
const FAN_OUT = process.env.WS_BENCH_FAN_OUT ?? 'process'
const WORKERS = 2
const STREAMS = 'btcusdtperp@depth@100ms/btcusdtperp@trade'
const WARMUP_SECONDS = 3
const MEASURE_SECONDS = 10
const BTC = 1
/** 50,000.0 at tick 0.1. */
const CENTER_TICKS = 500_000
/** Resting orders the makers keep; at that count each new one replaces the oldest. */
const RESTING = 300
/** One command in this many is a small taker that trades against the best level. */
const TAKER_EVERY = 40

/** The order flow: makers placing and cancelling around the center, an occasional taker. */
class Flow {
  private n = 0
  private rng = 12345
  private readonly resting: { account: string; clientOrderId: string }[] = []

  constructor(private readonly makers: DemoAccount[], private readonly takers: DemoAccount[]) {}

  private random(k: number): number {
    // A fixed LCG: the same flow on every run.
    this.rng = (Math.imul(this.rng, 1_103_515_245) + 12_345) >>> 0
    return this.rng % k
  }

  next(): Command {
    const i = this.n++
    if (i % TAKER_EVERY === TAKER_EVERY - 1) {
      const t = this.takers[i % this.takers.length]!
      const buy = this.random(2) === 0
      return { type: 'PlaceOrder', account: t.address, sub: 0, marketId: BTC, side: buy ? 'BUY' : 'SELL', orderType: 'LIMIT',
        timeInForce: 'IOC', priceTicks: CENTER_TICKS + (buy ? 100 : -100), qtyLots: 3 }
    }
    if (this.resting.length >= RESTING) {
      const o = this.resting.shift()!
      return { type: 'CancelOrder', account: o.account, sub: 0, marketId: BTC, clientOrderId: o.clientOrderId }
    }
    const m = this.makers[i % this.makers.length]!
    const buy = this.random(2) === 0
    const clientOrderId = `ws-bench-${i}`
    this.resting.push({ account: m.address, clientOrderId })
    return { type: 'PlaceOrder', account: m.address, sub: 0, marketId: BTC, side: buy ? 'BUY' : 'SELL', orderType: 'LIMIT',
      timeInForce: 'GTC', priceTicks: CENTER_TICKS + (buy ? -1 : 1) * (1 + this.random(40)), qtyLots: 3 + this.random(9), clientOrderId }
  }
}

interface Counts {
  accepted: number
  refused: Map<string, number>
  /** While set: each acknowledgement's delay (ms) from its entry's time, the commit path's share of the latency. */
  acks?: number[]
}

function submitAt(ingress: IngressClient, flow: Flow, rate: number, counts: Counts): { stop: () => Promise<void> } {
  const start = performance.now()
  let sent = 0
  let running = true
  const tick = (): void => {
    if (!running) return
    const due = Math.floor(((performance.now() - start) / 1000) * rate)
    for (; sent < due; sent++) {
      ingress.submit(flow.next()).then((a) => {
        counts.acks?.push(Date.now() - a.time)
        if (a.result.ok) counts.accepted++
        else counts.refused.set(a.result.code, (counts.refused.get(a.result.code) ?? 0) + 1)
      }, () => { counts.refused.set('DISCONNECTED', (counts.refused.get('DISCONNECTED') ?? 0) + 1) })
    }
    setTimeout(tick, 1)
  }
  tick()
  return { stop: async () => {
    running = false
    while (ingress.pending > 0) await new Promise((r) => setTimeout(r, 10))
  } }
}

function ask(w: Worker, c: SubscriberCommand | null): Promise<SubscriberReport & { kind?: string; error?: string; connected: number }> {
  return new Promise((resolve, reject) => {
    const failed = (err: Error): void => reject(err)
    w.once('error', failed)
    w.once('message', (m: SubscriberReport & { kind?: string; error?: string }) => {
      w.off('error', failed)
      if (m.kind === 'error') reject(new Error(m.error))
      else resolve(m)
    })
    if (c !== null) w.postMessage(c)
  })
}

function concat(parts: Float64Array[]): Float64Array {
  const all = new Float64Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) { all.set(p, at); at += p.length }
  return all.sort()
}

async function run(out: (line: string) => void): Promise<BenchSummary> {
  if (!Number.isInteger(SUBSCRIBERS) || SUBSCRIBERS < WORKERS) throw new Error(`WS_BENCH_SUBSCRIBERS must be an integer ≥ ${WORKERS}`)
  if (!Number.isInteger(RATE) || RATE <= 0) throw new Error('WS_BENCH_RATE must be a positive integer')
  if (FAN_OUT !== 'process' && FAN_OUT !== 'inline') throw new Error('WS_BENCH_FAN_OUT must be process or inline')
  const nodeFlags = exchangeNodeFlags('WS_BENCH_NODE_FLAGS')
  // Every subscriber connects from one IP: past the 300 attempts per 5 minutes a client gets, and
  // (inline, where the sockets stay in the exchange's process) past the 1,000 connections one address may hold.
  const ex = await startExchange('ws', ['--chain', 'off', '--price-feed', 'off', '--bot', 'off', '--ws-fan-out', FAN_OUT,
    '--ws-connection-limit', '1000000000', '--connections-per-ip', '10000000'], nodeFlags)
  const workers: Worker[] = []
  let ingress: IngressClient | undefined
  let flowRun: { stop: () => Promise<void> } | undefined
  try {
    ingress = await IngressClient.connect(wsNetworkWith(linkToken(ex.secret)), `ws://${HOST}:${ex.replicationPort}`)
    const i = ingress
    const fund = (): Promise<DemoAccount> => createFundedAccount({ submit: (c) => i.submit(c), now: () => Date.now(), chainId: CHAIN_ID,
      masterSecret: ex.secret, usdt: 10_000_000 })
    const makers = await Promise.all(Array.from({ length: 8 }, fund))
    const takers = await Promise.all(Array.from({ length: 2 }, fund))
    const flow = new Flow(makers, takers)
    for (let k = 0; k < RESTING; k++) {
      const a = await ingress.submit(flow.next())
      if (!a.result.ok) throw new Error(`seeding the book was refused: ${a.result.code}`)
    }

    for (let w = 0; w < WORKERS; w++) {
      const connections = Math.floor(SUBSCRIBERS / WORKERS) + (w < SUBSCRIBERS % WORKERS ? 1 : 0)
      const setup: SubscriberSetup = { host: HOST, port: ex.port, path: `/stream?streams=${STREAMS}`, connections }
      workers.push(new Worker(new URL('./lib/ws-subscriber-worker.js', import.meta.url), { workerData: setup }))
    }
    const connected = (await Promise.all(workers.map((w) => ask(w, null)))).reduce((n, r) => n + r.connected, 0)

    const counts: Counts = { accepted: 0, refused: new Map() }
    flowRun = submitAt(ingress, flow, RATE, counts)
    await new Promise((r) => setTimeout(r, WARMUP_SECONDS * 1000))
    const load = os.loadavg()
    const acceptedBefore = counts.accepted
    // The exchange's CPU includes its fan-out process (its one child here: the chain is off).
    const children = childPids(ex.child.pid!)
    const childCpu = (): number => children.reduce((n, pid) => n + cpuSeconds(pid), 0)
    const cpuBefore = cpuSeconds(ex.child.pid!)
    const childBefore = childCpu()
    const mainBefore = cpuSeconds(ex.child.pid!, true)
    // This process's threads other than its main one: the subscribers (and node's helpers).
    const subscriberCpu = (): number => cpuSeconds(process.pid) - cpuSeconds(process.pid, true)
    const subscribersBefore = subscriberCpu()
    const t0 = performance.now()
    for (const w of workers) w.postMessage({ kind: 'measure' } satisfies SubscriberCommand)
    counts.acks = []
    await new Promise((r) => setTimeout(r, MEASURE_SECONDS * 1000))
    const acks = Float64Array.from(counts.acks).sort()
    delete counts.acks
    const reports = await Promise.all(workers.map((w) => ask(w, { kind: 'report' })))
    const seconds = (performance.now() - t0) / 1000
    const childBusy = (childCpu() - childBefore) / seconds
    const cpu = (cpuSeconds(ex.child.pid!) - cpuBefore) / seconds + childBusy
    const mainBusy = (cpuSeconds(ex.child.pid!, true) - mainBefore) / seconds
    const subscribersBusy = (subscriberCpu() - subscribersBefore) / seconds
    const acceptedPerSec = (counts.accepted - acceptedBefore) / seconds
    await flowRun.stop()
    flowRun = undefined
    const loadAfter = os.loadavg()

    const trade = concat(reports.map((r) => r.trade))
    const depth = concat(reports.map((r) => r.depth))
    const all = concat([trade, depth])
    const messages = reports.reduce((n, r) => n + r.messages, 0)
    const bytes = reports.reduce((n, r) => n + r.bytes, 0)
    const closed = reports.reduce((n, r) => n + r.closed, 0)
    const gaps = reports.reduce((n, r) => n + r.depthGaps, 0)
    const unreadable = reports.reduce((n, r) => n + r.unreadable, 0)
    const perMessage = (busy: number): string => fixed((busy * 1e6) / (messages / seconds), 1)
    const refused = [...counts.refused].map(([k, v]) => `${v} × ${k}`).join(', ') || '0'

    out(`ws: exchange process (${nodeFlags.join(' ')}; --ws-fan-out ${FAN_OUT}) on ${HOST}; ${int(connected)} subscribers of ${STREAMS} in ${WORKERS} worker threads`)
    out(`flow: ${int(RATE)} book-changing commands/s offered through the ingress (makers placing and cancelling within 4.0 of 50000.0, ` +
      `1 in ${TAKER_EVERY} a 0.003 BTC IOC taker); ${int(acceptedPerSec)}/s accepted while measuring; refused: ${refused}`)
    out(`exchange CPU ${Math.round(100 * cpu)}% (main thread ${Math.round(100 * mainBusy)}%, ` +
      `${FAN_OUT === 'process' ? `fan-out process ${Math.round(100 * childBusy)}%` : 'sockets on the main thread'}); ` +
      `load average before ${load.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} CPUs)`)
    out(`CPU per delivered message: exchange ${perMessage(cpu)} µs (main thread ${perMessage(mainBusy)}` +
      `${FAN_OUT === 'process' ? `, fan-out process ${perMessage(childBusy)}` : ''}), subscriber threads ${perMessage(subscribersBusy)} µs ` +
      `(${Math.round(100 * subscribersBusy)}% CPU)`)
    out(`subscribers cut off or failed: ${closed}; depth diffs out of sequence: ${gaps}; messages without a readable T: ${unreadable}`)
    out('')
    const row = (name: string, s: Float64Array): string[] => [name, int(s.length / seconds), fixed(percentile(s, 50), 2), fixed(percentile(s, 99), 2),
      fixed(percentile(s, 99.9), 2), fixed(s[s.length - 1] ?? NaN, 2)]
    for (const line of table(['stream', 'delivered/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms'], [
      row('trade', trade), row('depth@100ms', depth), row('all', all),
    ])) out(line)
    out(`${int(bytes / seconds / 1024)} KiB/s delivered in ${int(messages / seconds)} messages/s`)
    out(`commit path, an entry's time to its acknowledgement at the ingress client (durable and answered): ` +
      `p50 ${fixed(percentile(acks, 50), 2)} ms, p99 ${fixed(percentile(acks, 99), 2)} ms`)
    return { bench: 'ws', subscribers: connected, deliveredPerSec: Math.round(messages / seconds), p99Ms: Number(percentile(all, 99).toFixed(2)),
      tradeP99Ms: Number(percentile(trade, 99).toFixed(2)), depthP99Ms: Number(percentile(depth, 99).toFixed(2)), bookUpdatesPerSec: Math.round(acceptedPerSec),
      fanOut: FAN_OUT, mainThreadPct: Math.round(100 * mainBusy),
      exchangeCpuUsPerMessage: Number(perMessage(cpu)), subscriberCpuUsPerMessage: Number(perMessage(subscribersBusy)),
      commitP99Ms: Number(percentile(acks, 99).toFixed(2)) }
  } finally {
    await flowRun?.stop().catch(() => undefined)
    ingress?.close()
    await Promise.all(workers.map((w) => w.terminate()))
    await ex.stop()
  }
}

export const benchmark: Benchmark = { name: 'ws', run }
