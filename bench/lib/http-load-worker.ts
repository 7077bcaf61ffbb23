// The gateway benchmark's load generator, in its own thread so the exchange process and the
// generator each have a core: signed order placement and public depth requests as a bot sends
// them, run phase by phase as the main thread asks.

import { createHmac, createSecretKey } from 'node:crypto'
import { parentPort, workerData } from 'node:worker_threads'
import { closedLoop, connectAll, openLoop, Outcomes, type HttpConnection } from './http-load.js'
import { OPEN_LOOP_NICE, setThreadNice } from './thread-priority.js'

export interface LoadAccount {
  apiKey: string
  secretKey: string
}

export interface LoadSetup {
  host: string
  port: number
  accounts: LoadAccount[]
}

export type Phase =
  | { kind: 'seed'; levels: number; connections: number }
  | { kind: 'closed'; what: 'order' | 'depth'; connections: number; seconds: number }
  | { kind: 'open'; what: 'order'; connections: number; seconds: number; rate: number; graceSeconds: number }

export interface PhaseResult {
  ok: number
  refused: Record<string, number>
  seconds: number
  /** Open loop only: per-request latency from scheduled send, ms. */
  latencyMs?: Float64Array
  /** Open loop only: per request, how late the generator sent it, ms (part of its latency). */
  sendLateMs?: Float64Array
  /** Open loop only: requests that waited for a free connection. */
  lateSends?: number
  /** Open loop only: requests given up on, counted with their wait so far. */
  unanswered?: number
  /** Open loop only: the generator's nice value in it, when raised (thread-priority.ts). */
  nice?: number
}

const { host, port, accounts } = workerData as LoadSetup
/** Each account's HMAC key, imported once (as a client library keeps its secret), not per request. */
const keys = accounts.map((a) => createSecretKey(Buffer.from(a.secretKey)))

// BTCUSDTPERP around a fixed mid of 50,000.0 (tick 0.1, step 0.001, min notional 100 USDT).
const MID_TICKS = 500_000
let seed = 0x9e3779b9
/** xorshift32: the same order stream every run. */
function rand(): number {
  seed ^= seed << 13
  seed ^= seed >>> 17
  seed ^= seed << 5
  return (seed >>> 0) / 2 ** 32
}
const between = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1))

let sent = 0

/**
 * A signed LIMIT GTC order as a market-making bot sends it: two in three quote 1–5 ticks
 * behind the mid on their own side and rest; one in three is priced 5–7 ticks through the mid
 * with twice the size, so it can reach every resting level, taking from the touch outwards
 * (what it does not fill rests). Expected quantity added and taken balance, so the book
 * stays near the touch instead of growing without end.
 */
function orderRequest(): string {
  const buy = rand() < 0.5
  const crossing = rand() < 1 / 3
  const offset = crossing ? -between(5, 7) : between(1, 5)
  return signedOrder(buy, buy ? MID_TICKS - offset : MID_TICKS + offset, between(3, 10) * (crossing ? 2 : 1))
}

/** The next account's signed LIMIT GTC order, as a whole HTTP request. */
function signedOrder(buy: boolean, ticks: number, lots: number): string {
  const i = sent % accounts.length
  const a = accounts[i]!
  const n = sent++
  const body = `symbol=BTCUSDTPERP&side=${buy ? 'BUY' : 'SELL'}&type=LIMIT&timeInForce=GTC` +
    `&quantity=${(lots / 1000).toFixed(3)}&price=${(ticks / 10).toFixed(1)}&newClientOrderId=bench${n}` +
    `&recvWindow=5000&timestamp=${Date.now()}`
  const signed = `${body}&signature=${createHmac('sha256', keys[i]!).update(body).digest('hex')}`
  return `POST /fapi/v1/order HTTP/1.1\r\nHost: ${host}:${port}\r\nX-MBX-APIKEY: ${a.apiKey}\r\n` +
    `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${signed.length}\r\n\r\n${signed}`
}

/**
 * Resting orders 10 ticks and more from the mid, one per level on each side, so the book has
 * the depth a depth request reads; the order flow (at most 7 ticks through the mid) never
 * reaches them.
 */
async function seedBook(conns: HttpConnection[], levels: number): Promise<Outcomes> {
  const requests: string[] = []
  for (let k = 0; k < levels; k++) requests.push(signedOrder(true, MID_TICKS - 10 - k, 5), signedOrder(false, MID_TICKS + 10 + k, 5))
  const outcomes = new Outcomes()
  let next = 0
  await Promise.all(conns.map(async (c) => {
    while (next < requests.length) outcomes.add(await c.request(requests[next++]!))
  }))
  return outcomes
}

const DEPTH = `GET /fapi/v1/depth?symbol=BTCUSDTPERP&limit=100 HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`
const depthRequest = (): string => DEPTH

function result(o: Outcomes, seconds: number): PhaseResult {
  return { ok: o.ok, refused: Object.fromEntries(o.refused), seconds }
}

parentPort!.on('message', async (p: Phase) => {
  try {
    const conns = await connectAll(host, port, p.connections)
    let out: PhaseResult
    if (p.kind === 'seed') {
      const started = performance.now()
      out = result(await seedBook(conns, p.levels), (performance.now() - started) / 1000)
    } else if (p.kind === 'closed') {
      const make = p.what === 'order' ? orderRequest : depthRequest
      const r = await closedLoop(conns, make, p.seconds)
      out = result(r.outcomes, r.seconds)
    } else {
      const before = setThreadNice(OPEN_LOOP_NICE)
      const nice = before === undefined ? undefined : OPEN_LOOP_NICE
      try {
        const r = await openLoop(conns, orderRequest, p.rate, p.seconds, p.graceSeconds, nice)
        out = { ...result(r.outcomes, r.seconds), latencyMs: r.latencyMs, sendLateMs: r.sendLateMs, lateSends: r.lateSends, unanswered: r.unanswered }
        if (nice !== undefined) out.nice = nice
      } finally {
        if (before !== undefined) setThreadNice(before)
      }
    }
    for (const c of conns) c.close()
    parentPort!.postMessage(out)
  } catch (err) {
    parentPort!.postMessage({ error: (err as Error).stack ?? String(err) })
  }
})
