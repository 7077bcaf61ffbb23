// Every GET route the gateway documents, each asked back to back by one client for a second
// against an exchange process with a trading history (lib/history.ts), ranked by what an answer
// costs the main thread (the thread that also applies commands). bench:reads measures the reads
// known to be heavy; this finds the ones nobody thought of: session 47's scan found the history
// downloads (15-26 ms of main thread a fetch), allAlgoOrders (1.8 ms for an empty answer) and
// a 500 (spot historicalTrades above limit 500). Routes and their parameters come from the
// OpenAPI document: a symbol of the route's venue, the largest `limit` it takes (1000, else
// 500, else 100), and what the common required parameters need; a route that still refuses is
// measured refusing, and shown so.

import { fixed, int, table, type Benchmark, type BenchSummary } from './lib/bench.js'
import { exchangeWithHistory, measureRead, type History, type ReadFigures } from './lib/history.js'

const SECONDS = Number(process.env.ROUTES_BENCH_SECONDS ?? 1)
const CONNECTIONS = 4
/** Rows of the table: the costliest routes. */
const SHOWN = Number(process.env.ROUTES_BENCH_SHOWN ?? 25)
/** Not measured here: the document itself and the docs page (bench:reads has the document), and a download link (it needs one). */
const SKIPPED = new Set(['/openapi.json', '/docs', '/fapi/v1/download'])
const LIMITS = ['1000', '500', '100']

interface Operation {
  parameters?: { name: string; in: string; required?: boolean }[]
  security?: unknown[]
}

interface Row extends ReadFigures {
  path: string
  query: string
}

/** The query a route is asked with, `limit` aside. */
function queryFor(path: string, op: Operation, now: number): URLSearchParams {
  const q = new URLSearchParams()
  for (const p of op.parameters ?? []) {
    if (p.in !== 'query') continue
    switch (p.name) {
      case 'symbol': q.set('symbol', path.startsWith('/api/') ? 'BTCUSDT' : 'BTCUSDTPERP'); break
      case 'pair': q.set('pair', 'BTCUSDT'); break
      case 'interval': q.set('interval', '1m'); break
      case 'period': q.set('period', '5m'); break
      case 'contractType': q.set('contractType', 'PERPETUAL'); break
      case 'startTime': if (p.required) q.set('startTime', String(now - 3_600_000)); break
      case 'endTime': if (p.required) q.set('endTime', String(now)); break
    }
  }
  return q
}

const refusesLimit = (r: { status: number; body: Buffer }): boolean => r.status === 400 && /'limit'/.test(r.body.toString())

/** The route's path and query with the largest limit it takes (signed for the reader when it needs a key). */
async function requestFor(h: History, path: string, op: Operation, now: number): Promise<{ url: string; query: string; signed: boolean }> {
  const q = queryFor(path, op, now)
  const signed = (op.security ?? []).length > 0
  const url = (query: URLSearchParams): string => {
    const p = query.size > 0 ? `${path}?${query.toString()}` : path
    return signed ? h.sign(p) : p
  }
  const headers: Record<string, string> = signed ? { 'x-mbx-apikey': h.reader.apiKey } : {}
  if ((op.parameters ?? []).some((p) => p.name === 'limit')) {
    for (const limit of LIMITS) {
      q.set('limit', limit)
      if (!refusesLimit(await h.get(url(q), headers))) break
    }
  }
  return { url: url(q), query: q.toString(), signed }
}

async function run(out: (line: string) => void): Promise<BenchSummary> {
  const h = await exchangeWithHistory('routes', 'ROUTES_BENCH_NODE_FLAGS')
  const rows: Row[] = []
  try {
    const doc = JSON.parse((await h.get('/openapi.json')).body.toString()) as { paths: Record<string, { get?: Operation }> }
    const now = Date.now()
    for (const [path, item] of Object.entries(doc.paths)) {
      if (item.get === undefined || path.includes('{') || SKIPPED.has(path)) continue
      const r = await requestFor(h, path, item.get, now)
      const headers: Record<string, string> = r.signed ? { 'x-mbx-apikey': h.reader.apiKey } : {}
      rows.push({ path, query: r.query, ...await measureRead(h, r.url, headers, CONNECTIONS, SECONDS) })
    }
  } finally {
    await h.ex.stop()
  }
  rows.sort((a, b) => b.mainUs - a.mainUs)
  out(`routes: every GET route of the OpenAPI document (${rows.length}), one client on ${CONNECTIONS} keep-alive connections for`
    + ` ${SECONDS} s each, against an exchange process given ${int(h.orders)} signed orders from ${h.accounts} accounts over`
    + ` ${h.seconds} s first (weight limits raised); the ${Math.min(SHOWN, rows.length)} costliest to the main thread:`)
  const limitOf = (x: Row): string => {
    const limit = new URLSearchParams(x.query).get('limit')
    return limit === null ? '' : ` (limit ${limit})`
  }
  for (const line of table(['route', 'status', 'bytes sent', 'answers/s', 'main µs/answer', 'loop p99 ms'], rows.slice(0, SHOWN).map((x) => [
    x.path + limitOf(x), String(x.status), int(x.bytes), int(x.perSec), int(x.mainUs), fixed(x.loopP99Ms, 2),
  ]))) out(line)
  const byStatus = new Map<number, number>()
  for (const x of rows) byStatus.set(x.status, (byStatus.get(x.status) ?? 0) + 1)
  out(`first answers by status: ${[...byStatus].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s} × ${n}`).join(', ')}`
    + ' (a 4xx: a parameter the scan cannot supply, measured refusing)')
  const serverErrors = rows.filter((x) => x.status >= 500)
  for (const x of serverErrors) out(`5xx: ${x.path}?${x.query} → ${x.status} ${x.body.toString().slice(0, 200)}`)
  return {
    bench: 'routes', routes: rows.length, slowestRoute: rows[0]?.path ?? '', slowestMainUsPerAnswer: Math.round(rows[0]?.mainUs ?? 0),
    maxLoopP99Ms: Math.max(...rows.map((x) => x.loopP99Ms)), serverErrors: serverErrors.length,
  }
}

export const benchmark: Benchmark = { name: 'routes', run }
