// Test tokens minted with the operator's key while another process sends with the same key (the
// demo and `exchange account --fund` beside a running exchange, which anchors and pays with it):
// each process counts its own nonces, so their transactions take each other's, and a mint must
// read the nonce again and retry rather than fail.

import t from 'tap'
import { mintTestTokens } from '../../chain/fund.js'
import { Operator } from '../../chain/provider.js'
import { chainRig } from './rig.js'

t.test('mints from two senders of one key at once all land', async (t) => {
  const chain = await chainRig()
  t.teardown(() => chain.close())
  const usdt = chain.token('USDT')
  const bob = chain.wallet(3).address
  // Two operators of the same key, as two processes hold them: neither knows the other's nonces.
  const [a, b] = [new Operator(chain.operatorKey, chain.provider), new Operator(chain.operatorKey, chain.provider)]
  const mint = (operator: Operator, units: bigint) =>
    mintTestTokens({ provider: chain.provider, operator, deployment: chain.deployment, to: bob, asset: 'USDT', units })
  const plain = async (operator: Operator, units: bigint) => operator.transact(await usdt.mint!.populateTransaction(bob, units))

  // Without the retry, the same race fails some of them: what the retry is for. (Amounts differ:
  // two identical transactions with one nonce are one transaction, which the node has already.)
  const raced = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => plain(i % 2 ? a : b, BigInt(i + 1))))
  const lost = raced.filter((r) => r.status === 'rejected').map((r) => (r.reason as { code?: string }).code)
  t.ok(lost.length > 0 && lost.every((c) => c === 'NONCE_EXPIRED' || c === 'REPLACEMENT_UNDERPRICED'),
    `plain sends lose their nonce to the other sender (${lost.length} of 8)`)

  const before = (await usdt.balanceOf(bob)) as bigint
  await Promise.all(Array.from({ length: 8 }, (_, i) => mint(i % 2 ? a : b, 10n ** BigInt(i))))
  t.equal((await usdt.balanceOf(bob)) as bigint, before + 11_111_111n, 'every mint landed once')
})
