// Listen keys of the user data streams (API.md "User data stream"): one per session and
// stream (futures, and spot's /api/v3/userDataStream), valid 60 minutes from its creation or
// last keep-alive. A POST while one is live returns the same key and extends it, as Binance
// does. Opening, extending and closing go through the log (the ListenKey command), so every
// gateway agrees whether a key is live: a client may create the key on one gateway, keep it
// alive on a second and stream from a third. The key's name is derived from the master
// secret, the stream and the API key, so it names its session without a table and reveals
// neither.

import { createHmac } from 'node:crypto'
import type { ListenKey } from '../../core/commands.js'
import type { Session } from '../../core/state.js'
import type { GatewayContext } from '../context.js'
import { fromCore, invalidListenKey } from '../errors.js'
import { required, type Params } from '../market-params.js'

/** Which user data stream a key serves: each has its own keys and its own events. */
export type UserStream = 'FUTURES' | 'SPOT'

export interface ListenKeyEntry {
  listenKey: string
  stream: UserStream
  apiKey: string
  account: string
  sub: number
  expiresAt: number
}

type Listener = (entry: ListenKeyEntry, why: 'expired' | 'closed') => void

export class ListenKeys {
  /** API key by listen key and back, for the sessions this gateway has derived a key for. */
  private readonly apiKeyOf = new Map<string, string>()
  private readonly keyByApiKey = new Map<string, string>()
  /** Keys this gateway opened or served while live: the ones `sweep` watches end. */
  private readonly known = new Map<string, ListenKeyEntry>()
  private readonly listeners = new Set<Listener>()

  /** `sessionLive` tells whether an API key's session still stands (not revoked, replaced or expired). */
  constructor(private readonly masterSecret: Uint8Array, private readonly ctx: Pick<GatewayContext, 'state' | 'submit' | 'now'>,
    readonly sessionLive: (apiKey: string) => boolean, readonly stream: UserStream = 'FUTURES') {}

  keyOf(apiKey: string): string {
    let key = this.keyByApiKey.get(apiKey)
    if (key === undefined) {
      // Each stream's keys are derived under their own label, so a session's two keys differ.
      const label = this.stream === 'SPOT' ? 'spotListenKey\0' : 'listenKey\0'
      key = createHmac('sha256', this.masterSecret).update(label + apiKey).digest('hex')
      this.keyByApiKey.set(apiKey, key)
      this.apiKeyOf.set(key, apiKey)
    }
    return key
  }

  /**
   * A listenKey a request sends must be this session's: another's is refused rather than
   * extended or closed. Futures requests may leave it out (the session names its key); spot's
   * must send it, as Binance spot's do.
   */
  checkSent(apiKey: string, params: Params): void {
    const sent = this.stream === 'SPOT' ? required(params, 'listenKey') : params.get('listenKey')
    if (sent !== undefined && sent !== this.keyOf(apiKey)) throw invalidListenKey()
  }

  /** Creates the session's key, or extends the live one. */
  async open(session: Session): Promise<ListenKeyEntry> {
    const entry = await this.submit(session, 'OPEN')
    if (entry === undefined) throw new Error('listen key not live right after opening')
    return entry
  }

  /** Extends the session's live key; undefined when it has none. */
  keepAlive(session: Session): Promise<ListenKeyEntry | undefined> {
    return this.submit(session, 'KEEPALIVE')
  }

  /** Invalidates the session's key; its streams end. False when it had none. */
  async close(session: Session): Promise<boolean> {
    const key = this.keyOf(session.apiKey)
    if (this.live(key) === undefined) return false
    const ack = await this.ctx.submit(this.command(session, 'CLOSE'))
    if (!ack.result.ok) {
      if (ack.result.code === 'LISTEN_KEY_UNKNOWN') return false
      throw fromCore(ack.result.code, { venue: this.venue, op: 'admin' })
    }
    this.sweep()
    return true
  }

  /** The live entry of a key, or undefined (unknown, closed, expired, or its session gone). */
  live(listenKey: string): ListenKeyEntry | undefined {
    const apiKey = this.apiKeyOf.get(listenKey) ?? this.find(listenKey)
    if (apiKey === undefined) return undefined
    const s = this.ctx.state().sessions.get(apiKey)
    const until = s === undefined ? undefined : this.until(s)
    if (s === undefined || !((until ?? 0) > this.ctx.now()) || !this.sessionLive(apiKey)) return undefined
    const entry = { listenKey, stream: this.stream, apiKey, account: s.account, sub: s.sub, expiresAt: until! }
    this.known.set(listenKey, entry)
    return entry
  }

  /**
   * Ends every known key that is no longer live: run on a timer for expiry, and after a
   * committed batch that closed a key or ended a session.
   */
  sweep(): void {
    for (const [key, entry] of [...this.known]) {
      if (this.live(key) !== undefined) continue
      this.known.delete(key)
      const s = this.ctx.state().sessions.get(entry.apiKey)
      const why = s !== undefined && this.until(s) === 0 ? 'closed' : 'expired'
      for (const l of this.listeners) l(entry, why)
    }
  }

  /** Hears of keys that end, to close their streams (with listenKeyExpired when expired). */
  onEnd(listener: Listener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private get venue(): 'futures' | 'spot' {
    return this.stream === 'SPOT' ? 'spot' : 'futures'
  }

  /** Until when the session's key of this stream is live (0 once closed). */
  private until(s: Session): number | undefined {
    return this.stream === 'SPOT' ? s.spotListenKeyUntil : s.listenKeyUntil
  }

  private command(session: Session, action: ListenKey['action']): ListenKey {
    return { type: 'ListenKey', account: session.account, sub: session.sub, apiKey: session.apiKey, action,
      ...(this.stream === 'SPOT' ? { stream: 'SPOT' as const } : {}) }
  }

  private async submit(session: Session, action: 'OPEN' | 'KEEPALIVE'): Promise<ListenKeyEntry | undefined> {
    const ack = await this.ctx.submit(this.command(session, action))
    if (!ack.result.ok) {
      if (ack.result.code === 'LISTEN_KEY_UNKNOWN') return undefined
      throw fromCore(ack.result.code, { venue: this.venue, op: 'admin' })
    }
    return this.live(this.keyOf(session.apiKey))
  }

  /**
   * A key first seen here (made on another gateway): derives the keys of sessions not yet
   * derived, each once, so unknown keys sent again cost map lookups only.
   */
  private find(listenKey: string): string | undefined {
    if (!/^[0-9a-f]{64}$/.test(listenKey)) return undefined
    for (const apiKey of this.ctx.state().sessions.keys()) {
      if (!this.keyByApiKey.has(apiKey)) this.keyOf(apiKey)
    }
    return this.apiKeyOf.get(listenKey)
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The gateway's futures listen keys (decorated in app.ts), for the WebSocket server. */
    listenKeys: ListenKeys
    /** Its spot listen keys (/api/v3/userDataStream), likewise. */
    spotListenKeys: ListenKeys
  }
}
