// A small HTTP/1.1 load generator for the gateway benchmark: keep-alive connections over raw
// sockets, one request in flight per connection (no pipelining, as a bot's HTTP client does),
// driven closed-loop (each connection sends again as soon as it hears back) or open-loop
// (requests scheduled by time at a fixed rate, latency counted from the scheduled time so a
// slow server cannot hide its stalls by slowing the generator: no coordinated omission).

import { once } from 'node:events'
import net from 'node:net'
import { Worker } from 'node:worker_threads'
import { monotonicMs } from './clock.js'
import type { PacerSetup } from './pacer-worker.js'

export interface Reply {
  status: number
  /** The body, decoded only for non-2xx replies (their Binance `{code,msg}`); '' otherwise. */
  body: string
}

const HEADER_END = Buffer.from('\r\n\r\n')
const EMPTY = Buffer.alloc(0)

/** One keep-alive connection; `request` takes a whole request (head and body) as text. */
/**
 * Where a chunked body that starts at `from` ends (past its last chunk, of size 0, and the
 * blank line after it: no trailers), or -1 while it has not all arrived.
 */
function chunkedEnd(buf: Buffer, from: number): number {
  let at = from
  for (;;) {
    const eol = buf.indexOf('\r\n', at)
    if (eol < 0) return -1
    const size = parseInt(buf.toString('latin1', at, eol), 16)
    at = eol + 2 + size + 2
    if (at > buf.length) return -1
    if (size === 0) return at
  }
}

export class HttpConnection {
  private buf: Buffer = EMPTY
  private waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void } | null = null
  private error: Error | null = null

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true)
    socket.on('data', (d: Buffer) => this.onData(d))
    const fail = (e: Error): void => {
      this.error = e
      this.waiting?.reject(e)
      this.waiting = null
    }
    socket.on('error', fail)
    socket.on('close', () => fail(new Error('connection closed by the server')))
  }

  static connect(host: string, port: number): Promise<HttpConnection> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ host, port }, () => { s.off('error', reject); resolve(new HttpConnection(s)) })
      s.once('error', reject)
    })
  }

  request(raw: string): Promise<Reply> {
    if (this.error) return Promise.reject(this.error)
    if (this.waiting) return Promise.reject(new Error('one request at a time'))
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject }
      this.socket.write(raw, 'latin1')
    })
  }

  close(): void {
    this.socket.destroy()
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d])
    const end = this.buf.indexOf(HEADER_END)
    if (end < 0) return
    const head = this.buf.toString('latin1', 0, end)
    // "HTTP/1.1 200 OK": the status is at a fixed offset.
    const status = Number(head.slice(9, 12))
    const m = /\r\ncontent-length:\s*(\d+)/i.exec(head)
    const total = m ? end + 4 + Number(m[1]) : /\r\ntransfer-encoding:\s*chunked/i.test(head) ? chunkedEnd(this.buf, end + 4) : -2
    if (total === -2) {
      this.fail(new Error(`reply without content-length: ${head.slice(0, 200)}`))
      return
    }
    if (total < 0 || this.buf.length < total) return
    const body = status >= 200 && status < 300 ? '' : this.buf.toString('utf8', end + 4, total)
    this.buf = this.buf.length === total ? EMPTY : this.buf.subarray(total)
    const w = this.waiting
    this.waiting = null
    w?.resolve({ status, body })
  }

  private fail(e: Error): void {
    this.error = e
    this.waiting?.reject(e)
    this.waiting = null
    this.socket.destroy()
  }
}

export interface OpenLoopResult {
  outcomes: Outcomes
  /** Per request, from when it was due to its whole reply. */
  latencyMs: Float64Array
  /** Per request, how long after it was due the generator sent it (part of its latency). */
  sendLateMs: Float64Array
  /** Requests that waited for a free connection. */
  lateSends: number
  unanswered: number
  seconds: number
}

export async function connectAll(host: string, port: number, n: number): Promise<HttpConnection[]> {
  return Promise.all(Array.from({ length: n }, () => HttpConnection.connect(host, port)))
}

/** Replies by outcome: successes, and refusals keyed `status code` (e.g. `400 -1111`). */
export class Outcomes {
  ok = 0
  readonly refused = new Map<string, number>()

