// A WebSocket client for the stream tests: real `ws` over loopback, every message parsed and
// queued so a test can wait for the next one that matches.

import type { AddressInfo } from 'node:net'
import { WebSocket, type ClientOptions } from 'ws'
import type { Command } from '../../core/commands.js'
import type { GatewayContext } from '../../gateway/context.js'
import { attachWebSocket, type MarketStreams, type WebSocketOptions } from '../../gateway/ws/server.js'
import { gatewayRig, type GatewayRig } from '../helpers/gateway.js'
import { ALICE, BOB, USDT } from '../helpers/exchange.js'

export interface StreamRig extends GatewayRig {
  streams: MarketStreams
  /** ws://host:port */
  base: string
  /** http://host:port */
  http: string
  /** The replica's seq when the streams started: the first depth event's pu. */
  startSeq: number
  /** What the feed or a connection reported (a depth model that disagrees with the book, say): stays empty. */
  feedErrors: string[]
}

/**
 * Where the stream sockets live in these tests: inline by default; TEST_WS_FAN_OUT=process runs
 * every stream test against the fan-out process instead (the exchange's own setting).
 */
export const FAN_OUT: WebSocketOptions['fanOut'] = process.env.TEST_WS_FAN_OUT === 'process' ? 'process' : 'inline'

/**
 * A gateway rig with market streams, listening on loopback; ALICE and BOB funded. `feedCtx`
 * may change the context the streams read (a delayed committed feed, say).
 */
export async function streamRig(o: WebSocketOptions = {},
  feedCtx: (ctx: GatewayContext) => GatewayContext = (ctx) => ctx): Promise<StreamRig> {
  const rig = await gatewayRig()
  const startSeq = rig.ex.state.seq
  const feedErrors: string[] = []
  const streams = attachWebSocket(rig.app, feedCtx(rig.ctx), { onError: (err) => feedErrors.push(String(err)), fanOut: FAN_OUT, ...o })
  await rig.app.listen({ port: 0, host: '127.0.0.1' })
  const port = (rig.app.server.address() as AddressInfo).port
  for (const account of [ALICE, BOB]) {
    await rig.run({ type: 'Deposit', account, sub: 0, asset: 'USDT', amount: 10_000_000 * USDT, wallet: 'PERP', ref: `fund-${account}` })
  }
  return { ...rig, streams, startSeq, feedErrors, base: `ws://127.0.0.1:${port}`, http: `http://127.0.0.1:${port}` }
}

export class Client {
  readonly messages: unknown[] = []
  private waiters: (() => void)[] = []
  closed: { code: number; reason: string } | null = null

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()))
      this.wake()
    })
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() }
      this.wake()
    })
    ws.on('error', () => {})
  }

  private wake(): void {
    const w = this.waiters
    this.waiters = []
    for (const fn of w) fn()
  }

  send(msg: unknown): void {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg))
  }

  /** Removes and returns the first queued message matching `pred`, waiting up to `ms`. */
  async next<T = any>(pred: (m: any) => boolean = () => true, ms = 5000): Promise<T> {
    const deadline = Date.now() + ms
    for (;;) {
      const i = this.messages.findIndex(pred)
      if (i >= 0) return this.messages.splice(i, 1)[0] as T
      const left = deadline - Date.now()
      if (left <= 0 || this.closed) throw new Error(`no matching message (closed: ${JSON.stringify(this.closed)})`)
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left)
        this.waiters.push(() => { clearTimeout(t); resolve() })
      })
    }
  }

  /** Sends a control request and waits for the reply with its id (or an error reply). */
  async request(msg: Record<string, unknown>): Promise<any> {
    this.send(msg)
    return this.next((m) => m !== null && typeof m === 'object' && ('id' in m || 'code' in m))
  }

  /** Resolves with the close code and reason. */
  async closedWith(ms = 5000): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + ms
    while (this.closed === null) {
      if (Date.now() > deadline) throw new Error('still open')
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, deadline - Date.now())
        this.waiters.push(() => { clearTimeout(t); resolve() })
      })
    }
    return this.closed
  }

  close(): void {
    this.ws.close()
  }
}

/** Opens a client on `url`; rejects with the HTTP status, headers and body when the upgrade is refused. */
export function connect(url: string, o: ClientOptions = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, o)
    const client = new Client(ws)
    ws.once('open', () => resolve(client))
    ws.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (d: Buffer) => { body += d.toString() })
      res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, headers: res.headers, body })))
    })
    ws.once('error', reject)
  })
}

/** Runs a command through the rig and fails the test when the core rejects it. */
export async function ok(rig: GatewayRig, command: Command, dtMs = 1) {
  const r = await rig.run(command, dtMs)
  if (!r.ok) throw new Error(`${command.type} rejected: ${r.code}`)
  return r
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
