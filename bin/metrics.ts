// Prometheus text metrics at /metrics: seq, rules version, anchored seq, fees collected per asset, apply rate (a counter), disk space, commit latency, queue
// depth, follower and standby counts, replicated seq, follower lag and checkpoints matched, the main thread's event-loop
// delay, the REST gateway's request time and responses by status, refusals by code, WebSocket connections, what the
// exchange did (trading-metrics.ts), and the process's memory and CPU. Beside them /ready, a load balancer's check (readiness.ts).

import http from 'node:http'
import { createHistogram, monitorEventLoopDelay, type IntervalHistogram, type RecordableHistogram } from 'node:perf_hooks'
import type { FastifyInstance } from 'fastify'
import { rulesOf } from '../core/rules.js'
import type { State } from '../core/state.js'
import type { Streams } from '../gateway/ws/attach.js'
import type { Readiness } from './readiness.js'
import type { RunningNode } from './runtime.js'
import { TradingMetrics } from './trading-metrics.js'

export type Gauges = () => Record<string, number>

const HELP: Record<string, string> = {
  exchange_seq: 'Last applied log sequence number',
  exchange_applied_entries_total: 'Entries applied since start (rate() of it is the apply rate)',
  exchange_rules_version: 'Rules version the log applies under at exchange_seq (core/rules.ts; 1 for a log declaring none)',
  exchange_epoch: 'Newest leader\'s term the log holds (core/term.ts): it rises with each election',
  exchange_leader: '1 on the node that sequences now, else 0',
  exchange_fees: 'Trading fees collected and not withdrawn, per asset, in its units (exchange withdraw-fees takes them out of the Vault)',
  exchange_anchored_seq: 'Newest seq the Vault holds an anchor for, as this node knows it (its chain services, or its sequencer); 0: none known. exchange_seq minus it is what no anchor covers yet',
  exchange_commit_latency_ms: 'Duration of the last group commit (LevelDB write with sync; with --sync-replicas, until the standbys held it too)',
  exchange_standbys: 'Synchronous standbys connected to this sequencer (exchange replica --standby)',
  exchange_replicated_seq: 'Newest seq that --sync-replicas standbys hold (0 without --sync-replicas); commands after it wait for them',
  exchange_ingress_queue: 'Commands waiting for the sequencer',
  exchange_followers: 'Followers connected to this sequencer',
  exchange_follower_lag_ms: 'Receive time minus sequencer time of the newest applied entry',
  exchange_follower_checkpoints_matched_total: 'Checkpoints whose state root this follower computed equal to the sequencer\'s, since start',
  exchange_follower_checkpoint_matched_seq: 'Seq of the newest checkpoint whose root matched the sequencer\'s',
  exchange_follower_held_entries: 'A standby\'s entries durable here that its gateway does not show yet: the sequencer has not said they are committed',
  exchange_log_first_seq: 'First seq the node\'s LevelDB log holds: 1 until its archiver (--log-keep) moves older entries into segment files',
  exchange_log_segments_archived_total: 'Archive segments this process wrote (--log-keep; --log-archive holds them)',
  exchange_history_rows_pruned_total: 'Rows the history read models deleted past their windows since start (--prune-interval-ms): old trades, income and USDⓈ-M user trades, ended orders past the order-history rule',
  exchange_disk_free_bytes: 'Bytes free to the node on the disk of its --data (dir="data") and of its --log-archive (dir="log-archive", with --log-keep); it stops when a write fails for want of space, and logs a warning below 5% of the size',
  exchange_operator_balance_ether: 'What the operator\'s key holds to pay gas with (the node running the chain services; read every 30 s): withdrawals and anchors stop when it cannot pay for one',
  exchange_operator_transactions_affordable: 'Operator transactions of 100,000 gas the balance pays for at the chain\'s current fees; the log warns below 100',
  exchange_disk_size_bytes: 'Size of the disk of its --data (dir="data") and of its --log-archive (dir="log-archive", with --log-keep)',
  exchange_projections_written_seq: 'Seq of the last entry the history read models have written; exchange_seq minus it is how far behind they are',
  exchange_apply_held: '1 while applying is held for the history read models to catch up (--projections-behind-max), else 0',
  exchange_apply_holds_total: 'Times applying was held for the history read models to catch up, since start',
  exchange_event_loop_delay_p50_ms: 'Median delay of the main thread\'s event loop since the previous scrape',
  exchange_event_loop_delay_p99_ms: '99th percentile delay of the main thread\'s event loop since the previous scrape',
  exchange_event_loop_delay_max_ms: 'Longest delay of the main thread\'s event loop since the previous scrape',
  exchange_http_requests_total: 'REST requests answered since start',
  exchange_http_request_p50_ms: 'Median time from reading a REST request to having written its response, since the previous scrape',
  exchange_http_request_p99_ms: '99th percentile time from reading a REST request to having written its response, since the previous scrape',
  exchange_http_request_max_ms: 'Longest time from reading a REST request to having written its response, since the previous scrape',
  exchange_http_responses_total: 'REST responses by HTTP status since start (429 and 418: the request-weight and order-rate limits refusing; the connection bound\'s refusals, before any request, count only in exchange_refusals_total)',
  exchange_refusals_total: 'Refusals answered since start, by API (rest, ws: the WebSocket APIs) and Binance code (-1021: client clocks; -2019: margin)',
  exchange_http_connections: 'Open TCP connections to the API port (WebSocket ones until handed to the fan-out process); bounded by --connections-per-ip and --max-connections',
  exchange_ws_connections: 'Open WebSocket connections: market and user data streams (streams), the WebSocket trading APIs (ws-api)',
  exchange_commands_total: 'Log entries applied since start, by command type and outcome (rejected: the core refused it)',
  exchange_command_rejections_total: 'Commands the core refused since start, by its code (docs/CORE.md)',
  exchange_trades_total: 'Book trades since start, per market (ADL fills are not trades)',
  exchange_traded_base_total: 'Quantity traded since start, per market, in its base asset',
  exchange_traded_quote_total: 'Value traded since start, per market, in its quote asset',
  exchange_liquidation_orders_total: 'Liquidation orders ended since start, per perpetual',
  exchange_adl_orders_total: 'Auto-deleveraging orders since start, per perpetual',
  exchange_margin_calls_total: 'Margin calls sent since start',
  exchange_open_interest: 'Open interest per perpetual, in its base asset (long positions\' total)',
  exchange_insurance_fund: 'Insurance fund per quote asset, in its units',
  process_resident_memory_bytes: 'Resident memory of the process, every thread\'s heap and LevelDB\'s caches included',
  process_cpu_seconds_total: 'User and system CPU time of the process, every thread included',
  nodejs_heap_size_used_bytes: 'JavaScript heap in use by the main thread (worker threads have heaps of their own)',
  nodejs_heap_size_total_bytes: 'JavaScript heap the main thread has reserved',
  nodejs_external_memory_bytes: 'Memory outside the JavaScript heap held by the main thread\'s objects (buffers)',
}

