// Authentication of keyed and signed requests: the API key names a live session in the
// replica state; its HMAC secret is derived from the gateway master secret; the signature
// covers the raw query string followed by the raw body, as sent, without `signature`; the
// timestamp must fall inside recvWindow. Keys carry permissions (TRADE, USER_DATA, WITHDRAW).

import { createHmac, createSecretKey, randomInt, timingSafeEqual, type KeyObject } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import type { Session, SubAccount } from '../core/state.js'
import type { GatewayContext } from './context.js'
import {
  badApiKeyFormat, invalidParam, invalidSignature, mandatoryParam, permissionDenied, rejectedApiKey,
  timestampAhead, timestampOutsideRecvWindow,
} from './errors.js'
import { checkDuplicates, rawRequest, type RawRequest } from './params.js'
import { publicKeySignatureValid } from './public-keys.js'
import { MICROSECONDS_FROM } from './time-unit.js'

export type Security = 'USER_STREAM' | 'MARKET_DATA' | 'TRADE' | 'USER_DATA'

const API_KEY = /^[A-Za-z0-9]{64}$/
const RECV_WINDOW_DEFAULT = 5000
const RECV_WINDOW_MAX = 60_000
/** A request may be stamped up to this far ahead of the server clock. */
const AHEAD_MS = 1000

export interface Authenticated extends Omit<RawRequest, 'duplicate'> {
  session: Session
  /** The session's sub-account, when it holds anything yet. */
  sub: SubAccount | undefined
}

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A new API key: 64 letters and digits, uniformly random. */
export function newApiKey(): string {
  let key = ''
  for (let i = 0; i < 64; i++) key += KEY_ALPHABET[randomInt(KEY_ALPHABET.length)]
  return key
}

/** The HMAC secret of a session: HMAC-SHA256(master secret, apiKey), hex. */
export function secretFor(masterSecret: Uint8Array, apiKey: string): string {
  return createHmac('sha256', masterSecret).update(apiKey).digest('hex')
}

/**
 * Each session's HMAC key, derived once rather than per request (one HMAC per signed request
 * instead of two), as a KeyObject so the key is not imported again on every request. Keyed by
 * master secret, then apiKey; cleared when full, as any entry can be derived again.
 */
const sessionKeys = new WeakMap<Uint8Array, Map<string, KeyObject>>()
const SESSION_KEYS_MAX = 100_000

function sessionKey(masterSecret: Uint8Array, apiKey: string): KeyObject {
  let keys = sessionKeys.get(masterSecret)
  if (keys === undefined) sessionKeys.set(masterSecret, keys = new Map())
  let key = keys.get(apiKey)
  if (key === undefined) {
    if (keys.size >= SESSION_KEYS_MAX) keys.clear()
    key = createSecretKey(Buffer.from(secretFor(masterSecret, apiKey)))
    keys.set(apiKey, key)
  }
  return key
}

/** The raw text with every `signature=` parameter removed (the rest stays byte for byte). */
export function withoutSignature(raw: string): string {
  const at = raw.indexOf('signature=')
  if (at < 0) return raw
  // The usual case, one signature sent last, without splitting the whole text.
  if ((at === 0 || raw.charCodeAt(at - 1) === 38 /* & */) && raw.indexOf('&', at) < 0) return at === 0 ? '' : raw.slice(0, at - 1)
  return raw.split('&').filter((p) => !p.startsWith('signature=')).join('&')
}

export function checkSignature(ctx: GatewayContext, session: Session, r: Omit<RawRequest, 'duplicate'>): void {
  const given = r.params.get('signature')
  if (given === undefined || given === '') throw mandatoryParam('signature')
  const payload = withoutSignature(r.rawQuery) + withoutSignature(r.rawBody)
  // An HMAC signature is 64 hex digits; anything else is the key's (RSA or Ed25519) if the session has one.
  if (session.rsaPublicKey !== undefined && given.length !== 64) {
    if (!publicKeySignatureValid(session.rsaPublicKey, payload, given)) throw invalidSignature()
    return
  }
  const expected = createHmac('sha256', sessionKey(ctx.masterSecret, session.apiKey)).update(payload).digest()
  const sig = given.toLowerCase()
  if (!/^[0-9a-f]{64}$/.test(sig) || !timingSafeEqual(Buffer.from(sig, 'hex'), expected)) throw invalidSignature()
}

/**
 * The timing rule: timestamp < server + 1000 and server - timestamp <= recvWindow. As Binance
 * spot reads them, whatever X-MBX-TIME-UNIT says (it sets the answer's unit): `timestamp` in ms
 * or µs, told apart by size; `recvWindow` in ms, with up to three decimals (µs).
 */
export function checkTiming(ctx: GatewayContext, r: Pick<RawRequest, 'params'>): void {
  const ts = r.params.get('timestamp')
  if (ts === undefined || ts === '') throw mandatoryParam('timestamp')
  if (!/^\d{1,19}$/.test(ts)) throw invalidParam('timestamp')
  const sent = Number(ts)
  const timestamp = sent >= MICROSECONDS_FROM ? sent / 1000 : sent
  const rw = r.params.get('recvWindow')
  let recvWindow = RECV_WINDOW_DEFAULT
  if (rw !== undefined) {
    recvWindow = Number(rw)
    if (!/^\d+(\.\d{1,3})?$/.test(rw) || recvWindow <= 0 || recvWindow > RECV_WINDOW_MAX) throw invalidParam('recvWindow')
  }
  const now = ctx.now()
  if (timestamp >= now + AHEAD_MS) throw timestampAhead()
  if (now - timestamp > recvWindow) throw timestampOutsideRecvWindow()
}

/** The live session an API key names, or the Binance error for a missing or bad one. */
export function sessionOf(ctx: GatewayContext, req: FastifyRequest): Session {
  return sessionByKey(ctx, req.headers['x-mbx-apikey'])
}

/** The live session of an API key however it was sent (header, WebSocket API params). */
export function sessionByKey(ctx: GatewayContext, key: unknown): Session {
  if (typeof key !== 'string' || !API_KEY.test(key)) throw badApiKeyFormat()
  const session = ctx.state().sessions.get(key)
  if (!session || session.expiresAt <= ctx.now()) throw rejectedApiKey()
  return session
}

/** Authenticates a request of the given security type; signed types check signature and time. */
export function authenticate(ctx: GatewayContext, req: FastifyRequest, security: Security): Authenticated {
  const session = sessionOf(ctx, req)
  const r = rawRequest(req)
  checkDuplicates(r)
  if (security === 'TRADE' || security === 'USER_DATA') {
    checkSignature(ctx, session, r)
    checkTiming(ctx, r)
    if (!session.permissions.includes(security)) throw permissionDenied()
  }
  const sub = ctx.state().accounts.get(session.account)?.subs[session.sub]
  return { rawQuery: r.rawQuery, rawBody: r.rawBody, params: r.params, session, sub }
}
