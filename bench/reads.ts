// What the heaviest public reads cost the exchange: a real exchange process (`exchange start`)
// given a history first (signed orders from 20 funded accounts for a few seconds over HTTP, as
// the gateway benchmark sends them: trades, aggregate trades, klines, open interest), then for
// each read one client on eight keep-alive connections asking back to back, its weight limit
// raised so nothing is refused. Per read: requests/s, the exchange's main-thread CPU per request
// (the thread that also applies commands), and the main thread's event-loop delay p99 meanwhile
// (how long every other request and commit waited behind these). A read costing milliseconds of
// the main thread lets one client hold up the exchange; session 45 found two (the OpenAPI
// document, and /futures/data's one projections call per boundary, which needs hours of history
// to show and so is not here; docs/BENCHMARKS.md has its figures), session 47 the CSV history
// downloads (read here as a client does: an id, its link, then the file, chunked).

import { fixed, int, table, type Benchmark, type BenchSummary } from './lib/bench.js'
import { exchangeWithHistory, measureRead, type History, type ReadFigures } from './lib/history.js'

const SECONDS = Number(process.env.READS_BENCH_SECONDS ?? 3)
const CONNECTIONS = 8
/** Only the reads whose name contains this (for profiling one, with READS_BENCH_NODE_FLAGS=--cpu-prof). */
const ONLY = process.env.READS_BENCH_ONLY

interface Read {
  name: string
  path: string
  encoding?: string
  /** Signed by the first load account (one signature, recvWindow a minute, for the whole read). */
  signed?: boolean
}

const READS: Read[] = [
  { name: 'exchangeInfo', path: '/fapi/v1/exchangeInfo' },
  { name: 'depth 1000', path: '/fapi/v1/depth?symbol=BTCUSDTPERP&limit=1000' },
  { name: 'aggTrades 1000', path: '/fapi/v1/aggTrades?symbol=BTCUSDTPERP&limit=1000' },
  { name: 'trades 1000', path: '/fapi/v1/trades?symbol=BTCUSDTPERP&limit=1000' },
  { name: 'ticker/24hr (all)', path: '/fapi/v1/ticker/24hr' },
  { name: 'allOrders 1000 (signed)', path: '/fapi/v1/allOrders?symbol=BTCUSDTPERP&limit=1000', signed: true },
  { name: 'userTrades 1000 (signed)', path: '/fapi/v1/userTrades?symbol=BTCUSDTPERP&limit=1000', signed: true },
  { name: 'income 1000 (signed)', path: '/fapi/v1/income?limit=1000', signed: true },
  // Of thousands of orders, none conditional: the walk of the conditional orders' index alone.
  { name: 'allAlgoOrders (signed)', path: '/fapi/v1/allAlgoOrders?symbol=BTCUSDTPERP&limit=1000', signed: true },
  // From the state, in the main thread: the reader's own open orders and account.
  { name: 'openOrders (signed)', path: '/fapi/v1/openOrders', signed: true },
  { name: 'account (signed)', path: '/fapi/v3/account', signed: true },
  { name: 'OpenAPI document', path: '/openapi.json' },
  { name: 'OpenAPI document, br', path: '/openapi.json', encoding: 'br' },
]

interface Row extends ReadFigures {
  read: Read
}

/**
 * The reads of the reader's history downloads (the CSV files of its income, orders and fills over the
 * last hour): each link asked for as a client does, by a download id.
 */
async function downloadReads(h: History): Promise<Read[]> {
  const reads: Read[] = []
  const endTime = Date.now()
  for (const kind of ['income', 'order', 'trade'] as const) {
    const { downloadId } = await h.signedJson(`/fapi/v1/${kind}/asyn?startTime=${endTime - 3_600_000}&endTime=${endTime}`) as { downloadId: string }
    const { url } = await h.signedJson(`/fapi/v1/${kind}/asyn/id?downloadId=${downloadId}`) as { url: string }
    reads.push({ name: `${kind} download (CSV)`, path: url.slice(url.indexOf('/fapi/')) })
  }
  return reads
}

async function run(out: (line: string) => void): Promise<BenchSummary> {
  const h = await exchangeWithHistory('reads', 'READS_BENCH_NODE_FLAGS')
  const rows: Row[] = []
  try {
    const reads = [...READS, ...await downloadReads(h)].filter((x) => ONLY === undefined || x.name.includes(ONLY))
    if (reads.length === 0) throw new Error(`no read's name contains READS_BENCH_ONLY=${ONLY}`)
    for (const read of reads) {
      const headers: Record<string, string> = {
        ...(read.encoding === undefined ? {} : { 'accept-encoding': read.encoding }),
        ...(read.signed ? { 'x-mbx-apikey': h.reader.apiKey } : {}),
      }
      rows.push({ read, ...await measureRead(h, read.signed ? h.sign(read.path) : read.path, headers, CONNECTIONS, SECONDS) })
    }
  } finally {
    await h.ex.stop()
  }
  out(`reads: one client, ${CONNECTIONS} keep-alive connections, ${SECONDS} s per read, against an exchange process given`
    + ` ${int(h.orders)} signed orders from ${h.accounts} accounts over ${h.seconds} s first (weight limits raised: nothing refused)`)
  for (const line of table(['read', 'status', 'bytes sent', 'req/s', 'main µs/req', 'loop p99 ms'], rows.map((x) => [
    x.read.name, x.allOk ? String(x.status) : 'refused', int(x.bytes), int(x.perSec), int(x.mainUs), fixed(x.loopP99Ms, 2),
  ]))) out(line)
  out('main µs/req: the exchange\'s main thread (it also applies commands); loop p99: its event-loop delay while the read ran')
  const slowest = rows.reduce((a, b) => (b.mainUs > a.mainUs ? b : a))
  const doc = rows.find((x) => x.read.path === '/openapi.json' && x.read.encoding === undefined)
  return {
    bench: 'reads', slowestRead: slowest.read.name, slowestMainUsPerReq: Math.round(slowest.mainUs),
    maxLoopP99Ms: Math.max(...rows.map((x) => x.loopP99Ms)), ...(doc === undefined ? {} : { openApiPerSec: Math.round(doc.perSec) }),
    refused: rows.filter((x) => !x.allOk).length,
  }
}

export const benchmark: Benchmark = { name: 'reads', run }
