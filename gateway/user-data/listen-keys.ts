// Listen keys of the user data stream (API.md "User data stream"): one per session, valid 60
// minutes from its creation or last keep-alive. A POST while one is live returns the same key
// and extends it, as Binance does. Keys live in this gateway's memory: a client creates and
// connects on the same gateway. The key is derived from the master secret and the API key, so
// it names its session without a table, and reveals neither.

import { createHmac } from 'node:crypto'
import type { Session } from '../../core/state.js'

export const LISTEN_KEY_TTL_MS = 60 * 60_000

export interface ListenKeyEntry {
  listenKey: string
  apiKey: string
  account: string
  sub: number
  expiresAt: number
}

type Listener = (entry: ListenKeyEntry, why: 'expired' | 'closed') => void

export class ListenKeys {
  private readonly byKey = new Map<string, ListenKeyEntry>()
  private readonly listeners = new Set<Listener>()

  /** `sessionLive` tells whether an API key's session still stands (not revoked, replaced or expired). */
  constructor(private readonly masterSecret: Uint8Array, private readonly now: () => number,
    private readonly sessionLive: (apiKey: string) => boolean, private readonly ttlMs = LISTEN_KEY_TTL_MS) {}

  keyOf(apiKey: string): string {
    return createHmac('sha256', this.masterSecret).update('listenKey\0' + apiKey).digest('hex')
  }

  /** Creates the session's key, or extends the live one. */
  open(session: Session): ListenKeyEntry {
    const listenKey = this.keyOf(session.apiKey)
    const entry = this.live(listenKey) ?? { listenKey, apiKey: session.apiKey, account: session.account, sub: session.sub, expiresAt: 0 }
    entry.expiresAt = this.now() + this.ttlMs
    this.byKey.set(listenKey, entry)
    return entry
  }

  /** Extends the session's live key; undefined when it has none. */
  keepAlive(session: Session): ListenKeyEntry | undefined {
    const entry = this.live(this.keyOf(session.apiKey))
    if (entry) entry.expiresAt = this.now() + this.ttlMs
    return entry
  }

  /** Invalidates the session's key; its streams end. False when it had none. */
  close(session: Session): boolean {
    const entry = this.live(this.keyOf(session.apiKey))
    if (!entry) return false
    this.byKey.delete(entry.listenKey)
    for (const l of this.listeners) l(entry, 'closed')
    return true
  }

  /** The live entry of a key, or undefined (unknown, closed or expired). */
  live(listenKey: string): ListenKeyEntry | undefined {
    const entry = this.byKey.get(listenKey)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= this.now() || !this.sessionLive(entry.apiKey)) {
      this.expire(entry)
      return undefined
    }
    return entry
  }

  /** Ends every key past its time; the stream server calls this on a timer. */
  sweep(): void {
    const now = this.now()
    for (const entry of [...this.byKey.values()]) {
      if (entry.expiresAt <= now || !this.sessionLive(entry.apiKey)) this.expire(entry)
    }
  }

  /** Hears of keys that end, to close their streams (with listenKeyExpired when expired). */
  onEnd(listener: Listener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private expire(entry: ListenKeyEntry): void {
    this.byKey.delete(entry.listenKey)
    for (const l of this.listeners) l(entry, 'expired')
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The gateway's listen keys (decorated in app.ts), for the WebSocket server. */
    listenKeys: ListenKeys
  }
}
