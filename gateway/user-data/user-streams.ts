// The user data stream's delivery: a listen key is a stream name on the WebSocket hub, so a
// connection to /ws/<listenKey> (or a combined or /private form) receives that sub-account's
// events like any market stream. Events are built from every committed batch, only for
// sub-accounts someone listens to, and never reach another sub-account's keys.

import type { CommittedBatch, GatewayContext } from '../context.js'
import type { StreamHub } from '../ws/hub.js'
import { UserEvents, type Payload } from './events.js'
import type { ListenKeys } from './listen-keys.js'

export class UserStreams {
  private readonly events = new UserEvents()
  /** Live keys with at least one connection, by "account:sub". */
  private readonly keysBySub = new Map<string, Set<string>>()
  private readonly stops: (() => void)[] = []

  constructor(private readonly ctx: GatewayContext, private readonly listenKeys: ListenKeys,
    private readonly hub: StreamHub, sweepMs = 10_000) {
    this.events.seed(ctx.state())
    if (ctx.onCommitted) this.stops.push(ctx.onCommitted((b) => this.batch(b)))
    this.stops.push(listenKeys.onEnd((entry, why) => {
      if (why === 'expired') this.hub.publish(entry.listenKey, { e: 'listenKeyExpired', E: ctx.now(), listenKey: entry.listenKey })
      this.forget(entry.listenKey, entry.account, entry.sub)
    }))
    const timer = setInterval(() => listenKeys.sweep(), sweepMs)
    timer.unref()
    this.stops.push(() => clearInterval(timer))
  }

  /** Whether `name` is a live listen key (the WebSocket server accepts it as a stream). */
  isListenKey(name: string): boolean {
    return this.listenKeys.live(name) !== undefined
  }

  /** Called when a connection subscribes to a listen key's stream. */
  watch(listenKey: string): boolean {
    const entry = this.listenKeys.live(listenKey)
    if (entry === undefined) return false
    const k = entry.account + ':' + entry.sub
    let keys = this.keysBySub.get(k)
    if (keys === undefined) this.keysBySub.set(k, keys = new Set())
    keys.add(listenKey)
    return true
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop()
  }

  private forget(listenKey: string, account: string, sub: number): void {
    const k = account + ':' + sub
    const keys = this.keysBySub.get(k)
    if (keys === undefined) return
    keys.delete(listenKey)
    if (keys.size === 0) this.keysBySub.delete(k)
  }

  private batch(b: CommittedBatch): void {
    const state = this.ctx.state()
    let keysEnded = false
    for (let i = 0; i < b.entries.length; i++) {
      const events = b.results[i]!.events
      this.events.entry(state, b.entries[i]!.time, events, this.wants, this.emit)
      for (const e of events) {
        if ((e.type === 'listenKey' && e.status === 'CLOSED') || (e.type === 'session' && e.status !== 'ACTIVE' && e.status !== 'RSA_KEY')) keysEnded = true
      }
    }
    // A key closed or a session ended, perhaps through another gateway: its streams end now.
    if (keysEnded) this.listenKeys.sweep()
  }

  private readonly wants = (account: string, sub: number): boolean => {
    // Nobody listening at all (the usual case for a gateway under order load): no key to build.
    if (this.keysBySub.size === 0) return false
    const keys = this.keysBySub.get(account + ':' + sub)
    if (keys === undefined) return false
    // Keys whose last connection went away stop costing anything.
    for (const key of keys) if (!this.hub.has(key)) keys.delete(key)
    if (keys.size === 0) this.keysBySub.delete(account + ':' + sub)
    return keys.size > 0
  }

  private readonly emit = (account: string, sub: number, payload: Payload): void => {
    const keys = this.keysBySub.get(account + ':' + sub)
    if (keys === undefined) return
    const json = JSON.stringify(payload)
    for (const key of keys) this.hub.publish(key, json)
  }
}
