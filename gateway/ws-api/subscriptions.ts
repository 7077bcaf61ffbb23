// One spot WebSocket API connection's user data stream subscriptions (Binance's
// userDataStream.subscribe and .subscribe.signature): each has an id, numbered from 0 on the
// connection, and its events arrive as {subscriptionId, event}. One subscription per
// sub-account per connection. A subscription ends when unsubscribed, when its session ends,
// and, for one made by userDataStream.subscribe on the logged-on session, at session.logout;
// each end is told by an eventStreamTerminated event.

import type { Session } from '../../core/state.js'
import { ApiError } from '../errors.js'
import type { UserStreams } from '../user-data/user-streams.js'

/** Binance's bounds: active subscriptions at once, and ids over a connection's life. */
const ACTIVE_MAX = 1_000
const IDS_MAX = 65_535

interface Active {
  session: Session
  /** Made by userDataStream.subscribe on the logged-on session (session.logout ends it). */
  viaLogon: boolean
  stop: () => void
}

export class StreamSubscriptions {
  private nextId = 0
  private readonly active = new Map<number, Active>()

  constructor(private readonly users: UserStreams, private readonly send: (body: object) => void,
    private readonly now: () => number) {}

  /** Starts a subscription to `session`'s spot events; its id. */
  open(session: Session, viaLogon: boolean): number {
    for (const a of this.active.values()) {
      if (a.session.account === session.account && a.session.sub === session.sub) {
        throw new ApiError(400, -2035, 'User Data Stream subscription already active.')
      }
    }
    if (this.active.size >= ACTIVE_MAX || this.nextId >= IDS_MAX) {
      throw new ApiError(400, -2042, 'Maximum subscription ID reached for this connection.')
    }
    const id = this.nextId++
    const stop = this.users.subscribe('SPOT', session, {
      deliver: (event) => this.send({ subscriptionId: id, event }),
      ended: () => {
        this.active.delete(id)
        this.terminated(id)
      },
    })
    this.active.set(id, { session, viaLogon, stop })
    return id
  }

  /** Ends one subscription, or every one when `id` is undefined; -2036 for an id not active. */
  close(id: number | undefined): void {
    if (id !== undefined && !this.active.has(id)) throw new ApiError(400, -2036, 'User Data Stream subscription not active.')
    for (const k of id === undefined ? [...this.active.keys()] : [id]) this.end(k)
  }

  /** session.logout: ends the subscriptions the logged-on session made. */
  logout(): void {
    for (const [k, a] of [...this.active]) if (a.viaLogon) this.end(k)
  }

  list(): { subscriptionId: number }[] {
    return [...this.active.keys()].map((subscriptionId) => ({ subscriptionId }))
  }

  get any(): boolean {
    return this.active.size > 0
  }

  /** The connection closed: everything stops, with nobody left to tell. */
  dispose(): void {
    for (const a of this.active.values()) a.stop()
    this.active.clear()
  }

  private end(id: number): void {
    const a = this.active.get(id)
    if (a === undefined) return
    this.active.delete(id)
    a.stop()
    // After the answer to the request that ended it, as the request's own effect.
    setImmediate(() => this.terminated(id))
  }

  private terminated(id: number): void {
    this.send({ subscriptionId: id, event: { e: 'eventStreamTerminated', E: this.now() } })
  }
}
