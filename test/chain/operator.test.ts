// The operator's transactions on a chain that does not mine them at once (anvil with automine
// off): one left unmined is sent again with the same nonce at higher fees and the one mined is
// returned; a nonce another sender's transaction took ends the wait with an error. What the
// key has left for gas: read, warned of when low, and a send it cannot pay for said in one line.

import t from 'tap'
import { Wallet, type Contract, type TransactionResponse } from 'ethers'
import { GAS_PER_TRANSACTION, OperatorGas } from '../../chain/operator-gas.js'
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
  const operator = new Operator(chain.operatorKey, chain.provider, { resendAfterMs: 200 })
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

t.test('what the operator has left for gas: read, warned of once below 100 transactions, said when topped up', async (t) => {
  const said: Record<string, unknown>[] = []
  const log = (level: string) => (f: object, msg: string) => { said.push({ level, ...f, msg }) }
  const gas = new OperatorGas({ provider: chain.provider, address: chain.operator.address,
    logger: { info: log('info'), warn: log('warn'), error: log('error') } })
  t.same(gas.gauges(), {}, 'nothing before the first reading')
  await gas.check()
  t.ok(gas.gauges().exchange_operator_balance_ether! > 9_000, 'a dev account\'s ETH')
  t.same(said, [])
  const fees = await chain.provider.getFeeData()
  const perTransaction = fees.maxFeePerGas! * GAS_PER_TRANSACTION
  const setBalance = (wei: bigint) => chain.provider.send('anvil_setBalance', [chain.operator.address, `0x${wei.toString(16)}`])
  const full = await chain.provider.getBalance(chain.operator.address)
  t.teardown(() => setBalance(full))
  await setBalance(perTransaction * 50n + 1n)
  await gas.check()
  await gas.check()
  t.match(said, [{ level: 'warn', address: chain.operator.address, transactionsLeft: 50,
    msg: 'operator low on gas: withdrawals and anchors stop when it cannot pay for them' }], 'said once')
  t.equal(gas.gauges().exchange_operator_transactions_affordable, 50)
  await setBalance(perTransaction * 1_000n)
  await gas.check()
  t.match(said.at(-1), { level: 'info', transactionsLeft: 1_000, msg: 'operator gas topped up' })
  t.equal(said.length, 2)
})

t.test('a transaction the key cannot pay gas for is said in one line', async (t) => {
  const full = await chain.provider.getBalance(chain.operator.address)
  await chain.provider.send('anvil_setBalance', [chain.operator.address, '0x10'])
  t.teardown(() => chain.provider.send('anvil_setBalance', [chain.operator.address, `0x${full.toString(16)}`]))
  const err = await new Operator(chain.operatorKey, chain.provider).transact(await mint(1n)).then(() => undefined, (e: Error) => e)
  t.match(err?.message, new RegExp(`^the operator ${chain.operator.address} cannot pay for gas: it holds 0.000000000000000016 ETH, ` +
    'the transaction may cost up to [0-9.]+; send the operator ETH$'))
  t.same(await unmined(), [], 'nothing sent')
})
