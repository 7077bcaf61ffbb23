// The Vault's rules against a real anvil: deposits move tokens and say who to credit; only
// the operator pays, each withdrawal id once (alone or several in one transaction); only the
// operator anchors, and only forward.

import t from 'tap'
import type { Contract } from 'ethers'
import { mined, revertName as decodeRevert } from '../../chain/provider.js'
import { chainRig } from './rig.js'

const rig = await chainRig()
t.teardown(() => rig.close())
const alice = rig.wallet(1)
const bob = rig.wallet(2)
const usdt = rig.deployment.tokens.find((x) => x.asset === 'USDT')!.address
const asOperator = (): Promise<Contract> => rig.operator.run(async (s) => rig.vault.connect(s) as Contract)

/** The custom error a call reverts with (the simulation before sending reverts). */
async function revertName(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (err) {
    return decodeRevert(err) ?? `unexpected: ${(err as Error).message}`
  }
  return 'no revert'
}

t.test('a deposit moves the tokens into the Vault and names the account, sub-account, token and amount', async (t) => {
  await rig.mint('USDT', alice.address, 5_000_000n)
  const { hash } = await rig.deposit(alice, 'USDT', 2_500_000n, 3)
  const receipt = await rig.provider.getTransactionReceipt(hash)
  const events = receipt!.logs.map((l) => rig.vault.interface.parseLog(l)).filter((e) => e !== null)
  t.same(events.map((e) => [e.name, e.args.account, Number(e.args.subAccount), e.args.token, e.args.amount]),
    [['Deposited', alice.address, 3, usdt, 2_500_000n]])
  t.equal(await rig.token('USDT').balanceOf(rig.deployment.vault), 2_500_000n)
  t.equal(await rig.token('USDT').balanceOf(alice.address), 2_500_000n)
  t.equal(await revertName((rig.vault.connect(alice) as Contract).deposit(usdt, 0n, 0)), 'AmountZero')
})

t.test('a deposit for a sub-account no address has (32 and up) is refused, the tokens left with the sender', async (t) => {
  await rig.mint('USDT', alice.address, 1_000_000n)
  const before = await rig.token('USDT').balanceOf(alice.address)
  const held = await rig.token('USDT').balanceOf(rig.deployment.vault)
  await mined(await (rig.token('USDT').connect(alice) as Contract).approve(rig.deployment.vault, 1_000_000n))
  for (const sub of [32, 99, 2 ** 32 - 1]) {
    t.equal(await revertName((rig.vault.connect(alice) as Contract).deposit(usdt, 1_000_000n, sub)), 'SubAccountInvalid', `sub-account ${sub}`)
  }
  t.equal(await rig.token('USDT').balanceOf(alice.address), before)
  t.equal(await rig.token('USDT').balanceOf(rig.deployment.vault), held)
  const { hash } = await rig.deposit(alice, 'USDT', 1_000_000n, 31)
  t.ok(hash, 'the last one, 31, is taken')
})

t.test('only the operator pays a withdrawal, and each id only once', async (t) => {
  t.equal(await revertName((rig.vault.connect(bob) as Contract).withdraw(1n, usdt, bob.address, 1_000_000n)), 'NotOperator')
  const vault = await asOperator()
  await rig.operator.run(async () => mined(await vault.withdraw(1n, usdt, bob.address, 1_000_000n)))
  t.equal(await rig.token('USDT').balanceOf(bob.address), 1_000_000n)
  t.equal(await rig.vault.paid(1n), true)
  t.equal(await rig.vault.paid(2n), false)
  t.equal(await revertName(rig.operator.run(() => vault.withdraw(1n, usdt, bob.address, 1_000_000n))), 'AlreadyPaid')
  t.equal(await rig.token('USDT').balanceOf(bob.address), 1_000_000n)
  // More than the Vault holds: the token refuses and the id stays unpaid.
  t.equal(await revertName(rig.operator.run(() => vault.withdraw(2n, usdt, bob.address, 10_000_000n))), 'InsufficientBalance')
  t.equal(await rig.vault.paid(2n), false)
})

