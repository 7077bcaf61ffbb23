// A real exchange process whose projections may be only one entry behind what it applied
// (--projections-behind-max 1): it holds new commands after every batch until its projections
// worker has written it, and nothing is lost or refused for it. Every order is answered and
// in the history, /metrics counts the holds, and a restart that rebuilds the projections from
// the log holds its replay the same way and ends with the same history.

import t from 'tap'
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { RULES_VERSION } from '../../core/rules.js'
import { eventually } from '../helpers/live-exchange.js'
import { restartableNode, scrapeGauges } from '../helpers/processes.js'

const SECRET = '33'.repeat(32)
const ORDERS = 60

t.test('held at every batch for the projections, the exchange still answers every order and keeps every one', { timeout: 120_000 }, async (t) => {
  const node = await restartableNode(t, 'backlog', SECRET, ['--projections-behind-max', '1'])
  const gauges = (): Promise<Record<string, number>> => scrapeGauges(node.metrics)
  await node.start()
  const demo = await node.demo()
  const history = async (): Promise<number[]> => {
    const r = await node.call(demo, 'GET', '/fapi/v1/allOrders', { symbol: 'BTCUSDTPERP', limit: '1000' })
    t.equal(r.status, 200)
    return (r.body as { orderId: number }[]).map((o) => o.orderId).sort((a, b) => a - b)
  }

  // All at once: they arrive while earlier batches are held for.
  const placed = await Promise.all(Array.from({ length: ORDERS }, (_, i) => node.call(demo, 'POST', '/fapi/v1/order',
    { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.003', price: String(40_000 + i) })))
  t.same(placed.filter((r) => r.status !== 200).map((r) => r.body), [], 'every order answered 200')
  const ids = placed.map((r) => r.body.orderId as number).sort((a, b) => a - b)
  t.same(await history(), ids, 'every order in the history at once (read-your-writes)')
  const m = await gauges()
  t.equal(m.exchange_rules_version, RULES_VERSION, 'the node runs the rules its sequencer declared')
  t.ok(m.process_resident_memory_bytes! > m.nodejs_heap_size_used_bytes! && m.nodejs_heap_size_used_bytes! > 0, 'the node shows its memory')
  t.ok(m.process_cpu_seconds_total! > 0, 'and its CPU time')
  t.ok(m.exchange_apply_holds_total! > 0, `held ${m.exchange_apply_holds_total} times`)
  // The exchange's own ticks go on arriving and may be held for a moment at any scrape.
  t.equal((await eventually(gauges, (g) => g.exchange_apply_held === 0)).exchange_apply_held, 0, 'not held once the projections have caught up')
  t.ok(node.proc.lines.some((l) => l.msg === 'projections far behind; holding new commands until they catch up'), 'the hold is logged')
  t.ok(node.proc.lines.some((l) => l.msg === 'projections caught up; applying again'), 'so is the release')

  // Rebuilt from the log at start: the replay is held the same way, and ends where it was.
  await node.proc.kill('SIGTERM')
  await rm(path.join(node.dir, 'projections'), { recursive: true, force: true })
  await node.start()
  t.same(await history(), ids, 'the same history, rebuilt')
  t.ok((await gauges()).exchange_apply_holds_total! > 0, 'the rebuild was held for the projections too')
})
