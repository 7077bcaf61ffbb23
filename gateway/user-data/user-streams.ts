// The user data streams' delivery. Two streams, futures (events.ts) and spot (spot-events.ts),
// each reached two ways:
// - a listen key is a stream name on the WebSocket hub, so a connection to /ws/<listenKey>
//   (or a combined or /private form) receives that sub-account's events like any market
//   stream; futures keys carry the futures events, spot keys the spot events;
// - a WebSocket API subscription (userDataStream.subscribe on /ws-api/v3) receives the spot
//   events directly, for as long as its session stands.
// Events are built from every committed batch, only for sub-accounts someone listens to, and
// never reach another sub-account's keys or subscriptions.

import type { Session } from '../../core/state.js'
import type { CommittedBatch, GatewayContext } from '../context.js'
import type { StreamHub } from '../ws/hub.js'
import { UserEvents, type Emit, type Payload, type Wants } from './events.js'
import type { ListenKeys, UserStream } from './listen-keys.js'
import { SpotUserEvents } from './spot-events.js'

/** A WebSocket API subscription: where its events go, and what to do when its session ends. */
export interface Subscriber {
  deliver(payload: Payload): void
  /** The session ended (revoked, replaced or expired): the subscription is gone. */
  ended(): void
}

/** One stream: its keys, its event builder, and who listens to whom. */
class Channel {
  /** Live keys with at least one connection, by "account:sub". */
  readonly keysBySub = new Map<string, Set<string>>()
  /** WebSocket API subscriptions by "account:sub", each with its session's API key. */
  readonly subscribers = new Map<string, Map<Subscriber, string>>()

  constructor(readonly keys: ListenKeys, readonly events: UserEvents | SpotUserEvents, private readonly hub: StreamHub) {}

  readonly wants: Wants = (account, sub) => {
    // Nobody listening at all (the usual case for a gateway under order load): no payload to build.
    if (this.keysBySub.size === 0 && this.subscribers.size === 0) return false
    const k = account + ':' + sub
    if (this.subscribers.has(k)) return true
    const keys = this.keysBySub.get(k)
    if (keys === undefined) return false
    // Keys whose last connection went away stop costing anything.
    for (const key of keys) if (!this.hub.has(key)) keys.delete(key)
    if (keys.size === 0) this.keysBySub.delete(k)
    return keys.size > 0
  }

  readonly emit: Emit = (account, sub, payload) => {
    const k = account + ':' + sub
    const keys = this.keysBySub.get(k)
    if (keys !== undefined) {
      const json = JSON.stringify(payload)
      for (const key of keys) this.hub.publish(key, json)
    }
    for (const s of this.subscribers.get(k)?.keys() ?? []) s.deliver(payload)
  }

  watch(listenKey: string): boolean {
    const entry = this.keys.live(listenKey)
    if (entry === undefined) return false
    const k = entry.account + ':' + entry.sub
    let keys = this.keysBySub.get(k)
    if (keys === undefined) this.keysBySub.set(k, keys = new Set())
    keys.add(listenKey)
    return true
  }

  forget(listenKey: string, account: string, sub: number): void {
    const k = account + ':' + sub
    const keys = this.keysBySub.get(k)
    if (keys === undefined) return
    keys.delete(listenKey)
    if (keys.size === 0) this.keysBySub.delete(k)
  }

  subscribe(session: Session, s: Subscriber): () => void {
    const k = session.account + ':' + session.sub
    let subs = this.subscribers.get(k)
    if (subs === undefined) this.subscribers.set(k, subs = new Map())
    subs.set(s, session.apiKey)
    return () => this.unsubscribe(k, s)
  }

  /** Ends the subscriptions whose session no longer stands. */
  endLapsed(): void {
    for (const [k, subs] of [...this.subscribers]) {
      for (const [s, apiKey] of [...subs]) {
        if (this.keys.sessionLive(apiKey)) continue
        this.unsubscribe(k, s)
        s.ended()
      }
    }
  }

