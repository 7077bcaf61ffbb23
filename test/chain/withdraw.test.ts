// Withdrawals: the request debits, the executor pays on chain from the Vault (a queue of them
// in one transaction), and the history shows the payment's transaction; a payment the chain refuses is refunded; a withdrawal the
// Vault already paid (a restart between paying and completing) is never paid again.

import t from 'tap'
import { JsonRpcProvider, type Contract } from 'ethers'
import { findSub, spotBalance } from '../../core/accounts.js'
import { DepositWatcher } from '../../chain/deposit-watcher.js'
import { mined, Operator } from '../../chain/provider.js'
import { WithdrawalExecutor } from '../../chain/withdrawal-executor.js'
import { gatewayRig, openSession, signedInject, type Keys } from '../helpers/gateway.js'
import { chainRig } from './rig.js'

const chain = await chainRig()
const rig = await gatewayRig()
t.teardown(async () => { await rig.close(); await chain.close() })
const exchange = { state: () => rig.ex.state, submit: rig.ctx.submit }
const { vault, vaultBlock, tokens } = chain.deployment
const executor = (): WithdrawalExecutor => new WithdrawalExecutor({ provider: chain.provider, vault, fromBlock: vaultBlock,
  tokens, exchange, operator: chain.operator })
const spot = (address: string): number => spotBalance(findSub(rig.ex.state, { account: address, sub: 0 }), 'USDT').free
const usdt = chain.token('USDT')

const alice = chain.wallet(1)
await chain.mint('USDT', alice.address, 500_000_000n)
await chain.deposit(alice, 'USDT', 500_000_000n)
await new DepositWatcher({ provider: chain.provider, vault, tokens, exchange, confirmations: 1, fromBlock: vaultBlock }).poll()
const aliceKeys: Keys = (await openSession(rig, alice, { permissions: 'TRADE,USER_DATA,WITHDRAW' })).json()

interface HistoryRow { id: string; amount: string; coin: string; status: number; txId: string; info: string }
const history = async (keys: Keys): Promise<HistoryRow[]> =>
  (await signedInject(rig, keys, 'GET', '/sapi/v1/capital/withdraw/history')).json()
const apply = async (keys: Keys, amount: string): Promise<string> => {
  const res = await signedInject(rig, keys, 'POST', '/sapi/v1/capital/withdraw/apply', { coin: 'USDT', amount })
  if (res.statusCode !== 200) throw new Error(res.body)
  return res.json().id
}

t.test('a withdrawal is debited, paid on chain, and the history shows its transaction', async (t) => {
  t.equal(spot(alice.address), 500_000_000)
  const id = await apply(aliceKeys, '120.5')
  t.equal(spot(alice.address), 379_500_000, 'debited at the request')
  t.match(await history(aliceKeys), [{ id, amount: '120.5', coin: 'USDT', status: 4, txId: '' }])
  t.equal(await usdt.balanceOf(alice.address), 0n)

  t.equal(await executor().poll(), 1)
  t.equal(await usdt.balanceOf(alice.address), 120_500_000n, 'the tokens arrived')
  const [row] = await history(aliceKeys)
  t.match(row, { id, status: 6 })
  const receipt = await chain.provider.getTransactionReceipt(row!.txId)
  const paid = receipt!.logs.map((l) => chain.vault.interface.parseLog(l)).find((e) => e?.name === 'Withdrawn')
  t.same([paid!.args.id, paid!.args.to, paid!.args.amount], [BigInt(id), alice.address, 120_500_000n])
  t.equal(await executor().poll(), 0, 'nothing left to pay')
  t.equal(spot(alice.address), 379_500_000)
})

t.test('a withdrawal the Vault already paid completes with that payment, never paid twice', async (t) => {
  const id = await apply(aliceKeys, '30')
  // An earlier executor paid and stopped before completing.
  const tx = await chain.operator.run(async (s) =>
    mined(await (chain.vault.connect(s) as Contract).withdraw(BigInt(id), tokens[0]!.address, alice.address, 30_000_000n)))
  t.equal(await usdt.balanceOf(alice.address), 150_500_000n)
  t.equal(await executor().poll(), 1)
  t.equal(await usdt.balanceOf(alice.address), 150_500_000n, 'not paid again')
  t.match((await history(aliceKeys)).find((r) => r.id === id), { status: 6, txId: tx.hash })
})

