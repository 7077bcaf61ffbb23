// Gateway benchmark: a real exchange process (`exchange start`: sequencer, LevelDB log with
// fsync'd group commit, projections, the REST gateway) driven over loopback HTTP by a load
// generator in a worker thread. Signed order placement closed-loop (max throughput), then at
// a fixed offered rate (latency, no coordinated omission), then public depth closed-loop.
//
// GATEWAY_BENCH_NODE_FLAGS passes extra node flags to the exchange process, e.g.
// `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the gateway hot path; GATEWAY_BENCH_RATE
// sets the open loop's offered rate (default 5,000 orders/s, the issue's).

import os from 'node:os'
import { fixed, int, percentile, table, type Benchmark, type BenchSummary } from './lib/bench.js'
import { cpuByThread, cpuSeconds, exchangeNodeFlags, HOST, scrapeMetrics, startExchange, UNNAMED_THREADS } from './lib/exchange-process.js'
import type { Phase, PhaseResult } from './lib/http-load-worker.js'
import { fundedAccounts, startLoadGenerator, type LoadGenerator } from './lib/load-generator.js'

const ACCOUNTS = 100
/** Connections of the closed-loop order phase: enough requests in flight to fill group commits. */
const ORDER_CONNECTIONS = 256
const WARMUP_SECONDS = 3
const THROUGHPUT_SECONDS = 10
const LATENCY_RATE = Number(process.env.GATEWAY_BENCH_RATE ?? 5_000)
const LATENCY_SECONDS = 10
const LATENCY_CONNECTIONS = 128
/** How long past the last scheduled send the open loop waits for replies (keeps the run bounded). */
const LATENCY_GRACE_SECONDS = 10
const DEPTH_CONNECTIONS = 16
const DEPTH_SECONDS = 5
/** Price levels seeded on each side before the order phases, so depth requests read a full 100. */
const SEED_LEVELS = 150
/** Raised for the load test by the exchange's own flags; the limit code path still runs. */
const LIMIT_FLAGS = ['--weight-limit', '1000000000', '--order-limit-10s', '1000000000', '--order-limit-1m', '1000000000']

function refusals(r: PhaseResult): string {
  const e = Object.entries(r.refused)
  return e.length === 0 ? '0' : e.map(([k, v]) => `${v} × ${k}`).join(', ')
}

