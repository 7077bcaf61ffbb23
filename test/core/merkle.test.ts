// Merkle paths (core/merkle.ts): from every leaf of trees of every size up to 33 leaves (odd
// nodes carried up at every level), a path leads to the root merkleRoot gives, one built for
// many leaves at once equals each built alone, and a changed leaf or sibling leads elsewhere.
// accountProofs (core/root.ts) gives a sub-account's money leaves with paths to the state root.

import t from 'tap'
import { hashLeaf, merkleProof, merkleProofs, merkleRoot, verifyProof } from '../../core/merkle.js'
import { accountProofs, leafHash, stateRoot } from '../../core/root.js'
import { ALICE, BTCSPOT, COIN, TestExchange } from '../helpers/exchange.js'
import { limit, market } from '../helpers/commands.js'

const leaf = (i: number): Uint8Array => hashLeaf(new TextEncoder().encode(`leaf ${i}`))

t.test('every leaf of every tree size has a path to the root', async (t) => {
  for (let n = 1; n <= 33; n++) {
    const leaves = Array.from({ length: n }, (_, i) => leaf(i))
    const root = merkleRoot(leaves)
    const all = merkleProofs(leaves, leaves.map((_, i) => i))
    for (let i = 0; i < n; i++) {
      const proof = merkleProof(leaves, i)
      if (!verifyProof(leaves[i]!, proof, root)) t.fail(`n ${n}, leaf ${i}`)
      t.same(all[i], proof)
      if (n > 1 && verifyProof(leaf(1000), proof, root)) t.fail(`n ${n}, another leaf passed for ${i}`)
      if (proof.length > 0) {
        const bent = proof.map((s, k) => (k === 0 ? { ...s, sibling: leaf(2000) } : s))
        if (verifyProof(leaves[i]!, bent, root)) t.fail(`n ${n}, leaf ${i}: a changed sibling passed`)
      }
    }
  }
  t.pass('33 tree sizes, every leaf')
})

t.test('a sub-account\'s money leaves prove against the state root', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 1_000)
  ex.deposit(ALICE, 'BTC', COIN)
  ex.fund(ALICE, 500, 0, 'SPOT')
  ex.ok(limit(ALICE, 'SELL', 3_100_000, 1_000, { marketId: BTCSPOT }))
  ex.fund('0x' + 'b'.repeat(40), 10_000)
  ex.ok(limit('0x' + 'b'.repeat(40), 'BUY', 290_000, 10))
  ex.ok(market(ALICE, 'SELL', 10))
  const p = accountProofs(ex.state, ALICE, 0)
  t.equal(p.root, stateRoot(ex.state))
  t.same(p.leaves.map((l) => l.leaf.split('|')[0]), ['holding', 'perpWallet', 'spot', 'spot'], 'its holding, perp wallet and two balances')
  for (const { leaf: text, proof } of p.leaves) t.ok(verifyProof(leafHash(text), proof, Uint8Array.from(Buffer.from(p.root.slice(2), 'hex'))), text)
  t.same(accountProofs(ex.state, ALICE, 1).leaves, [], 'a sub-account it never used: nothing')
})