t.test('a payment the chain refuses is refunded, and the history says why', async (t) => {
  const bob = chain.wallet(2)
  // Credited without tokens behind it (an operator deposit), so the Vault cannot pay it all.
  await rig.run({ type: 'Deposit', account: bob.address, sub: 0, asset: 'USDT', amount: 1_000_000_000, wallet: 'SPOT', ref: 'operator:bob' })
  const bobKeys: Keys = (await openSession(rig, bob, { permissions: 'TRADE,USER_DATA,WITHDRAW' })).json()
  const vaultHeld = await usdt.balanceOf(vault)
  t.equal(vaultHeld, 349_500_000n)
  const id = await apply(bobKeys, '900')
  t.equal(spot(bob.address), 100_000_000)
  t.equal(await executor().poll(), 1)
  t.equal(spot(bob.address), 1_000_000_000, 'refunded')
  t.match(await history(bobKeys), [{ id, amount: '900', status: 5, txId: '', info: 'InsufficientBalance' }])
  t.equal(await usdt.balanceOf(bob.address), 0n)
  t.equal(await usdt.balanceOf(vault), vaultHeld)
  t.equal(await chain.vault.paid(BigInt(id)), false)
})

t.test('an id the Vault paid to someone else is refunded, never marked paid by that payment', async (t) => {
  // The operator's key spends the next id on itself before Alice's request takes it.
  const next = rig.ex.state.nextWithdrawalId
  const operator = chain.operator.address
  const stolen = await chain.operator.run(async (s) =>
    mined(await (chain.vault.connect(s) as Contract).withdraw(BigInt(next), tokens[0]!.address, operator, 1_000_000n)))
  const before = spot(alice.address)
  const held = await usdt.balanceOf(alice.address)
  const id = await apply(aliceKeys, '10')
  t.equal(Number(id), next)
  const errors: object[] = []
  const watched = new WithdrawalExecutor({ provider: chain.provider, vault, fromBlock: vaultBlock, tokens, exchange, operator: chain.operator,
    logger: { info() {}, warn() {}, error: (fields: object) => { errors.push(fields) } } })
  t.equal(await watched.poll(), 1)
  t.equal(spot(alice.address), before, 'refunded')
  t.equal(await usdt.balanceOf(alice.address), held, 'she was paid nothing')
  t.match((await history(aliceKeys)).find((r) => r.id === id), { status: 5, txId: '', info: `the Vault paid id ${id} otherwise (${stolen.hash})` })
  t.match(errors, [{ withdrawalId: next, txId: stolen.hash, paid: { to: operator, amount: '1000000' }, due: { to: alice.address, amount: '10000000' } }])
})

interface Warned { withdrawalId?: number; txId?: string; msg: string }
const deepExecutor = (warned: Warned[] = []): WithdrawalExecutor => new WithdrawalExecutor({ provider: chain.provider, vault,
  fromBlock: vaultBlock, tokens, exchange, operator: chain.operator, confirmations: 3,
  logger: { info() {}, error() {}, warn: (fields: object, msg: string) => { warned.push({ ...fields, msg }) } } })
/** The transaction of the Vault's payment of withdrawal `id` on the chain as it stands. */
const paymentTx = async (id: string): Promise<string | undefined> =>
  (await chain.vault.queryFilter(chain.vault.filters.Withdrawn!(BigInt(id)), vaultBlock)).at(0)?.transactionHash

t.test('with a depth of 3, a payment is recorded only once its block is 3 deep', async (t) => {
  const before = await usdt.balanceOf(alice.address)
  const id = await apply(aliceKeys, '10')
  const deep = deepExecutor()
  t.equal(await deep.poll(), 0, 'paid, not recorded')
  t.equal(await usdt.balanceOf(alice.address), before + 10_000_000n, 'the tokens arrived')
  t.ok(deep.awaitingConfirmations, 'a dev chain must mine for it')
  t.match((await history(aliceKeys)).find((r) => r.id === id), { status: 4, txId: '' }, 'still processing')
  await chain.mine(1)
  t.equal(await deep.poll(), 0, '2 deep')
  await chain.mine(1)
  t.equal(await deep.poll(), 1, '3 deep: recorded')
  t.notOk(deep.awaitingConfirmations)
  const paid = await paymentTx(id)
  t.ok(paid)
  t.match((await history(aliceKeys)).find((r) => r.id === id), { status: 6, txId: paid })
  t.equal(await usdt.balanceOf(alice.address), before + 10_000_000n, 'paid once')
  t.equal(await deep.poll(), 0)
})