  private unsubscribe(k: string, s: Subscriber): void {
    const subs = this.subscribers.get(k)
    if (subs === undefined) return
    subs.delete(s)
    if (subs.size === 0) this.subscribers.delete(k)
  }
}

export class UserStreams {
  private readonly channels: Record<UserStream, Channel>
  private readonly stops: (() => void)[] = []
  private readonly closedListeners: ((listenKey: string) => void)[] = []

  constructor(private readonly ctx: GatewayContext, keys: Record<UserStream, ListenKeys>, private readonly hub: StreamHub, sweepMs = 10_000) {
    this.channels = { FUTURES: new Channel(keys.FUTURES, new UserEvents(), hub), SPOT: new Channel(keys.SPOT, new SpotUserEvents(), hub) }
    for (const c of Object.values(this.channels)) {
      c.events.seed(ctx.state())
      this.stops.push(c.keys.onEnd((entry, why) => {
        if (why === 'expired') hub.publish(entry.listenKey, { e: 'listenKeyExpired', E: ctx.now(), listenKey: entry.listenKey })
        c.forget(entry.listenKey, entry.account, entry.sub)
        // Closed by its owner (DELETE): its stream closes, as Binance's does, so no connection
        // is left open on a key that delivers nothing (a POST may give the same key again).
        if (why === 'closed') for (const l of this.closedListeners) l(entry.listenKey)
      }))
    }
    if (ctx.onCommitted) this.stops.push(ctx.onCommitted((b) => this.batch(b)))
    const timer = setInterval(() => this.sweep(), sweepMs)
    timer.unref()
    this.stops.push(() => clearInterval(timer))
  }

  /** Whether `name` is a live listen key of either stream (the WebSocket server accepts it as a stream). */
  isListenKey(name: string): boolean {
    return this.channels.FUTURES.keys.live(name) !== undefined || this.channels.SPOT.keys.live(name) !== undefined
  }

  /** Called when a connection subscribes to a listen key's stream. */
  watch(listenKey: string): boolean {
    return this.channels.FUTURES.watch(listenKey) || this.channels.SPOT.watch(listenKey)
  }

  /** Hears of listen keys their owner closed, to close the connections on them. */
  onKeyClosed(listener: (listenKey: string) => void): void {
    this.closedListeners.push(listener)
  }

  /** A WebSocket API subscription to `session`'s events on `stream`; the returned function ends it. */
  subscribe(stream: UserStream, session: Session, s: Subscriber): () => void {
    return this.channels[stream].subscribe(session, s)
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop()
  }

  /** Ends what ran out: keys (with listenKeyExpired) and subscriptions whose session is gone. */
  private sweep(): void {
    for (const c of Object.values(this.channels)) {
      c.keys.sweep()
      c.endLapsed()
    }
  }

  private rewatch(stream: UserStream, apiKey: string): void {
    const c = this.channels[stream]
    const key = c.keys.keyOf(apiKey)
    if (this.hub.has(key)) c.watch(key)
  }

  private batch(b: CommittedBatch): void {
    const state = this.ctx.state()
    let ended = false
    for (let i = 0; i < b.entries.length; i++) {
      const events = b.results[i]!.events
      const time = b.entries[i]!.time
      for (const c of Object.values(this.channels)) c.events.entry(state, time, events, c.wants, c.emit)
      for (const e of events) {
        if ((e.type === 'listenKey' && e.status === 'CLOSED') || (e.type === 'session' && e.status !== 'ACTIVE' && e.status !== 'RSA_KEY')) ended = true
        // A key live again (a POST after it expired gives the same key): the connections still
        // on it, told listenKeyExpired, receive its events again.
        else if (e.type === 'listenKey' && e.status === 'OPEN') this.rewatch(e.stream === 'SPOT' ? 'SPOT' : 'FUTURES', e.apiKey)
      }
    }
    // A key closed or a session ended, perhaps through another gateway: its streams end now.
    if (ended) this.sweep()
  }
}
