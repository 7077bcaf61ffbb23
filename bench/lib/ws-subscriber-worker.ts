// One thread of the WebSocket benchmark's subscribers: opens its share of connections to a
// combined stream (with the light client, see light-ws-client.ts) and, while measuring, records for every message the delay from the core
// entry's time (`T`) to its arrival. Depth diffs are also checked for continuity (`pu` must be
// the previous `u`), so a fast figure cannot hide dropped updates.

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
const trade = new Samples()
const depth = new Samples()
const now = (): number => performance.timeOrigin + performance.now()

const DEPTH = Buffer.from('"e":"depthUpdate"')
const KEY_T = Buffer.from('"T":')
const KEY_U = Buffer.from(',"u":')
const KEY_PU = Buffer.from('"pu":')

/** The integer right after the first `key` in `bytes` (read in place: no string is made). */
function numberAfter(bytes: Buffer, key: Buffer): number {
  let n = 0
  for (let i = bytes.indexOf(key) + key.length; i < bytes.length; i++) {
    const c = bytes[i]! - 48
    if (c < 0 || c > 9) break
    n = n * 10 + c
  }
  return n
}

async function open(): Promise<void> {
  let lastU = -1
  await connectLight(setup.host, setup.port, setup.path, (data) => {
    const at = now()
    const depthUpdate = data.indexOf(DEPTH) >= 0
    if (depthUpdate) {
      const u = numberAfter(data, KEY_U)
      if (lastU !== -1 && numberAfter(data, KEY_PU) !== lastU) depthGaps++
      lastU = u
    }
    if (!measuring) return
    messages++
    bytes += data.length
    ;(depthUpdate ? depth : trade).push(at - numberAfter(data, KEY_T))
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
    const report: SubscriberReport = { connected, closed, messages, bytes, trade: trade.take(), depth: depth.take(), depthGaps }
    parentPort!.postMessage(report)
  })
}

main().catch((err: unknown) => parentPort!.postMessage({ kind: 'error', error: err instanceof Error ? err.message : String(err) }))