t.test('a payment a reorg removes before it is deep enough is paid again, once, and recorded with the payment that stands', async (t) => {
  const before = await usdt.balanceOf(alice.address)
  const spotBefore = spot(alice.address)
  const branchPoint = await chain.provider.send('evm_snapshot', [])
  const id = await apply(aliceKeys, '5')
  const warned: Warned[] = []
  const deep = deepExecutor(warned)
  t.equal(await deep.poll(), 0)
  const first = await paymentTx(id)
  t.equal(await usdt.balanceOf(alice.address), before + 5_000_000n)
  await chain.mine(1)
  // The chain reorganises to a branch without the payment (2 blocks deep: shallower than 3).
  t.equal(await chain.provider.send('evm_revert', [branchPoint]), true)
  t.equal(await usdt.balanceOf(alice.address), before, 'the reorg took the payment')
  t.equal(await chain.vault.paid(BigInt(id)), false)
  t.equal(await deep.poll(), 0, 'paid again, not recorded yet')
  t.match(warned, [{ withdrawalId: Number(id), txId: first, msg: /left the chain in a reorg; paying again/ }])
  // The same transaction signed again (same nonce, same fields) may well have the same hash.
  const second = await paymentTx(id)
  t.ok(second && await chain.provider.getTransactionReceipt(second), 'a payment on the branch that stands')
  t.equal(await usdt.balanceOf(alice.address), before + 5_000_000n)
  await chain.mine(2)
  t.equal(await deep.poll(), 1)
  t.match((await history(aliceKeys)).find((r) => r.id === id), { status: 6, txId: second }, 'recorded with the payment on the chain')
  t.equal(await usdt.balanceOf(alice.address), before + 5_000_000n, 'paid once')
  t.equal(spot(alice.address), spotBefore - 5_000_000, 'debited once, not refunded')
})

t.test('a payment the chain dropped in a fee spike is sent again with higher fees, and paid once', async (t) => {
  const before = await usdt.balanceOf(alice.address)
  const id = await apply(aliceKeys, '7')
  await chain.provider.send('evm_setAutomine', [false])
  t.teardown(() => chain.provider.send('evm_setAutomine', [true]))
  const warned: (Warned & { unmined?: string[]; hash?: string })[] = []
  const logger = { info() {}, error() {}, warn: (fields: object, msg: string) => { warned.push({ ...fields, msg }) } }
  const next = new WithdrawalExecutor({ provider: chain.provider, vault, fromBlock: vaultBlock, tokens, exchange, logger,
    operator: new Operator(chain.operatorKey, chain.provider, { resendAfterMs: 300, logger }) })
  const unmined = async (): Promise<number> => await chain.provider.getTransactionCount(chain.operator.address, 'pending') -
    await chain.provider.getTransactionCount(chain.operator.address, 'latest')
  const polled = next.poll().then((n) => n, (err: Error) => err)
  for (let i = 0; i < 200 && await unmined() === 0; i++) await new Promise((r) => setTimeout(r, 10))
  t.equal(await unmined(), 1, 'the payment is sent')
  // The base fee jumps past what the payment offers: the next block leaves it out (anvil drops it; a node may keep it, unmined).
  const sent = await chain.provider.getBlock('pending', true)
  const first = sent!.prefetchedTransactions[0]!
  await chain.provider.send('anvil_setNextBlockBaseFeePerGas', [`0x${(first.maxFeePerGas! * 10n).toString(16)}`])
  await chain.mine(1)
  t.equal(await chain.provider.getTransactionReceipt(first.hash), null, 'not mined')
  // Blocks keep coming; the executor sends the payment again at the chain's fees.
  let settled: number | Error | undefined
  void polled.then((n) => { settled = n })
  for (let i = 0; i < 100 && settled === undefined; i++) {
    await new Promise((r) => setTimeout(r, 100))
    if (await unmined() > 0) await chain.mine(1)
  }
  t.equal(settled, 1, `settled: ${String(settled)}`)
  t.equal(await usdt.balanceOf(alice.address), before + 7_000_000n, 'paid once')
  const paid = await paymentTx(id)
  t.not(paid, first.hash, 'by the transaction sent again')
  t.match((await history(aliceKeys)).find((r) => r.id === id), { status: 6, txId: paid })
  t.match(warned, [{ unmined: [first.hash], hash: paid, msg: 'operator transaction not mined: sent again with higher fees' }])
})