t.test('several withdrawals in one transaction: operator only, each id once, an id paid already passed over', async (t) => {
  const vault = await asOperator()
  const many = (ids: bigint[], amounts: bigint[], to = bob.address) =>
    vault.withdrawMany(ids, ids.map(() => usdt), ids.map(() => to), amounts)
  t.equal(await revertName((rig.vault.connect(bob) as Contract).withdrawMany([3n], [usdt], [bob.address], [1n])), 'NotOperator')
  t.equal(await revertName(rig.operator.run(() => vault.withdrawMany([3n, 4n], [usdt], [bob.address], [1n, 1n]))), 'LengthMismatch')
  const before = await rig.token('USDT').balanceOf(bob.address)
  // Id 1 was paid above: passed over, the others paid.
  const receipt = await rig.operator.run(async () => mined(await many([1n, 3n, 4n], [5n, 100_000n, 200_000n])))
  const paid = receipt.logs.map((l) => rig.vault.interface.parseLog(l)).filter((e) => e?.name === 'Withdrawn')
  t.same(paid.map((e) => [e!.args.id, e!.args.amount]), [[3n, 100_000n], [4n, 200_000n]])
  t.equal(await rig.token('USDT').balanceOf(bob.address), before + 300_000n)
  t.same([await rig.vault.paid(3n), await rig.vault.paid(4n)], [true, true])
  // One the Vault cannot pay reverts them all: none of the ids is marked paid.
  t.equal(await revertName(rig.operator.run(() => many([5n, 6n], [1n, 10_000_000n]))), 'InsufficientBalance')
  t.same([await rig.vault.paid(5n), await rig.vault.paid(6n)], [false, false])
})

t.test('anchors: operator only, seq strictly increasing, readable latest and by seq', async (t) => {
  const root = (n: number): string => '0x' + n.toString(16).padStart(64, '0')
  t.same(await rig.vault.latestAnchor(), [0n, root(0), root(0)])
  t.equal(await revertName((rig.vault.connect(alice) as Contract).anchor(5n, root(1), root(2))), 'NotOperator')
  const vault = await asOperator()
  await rig.operator.run(async () => mined(await vault.anchor(5n, root(1), root(2))))
  t.equal(await revertName(rig.operator.run(() => vault.anchor(5n, root(3), root(4)))), 'SeqNotAfter')
  t.equal(await revertName(rig.operator.run(() => vault.anchor(4n, root(3), root(4)))), 'SeqNotAfter')
  t.equal(await revertName(rig.operator.run(() => vault.anchor(6n, root(0), root(4)))), 'RootZero')
  await rig.operator.run(async () => mined(await vault.anchor(10n, root(3), root(4))))
  t.same(await rig.vault.latestAnchor(), [10n, root(3), root(4)])
  t.same(await rig.vault.anchorAt(5n), [root(1), root(2)])
  t.equal(await rig.vault.anchorCount(), 2n)
  t.equal(await rig.vault.anchoredSeqs(0n), 5n)
  t.equal(await revertName(rig.vault.anchorAt(7n)), 'NoAnchor')
})

t.test('mined: a transaction mined only later is waited for, and its receipt returned', async (t) => {
  // Blocks only on demand: nothing else will mine one.
  await rig.provider.send('evm_setAutomine', [false])
  t.teardown(() => rig.provider.send('evm_setAutomine', [true]))
  const tx = await rig.operator.run(async (s) => (rig.token('USDT').connect(s) as Contract).mint(alice.address, 1n))
  let receipt: { hash: string; status: number | null } | undefined
  const waiting = mined(tx).then((r) => { receipt = r })
  await new Promise((r) => setTimeout(r, 300))
  t.equal(receipt, undefined, 'not before its block')
  await rig.provider.send('evm_mine', [])
  await waiting
  t.match(receipt, { hash: tx.hash, status: 1 }, 'its receipt once mined')
})
