// The anchorer on a chain that wants confirmations (3 here): the node (balance proofs, /metrics)
// is told of an anchor only once its block is 3 deep, as deposits are credited; an anchor a
// reorg removes is never told, and is posted again.

import t from 'tap'
import { Anchorer } from '../../chain/anchor.js'
import { chainRig } from './rig.js'

const chain = await chainRig()
t.teardown(() => chain.close())
const told: number[] = []
const root = (n: number): string => '0x' + n.toString(16).padStart(64, '0')
const anchorer = new Anchorer({ provider: chain.provider, vault: chain.deployment.vault, operator: chain.operator, confirmations: 3,
  logHashAt: async () => 'ab'.repeat(32), onAnchored: (seq) => told.push(seq) })

t.test('an anchor is told only once its block is 3 deep', async (t) => {
  anchorer.offer({ seq: 10, root: root(1) })
  t.match(await anchorer.post(), { seq: 10 })
  t.same(told, [], 'mined: 1 deep, not told')
  t.ok(anchorer.awaitingConfirmations, 'a dev chain must mine for it')
  await chain.mine(1)
  t.equal(await anchorer.post(), undefined, 'nothing new to anchor')
  t.same(told, [], '2 deep')
  await chain.mine(1)
  await anchorer.post()
  t.same(told, [10], '3 deep: told')
  t.notOk(anchorer.awaitingConfirmations)
})

t.test('an anchor a reorg removes is never told, and is posted again', async (t) => {
  anchorer.offer({ seq: 20, root: root(2) })
  const branchPoint = await chain.provider.send('evm_snapshot', [])
  t.match(await anchorer.post(), { seq: 20 })
  await chain.mine(1)
  t.equal(await chain.provider.send('evm_revert', [branchPoint]), true)
  t.equal(Number(await chain.vault.latestSeq()), 10, 'the reorg took it')
  await chain.mine(3)
  t.match(await anchorer.post(), { seq: 20 }, 'posted again')
  t.notOk(told.includes(20), 'never told while shallow')
  await chain.mine(2)
  await anchorer.post()
  t.equal(told.at(-1), 20)
  t.same([...new Set(told)], [10, 20])
})