t.test('a queue of withdrawals is paid in one transaction, each recorded with it', async (t) => {
  const before = await usdt.balanceOf(alice.address)
  const ids = [await apply(aliceKeys, '1'), await apply(aliceKeys, '2'), await apply(aliceKeys, '3')]
  t.equal(await executor().poll(), 3)
  t.equal(await usdt.balanceOf(alice.address), before + 6_000_000n)
  const rows = await history(aliceKeys)
  const txIds = ids.map((id) => rows.find((r) => r.id === id)!.txId)
  t.same(ids.map((id) => rows.find((r) => r.id === id)!.status), [6, 6, 6])
  t.equal(new Set(txIds).size, 1, 'one transaction')
  const receipt = await chain.provider.getTransactionReceipt(txIds[0]!)
  const paid = receipt!.logs.map((l) => chain.vault.interface.parseLog(l)).filter((e) => e?.name === 'Withdrawn')
  t.same(paid.map((e) => [e!.args.id, e!.args.amount]), [[BigInt(ids[0]!), 1_000_000n], [BigInt(ids[1]!), 2_000_000n],
    [BigInt(ids[2]!), 3_000_000n]])
})

t.test('a queue one of which the Vault cannot pay is paid one at a time: that one refunded, the others paid', async (t) => {
  const bob = chain.wallet(2)
  const bobKeys: Keys = (await openSession(rig, bob, { permissions: 'TRADE,USER_DATA,WITHDRAW' })).json()
  const before = await usdt.balanceOf(alice.address)
  const tooMuch = await apply(bobKeys, '900')
  const small = await apply(aliceKeys, '4')
  t.equal(await executor().poll(), 2)
  t.match((await history(bobKeys)).find((r) => r.id === tooMuch), { status: 5, info: 'InsufficientBalance' })
  t.match((await history(aliceKeys)).find((r) => r.id === small), { status: 6 })
  t.equal(await usdt.balanceOf(alice.address), before + 4_000_000n)
  t.equal(spot(bob.address), 1_000_000_000, 'refunded')
})

t.test('while the operator cannot pay for gas a withdrawal waits, not refunded, and is paid once it can', async (t) => {
  const before = await usdt.balanceOf(alice.address)
  const spotBefore = spot(alice.address)
  const id = await apply(aliceKeys, '2')
  const full = await chain.provider.getBalance(chain.operator.address)
  await chain.provider.send('anvil_setBalance', [chain.operator.address, '0x10'])
  const next = executor()
  const failed = await next.poll().then(() => undefined, (err: Error) => err)
  t.match(failed?.message, /^the operator 0x[0-9a-fA-F]{40} cannot pay for gas: it holds 0\.000000000000000016 ETH/)
  t.match((await history(aliceKeys)).find((r) => r.id === id), { status: 4 }, 'still processing')
  t.equal(spot(alice.address), spotBefore - 2_000_000, 'debited, not refunded')
  await chain.provider.send('anvil_setBalance', [chain.operator.address, `0x${full.toString(16)}`])
  t.equal(await next.poll(), 1)
  t.match((await history(aliceKeys)).find((r) => r.id === id), { status: 6 })
  t.equal(await usdt.balanceOf(alice.address), before + 2_000_000n)
})

/**
 * The chain's node as a public RPC provider serves it: every call counted by method, and
 * eth_getLogs over more than `cap` blocks refused (anvil takes any range).
 */
class ProviderNode extends JsonRpcProvider {
  readonly calls = new Map<string, number>()
  constructor(url: string, chainId: number, private readonly cap = Infinity) {
    super(url, chainId, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1, pollingInterval: 20 })
  }

  override async send(method: string, params: unknown[] | Record<string, unknown>): Promise<any> {
    this.calls.set(method, (this.calls.get(method) ?? 0) + 1)
    if (method === 'eth_getLogs') {
      const { fromBlock, toBlock } = (params as { fromBlock?: string; toBlock?: string }[])[0]!
      const to = toBlock === undefined || toBlock === 'latest' ? Number(await super.send('eth_blockNumber', [])) : Number(toBlock)
      if (to - Number(fromBlock ?? 0) + 1 > this.cap) throw new Error(`eth_getLogs is limited to a ${this.cap} block range`)
    }
    return super.send(method, params)
  }
}

