// Rules versions (core/rules.ts): a declaration moves the state's rules forward, shows in the
// root and the snapshot (an undeclared state hashes and encodes as before), refuses what would
// go back or is malformed without changing anything, and a declaration newer than this build's
// stops the replay instead of being refused (a refusal every build would have to repeat).

import t from 'tap'
import { apply } from '../../core/apply.js'
import type { Command } from '../../core/commands.js'
import { stateRoot } from '../../core/root.js'
import { RULES_VERSION, RulesUnsupportedError, rulesOf, UNDECLARED_RULES } from '../../core/rules.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { ALICE, TestExchange } from '../helpers/exchange.js'
import { limit } from '../helpers/commands.js'

const declare = (version: number): Command => ({ type: 'SetRules', version })

t.test('a declaration sets the rules, enters the root and the snapshot', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 10_000)
  t.equal(ex.state.rules, 0, 'a log starts undeclared')
  t.equal(rulesOf(ex.state), UNDECLARED_RULES, 'and applies the rules of the builds before versioning')
  const undeclaredRoot = stateRoot(ex.state)
  const undeclaredBytes = Buffer.from(encodeSnapshot(ex.state))
  t.equal(stateRoot(decodeSnapshot(undeclaredBytes)), undeclaredRoot, 'an undeclared snapshot restores as before')
  t.equal(decodeSnapshot(undeclaredBytes).rules, 0)

  const r = ex.ok(declare(RULES_VERSION))
  t.same(r.events, [], 'a declaration reports no event')
  t.equal(ex.state.rules, RULES_VERSION)
  t.equal(rulesOf(ex.state), RULES_VERSION)
  const declaredRoot = stateRoot(ex.state)
  t.not(declaredRoot, undeclaredRoot, 'the declared rules are part of the state root')
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(restored.rules, RULES_VERSION, 'the snapshot keeps them')
  t.equal(stateRoot(restored), declaredRoot)
  t.ok(ex.run(limit(ALICE, 'BUY', 490_000, 10)).ok, 'trading goes on under them')
})

t.test('refused declarations change nothing', async (t) => {
  const ex = new TestExchange()
  ex.ok(declare(RULES_VERSION))
  const root = stateRoot(ex.state)
  for (const [what, version] of [['the same version again', RULES_VERSION], ['an older one', RULES_VERSION - 1], ['zero', 0],
    ['a negative one', -1], ['a fraction', 1.5], ['not a number', '1' as unknown as number], ['missing', undefined as unknown as number]] as const) {
    const r = ex.run(declare(version))
    t.same(r, { ok: false, code: 'RULES_INVALID', events: [] }, what)
  }
  t.equal(stateRoot(ex.state), root)
  t.equal(ex.state.rules, RULES_VERSION)
})

t.test('a declaration newer than this build stops the replay at its entry', async (t) => {
  const ex = new TestExchange()
  ex.ok(declare(RULES_VERSION))
  const root = stateRoot(ex.state)
  const seq = ex.state.seq + 1
  const err = t.throws(() => apply(ex.state, { seq, time: ex.time + 1, command: declare(RULES_VERSION + 1) })) as unknown
  t.ok(err instanceof RulesUnsupportedError)
  const e = err as RulesUnsupportedError
  t.equal(e.version, RULES_VERSION + 1)
  t.equal(e.seq, seq, 'it names the entry')
  t.match(e.message, `entry ${seq} declares rules ${RULES_VERSION + 1}; this build applies rules up to ${RULES_VERSION}`)
  t.equal(ex.state.rules, RULES_VERSION, 'the rules stay')
  t.equal(stateRoot(ex.state), root, 'nothing else moved')
})