  add(r: Reply): void {
    if (r.status >= 200 && r.status < 300) {
      this.ok++
      return
    }
    let code = ''
    try { code = String((JSON.parse(r.body) as { code?: unknown }).code ?? '') } catch { /* not JSON */ }
    const k = `${r.status} ${code}`.trim()
    this.refused.set(k, (this.refused.get(k) ?? 0) + 1)
  }
}

/**
 * Every connection sends `make()` requests back to back for `seconds`; replies heard before
 * the deadline count. Returns the outcomes and the measured seconds.
 */
export async function closedLoop(conns: HttpConnection[], make: () => string, seconds: number): Promise<{ outcomes: Outcomes; seconds: number }> {
  const outcomes = new Outcomes()
  const started = performance.now()
  const deadline = started + seconds * 1000
  let ended = started
  await Promise.all(conns.map(async (c) => {
    while (performance.now() < deadline) {
      const r = await c.request(make())
      const t = performance.now()
      if (t <= deadline) outcomes.add(r)
      ended = Math.max(ended, Math.min(t, deadline))
    }
  }))
  return { outcomes, seconds: (ended - started) / 1000 }
}

/**
 * Offers `rate` requests per second for `seconds`, each scheduled at start + i/rate and sent
 * by the first idle connection; latency runs from the scheduled time to the whole reply. The
 * seconds returned run to the last reply: past `seconds` when the server fell behind.
 * A pacer thread wakes the generator as each request falls due (pacer-worker.ts); how late
 * each was sent all the same (this thread busy, or waiting for a core) is returned as
 * `sendLateMs`, and counts in its latency (against us, never hidden). A server that has not
 * answered everything `graceSeconds` after the last scheduled send is given up on: each
 * request still open counts with its wait so far (a lower bound), and `unanswered` says how
 * many; close the connections afterwards. `nice`, when given, is the pacer thread's nice value.
 */
export async function openLoop(conns: HttpConnection[], make: () => string, rate: number, seconds: number,
  graceSeconds: number, nice?: number): Promise<OpenLoopResult> {
  const total = Math.round(rate * seconds)
  const latencyMs = new Float64Array(total)
  const sendLateMs = new Float64Array(total)
  const outcomes = new Outcomes()
  const idle = [...conns]
  const due: number[] = []
  let dueHead = 0
  let scheduled = 0
  let done = 0
  let lateSends = 0
  let over = false
  const answered = new Uint8Array(total)
  const stop = new SharedArrayBuffer(4)
  const stopFlag = new Int32Array(stop)
  const pacer = new Worker(new URL('./pacer-worker.js', import.meta.url))
  await once(pacer, 'online')
  const intervalMs = 1000 / rate
  const start = monotonicMs() + 5
  const at = (i: number): number => start + i * intervalMs
  const ended = (unanswered: number): OpenLoopResult => {
    Atomics.store(stopFlag, 0, 1)
    Atomics.notify(stopFlag, 0)
    return { outcomes, latencyMs, sendLateMs, lateSends, unanswered, seconds: (monotonicMs() - start) / 1000 }
  }
  return new Promise((resolve, reject) => {
    const giveUp = setTimeout(() => {
      over = true
      const now = monotonicMs()
      for (let i = 0; i < total; i++) if (answered[i] === 0) latencyMs[i] = now - at(i)
      resolve(ended(total - done))
    }, 5 + (seconds + graceSeconds) * 1000)
    const send = (c: HttpConnection, i: number): void => {
      sendLateMs[i] = monotonicMs() - at(i)
      c.request(make()).then((r) => {
        if (over) return
        latencyMs[i] = monotonicMs() - at(i)
        answered[i] = 1
        outcomes.add(r)
        done++
        if (done === total) {
          clearTimeout(giveUp)
          resolve(ended(0))
        } else if (dueHead < due.length) {
          // This request waited for a free connection: the pool, not the server, held it.
          lateSends++
          send(c, due[dueHead++]!)
        } else idle.push(c)
      }, (err: unknown) => { if (!over) reject(err) })
    }
    pacer.on('message', () => {
      if (over) return
      const now = monotonicMs()
      while (scheduled < total && at(scheduled) <= now) due.push(scheduled++)
      while (dueHead < due.length && idle.length > 0) send(idle.pop()!, due[dueHead++]!)
    })
    pacer.on('error', (err) => { if (!over) reject(err) })
    const setup: PacerSetup = { startMs: start, intervalMs, total, stop, nice }
    pacer.postMessage(setup)
  })
}
