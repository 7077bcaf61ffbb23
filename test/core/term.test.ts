// A leader's term in the log (Lead, core/term.ts): epochs only rise, a bad one changes nothing,
// and the newest survives a snapshot (with or without the declarations before it), outside the root.

import t from 'tap'
import type { Command } from '../../core/commands.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { ALICE, TestExchange } from '../helpers/exchange.js'

const lead = (epoch: number, node = 'seq-1'): Command => ({ type: 'Lead', epoch, node })

t.test('each term\'s epoch is above the last; anything else is refused and changes nothing', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 1_000)
  const root = stateRoot(ex.state)
  t.same(ex.ok(lead(7)).events, [], 'a term opens with no event')
  t.equal(ex.state.epoch, 7)
  t.equal(stateRoot(ex.state), root, 'the root covers what the exchange holds, not who wrote it')
  for (const [what, c] of [['the same epoch', lead(7)], ['an older one', lead(6)], ['a fraction', lead(8.5)],
    ['not a number', lead('9' as unknown as number)], ['an empty node', lead(9, '')], ['a node id with a space', lead(9, 'a b')],
    ['a node id too long', lead(9, 'n'.repeat(129))]] as const) {
    t.same(ex.run(c), { ok: false, code: 'EPOCH_INVALID', events: [] }, what)
  }
  t.equal(ex.state.epoch, 7, 'still the first term')
  ex.ok(lead(12, 'seq-2'))
  t.equal(ex.state.epoch, 12, 'a later leader\'s term')
})

t.test('the newest term survives a snapshot, declared rules and chain or not', async (t) => {
  const plain = new TestExchange()
  t.equal(decodeSnapshot(encodeSnapshot(plain.state)).epoch, 0, 'no term: none')
  plain.ok(lead(3))
  const restored = decodeSnapshot(encodeSnapshot(plain.state))
  t.equal(restored.epoch, 3, 'kept without rules, seed or chain before it')
  t.same([restored.rules, restored.leafSeed, restored.chain], [0, '', null], 'and those stay unset')
  t.equal(stateRoot(restored), stateRoot(plain.state))
  const declared = new TestExchange()
  declared.ok({ type: 'SetRules', version: 2, leafSeed: '0x' + '5eed'.repeat(16) })
  declared.ok(lead(4))
  const again = decodeSnapshot(encodeSnapshot(declared.state))
  t.same([again.epoch, again.rules], [4, 2], 'kept after the rules and the seed')
  t.equal(stateRoot(again), stateRoot(declared.state))
})
