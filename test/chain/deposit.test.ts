// On-chain deposits reach the ledger through the watcher: once, after the confirmation depth,
// across watcher restarts and chain reorgs, at the ledger's scale exactly; one for a sub-account
// no address has (which a Vault deployed before it refused those takes) in the master account.

import t from 'tap'
import { findSub, spotBalance } from '../../core/accounts.js'
import { DepositWatcher } from '../../chain/deposit-watcher.js'
import { gatewayRig, openSession, signedInject } from '../helpers/gateway.js'
import { chainRig } from './rig.js'

const chain = await chainRig()
const rig = await gatewayRig()
t.teardown(async () => { await rig.close(); await chain.close() })
const exchange = { state: () => rig.ex.state, submit: rig.ctx.submit }
const watcher = (): DepositWatcher => new DepositWatcher({ provider: chain.provider, vault: chain.deployment.vault,
  tokens: chain.deployment.tokens, exchange, confirmations: 2, fromBlock: chain.deployment.vaultBlock })
const spot = (address: string, asset: string, sub = 0): number =>
  spotBalance(findSub(rig.ex.state, { account: address, sub }), asset).free

t.test('a deposit is credited once it has the confirmations, once, even when the watcher restarts', async (t) => {
  const alice = chain.wallet(1)
  await chain.mint('USDT', alice.address, 1_000_000_000n)
  const w = watcher()
  const first = await chain.deposit(alice, 'USDT', 250_000_000n)
  t.equal(await w.poll(), 0, 'one confirmation is not enough')
  t.equal(spot(alice.address, 'USDT'), 0)
  await chain.mine(1)
  t.equal(await w.poll(), 1)
  t.equal(spot(alice.address, 'USDT'), 250_000_000)
  t.equal(await w.poll(), 0)

  // A new watcher (a restart) resumes at the newest credited deposit's block, credits nothing twice.
  const restarted = watcher()
  t.equal(await restarted.poll(), 0)
  t.equal(spot(alice.address, 'USDT'), 250_000_000)

  const second = await chain.deposit(alice, 'USDT', 100_000_000n, 2)
  await chain.mine(1)
  t.equal(await watcher().poll(), 1, 'another restart picks up the new deposit')
  t.equal(await restarted.poll(), 0, 'the core refuses the ref a second time')
  t.equal(spot(alice.address, 'USDT'), 250_000_000)
  t.equal(spot(alice.address, 'USDT', 2), 100_000_000, 'credited to the sub-account the deposit named')

  const keys = (await openSession(rig, alice, { permissions: 'TRADE,USER_DATA,WITHDRAW' })).json()
  const history = (await signedInject(rig, keys, 'GET', '/sapi/v1/capital/deposit/hisrec')).json()
  t.same(history.map((d: { amount: string; coin: string; txId: string; status: number }) => [d.amount, d.coin, d.txId, d.status]),
    [['250', 'USDT', `${first.hash}:1`, 1]])
  t.not(second.hash, first.hash)
})

t.test('a deposit in blocks a reorg removes is never credited', async (t) => {
  const bob = chain.wallet(2)
  await chain.mint('USDT', bob.address, 50_000_000n)
  const w = watcher()
  await w.poll()
  const snapshot = await chain.provider.send('evm_snapshot', [])
  await chain.deposit(bob, 'USDT', 40_000_000n)
  t.equal(await w.poll(), 0, 'not yet confirmed')
  // The chain reorganises to a branch without the deposit, and grows past the depth.
  t.equal(await chain.provider.send('evm_revert', [snapshot]), true)
  await chain.mine(3)
  t.equal(await w.poll(), 0)
  t.equal(spot(bob.address, 'USDT'), 0)
  t.equal(await chain.token('USDT').balanceOf(bob.address), 50_000_000n, 'on the new branch bob still holds his tokens')
  await chain.deposit(bob, 'USDT', 7_000_000n)
  await chain.mine(1)
  t.equal(await w.poll(), 1)
  t.equal(spot(bob.address, 'USDT'), 7_000_000)
})

t.test('token units convert to the ledger scale, a finer amount rounded down; less than one ledger unit is not credited', async (t) => {
  const carol = chain.wallet(3)
  await chain.mint('ETH', carol.address, 10n ** 19n)
  await chain.mint('BTC', carol.address, 10n ** 8n)
  const w = watcher()
  await w.poll()
  await chain.deposit(carol, 'ETH', 10n ** 10n - 1n) // 0.000000009999999999 ETH: less than the ledger's 1e-8
  await chain.deposit(carol, 'ETH', 15n * 10n ** 17n + 123n) // 1.500000000000000123 ETH, as a swap leaves it
  await chain.deposit(carol, 'BTC', 12_345n) // 0.00012345 BTC, same decimals as the ledger
  await chain.mine(1)
  t.equal(await w.poll(), 2)
  t.equal(spot(carol.address, 'ETH'), 150_000_000, '1.5 ETH credited, the 123 wei below the ledger left in the Vault')
  t.equal(spot(carol.address, 'BTC'), 12_345)
  t.equal(await chain.token('ETH').balanceOf(chain.deployment.vault), 10n ** 10n - 1n + 15n * 10n ** 17n + 123n,
    'the Vault holds at least what the ledger owes')
})

// Last in the file: the Vault runs a build from before it refused sub-accounts no address has.
t.test('a Vault deployed before the sub-account check: a deposit for sub-account 99 is credited to the master account', async (t) => {
  await chain.legacyVault()
  const dave = chain.wallet(4)
  await chain.mint('USDT', dave.address, 10_000_000n)
  const w = watcher()
  await w.poll()
  const { ref } = await chain.deposit(dave, 'USDT', 3_000_000n, 99)
  await chain.deposit(dave, 'USDT', 2_000_000n, 1)
  await chain.mine(1)
  t.equal(await w.poll(), 2)
  t.equal(spot(dave.address, 'USDT'), 3_000_000, 'the deposit for 99 is in sub-account 0')
  t.equal(spot(dave.address, 'USDT', 1), 2_000_000, 'one for an existing number is where it was sent')
  t.ok(rig.ex.state.depositRefs.has(ref))
  t.equal(findSub(rig.ex.state, { account: dave.address, sub: 99 }), undefined, 'no sub-account 99')
})
