// Rules versions (core/rules.ts): a declaration moves the state's rules forward, shows in the
// root and the snapshot (an undeclared state hashes and encodes as before), refuses what would
// go back or is malformed without changing anything, and a declaration newer than this build's
// stops the replay instead of being refused (a refusal every build would have to repeat).
// Rules 2 salt the root's leaves with a seed the declaration reaching them carries, once.

import t from 'tap'
import { apply } from '../../core/apply.js'
import type { Command } from '../../core/commands.js'
import { merkleRoot, toHex } from '../../core/merkle.js'
import { leafHash, leafSalt, saltedLeafHash, stateLeaves, stateRoot } from '../../core/root.js'
import { RULES_VERSION, RulesUnsupportedError, rulesOf, SALTED_LEAVES, UNDECLARED_RULES } from '../../core/rules.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { ALICE, TestExchange } from '../helpers/exchange.js'
import { limit } from '../helpers/commands.js'

const SEED = '0x' + '5eed'.repeat(16)
const declare = (version: number, leafSeed?: string): Command =>
  leafSeed === undefined ? { type: 'SetRules', version } : { type: 'SetRules', version, leafSeed }

t.test('a declaration sets the rules, enters the root and the snapshot', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 10_000)
  t.equal(ex.state.rules, 0, 'a log starts undeclared')
  t.equal(rulesOf(ex.state), UNDECLARED_RULES, 'and applies the rules of the builds before versioning')
  const undeclaredRoot = stateRoot(ex.state)
  const undeclaredBytes = Buffer.from(encodeSnapshot(ex.state))
  t.equal(stateRoot(decodeSnapshot(undeclaredBytes)), undeclaredRoot, 'an undeclared snapshot restores as before')
  t.equal(decodeSnapshot(undeclaredBytes).rules, 0)

  const r = ex.ok(declare(RULES_VERSION, SEED))
  t.same(r.events, [], 'a declaration reports no event')
  t.equal(ex.state.rules, RULES_VERSION)
  t.equal(rulesOf(ex.state), RULES_VERSION)
  t.equal(ex.state.leafSeed, SEED, 'it brought the leaf seed')
  const declaredRoot = stateRoot(ex.state)
  t.not(declaredRoot, undeclaredRoot, 'the declared rules are part of the state root')
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(restored.rules, RULES_VERSION, 'the snapshot keeps them')
  t.equal(restored.leafSeed, SEED, 'and the seed')
  t.equal(stateRoot(restored), declaredRoot)
  t.ok(ex.run(limit(ALICE, 'BUY', 490_000, 10)).ok, 'trading goes on under them')
})

t.test('refused declarations change nothing', async (t) => {
  const ex = new TestExchange()
  ex.ok(declare(RULES_VERSION, SEED))
  const root = stateRoot(ex.state)
  for (const [what, version] of [['the same version again', RULES_VERSION], ['an older one', RULES_VERSION - 1], ['zero', 0],
    ['a negative one', -1], ['a fraction', 1.5], ['not a number', '1' as unknown as number], ['missing', undefined as unknown as number]] as const) {
    const r = ex.run(declare(version))
    t.same(r, { ok: false, code: 'RULES_INVALID', events: [] }, what)
  }
  t.equal(stateRoot(ex.state), root)
  t.equal(ex.state.rules, RULES_VERSION)
})

t.test('the seed comes with the declaration reaching salted leaves, and only with it', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 10_000)
  const root = stateRoot(ex.state)
  for (const [what, seed] of [['no seed', undefined], ['too short', '0x' + 'ab'.repeat(31)], ['upper case', '0x' + 'AB'.repeat(32)],
    ['no 0x', 'ab'.repeat(32) + '00'], ['not text', 7 as unknown as string], ['not hex', '0x' + 'zz'.repeat(32)]] as const) {
    t.same(ex.run(declare(SALTED_LEAVES, seed)), { ok: false, code: 'RULES_INVALID', events: [] }, what)
  }
  t.same(ex.run(declare(SALTED_LEAVES - 1, SEED)), { ok: false, code: 'RULES_INVALID', events: [] }, 'a seed under unsalted rules')
  t.equal(stateRoot(ex.state), root, 'nothing moved')
  t.equal(ex.state.rules, 0)
  t.equal(ex.state.leafSeed, '')

  // A log declared at rules 1 (before salting) reaches 2 later: that declaration brings the seed.
  ex.ok(declare(SALTED_LEAVES - 1))
  t.equal(ex.state.leafSeed, '', 'rules 1 leave the leaves unsalted')
  t.equal(stateRoot(ex.state), toHex(merkleRoot(stateLeaves(ex.state).map(leafHash))), 'hashed as before')
  ex.ok(declare(SALTED_LEAVES, SEED))
  t.equal(ex.state.leafSeed, SEED)
})

t.test('salted leaves: each hashed with keccak(seed ‖ text) before it, so another seed gives another root', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 10_000)
  ex.ok(declare(RULES_VERSION, SEED))
  ex.ok(limit(ALICE, 'BUY', 490_000, 10))
  const leaves = stateLeaves(ex.state)
  const salted = leaves.map((leaf) => saltedLeafHash(leafSalt(SEED, leaf), leaf))
  t.equal(stateRoot(ex.state), toHex(merkleRoot(salted)), 'the root over salted leaf hashes')
  t.not(stateRoot(ex.state), toHex(merkleRoot(leaves.map(leafHash))), 'not the unsalted one')
  const other = '0x' + '0123'.repeat(16)
  t.not(stateRoot({ ...ex.state, leafSeed: other }), stateRoot(ex.state), 'another seed, another root')
  t.equal(stateRoot(ex.state), toHex(merkleRoot(salted)), 'the leaf cache does not carry one seed\'s hashes to the other')
  const wallet = leaves.find((l) => l.startsWith(`perpWallet|${ALICE}|0|`))!
  t.not(toHex(saltedLeafHash(leafSalt(SEED, wallet), wallet)), toHex(leafHash(wallet)))
})

t.test('a declaration newer than this build stops the replay at its entry', async (t) => {
  const ex = new TestExchange()
  ex.ok(declare(RULES_VERSION, SEED))
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
