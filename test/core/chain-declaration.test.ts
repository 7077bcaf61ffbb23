// The chain a log declares (core/chain-declaration.ts): only under rules 2 on (older builds knew
// no such command), once, well formed and naming listed assets; it enters the root and the
// snapshot, and sameChain compares two declarations as the sequencer does at start.

import t from 'tap'
import { sameChain } from '../../core/chain-declaration.js'
import type { Command, DeclareChain } from '../../core/commands.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { stateLeaves, stateRoot } from '../../core/root.js'
import { RULES_VERSION } from '../../core/rules.js'
import { TestExchange } from '../helpers/exchange.js'

const VAULT = '0x' + '5a'.repeat(20)
const USDT = '0x' + '7b'.repeat(20)
const WBTC = '0x' + '8c'.repeat(20)
const DECLARATION: DeclareChain = { type: 'DeclareChain', chainId: 31337, vault: VAULT,
  tokens: [{ asset: 'USDT', address: USDT, decimals: 6 }, { asset: 'BTC', address: WBTC, decimals: 8 }] }
const salted = (): TestExchange => {
  const ex = new TestExchange()
  ex.ok({ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '3d'.repeat(32) })
  return ex
}

t.test('under rules 1 the command is unknown, as it was to the builds before it', async (t) => {
  const ex = new TestExchange()
  t.same(ex.run(DECLARATION), { ok: false, code: 'COMMAND_UNKNOWN', events: [] })
  ex.ok({ type: 'SetRules', version: 1 })
  t.same(ex.run(DECLARATION), { ok: false, code: 'COMMAND_UNKNOWN', events: [] })
  t.equal(ex.state.chain, null)
})

t.test('declared once: in the root and the snapshot', async (t) => {
  const ex = salted()
  const before = stateRoot(ex.state)
  t.same(ex.ok(DECLARATION).events, [])
  t.same(ex.state.chain, { chainId: 31337, vault: VAULT, tokens: DECLARATION.tokens })
  t.ok(stateLeaves(ex.state).includes(`chain|31337|${VAULT}|USDT:${USDT}:6,BTC:${WBTC}:8`), 'its leaf')
  t.not(stateRoot(ex.state), before)
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  t.same(restored.chain, ex.state.chain, 'the snapshot keeps it')
  t.equal(stateRoot(restored), stateRoot(ex.state))
  t.same(ex.run(DECLARATION), { ok: false, code: 'ALREADY_EXISTS', events: [] }, 'the same again')
  t.same(ex.run({ ...DECLARATION, vault: '0x' + '66'.repeat(20) }), { ok: false, code: 'ALREADY_EXISTS', events: [] }, 'another Vault')
  t.equal(ex.state.chain!.vault, VAULT)
})

t.test('malformed declarations change nothing', async (t) => {
  const ex = salted()
  const root = stateRoot(ex.state)
  const bad: [string, Partial<DeclareChain> | Record<string, unknown>][] = [
    ['chain id 0', { chainId: 0 }], ['chain id not an integer', { chainId: 1.5 }], ['vault not an address', { vault: '0x12' }],
    ['no tokens', { tokens: [] }], ['tokens not a list', { tokens: 'USDT' }],
    ['an unknown asset', { tokens: [{ asset: 'DOGE', address: USDT, decimals: 6 }] }],
    ['an asset twice', { tokens: [{ asset: 'USDT', address: USDT, decimals: 6 }, { asset: 'USDT', address: WBTC, decimals: 6 }] }],
    ['one token for two assets', { tokens: [{ asset: 'USDT', address: USDT, decimals: 6 }, { asset: 'BTC', address: USDT.toUpperCase().replace('0X', '0x'), decimals: 8 }] }],
    ['decimals out of range', { tokens: [{ asset: 'USDT', address: USDT, decimals: 256 }] }],
    ['a token not an object', { tokens: [null] }],
  ]
  for (const [what, change] of bad) {
    t.same(ex.run({ ...DECLARATION, ...change } as Command), { ok: false, code: 'COMMAND_INVALID', events: [] }, what)
  }
  t.equal(ex.state.chain, null)
  t.equal(stateRoot(ex.state), root)
})

t.test('sameChain: the same chain, Vault and tokens, addresses in any case and tokens in any order', async (t) => {
  const d = { chainId: DECLARATION.chainId, vault: DECLARATION.vault, tokens: DECLARATION.tokens }
  t.ok(sameChain(d, { ...d, vault: VAULT.toUpperCase().replace('0X', '0x'), tokens: [...d.tokens].reverse() }))
  t.notOk(sameChain(d, { ...d, chainId: 1 }))
  t.notOk(sameChain(d, { ...d, vault: '0x' + '66'.repeat(20) }))
  t.notOk(sameChain(d, { ...d, tokens: d.tokens.slice(1) }))
  t.notOk(sameChain(d, { ...d, tokens: [{ ...d.tokens[0]!, decimals: 18 }, d.tokens[1]!] }))
})
