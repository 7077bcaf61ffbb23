// /metrics over real HTTP: the Prometheus text format, the event-loop delay gauges showing a
// main thread that was blocked, and the REST request-time gauges showing a slow request, each
// over the time since the previous scrape.

import net from 'node:net'
import Fastify from 'fastify'
import t from 'tap'
import { eventLoopDelay, feeGauges, processGauges, renderMetrics, requestTime, serveMetrics } from '../../bin/metrics.js'
import { createState } from '../../core/state.js'
import { holdIdle } from '../helpers/sockets.js'

function gauge(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)
  if (m === null) throw new Error(`no ${name} in:\n${text}`)
  return Number(m[1])
}

/** Keeps the thread busy for `ms`: no timer can run meanwhile. */
function block(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) { /* busy */ }
}

t.test('the event-loop delay of a blocked thread, then of the quiet interval after it', async (t) => {
  const loopDelay = eventLoopDelay()
  const server = await serveMetrics('127.0.0.1', 0, () => ({ exchange_seq: 7, ...loopDelay.gauges() }))
  t.teardown(() => { loopDelay.stop(); server.close() })
  const port = (server.address() as { port: number }).port
  const scrape = async (): Promise<string> => (await fetch(`http://127.0.0.1:${port}/metrics`)).text()

  await new Promise((r) => setTimeout(r, 50))
  block(200)
  await new Promise((r) => setTimeout(r, 50))
  const text = await scrape()
  t.match(text, /^# TYPE exchange_event_loop_delay_max_ms gauge$/m)
  t.equal(gauge(text, 'exchange_seq'), 7)
  t.ok(gauge(text, 'exchange_event_loop_delay_max_ms') >= 150, 'the 200 ms block shows as the longest delay')
  t.ok(gauge(text, 'exchange_event_loop_delay_p50_ms') <= gauge(text, 'exchange_event_loop_delay_p99_ms'), 'p50 ≤ p99')

  // The next scrape covers only the time since this one: nothing blocked then.
  await new Promise((r) => setTimeout(r, 100))
  t.ok(gauge(await scrape(), 'exchange_event_loop_delay_max_ms') < 150, 'the block is not counted again')
})

t.test('the REST request time: a slow request shows, and is not counted again', async (t) => {
  const app = Fastify()
  const timing = requestTime(app)
  app.get('/fast', async () => ({}))
  app.get('/slow', async () => { await new Promise((r) => setTimeout(r, 120)); return {} })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const server = await serveMetrics('127.0.0.1', 0, timing.gauges)
  t.teardown(async () => { server.close(); await app.close() })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const scrape = async (): Promise<string> => (await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/metrics`)).text()

  t.equal(gauge(await scrape(), 'exchange_http_request_max_ms'), 0, 'nothing answered yet')
  for (let i = 0; i < 9; i++) await (await fetch(`${base}/fast`)).text()
  await (await fetch(`${base}/slow`)).text()
  const text = await scrape()
  t.match(text, /^# TYPE exchange_http_requests_total counter$/m)
  t.equal(gauge(text, 'exchange_http_requests_total'), 10)
  t.ok(gauge(text, 'exchange_http_request_max_ms') >= 115, 'the 120 ms request is the longest')
  t.ok(gauge(text, 'exchange_http_request_p50_ms') < 100, 'the fast ones make the median')
  t.ok(gauge(text, 'exchange_http_request_p99_ms') >= 115, 'and the slow one the 99th percentile')

  await (await fetch(`${base}/fast`)).text()
  const next = await scrape()
  t.equal(gauge(next, 'exchange_http_requests_total'), 11, 'the total keeps counting')
  t.ok(gauge(next, 'exchange_http_request_max_ms') < 100, 'the slow request is not counted again')
})

t.test('an unknown path is a Binance-style 404', async (t) => {
  const server = await serveMetrics('127.0.0.1', 0, () => ({}))
  t.teardown(() => server.close())
  const port = (server.address() as { port: number }).port
  const res = await fetch(`http://127.0.0.1:${port}/nope`)
  t.equal(res.status, 404)
  t.same(await res.json(), { code: -1000, msg: 'Not found.' })
})

t.test('the process\'s memory and CPU, under the names Prometheus\' Node.js clients use', async (t) => {
  const server = await serveMetrics('127.0.0.1', 0, processGauges)
  t.teardown(() => server.close())
  const scrape = async (): Promise<string> => (await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/metrics`)).text()
  const before = await scrape()
  t.match(before, /^# TYPE process_cpu_seconds_total counter$/m)
  t.match(before, /^# TYPE process_resident_memory_bytes gauge$/m)
  t.ok(gauge(before, 'process_resident_memory_bytes') > gauge(before, 'nodejs_heap_size_used_bytes'), 'resident memory covers the heap')
  t.ok(gauge(before, 'nodejs_heap_size_total_bytes') >= gauge(before, 'nodejs_heap_size_used_bytes'))

  const held = Buffer.alloc(64 * 1024 * 1024, 1)
  // Work until this process has used 300 ms of CPU (not 300 ms of wall time: on a busy machine
  // the thread may wait for a core meanwhile).
  const cpu0 = process.cpuUsage()
  while (process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system < 300_000) block(10)
  const after = await scrape()
  // Absolute, not differences: what earlier tests left may be collected in between.
  t.ok(gauge(after, 'nodejs_external_memory_bytes') >= held.length, '64 MiB of buffers held show as external memory')
  t.ok(gauge(after, 'process_resident_memory_bytes') >= held.length + gauge(after, 'nodejs_heap_size_used_bytes'), 'and in resident memory, with the heap')
  t.ok(gauge(after, 'process_cpu_seconds_total') - gauge(before, 'process_cpu_seconds_total') >= 0.25, '300 ms of work shows as CPU time')
})

t.test('fees per asset: one series per asset under one HELP and TYPE, in the asset\'s units', async (t) => {
  const state = createState()
  state.assets.set('USDT', { name: 'USDT', scale: 6 })
  state.assets.set('BTC', { name: 'BTC', scale: 8 })
  state.fees.set('USDT', 1_234_567)
  state.fees.set('BTC', 2n ** 60n)
  t.same(renderMetrics({ exchange_seq: 3, ...feeGauges(state) }).split('\n'), [
    '# HELP exchange_seq Last applied log sequence number', '# TYPE exchange_seq gauge', 'exchange_seq 3',
    '# HELP exchange_fees Trading fees collected and not withdrawn, per asset, in its units (exchange withdraw-fees takes them out of the Vault)',
    '# TYPE exchange_fees gauge', 'exchange_fees{asset="USDT"} 1.234567', `exchange_fees{asset="BTC"} ${Number(2n ** 60n) / 1e8}`, '',
  ])
})

t.test('the metrics port holds at most 256 connections: the next is closed, and once they go /metrics answers', async (t) => {
  const server = await serveMetrics('127.0.0.1', 0, () => ({ exchange_seq: 1 }))
  t.teardown(() => server.close())
  const port = (server.address() as { port: number }).port
  const held = await holdIdle(t, port, 256)
  const extra = net.connect(port, '127.0.0.1', () => extra.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'))
  let answered = ''
  extra.on('data', (b) => { answered += b.toString() })
  await new Promise<void>((resolve) => { extra.on('close', () => resolve()); extra.on('error', () => resolve()) })
  t.equal(answered, '', 'the 257th is closed unanswered')
  for (const s of held) s.destroy()
  await new Promise((r) => setTimeout(r, 100))
  t.equal(gauge(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(), 'exchange_seq'), 1)
})
