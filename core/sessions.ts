// Trading sessions: one live session per sub-account, created from a wallet signature the
// gateway verified (the log keeps it for the audit), revoked by its owner or replaced by a
// newer one. Nonces only grow, so a signed request to create a session cannot be replayed.

import { ensureSub, findSub, validIssuer } from './accounts.js'
import type { CreateSession, ListenKey, RegisterRsaKey, RevokeSession } from './commands.js'
import type { Event, Result, SessionEvent } from './events.js'
import { LIMITS } from './limits.js'
import { accept, reject } from './results.js'
import type { Session, State } from './state.js'

const API_KEY = /^[A-Za-z0-9]{64}$/
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/
const PERMISSIONS: ReadonlySet<string> = new Set(['TRADE', 'USER_DATA', 'WITHDRAW'])
/** SPKI PEM's shape: base64 lines of at most 64 characters between the armour lines. */
const SPKI_PEM = /^-----BEGIN PUBLIC KEY-----\n(?:[A-Za-z0-9+/=]{1,64}\n){1,16}-----END PUBLIC KEY-----\n$/

function sessionEvent(s: Session, status: SessionEvent['status'], time: number): SessionEvent {
  return { type: 'session', account: s.account, sub: s.sub, apiKey: s.apiKey, permissions: s.permissions,
    expiresAt: s.expiresAt, status, time }
}

function validPermissions(p: unknown): p is string[] {
  return Array.isArray(p) && p.length > 0 && p.length <= PERMISSIONS.size &&
    p.every((x) => typeof x === 'string' && PERMISSIONS.has(x)) && new Set(p).size === p.length
}

export function createSession(state: State, cmd: CreateSession, time: number): Result {
  if (!validIssuer(cmd)) return reject('ACCOUNT_INVALID')
  if (typeof cmd.apiKey !== 'string' || !API_KEY.test(cmd.apiKey)) return reject('SESSION_INVALID')
  if (typeof cmd.signature !== 'string' || !SIGNATURE.test(cmd.signature)) return reject('SESSION_INVALID')
  if (!validPermissions(cmd.permissions)) return reject('SESSION_INVALID')
  const exp = cmd.expiresAt
  if (!Number.isSafeInteger(exp) || exp <= time || exp > time + LIMITS.sessionLifetimeMaxMs) return reject('SESSION_INVALID')
  if (!Number.isSafeInteger(cmd.nonce) || cmd.nonce <= 0) return reject('SESSION_INVALID')
  if (cmd.rsaPublicKey !== undefined && !validRsaPem(cmd.rsaPublicKey)) return reject('SESSION_INVALID')
  if (state.sessions.has(cmd.apiKey)) return reject('SESSION_INVALID')
  const existing = findSub(state, cmd)
  if (existing && cmd.nonce <= existing.lastNonce) return reject('SESSION_NONCE_USED')

  const sub = ensureSub(state, cmd)
  const events: Event[] = []
  const old = state.sessions.get(sub.sessionKey)
  if (old) {
    state.sessions.delete(old.apiKey)
    events.push(sessionEvent(old, 'REPLACED', time))
  }
  const s: Session = { apiKey: cmd.apiKey, account: sub.address, sub: sub.sub, permissions: [...cmd.permissions],
    expiresAt: exp, createdAt: time, signature: cmd.signature }
  if (cmd.rsaPublicKey !== undefined) s.rsaPublicKey = cmd.rsaPublicKey
  state.sessions.set(s.apiKey, s)
  sub.sessionKey = s.apiKey
  sub.lastNonce = cmd.nonce
  events.push(sessionEvent(s, 'ACTIVE', time))
  return accept(events)
}

export function revokeSession(state: State, cmd: RevokeSession, time: number): Result {
  const s = typeof cmd.apiKey === 'string' ? state.sessions.get(cmd.apiKey) : undefined
  if (!s || s.account !== cmd.account || s.sub !== cmd.sub) return reject('SESSION_UNKNOWN')
  state.sessions.delete(s.apiKey)
  findSub(state, cmd)!.sessionKey = ''
  return accept([sessionEvent(s, 'REVOKED', time)])
}

/** Attaches an RSA public key to the issuer's live session (a later one replaces it). */
export function registerRsaKey(state: State, cmd: RegisterRsaKey, time: number): Result {
  const s = typeof cmd.apiKey === 'string' ? state.sessions.get(cmd.apiKey) : undefined
  if (!s || s.account !== cmd.account || s.sub !== cmd.sub) return reject('SESSION_UNKNOWN')
  if (!validRsaPem(cmd.publicKey)) return reject('SESSION_INVALID')
  s.rsaPublicKey = cmd.publicKey
  return accept([sessionEvent(s, 'RSA_KEY', time)])
}

/**
 * Opens, extends or closes one of the issuer's listen keys (futures, or spot with stream
 * SPOT). Liveness is by entry time, so a key that ran out is unknown to KEEPALIVE and CLOSE,
 * and OPEN starts it afresh.
 */
export function listenKey(state: State, cmd: ListenKey, time: number): Result {
  const s = typeof cmd.apiKey === 'string' ? state.sessions.get(cmd.apiKey) : undefined
  if (!s || s.account !== cmd.account || s.sub !== cmd.sub) return reject('SESSION_UNKNOWN')
  if (cmd.stream !== undefined && cmd.stream !== 'SPOT') return reject('COMMAND_INVALID')
  const field = cmd.stream === 'SPOT' ? 'spotListenKeyUntil' : 'listenKeyUntil'
  const live = (s[field] ?? 0) > time
  let status: 'OPEN' | 'EXTENDED' | 'CLOSED'
  if (cmd.action === 'OPEN') status = live ? 'EXTENDED' : 'OPEN'
  else if (cmd.action === 'KEEPALIVE' || cmd.action === 'CLOSE') {
    if (!live) return reject('LISTEN_KEY_UNKNOWN')
    status = cmd.action === 'CLOSE' ? 'CLOSED' : 'EXTENDED'
  } else return reject('COMMAND_INVALID')
  const expiresAt = status === 'CLOSED' ? 0 : time + LIMITS.listenKeyTtlMs
  s[field] = expiresAt
  return accept([{ type: 'listenKey', account: s.account, sub: s.sub, apiKey: s.apiKey, expiresAt, status,
    ...(cmd.stream === 'SPOT' ? { stream: 'SPOT' as const } : {}), time }])
}

/** The shape of an SPKI PEM within its bound; the gateway parsed the key itself. */
function validRsaPem(pem: unknown): pem is string {
  return typeof pem === 'string' && pem.length <= LIMITS.rsaPublicKeyPemLengthMax && SPKI_PEM.test(pem)
}
