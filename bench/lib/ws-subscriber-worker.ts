// One thread of the WebSocket benchmark's subscribers: opens its share of connections to a
// combined stream (with the light client, see light-ws-client.ts) and, while measuring,
// records for every message the delay from the core entry's time (`T`) to its arrival. Depth
// diffs are also checked for continuity (`pu` must be the previous `u`), so a fast figure
// cannot hide dropped updates. Messages are read in place, in one pass (Fields).

import { parentPort, workerData } from 'node:worker_threads'
import { connectLight } from './light-ws-client.js'

export interface SubscriberSetup {
  host: string
  port: number
  /** Request path of the combined stream. */
  path: string
  connections: number
}

export type SubscriberCommand = { kind: 'measure' } | { kind: 'report' }

export interface SubscriberReport {
  connected: number
  /** Connections the server closed (e.g. as too slow) or that failed. */
  closed: number
  messages: number
  bytes: number
  /** Latency samples in ms, by stream kind. */
  trade: Float64Array
  depth: Float64Array
  /** Depth diffs whose `pu` was not the previous `u` on that connection. */
  depthGaps: number
  /** Messages whose `T` could not be read. */
  unreadable: number
}

class Samples {
  buf = new Float64Array(1 << 16)
  n = 0
  push(v: number): void {
    if (this.n === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2)
      next.set(this.buf)
      this.buf = next
    }
    this.buf[this.n++] = v
  }
  take(): Float64Array { return this.buf.slice(0, this.n) }
}

const setup = workerData as SubscriberSetup
let measuring = false
let connected = 0
let closed = 0
let messages = 0
let bytes = 0
let depthGaps = 0
/** Messages without a readable `T` (none expected: the bench fails on any). */
let unreadable = 0
const trade = new Samples()
const depth = new Samples()
const now = (): number => performance.timeOrigin + performance.now()

const QUOTE = 0x22
const COLON = 0x3a

/**
 * Reads what the bench needs from one combined-stream message in data[start..end), in place
 * and in one pass: the event type (`"e"`), its entry time (`"T"`), and for a depth diff its
 * `"u"` and `"pu"` (the keys come in that order in every event). No string is made.
 */
class Fields {
  depth = false
  T = -1
  u = -1
  pu = -1

  read(data: Buffer, start: number, end: number): void {
    this.depth = false
    this.T = this.u = this.pu = -1
    // The `{"stream":"…","data":` wrapper has no key of one or two letters: the first one is
    // the event's `"e"`.
    for (let i = start; i < end - 4; i++) {
      // A key: `"` then one or two letters then `":`.
      if (data[i] !== QUOTE) continue
      const k = data[i + 1]!
      let at: number
      let two = 0
      if (data[i + 2] === QUOTE && data[i + 3] === COLON) at = i + 4
      else if (data[i + 3] === QUOTE && data[i + 4] === COLON) { two = data[i + 2]!; at = i + 5 } else continue
      if (k === 0x65 /* e */ && two === 0) this.depth = data[at + 1] === 0x64 /* "d… */
      else if (k === 0x54 /* T */ && two === 0) this.T = intAt(data, at, end)
      else if (k === 0x75 /* u */ && two === 0) this.u = intAt(data, at, end)
      else if (k === 0x70 /* p */ && two === 0x75 /* u */) {
        this.pu = intAt(data, at, end)
        return
      } else if (k === 0x73 /* s */ && two === 0 && this.T >= 0 && !this.depth) return // a trade: all read
      i = at - 1
    }
  }
}

/** The unsigned integer at data[at..), up to the first non-digit. */
function intAt(data: Buffer, at: number, end: number): number {
  let n = 0
  for (let i = at; i < end; i++) {
    const c = data[i]! - 48
    if (c < 0 || c > 9) break
    n = n * 10 + c
  }
  return n
}

const fields = new Fields()

async function open(): Promise<void> {
  let lastU = -1
  await connectLight(setup.host, setup.port, setup.path, (data, start, end) => {
    const at = now()
    const f = fields
    f.read(data, start, end)
    if (f.depth) {
      if (lastU !== -1 && f.pu !== lastU) depthGaps++
      lastU = f.u
    }
    if (!measuring) return
    messages++
    bytes += end - start
    if (f.T < 0) unreadable++
    ;(f.depth ? depth : trade).push(at - f.T)
  }, () => { closed++ })
  connected++
}

async function main(): Promise<void> {
  // A few at a time, as a crowd of clients would arrive; the server sees them all by the end.
  for (let i = 0; i < setup.connections; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, setup.connections - i) }, open))
  }
  parentPort!.postMessage({ kind: 'connected', connected })
  parentPort!.on('message', (c: SubscriberCommand) => {
    if (c.kind === 'measure') {
      measuring = true
      return
    }
    measuring = false
    const report: SubscriberReport = { connected, closed, messages, bytes, trade: trade.take(), depth: depth.take(), depthGaps, unreadable }
    parentPort!.postMessage(report)
  })
}

main().catch((err: unknown) => parentPort!.postMessage({ kind: 'error', error: err instanceof Error ? err.message : String(err) }))