/**
 * What every node's /metrics shows: its seq and apply counter, then `own` (the sequencer's or
 * the follower's gauges), how far its projections have written, the main thread's event-loop
 * delay, the `gateway`'s gauges and what the exchange did. `stop()` ends the event-loop sampling.
 */
export function nodeGauges(running: RunningNode, gateway: Gauges, own: Gauges): { gauges: Gauges; stop(): void } {
  const { node } = running.replica
  let applied = 0
  const trading = new TradingMetrics(() => node.state)
  node.onCommitted((c) => {
    applied += c.entries.length
    trading.committed(c)
  })
  const loopDelay = eventLoopDelay()
  return {
    gauges: () => ({
      exchange_seq: node.state.seq,
      exchange_applied_entries_total: applied,
      exchange_rules_version: rulesOf(node.state),
      // The newest leader's term the log holds (core/term.ts), and whether this node sequences now.
      exchange_epoch: node.state.epoch,
      exchange_leader: running.replica.sequencer ? 1 : 0,
      exchange_anchored_seq: running.proofs.anchoredSeq ?? 0,
      ...feeGauges(node.state),
      ...own(),
      exchange_projections_written_seq: running.projections.flushedSeq,
      exchange_history_rows_pruned_total: running.upkeep?.rowsPruned ?? 0,
      exchange_log_first_seq: running.log.firstSeq,
      exchange_log_segments_archived_total: running.archiver?.segmentsWritten ?? 0,
      ...running.disk.gauges(),
      exchange_apply_held: node.gate.open ? 0 : 1,
      exchange_apply_holds_total: node.gate.holds,
      ...loopDelay.gauges(),
      ...gateway(),
      ...trading.gauges(),
      ...processGauges(),
    }),
    stop: loopDelay.stop,
  }
}

/**
 * The process's memory and CPU under the names Prometheus' Node.js clients give them, so a
 * dashboard made for those reads them: an operator sees a node's memory grow before it fails.
 */
export function processGauges(): Record<string, number> {
  const m = process.memoryUsage()
  const cpu = process.cpuUsage()
  return {
    process_resident_memory_bytes: m.rss,
    process_cpu_seconds_total: (cpu.user + cpu.system) / 1e6,
    nodejs_heap_size_used_bytes: m.heapUsed,
    nodejs_heap_size_total_bytes: m.heapTotal,
    nodejs_external_memory_bytes: m.external,
  }
}

/** Event-loop delay sampling every this many ms (the histogram's resolution). */
const LOOP_DELAY_RESOLUTION_MS = 10

/**
 * The main thread's event-loop delay (how late a timer due now would run: whatever blocks
 * the thread, a long request or a GC pause, delays every answer), as gauges over the time
 * since the previous scrape. `stop()` ends the sampling.
 */
export function eventLoopDelay(): { gauges: Gauges; stop(): void } {
  const h = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS })
  h.enable()
  // The histogram records the time between its timer's runs, the resolution included.
  const window = sinceLastScrape(h, 'exchange_event_loop_delay',
    (ns) => Math.max(0, Math.round((ns / 1e6 - LOOP_DELAY_RESOLUTION_MS) * 100) / 100))
  return { gauges: window, stop: () => h.disable() }
}

