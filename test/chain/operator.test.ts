// The operator's transactions on a chain that does not mine them at once (anvil with automine
// off): one left unmined is sent again with the same nonce at higher fees and the one mined is
// returned; a nonce another sender's transaction took ends the wait with an error.

import t from 'tap'
import { Wallet, type Contract, type TransactionResponse } from 'ethers'
import { Operator } from '../../chain/provider.js'
import { chainRig } from './rig.js'

const chain = await chainRig()
t.teardown(() => chain.close())
await chain.provider.send('evm_setAutomine', [false])
const usdt = chain.token('USDT')
const bob = chain.wallet(2).address
const mint = async (amount: bigint) => usdt.mint!.populateTransaction(bob, amount)
const unmined = async (): Promise<TransactionResponse[]> =>
  (await chain.provider.getBlock('pending', true))!.prefetchedTransactions
const until = async (done: () => Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 300 && !(await done()); i++) await new Promise((r) => setTimeout(r, 10))
}

t.test('a transaction left unmined is sent again with the same nonce at higher fees; the one mined is returned', async (t) => {
  const warned: Record<string, unknown>[] = []
  const operator = new Operator(chain.operatorKey, chain.provider,
    { resendAfterMs: 200, logger: { info() {}, error() {}, warn: (f: object, msg: string) => { warned.push({ ...f, msg }) } } })
  const before = await usdt.balanceOf(bob)
  const receipt = operator.transact(await mint(5n))
  await until(async () => (await unmined()).length === 1)
  const [first] = await unmined()
  // The node keeps it; nothing mines until the executor has sent it again.
  await until(async () => warned.length === 1)
  const [second] = await unmined()
  t.equal((await unmined()).length, 1, 'the node holds one: the second replaced the first')
  t.equal(second!.nonce, first!.nonce)
  t.not(second!.hash, first!.hash)
  t.ok(second!.maxFeePerGas! * 8n >= first!.maxFeePerGas! * 9n, 'fee cap raised by at least 12.5%')
  t.ok(second!.maxPriorityFeePerGas! * 8n >= first!.maxPriorityFeePerGas! * 9n, 'tip raised by at least 12.5%')
  t.match(warned, [{ nonce: first!.nonce, unmined: [first!.hash], hash: second!.hash }])
  await chain.mine(1)
  t.equal((await receipt).hash, second!.hash)
  t.equal(await usdt.balanceOf(bob), before + 5n, 'minted once')
  t.equal(await chain.provider.getTransactionReceipt(first!.hash), null)
})

t.test('a nonce another sender took ends the wait with an error', async (t) => {
  const operator = new Operator(chain.operatorKey, chain.provider, { resendAfterMs: 60_000 })
  const receipt = operator.transact(await mint(1n)).then(() => undefined, (err: Error) => err)
  await until(async () => (await unmined()).length === 1)
  const [ours] = await unmined()
  // Another process with the same key replaces it (same nonce, twice the fees), and that is mined.
  const other = new Wallet(chain.operatorKey, chain.provider)
  await (usdt.connect(other) as Contract).mint!(bob, 2n,
    { nonce: ours!.nonce, maxFeePerGas: ours!.maxFeePerGas! * 2n, maxPriorityFeePerGas: ours!.maxPriorityFeePerGas! * 2n })
  await chain.mine(1)
  t.match(await receipt, { message: `the operator's nonce ${ours!.nonce} was taken by a transaction this process did not send` })
  t.equal(await chain.provider.getTransactionReceipt(ours!.hash), null)
})
