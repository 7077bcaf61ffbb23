// Sessions: one live session per sub-account, replaced by a newer one, revoked by its
// owner; nonces only grow; bounds on lifetime and shape; kept by snapshots and the root.

import t from 'tap'
import type { Command, CreateSession, ListenKey } from '../../core/commands.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { ALICE, BOB, TestExchange } from '../helpers/exchange.js'

const DAY = 86_400_000
const key = (c: string): string => c.repeat(64)
const SIG = '0x' + 'ab'.repeat(65)

function session(ex: TestExchange, o: Partial<CreateSession> = {}): CreateSession {
  return { type: 'CreateSession', account: ALICE, sub: 0, apiKey: key('k'), permissions: ['TRADE', 'USER_DATA'],
    expiresAt: ex.time + DAY, nonce: ex.time, signature: SIG, ...o }
}

const code = (ex: TestExchange, c: Command): string => {
  const r = ex.run(c)
  return r.ok ? 'OK' : r.code
}

t.test('create, replace, revoke', async (t) => {
  const ex = new TestExchange()
  const first = ex.ok(session(ex))
  t.same(first.events.map((e) => e.type === 'session' && e.status), ['ACTIVE'])
  t.equal(ex.sub(ALICE).sessionKey, key('k'))
  const second = ex.ok(session(ex, { apiKey: key('m'), nonce: ex.time + 5 }))
  t.same(second.events.map((e) => e.type === 'session' && [e.apiKey, e.status]), [[key('k'), 'REPLACED'], [key('m'), 'ACTIVE']])
  t.notOk(ex.state.sessions.has(key('k')), 'the replaced session is gone')
  t.equal(code(ex, { type: 'RevokeSession', account: BOB, sub: 0, apiKey: key('m') }), 'SESSION_UNKNOWN', 'only its owner revokes it')
  const revoked = ex.ok({ type: 'RevokeSession', account: ALICE, sub: 0, apiKey: key('m') })
  t.same(revoked.events.map((e) => e.type === 'session' && e.status), ['REVOKED'])
  t.equal(ex.state.sessions.size, 0)
  t.equal(ex.sub(ALICE).sessionKey, '')
})

t.test('rejections change nothing', async (t) => {
  const ex = new TestExchange()
  ex.ok(session(ex, { nonce: 1000 }))
  const before = stateRoot(ex.state)
  const rows: [string, Partial<CreateSession>, string][] = [
    ['a reused nonce', { apiKey: key('n'), nonce: 1000 }, 'SESSION_NONCE_USED'],
    ['an older nonce', { apiKey: key('n'), nonce: 999 }, 'SESSION_NONCE_USED'],
    ['an apiKey in use', { nonce: 2000 }, 'SESSION_INVALID'],
    ['a short apiKey', { apiKey: 'abc', nonce: 2000 }, 'SESSION_INVALID'],
    ['no permissions', { apiKey: key('n'), nonce: 2000, permissions: [] }, 'SESSION_INVALID'],
    ['an unknown permission', { apiKey: key('n'), nonce: 2000, permissions: ['ADMIN' as 'TRADE'] }, 'SESSION_INVALID'],
    ['a repeated permission', { apiKey: key('n'), nonce: 2000, permissions: ['TRADE', 'TRADE'] }, 'SESSION_INVALID'],
    ['already expired', { apiKey: key('n'), nonce: 2000, expiresAt: 1 }, 'SESSION_INVALID'],
    ['more than 30 days', { apiKey: key('n'), nonce: 2000, expiresAt: ex.time + 31 * DAY }, 'SESSION_INVALID'],
    ['a malformed signature', { apiKey: key('n'), nonce: 2000, signature: '0x12' }, 'SESSION_INVALID'],
    ['a bad account', { apiKey: key('n'), nonce: 2000, account: 'alice' }, 'ACCOUNT_INVALID'],
  ]
  for (const [name, o, expected] of rows) {
    t.equal(code(ex, session(ex, o)), expected, name)
    t.equal(stateRoot(ex.state), before, `${name}: root unchanged`)
  }
})

t.test('sessions survive a snapshot and count in the root', async (t) => {
  const ex = new TestExchange()
  const empty = stateRoot(ex.state)
  ex.ok(session(ex))
  const root = stateRoot(ex.state)
  t.not(root, empty)
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(stateRoot(restored), root)
  t.same(restored.sessions.get(key('k')), ex.state.sessions.get(key('k')))
  t.equal(restored.accounts.get(ALICE)!.subs[0]!.lastNonce, ex.sub(ALICE).lastNonce)
})