/**
 * The REST gateway's time per request, from reading it to having written the whole response
 * (for a command: its sequencing, durable write and read-your-writes wait), as gauges over the
 * time since the previous scrape. A client's latency beyond it is waiting to be read (the
 * event-loop delay), the network, and the client itself. Call before the app is ready.
 */
export function requestTime(app: FastifyInstance): { gauges: Gauges } {
  // Microseconds, in an integer histogram; the start is a request field declared up front so
  // every request object keeps one shape.
  const h = createHistogram()
  let answered = 0
  const statuses = new Map<number, number>()
  app.decorateRequest('receivedAt', 0)
  app.addHook('onRequest', (req, _reply, done) => {
    (req as unknown as Timed).receivedAt = performance.now()
    done()
  })
  app.addHook('onResponse', (req, reply, done) => {
    h.record(Math.max(1, Math.round((performance.now() - (req as unknown as Timed).receivedAt) * 1000)))
    answered++
    statuses.set(reply.statusCode, (statuses.get(reply.statusCode) ?? 0) + 1)
    done()
  })
  const window = sinceLastScrape(h, 'exchange_http_request', (us) => Math.round(us / 10) / 100)
  return {
    gauges: () => {
      const out: Record<string, number> = { exchange_http_requests_total: answered, ...window() }
      for (const [status, n] of [...statuses].sort((a, b) => a[0] - b[0])) out[`exchange_http_responses_total{status="${status}"}`] = n
      return out
    },
  }
}

/** The connections open on the gateway's port and its WebSocket ones, and the refusals it answered by code. */
export function gatewayGauges(app: FastifyInstance, streams: Pick<Streams, 'connections' | 'api'>): Gauges {
  return () => {
    const out: Record<string, number> = {
      exchange_http_connections: app.connectionGuard.open,
      'exchange_ws_connections{api="streams"}': streams.connections.size,
      'exchange_ws_connections{api="ws-api"}': streams.api.connections.size,
    }
    for (const api of ['rest', 'ws'] as const) {
      for (const [code, n] of app.refusals.byCode(api)) out[`exchange_refusals_total{api="${api}",code="${code}"}`] = n
    }
    return out
  }
}

/**
 * `<prefix>_{p50,p99,max}_ms` of what `h` recorded since the previous call (0 when nothing
 * was), its values turned into ms by `ms`; each call starts the next window.
 */
function sinceLastScrape(h: RecordableHistogram | IntervalHistogram, prefix: string, ms: (v: number) => number): Gauges {
  return () => {
    const empty = h.count === 0
    const out = {
      [`${prefix}_p50_ms`]: empty ? 0 : ms(h.percentile(50)),
      [`${prefix}_p99_ms`]: empty ? 0 : ms(h.percentile(99)),
      [`${prefix}_max_ms`]: empty ? 0 : ms(h.max),
    }
    h.reset()
    return out
  }
}

interface Timed { receivedAt: number }

export function renderMetrics(values: Record<string, number>): string {
  let out = ''
  let last = ''
  for (const [name, value] of Object.entries(values)) {
    // A labelled series (`name{label="…"}`) shares its name's HELP and TYPE, written once before the first.
    const base = name.split('{')[0]!
    if (base !== last) out += `# HELP ${base} ${HELP[base] ?? base}\n# TYPE ${base} ${base.endsWith('_total') ? 'counter' : 'gauge'}\n`
    last = base
    out += `${name} ${value}\n`
  }
  return out
}

/** `exchange_fees{asset="…"}` per asset with fees collected, in the asset's units. */
export function feeGauges(state: State): Record<string, number> {
  const out: Record<string, number> = {}
  for (const [asset, units] of state.fees) out[`exchange_fees{asset="${asset}"}`] = Number(units) / 10 ** (state.assets.get(asset)?.scale ?? 0)
  return out
}

/** Connections the metrics port holds at most; past it Node closes new ones at once. */
const METRICS_CONNECTIONS_MAX = 256

/** /metrics, and with `ready` /ready: 200 or 503 with the node's Readiness as JSON (readiness.ts). */
export function serveMetrics(host: string, port: number, gauges: Gauges, ready?: () => Readiness): Promise<http.Server> {
  // A scraper and a load balancer's checks need a few connections; anyone reaching the port
  // must not hold the descriptors the log needs (gateway/connection-guard.ts).
  const server = http.createServer({ headersTimeout: 10_000, connectionsCheckingInterval: 1_000 }, (req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
      res.end(renderMetrics(gauges()))
    } else if (ready !== undefined && (req.method === 'GET' || req.method === 'HEAD') && req.url === '/ready') {
      const r = ready()
      res.writeHead(r.ready ? 200 : 503, { 'content-type': 'application/json' })
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(r))
    } else {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end('{"code":-1000,"msg":"Not found."}')
    }
  })
  server.maxConnections = METRICS_CONNECTIONS_MAX
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve(server))
  })
}
