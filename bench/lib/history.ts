// What the read benchmarks share (reads.ts, routes.ts): a real exchange process given a trading
// history first (signed orders from funded accounts over HTTP, as the gateway benchmark sends
// them), its limits raised so no read is refused, and one of those accounts as the reader.

import { createHmac } from 'node:crypto'
import http from 'node:http'
import { cpuSeconds, exchangeNodeFlags, HOST, scrapeMetrics, startExchange, type ExchangeProcess } from './exchange-process.js'
import { closedLoop, connectAll } from './http-load.js'
import type { LoadAccount } from './http-load-worker.js'
import { fundedAccounts, startLoadGenerator } from './load-generator.js'

const ACCOUNTS = 20
/** Seconds of signed orders that make the history the reads read. */
const HISTORY_SECONDS = Number(process.env.READS_BENCH_HISTORY_SECONDS ?? 5)
const LIMIT_FLAGS = ['--weight-limit', '1000000000', '--sapi-weight-limit', '1000000000', '--order-limit-10s', '1000000000',
  '--order-limit-1m', '1000000000']

export interface History {
  ex: ExchangeProcess
  base: string
  /** Signed orders accepted while the history was made. */
  orders: number
  accounts: number
  seconds: number
  reader: LoadAccount
  /** `path` (with its query, if any) signed by the reader: recvWindow a minute, timestamp now. */
  sign(path: string): string
  /** A GET's answer as it comes over the wire: status, bytes sent (node:http decompresses nothing) and body. */
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; bytes: number; body: Buffer }>
  /** A GET signed by the reader, its JSON body (throws unless 200). */
  signedJson(path: string): Promise<unknown>
}

/** Starts the exchange (no bot, no price feed: the history is the load's alone) and makes the history. */
export async function exchangeWithHistory(name: string, nodeFlagsEnv: string): Promise<History> {
  const ex = await startExchange(name, [...LIMIT_FLAGS, '--bot', 'off', '--price-feed', 'off'], exchangeNodeFlags(nodeFlagsEnv))
  try {
    const accounts = await fundedAccounts(ex, ACCOUNTS)
    const generator = startLoadGenerator(ex.port, accounts)
    let orders: number
    try {
      await generator.phase({ kind: 'seed', levels: 150, connections: 16 })
      orders = (await generator.phase({ kind: 'closed', what: 'order', connections: 64, seconds: HISTORY_SECONDS })).ok
    } finally {
      await generator.terminate()
    }
    const reader = accounts[0]!
    const base = `http://${HOST}:${ex.port}`
    const sign = (path: string): string => {
      const q = `recvWindow=60000&timestamp=${Date.now()}`
      const all = path.includes('?') ? `${path.slice(path.indexOf('?') + 1)}&${q}` : q
      return `${path.split('?')[0]}?${all}&signature=${createHmac('sha256', reader.secretKey).update(all).digest('hex')}`
    }
    const get = (path: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: number; body: Buffer }> =>
      new Promise((resolve, reject) => {
        http.get(base + path, { headers }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => { chunks.push(c) })
          res.on('end', () => {
            const body = Buffer.concat(chunks)
            resolve({ status: res.statusCode!, bytes: body.length, body })
          })
        }).on('error', reject)
      })
    const signedJson = async (path: string): Promise<unknown> => {
      const r = await get(sign(path), { 'x-mbx-apikey': reader.apiKey })
      if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.body.toString()}`)
      return JSON.parse(r.body.toString()) as unknown
    }
    return { ex, base, orders, accounts: ACCOUNTS, seconds: HISTORY_SECONDS, reader, sign, get, signedJson }
  } catch (err) {
    await ex.stop()
    throw err
  }
}

export interface ReadFigures {
  /** The first answer's status. */
  status: number
  /** Whether every answer of the loop was a 2xx. */
  allOk: boolean
  /** The first answer's size as sent. */
  bytes: number
  body: Buffer
  /** Answers a second, refusals included. */
  perSec: number
  /** The exchange's main-thread CPU per answer (the thread that also applies commands). */
  mainUs: number
  /** The main thread's event-loop delay p99 while the read ran. */
  loopP99Ms: number
}

/**
 * One read asked back to back on `connections` keep-alive connections for `seconds` (after one
 * request alone: its status and size, and the read's caches warm).
 */
export async function measureRead(h: History, path: string, headers: Record<string, string>, connections: number,
  seconds: number): Promise<ReadFigures> {
  const first = await h.get(path, headers)
  const request = `GET ${path} HTTP/1.1\r\nHost: ${HOST}\r\n` + Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n'
  const conns = await connectAll(HOST, h.ex.port, connections)
  const pid = h.ex.child.pid!
  try {
    await scrapeMetrics(h.ex) // the event-loop figures count from the previous scrape
    const mainBefore = cpuSeconds(pid, true)
    const r = await closedLoop(conns, () => request, seconds)
    const main = cpuSeconds(pid, true) - mainBefore
    const metrics = await scrapeMetrics(h.ex)
    const n = r.outcomes.ok + [...r.outcomes.refused.values()].reduce((a, b) => a + b, 0)
    return {
      status: first.status, allOk: r.outcomes.ok > 0 && r.outcomes.refused.size === 0, bytes: first.bytes, body: first.body,
      perSec: n / r.seconds, mainUs: (main * 1e6) / Math.max(1, n), loopP99Ms: metrics.exchange_event_loop_delay_p99_ms ?? NaN,
    }
  } finally {
    for (const c of conns) c.close()
  }
}