t.test('on an RPC node capping eth_getLogs at 100 blocks, with the Vault hundreds of blocks old, payments are found', async (t) => {
  // (A public provider's cap is some thousands of blocks; anvil mines ~400 blocks a second.)
  const capped = new ProviderNode(chain.anvil.url, chain.anvil.chainId, 100)
  t.teardown(() => capped.destroy())
  const executorOn = (confirmations?: number): WithdrawalExecutor => new WithdrawalExecutor({ provider: capped, vault,
    fromBlock: vaultBlock, tokens, exchange, operator: chain.operator, blockRange: 100, confirmations })
  await chain.mine(300)
  // Paid by an earlier run, which stopped before recording it; 150 blocks since.
  const before = await usdt.balanceOf(alice.address)
  const id = await apply(aliceKeys, '3')
  const tx = await chain.operator.run(async (s) =>
    mined(await (chain.vault.connect(s) as Contract).withdraw(BigInt(id), tokens[0]!.address, alice.address, 3_000_000n)))
  await chain.mine(150)
  t.equal(await executorOn().poll(), 1, 'found 150 blocks back')
  t.match((await history(aliceKeys)).find((r) => r.id === id), { status: 6, txId: tx.hash })
  // One paid now, recorded once it is 3 deep.
  const deep = executorOn(3)
  const second = await apply(aliceKeys, '4')
  t.equal(await deep.poll(), 0)
  await chain.mine(2)
  t.equal(await deep.poll(), 1)
  t.match((await history(aliceKeys)).find((r) => r.id === second), { status: 6, txId: await paymentTx(second) })
  t.equal(await usdt.balanceOf(alice.address), before + 7_000_000n, 'each paid once')
  t.ok(capped.calls.get('eth_getLogs')! > 0)
})

t.test('a batch waiting for its depth costs a poll two calls to the chain\'s node: its receipt and the head', async (t) => {
  const node = new ProviderNode(chain.anvil.url, chain.anvil.chainId)
  t.teardown(() => node.destroy())
  const deep = new WithdrawalExecutor({ provider: node, vault, fromBlock: vaultBlock, tokens, exchange, operator: chain.operator,
    confirmations: 3 })
  const ids = [await apply(aliceKeys, '1'), await apply(aliceKeys, '1'), await apply(aliceKeys, '1')]
  t.equal(await deep.poll(), 0, 'paid in one transaction, not deep enough')
  node.calls.clear()
  t.equal(await deep.poll(), 0)
  t.same(Object.fromEntries(node.calls), { eth_getTransactionReceipt: 1, eth_blockNumber: 1 })
  await chain.mine(2)
  t.equal(await deep.poll(), 3)
  const rows = await history(aliceKeys)
  t.same(ids.map((id) => rows.find((r) => r.id === id)!.status), [6, 6, 6])
})

// Last in the file: an executor of another process (its own nonces) beside the rig's operator.
t.test('a payment still pending from an earlier run is neither paid again nor refunded', async (t) => {
  const before = await usdt.balanceOf(alice.address)
  const spotBefore = spot(alice.address)
  const id = await apply(aliceKeys, '40')
  t.equal(spot(alice.address), spotBefore - 40_000_000)
  // The earlier run sent the payment; the chain has not mined it when the next run looks.
  await chain.provider.send('evm_setAutomine', [false])
  t.teardown(() => chain.provider.send('evm_setAutomine', [true]))
  const earlier = await chain.operator.run(async (s) =>
    (chain.vault.connect(s) as Contract).withdraw(BigInt(id), tokens[0]!.address, alice.address, 40_000_000n))
  const next = new WithdrawalExecutor({ provider: chain.provider, vault, fromBlock: vaultBlock, tokens, exchange,
    operator: new Operator(chain.operatorKey, chain.provider), pollMs: 50,
    logger: { info() {}, error() {}, warn: (fields: object, msg: string) => { warned.push({ ...fields, msg }) } } })
  const warned: Record<string, unknown>[] = []
  const polled = next.poll().then((n) => n, (err: Error) => err)
  await new Promise((r) => setTimeout(r, 1500))
  await chain.provider.send('evm_setAutomine', [true])
  await chain.mine(1)
  let settled = await polled
  // A poll that could not decide yet (it throws, the loop polls again) settles at the next one.
  for (let i = 0; i < 20 && settled !== 1; i++) settled = await next.poll().then((n) => n, (err: Error) => err)
  t.equal(settled, 1, `settled: ${String(settled)}`)
  t.equal(await usdt.balanceOf(alice.address), before + 40_000_000n, 'paid once')
  t.match((await history(aliceKeys)).find((r) => r.id === id), { status: 6, txId: earlier.hash }, 'completed with the earlier payment')
  t.equal(spot(alice.address), spotBefore - 40_000_000, 'not refunded')
  // Anvil judges gas against its pending state, where the earlier payment paid the id already.
  t.match(warned, [{ withdrawalId: Number(id), reason: 'AlreadyPaid', inFlight: 1, msg: /waiting for them before refunding/ }],
    'refused while the earlier payment was unmined: left undecided, said once')
})