async function run(out: (line: string) => void): Promise<BenchSummary> {
  if (!Number.isInteger(LATENCY_RATE) || LATENCY_RATE <= 0) throw new Error(`GATEWAY_BENCH_RATE must be a positive integer, got ${process.env.GATEWAY_BENCH_RATE}`)
  const nodeFlags = exchangeNodeFlags('GATEWAY_BENCH_NODE_FLAGS')
  // The market-making bot off: the load generator is the only client. The price feed off too,
  // so the book alone sets the mark: the feed's index starts at 30000.0 (bin/price-feed.ts), and
  // the price band would refuse this load's buys at 50000.0 until the mark caught up.
  // GATEWAY_BENCH_FLAGS: the exchange's own flags added, to measure it so configured (--log-keep, say).
  const extraFlags = (process.env.GATEWAY_BENCH_FLAGS ?? '').split(/\s+/).filter(Boolean)
  const ex = await startExchange('gateway', [...LIMIT_FLAGS, '--bot', 'off', '--price-feed', 'off', ...extraFlags], nodeFlags)
  const { child, port } = ex
  let generator: LoadGenerator | undefined
  try {
    generator = startLoadGenerator(port, await fundedAccounts(ex, ACCOUNTS))
    const { phase } = generator
    const load = os.loadavg()
    // Exchange CPU µs per successful request of a phase, how busy its main thread was, and the
    // load generator's CPU µs per request (this process: the worker's, on the same two cores).
    // Also the exchange's CPU µs per request by thread (main, projections, the rest).
    const cpuPer = async (p: Phase): Promise<PhaseResult & { cpuUs: number; mainBusy: number; genUs: number; byThread: [string, number][] }> => {
      const before = cpuSeconds(child.pid!)
      const mainBefore = cpuSeconds(child.pid!, true)
      const threadsBefore = cpuByThread(child.pid!)
      const genBefore = process.cpuUsage()
      const r = await phase(p)
      const gen = process.cpuUsage(genBefore)
      const ok = Math.max(1, r.ok)
      const byThread = [...cpuByThread(child.pid!)].map(([name, s]): [string, number] => [name, ((s - (threadsBefore.get(name) ?? 0)) * 1e6) / ok])
      return { ...r, cpuUs: ((cpuSeconds(child.pid!) - before) * 1e6) / ok,
        mainBusy: (cpuSeconds(child.pid!, true) - mainBefore) / r.seconds, genUs: (gen.user + gen.system) / ok, byThread }
    }
    const seeded = await phase({ kind: 'seed', levels: SEED_LEVELS, connections: 16 })
    if (Object.keys(seeded.refused).length > 0) throw new Error(`seeding the book was refused: ${refusals(seeded)}`)
    await phase({ kind: 'closed', what: 'order', connections: ORDER_CONNECTIONS, seconds: WARMUP_SECONDS })
    const thr = await cpuPer({ kind: 'closed', what: 'order', connections: ORDER_CONNECTIONS, seconds: THROUGHPUT_SECONDS })
    // The exchange's event-loop delay gauges cover the time since the previous scrape.
    const afterClosed = await scrapeMetrics(ex)
    const lat = await cpuPer({ kind: 'open', what: 'order', connections: LATENCY_CONNECTIONS, seconds: LATENCY_SECONDS, rate: LATENCY_RATE, graceSeconds: LATENCY_GRACE_SECONDS })
    const gauges = await scrapeMetrics(ex)
    const gauge = (name: string, from = gauges): number => {
      const v = from[name]
      if (v === undefined) throw new Error(`the exchange's /metrics has no ${name}`)
      return v
    }
    const loop = (name: string): number => gauge(`exchange_event_loop_delay_${name}_ms`)
    // How far the history read models were behind as each order phase ended: work deferred past a phase flatters its figure.
    const behind = (g: Record<string, number>): number => gauge('exchange_seq', g) - gauge('exchange_projections_written_seq', g)
    const served = (name: string): number => gauge(`exchange_http_request_${name}_ms`)
    const depth = await cpuPer({ kind: 'closed', what: 'depth', connections: DEPTH_CONNECTIONS, seconds: DEPTH_SECONDS })
    const loadAfter = os.loadavg()
    const book = (await (await fetch(`http://${HOST}:${port}/fapi/v1/depth?symbol=BTCUSDTPERP&limit=1000`)).json()) as
      { bids: [string, string][]; asks: [string, string][] }

    const ordersPerSec = thr.ok / thr.seconds
    const samples = lat.latencyMs!.sort()
    const p50 = percentile(samples, 50)
    const p99 = percentile(samples, 99)
    const p999 = percentile(samples, 99.9)
    const depthPerSec = depth.ok / depth.seconds
    out(`gateway: exchange process (${nodeFlags.join(' ')}) on ${HOST}${extraFlags.length > 0 ? ` with ${extraFlags.join(' ')}` : ''}, ` +
      `${ACCOUNTS} funded accounts, BTCUSDTPERP LIMIT GTC around 50000.0`)
    out(`book after the order phases: ${book.bids.length} bid levels from ${book.bids[0]?.[0] ?? '-'}, ` +
      `${book.asks.length} ask levels from ${book.asks[0]?.[0] ?? '-'} (${SEED_LEVELS} each seeded 10+ ticks out; the depth phase reads the best 100)`)
    out(`load average before ${load.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} CPUs)`)
    out('')
    const busy = (r: { mainBusy: number }): string => `${Math.round(100 * r.mainBusy)}%`
    // The main thread's CPU per request: what bounds throughput when that thread is the busy one.
    const mainUs = (r: { mainBusy: number; seconds: number; ok: number }): string => int((r.mainBusy * r.seconds * 1e6) / Math.max(1, r.ok))
    for (const line of table(['phase', 'offered', 'conns', 'seconds', 'ok/s', 'cpu µs/req', 'main µs/req', 'main busy', 'gen µs/req', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'non-2xx'], [
      ['signed orders, closed loop', 'max', String(ORDER_CONNECTIONS), fixed(thr.seconds, 1), int(ordersPerSec), int(thr.cpuUs), mainUs(thr), busy(thr), int(thr.genUs),
        '', '', '', '', refusals(thr)],
      ['signed orders, open loop', `${int(LATENCY_RATE)}/s`, String(LATENCY_CONNECTIONS), fixed(lat.seconds, 1), int(lat.ok / lat.seconds), int(lat.cpuUs), mainUs(lat), busy(lat),
        int(lat.genUs), fixed(p50, 2), fixed(p99, 2), fixed(p999, 2), fixed(samples[samples.length - 1]!, 2), refusals(lat)],
      ['depth limit=100, closed loop', 'max', String(DEPTH_CONNECTIONS), fixed(depth.seconds, 1), int(depthPerSec), int(depth.cpuUs), mainUs(depth), busy(depth), int(depth.genUs),
        '', '', '', '', refusals(depth)],
    ])) out(line)
    out('cpu µs/req: the exchange process (all threads); main µs/req: its main thread (the projections run in a worker thread unless')
    out('EXCHANGE_PROJECTIONS=inline); gen µs/req: the load generator (signing, HTTP client) on the same cores')
    // Named threads first (main, then the rest by name), the unnamed ones' sum last.
    const threads = (r: { byThread: [string, number][] }): string => r.byThread
      .sort(([a], [b]) => Number(a === UNNAMED_THREADS) - Number(b === UNNAMED_THREADS) || Number(b === 'main') - Number(a === 'main') || a.localeCompare(b))
      .map(([name, us]) => `${name} ${int(us)}`).join(', ')
    out(`exchange cpu µs/req by thread, closed loop: ${threads(thr)}; open loop: ${threads(lat)}`)
    out(`  (${UNNAMED_THREADS}: the threads that do not name themselves: V8's garbage-collection helpers, libuv's, LevelDB's compaction)`)
    out(`open loop: the exchange's main thread event-loop delay p50 ${fixed(loop('p50'), 2)} ms, ` +
      `p99 ${fixed(loop('p99'), 2)} ms, max ${fixed(loop('max'), 2)} ms ` +
      '(how late a timer due then ran: what every answer waited behind)')
    out(`open loop: the exchange's own time per request (read to written) p50 ${fixed(served('p50'), 2)} ms, ` +
      `p99 ${fixed(served('p99'), 2)} ms, max ${fixed(served('max'), 2)} ms ` +
      '(the p50/p99 above add waiting to be read, loopback, and the load generator sharing the cores)')
    if (gauges.exchange_log_segments_archived_total! > 0) {
      out(`log: ${int(gauges.exchange_log_segments_archived_total!)} archive segments written; it holds seq ${int(gauges.exchange_log_first_seq!)} ` +
        `to ${int(gauges.exchange_seq!)} (closed loop ended at ${int(afterClosed.exchange_seq!)}, first seq ${int(afterClosed.exchange_log_first_seq!)})`)
    }
    out(`projections: entries applied but not yet written by the history read models as the closed loop ended ${int(behind(afterClosed))}, ` +
      `as the open loop ended ${int(behind(gauges))}`)
    const late = lat.sendLateMs!.sort()
    out(`open loop: the generator sent each request p50 ${fixed(percentile(late, 50), 2)} ms, p99 ${fixed(percentile(late, 99), 2)} ms ` +
      'after it was due (its own delay on the shared cores, counted in the latency); ' +
      (lat.nice !== undefined ? `it and its pacer ran at nice ${lat.nice}, as clients on machines of their own` : 'at normal priority (raising it was not permitted)'))
    if (lat.lateSends! > 0) out(`open loop: ${int(lat.lateSends!)} requests waited for a free connection (counted in their latency)`)
    if (lat.unanswered! > 0) {
      out(`open loop: ${int(lat.unanswered!)} requests unanswered ${LATENCY_GRACE_SECONDS} s after the last send, counted with their wait so far: the percentiles are lower bounds`)
    }
    return { bench: 'gateway', ordersPerSec: Math.round(ordersPerSec), p99Ms: Number(p99.toFixed(2)), depthPerSec: Math.round(depthPerSec),
      loopDelayP99Ms: loop('p99'), loopDelayMaxMs: loop('max'), serverP99Ms: served('p99'), projectionsBehindClosed: behind(afterClosed) }
  } finally {
    await generator?.terminate()
    await ex.stop()
  }
}

export const benchmark: Benchmark = { name: 'gateway', run }
