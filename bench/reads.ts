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

import { createHmac } from 'node:crypto'
import http from 'node:http'
import { connectAll, closedLoop } from './lib/http-load.js'
import { fixed, int, table, type Benchmark, type BenchSummary } from './lib/bench.js'
import { cpuSeconds, exchangeNodeFlags, HOST, scrapeMetrics, startExchange, type ExchangeProcess } from './lib/exchange-process.js'
import type { LoadAccount, PhaseResult } from './lib/http-load-worker.js'
import { fundedAccounts, startLoadGenerator } from './lib/load-generator.js'

const ACCOUNTS = 20
/** Seconds of signed orders that make the history the reads read. */
const HISTORY_SECONDS = Number(process.env.READS_BENCH_HISTORY_SECONDS ?? 5)
const SECONDS = Number(process.env.READS_BENCH_SECONDS ?? 3)
const CONNECTIONS = 8
/** Only the reads whose name contains this (for profiling one, with READS_BENCH_NODE_FLAGS=--cpu-prof). */
const ONLY = process.env.READS_BENCH_ONLY
const LIMIT_FLAGS = ['--weight-limit', '1000000000', '--order-limit-10s', '1000000000', '--order-limit-1m', '1000000000']

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

interface Row {
  read: Read
  status: number
  bytes: number
  perSec: number
  mainUs: number
  loopP99Ms: number
}

/** A read's first answer as it comes over the wire: status, bytes sent (node:http decompresses nothing) and body. */
function firstAnswer(url: string, headers: Record<string, string>): Promise<{ status: number; bytes: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => { chunks.push(c) })
      res.on('end', () => {
        const body = Buffer.concat(chunks)
        resolve({ status: res.statusCode!, bytes: body.length, body })
      })
    }).on('error', reject)
  })
}

/**
 * The reads of the reader's history downloads (the CSV files of its income, orders and fills over the
 * last hour): each link asked for as a client does, by a download id.
 */
async function downloadReads(signed: (path: string) => Promise<unknown>): Promise<Read[]> {
  const reads: Read[] = []
  const endTime = Date.now()
  for (const kind of ['income', 'order', 'trade'] as const) {
    const { downloadId } = await signed(`/fapi/v1/${kind}/asyn?startTime=${endTime - 3_600_000}&endTime=${endTime}`) as { downloadId: string }
    const { url } = await signed(`/fapi/v1/${kind}/asyn/id?downloadId=${downloadId}`) as { url: string }
    reads.push({ name: `${kind} download (CSV)`, path: url.slice(url.indexOf('/fapi/')) })
  }
  return reads
}

/** Funds the accounts and has them send signed orders for HISTORY_SECONDS: the history to read. */
async function makeHistory(ex: ExchangeProcess): Promise<{ orders: PhaseResult; reader: LoadAccount }> {
  const accounts = await fundedAccounts(ex, ACCOUNTS)
  const generator = startLoadGenerator(ex.port, accounts)
  try {
    await generator.phase({ kind: 'seed', levels: 150, connections: 16 })
    return { orders: await generator.phase({ kind: 'closed', what: 'order', connections: 64, seconds: HISTORY_SECONDS }), reader: accounts[0]! }
  } finally {
    await generator.terminate()
  }
}

async function run(out: (line: string) => void): Promise<BenchSummary> {
  // No bot and no price feed: the history is the load's alone (as in the gateway benchmark).
  const ex = await startExchange('reads', [...LIMIT_FLAGS, '--bot', 'off', '--price-feed', 'off'], exchangeNodeFlags('READS_BENCH_NODE_FLAGS'))
  const pid = ex.child.pid!
  const rows: Row[] = []
  let orders = 0
  try {
    const history = await makeHistory(ex)
    orders = history.orders.ok
    const base = `http://${HOST}:${ex.port}`
    const sign = (path: string): string => {
      const q = `recvWindow=60000&timestamp=${Date.now()}`
      const all = path.includes('?') ? `${path.slice(path.indexOf('?') + 1)}&${q}` : q
      return `${path.split('?')[0]}?${all}&signature=${createHmac('sha256', history.reader.secretKey).update(all).digest('hex')}`
    }
    const signedGet = async (path: string): Promise<unknown> => {
      const r = await firstAnswer(base + sign(path), { 'x-mbx-apikey': history.reader.apiKey })
      if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.body.toString()}`)
      return JSON.parse(r.body.toString()) as unknown
    }
    const reads = [...READS, ...await downloadReads(signedGet)]
    for (const read of reads.filter((x) => ONLY === undefined || x.name.includes(ONLY))) {
      const path = read.signed ? sign(read.path) : read.path
      const headers: Record<string, string> = {
        ...(read.encoding === undefined ? {} : { 'accept-encoding': read.encoding }),
        ...(read.signed ? { 'x-mbx-apikey': history.reader.apiKey } : {}),
      }
      // One request first: its status and size as sent, and the read's caches warm.
      const first = await firstAnswer(base + path, headers)
      const request = `GET ${path} HTTP/1.1\r\nHost: ${HOST}\r\n` + Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n'
      const conns = await connectAll(HOST, ex.port, CONNECTIONS)
      await scrapeMetrics(ex) // the event-loop figures count from the previous scrape
      const mainBefore = cpuSeconds(pid, true)
      const r = await closedLoop(conns, () => request, SECONDS)
      const main = cpuSeconds(pid, true) - mainBefore
      const metrics = await scrapeMetrics(ex)
      for (const c of conns) c.close()
      const n = r.outcomes.ok
      rows.push({ read, status: n > 0 && r.outcomes.refused.size === 0 ? first.status : 0, bytes: first.bytes, perSec: n / r.seconds,
        mainUs: (main * 1e6) / Math.max(1, n), loopP99Ms: metrics.exchange_event_loop_delay_p99_ms ?? NaN })
    }
  } finally {
    await ex.stop()
  }
  out(`reads: one client, ${CONNECTIONS} keep-alive connections, ${SECONDS} s per read, against an exchange process given`
    + ` ${int(orders)} signed orders from ${ACCOUNTS} accounts over ${HISTORY_SECONDS} s first (weight limit raised: nothing refused)`)
  for (const line of table(['read', 'status', 'bytes sent', 'req/s', 'main µs/req', 'loop p99 ms'], rows.map((x) => [
    x.read.name, x.status === 0 ? 'refused' : String(x.status), int(x.bytes), int(x.perSec), int(x.mainUs), fixed(x.loopP99Ms, 2),
  ]))) out(line)
  out('main µs/req: the exchange\'s main thread (it also applies commands); loop p99: its event-loop delay while the read ran')
  const slowest = rows.reduce((a, b) => (b.mainUs > a.mainUs ? b : a))
  const doc = rows.find((x) => x.read.path === '/openapi.json' && x.read.encoding === undefined)
  return {
    bench: 'reads', slowestRead: slowest.read.name, slowestMainUsPerReq: Math.round(slowest.mainUs),
    maxLoopP99Ms: Math.max(...rows.map((x) => x.loopP99Ms)), ...(doc === undefined ? {} : { openApiPerSec: Math.round(doc.perSec) }),
    refused: rows.filter((x) => x.status === 0).length,
  }
}

export const benchmark: Benchmark = { name: 'reads', run }