t.test('a listen key lives 60 minutes from its opening or last keep-alive, by entry time', async (t) => {
  const ex = new TestExchange()
  ex.ok(session(ex))
  const lk = (action: 'OPEN' | 'KEEPALIVE' | 'CLOSE', account = ALICE): Command => ({ type: 'ListenKey', account, sub: 0, apiKey: key('k'), action })
  const s = (): { listenKeyUntil?: number } => ex.state.sessions.get(key('k'))!
  t.equal(code(ex, lk('KEEPALIVE')), 'LISTEN_KEY_UNKNOWN', 'nothing to keep alive before opening')
  t.equal(code(ex, lk('OPEN', BOB)), 'SESSION_UNKNOWN', 'only the session owner opens its key')
  const rootBefore = stateRoot(ex.state)
  const opened = ex.ok(lk('OPEN'))
  t.same(opened.events, [{ type: 'listenKey', account: ALICE, sub: 0, apiKey: key('k'), expiresAt: ex.time + 3_600_000, status: 'OPEN', time: ex.time }])
  t.not(stateRoot(ex.state), rootBefore, 'the root covers it')
  t.same(decodeSnapshot(encodeSnapshot(ex.state)).sessions.get(key('k'))!.listenKeyUntil, ex.time + 3_600_000, 'and the snapshot')

  const openedAt = ex.time
  ex.ok({ type: 'Tick' }, 59 * 60_000)
  t.same(ex.ok(lk('KEEPALIVE')).events.map((e) => e.type === 'listenKey' && [e.status, e.expiresAt]), [['EXTENDED', ex.time + 3_600_000]])
  t.same(ex.ok(lk('OPEN')).events.map((e) => e.type === 'listenKey' && e.status), ['EXTENDED'], 'opening a live key extends it')
  t.ok(s().listenKeyUntil! > openedAt + 3_600_000)
  ex.ok({ type: 'Tick' }, 60 * 60_000)
  t.equal(code(ex, lk('KEEPALIVE')), 'LISTEN_KEY_UNKNOWN', 'run out an hour after the last extension')
  t.equal(code(ex, lk('CLOSE')), 'LISTEN_KEY_UNKNOWN')
  t.same(ex.ok(lk('OPEN')).events.map((e) => e.type === 'listenKey' && e.status), ['OPEN'], 'opened afresh')
  t.same(ex.ok(lk('CLOSE')).events.map((e) => e.type === 'listenKey' && [e.status, e.expiresAt]), [['CLOSED', 0]])
  t.equal(s().listenKeyUntil, 0)
  t.equal(code(ex, lk('CLOSE')), 'LISTEN_KEY_UNKNOWN', 'closed once')
  t.equal(code(ex, { type: 'ListenKey', account: ALICE, sub: 0, apiKey: key('k'), action: 'RENEW' as 'OPEN' }), 'COMMAND_INVALID')
})

t.test("a session's spot listen key is a second key, with its own life and its own leaf", async (t) => {
  const ex = new TestExchange()
  ex.ok(session(ex))
  const lk = (action: 'OPEN' | 'KEEPALIVE' | 'CLOSE', stream?: 'SPOT'): ListenKey =>
    ({ type: 'ListenKey', account: ALICE, sub: 0, apiKey: key('k'), action, ...(stream ? { stream } : {}) })
  const s = (): { listenKeyUntil?: number; spotListenKeyUntil?: number } => ex.state.sessions.get(key('k'))!
  ex.ok(lk('OPEN'))
  const futuresUntil = s().listenKeyUntil
  t.equal(code(ex, lk('KEEPALIVE', 'SPOT')), 'LISTEN_KEY_UNKNOWN', 'the futures key does not make a spot key')
  ex.ok({ type: 'Tick' }, 60_000)
  const rootBefore = stateRoot(ex.state)
  t.same(ex.ok(lk('OPEN', 'SPOT')).events, [{ type: 'listenKey', account: ALICE, sub: 0, apiKey: key('k'),
    expiresAt: ex.time + 3_600_000, status: 'OPEN', stream: 'SPOT', time: ex.time }])
  t.equal(s().listenKeyUntil, futuresUntil, 'the futures key is not extended')
  t.not(stateRoot(ex.state), rootBefore, 'the root covers the spot key')
  t.equal(decodeSnapshot(encodeSnapshot(ex.state)).sessions.get(key('k'))!.spotListenKeyUntil, ex.time + 3_600_000, 'and the snapshot')
  t.same(ex.ok(lk('CLOSE', 'SPOT')).events.map((e) => e.type === 'listenKey' && [e.status, e.stream]), [['CLOSED', 'SPOT']])
  t.equal(s().spotListenKeyUntil, 0)
  t.equal(s().listenKeyUntil, futuresUntil, 'closing the spot key leaves the futures key')
  t.equal(code(ex, { ...lk('OPEN'), stream: 'MARGIN' as 'SPOT' }), 'COMMAND_INVALID')
})
