// The audit's money check (chain/money-audit.ts) on a real chain: one history of deposits into
// the Vault and one payment out of it, and logs that tell it truly or not. The honest log passes
// with its reserves; a credit with no deposit behind it, a credit larger than the deposit, a
// deposit passed over, a payment marked but never made, a refund of a payment made, and a
// payment the log never asked for each give their finding; money moved between sub-accounts,
// dust the watcher would not credit, deposits after the log's last credit, and payments of
// withdrawals still pending do not; withdrawals paid together in one transaction each match; a
// deposit for a sub-account no address has is expected in the master account.

import t from 'tap'
import { getAddress, type Contract } from 'ethers'
import type { Command, DeclareChain } from '../../core/commands.js'
import { RULES_VERSION } from '../../core/rules.js'
import { apply } from '../../core/apply.js'
import { createState } from '../../core/state.js'
import { DEFAULT_GENESIS, genesisCommands } from '../../core/genesis-spec.js'
import { auditLog } from '../../chain/audit.js'
import { MoneyCheck, PREFIX_GRACE_MS } from '../../chain/money-audit.js'
import { mined } from '../../chain/provider.js'
import { readVaultRecords } from '../../chain/vault-records.js'
import { GENESIS_HASH, makeEntry, type LogEntry } from '../../replica/entry.js'
import { chainRig } from './rig.js'

const chain = await chainRig()
t.teardown(() => chain.close())
const alice = chain.wallet(1)
const bob = chain.wallet(2)
const carol = chain.wallet(3)
const USDT = 1_000_000n

/** Deposits from `from` and returns the ref the watcher would write. */
async function deposit(from: typeof alice, asset: string, amount: bigint): Promise<string> {
  await chain.mint(asset, from.address, amount)
  return (await chain.deposit(from, asset, amount)).ref
}

// The chain's history: three USDT deposits, a dust deposit of WETH between them, and the Vault
// paying withdrawal 1 (20 USDT to Alice).
const d1 = await deposit(alice, 'USDT', 100n * USDT)
const d2 = await deposit(bob, 'USDT', 50n * USDT)
await deposit(alice, 'ETH', 1n)
const d4 = await deposit(carol, 'USDT', 30n * USDT)
const payment = await chain.operator.run(async (s) => (await mined(await (chain.vault.connect(s) as Contract)
  .withdraw(1, chain.deployment.tokens.find((x) => x.asset === 'USDT')!.address, alice.address, 20n * USDT))).hash as string)

const credit = (who: { address: string }, usdt: number, ref: string): Command =>
  ({ type: 'Deposit', account: who.address, sub: 0, asset: 'USDT', amount: usdt * 1_000_000, wallet: 'SPOT', ref })
const request = (to = alice.address): Command =>
  ({ type: 'WithdrawalRequest', account: alice.address, sub: 0, asset: 'USDT', amount: 20_000_000, address: to })
const paid: Command = { type: 'WithdrawalComplete', withdrawalId: 1, txId: payment }
const HONEST: Command[] = [credit(alice, 100, d1), credit(bob, 50, d2), credit(carol, 30, d4), request(), paid]

/** Audits a log of genesis and `commands` against the chain: the money findings and summary. */
async function check(commands: Command[], prefix = false, t0 = 1_000) {
  const entries: LogEntry[] = []
  let prev = GENESIS_HASH
  for (const [i, c] of [...genesisCommands(DEFAULT_GENESIS), ...commands].entries()) {
    const e = makeEntry(i + 1, t0 + i, c, prev)
    entries.push(e)
    prev = e.hash
  }
  async function* batches(): AsyncIterable<LogEntry[]> { yield entries }
  const money = new MoneyCheck()
  const report = await auditLog(batches(), { chainId: chain.anvil.chainId, anchors: [], money })
  if (report.findings.length > 0) throw new Error(`the replay: ${JSON.stringify(report.findings)}`)
  const blockTime = async (block: number): Promise<number> => (await chain.provider.getBlock(block))!.timestamp
  const r = await money.reconcile(await readVaultRecords(chain.provider, chain.deployment.vault, { tokens: money.declaredTokens }),
    prefix ? { blockTime } : undefined)
  return { findings: r.findings.map((f) => f.what), summary: r.summary }
}

t.test('the honest log: every credit and payment on chain, dust skipped, reserves cover the debt', async (t) => {
  const r = await check(HONEST)
  t.same(r.findings, [])
  t.same(r.summary, { depositsMatched: 3, depositsAfter: 0, depositsSkipped: 1, paymentsMarked: 1, paymentsMatched: 1,
    reserves: [{ asset: 'USDT', token: chain.deployment.tokens[0]!.address, decimals: 6, held: 160n * USDT, owed: 160n * USDT }] })
})

t.test('credits the Vault never received', async (t) => {
  const fake = '0x' + '77'.repeat(32) + ':1'
  const r = await check([...HONEST, credit(bob, 5, fake)])
  t.same(r.findings, [`5000000 units of USDT credited to ${bob.address} sub-account 0 (ref ${fake}): no such deposit into the Vault`,
    `the Vault holds 160000000 token units of USDT (${chain.deployment.tokens[0]!.address}), but the ledger owes 165000000`])
  const more = await check([credit(alice, 101, d1), ...HONEST.slice(1)])
  t.same(more.findings, [`101000000 units of USDT credited to ${alice.address} sub-account 0 (ref ${d1}), but the Vault's deposit is for 100000000 units`,
    `the Vault holds 160000000 token units of USDT (${chain.deployment.tokens[0]!.address}), but the ledger owes 161000000`])
  const other = await check([credit(bob, 100, d1), ...HONEST.slice(1)])
  t.match(other.findings, [`credited to ${bob.address} sub-account 0 (ref ${d1}), but the Vault's deposit is for account ${alice.address}`])
})

t.test('a deposit passed over while later ones were credited', async (t) => {
  const r = await check([credit(alice, 100, d1), credit(carol, 30, d4), request(), paid])
  const block = (await chain.provider.getTransactionReceipt(d2.split(':')[0]!))!.blockNumber
  t.same(r.findings, [`the Vault's deposit ${d2} (block ${block}) ` +
    `of 50000000 token units of USDT by ${bob.address} sub-account 0 was never credited, though later deposits were`])
  // Not after the log's last credit: the watcher may not have reached those yet.
  const early = await check([credit(alice, 100, d1), credit(bob, 50, d2)], true)
  t.same(early.findings, [], 'deposits after the last credit, and in a prefix a payment of a withdrawal not yet asked for, are no findings')
  t.equal(early.summary.depositsAfter, 2, 'the dust and Carol\'s deposit come after it')
})

t.test('payments: marked but not made, made but refunded, made but never asked for', async (t) => {
  const unpaid = await check([...HONEST.slice(0, 4), { type: 'WithdrawalComplete', withdrawalId: 1, txId: '0x' + '42'.repeat(32) }])
  t.same(unpaid.findings, [`withdrawal 1 of 20000000 units of USDT to ${alice.address} marked paid by 0x${'42'.repeat(32)}, ` +
    `but the Vault's payment is transaction ${payment}`])
  const refunded = await check([...HONEST.slice(0, 4), { type: 'WithdrawalFail', withdrawalId: 1, reason: 'gone' }])
  t.match(refunded.findings, [`withdrawal 1 refunded, but the Vault paid it (20000000 token units to ${alice.address} in ${payment})`,
    /the Vault holds 160000000 token units of USDT .*, but the ledger owes 180000000/])
  const elsewhere = await check([...HONEST.slice(0, 3), request(bob.address), paid])
  t.same(elsewhere.findings, [`withdrawal 1 of 20000000 units of USDT to ${bob.address} marked paid by ${payment}, but the Vault's payment is address ${alice.address}`])
  const never = await check(HONEST.slice(0, 3))
  t.match(never.findings, [`the Vault paid withdrawal 1 (20000000 token units to ${alice.address} in ${payment}), which the log never requested`,
    /the Vault holds 160000000 .* owes 180000000/])
  t.same((await check(HONEST.slice(0, 3), true)).findings, [], 'in a prefix it may be a later withdrawal\'s, and its debt is off the Vault')
  // Unless the log goes on well past the payment: its request would be in it.
  const paidAt = (await chain.provider.getBlock((await chain.provider.getTransactionReceipt(payment))!.blockNumber))!.timestamp * 1000
  const later = await check(HONEST.slice(0, 3), true, paidAt + PREFIX_GRACE_MS)
  t.match(later.findings, [/^the Vault paid withdrawal 1 .* which the log never requested$/, /owes 180000000$/], 'a prefix ending a minute after it')
  t.same((await check(HONEST.slice(0, 3), true, paidAt)).findings, [], 'one ending just after it: the request may still come')
  const pending = await check(HONEST.slice(0, 4))
  t.same(pending.findings, [], 'requested and paid, not yet marked: no finding')
  t.equal(pending.summary.reserves[0]!.owed, 160n * USDT, 'and the payment already made is off what the Vault must hold')
})

t.test('a marked payment with no payment at all', async (t) => {
  // Withdrawal 2 was never paid by the Vault.
  const r = await check([...HONEST, { type: 'WithdrawalRequest', account: bob.address, sub: 0, asset: 'USDT', amount: 10_000_000, address: bob.address },
    { type: 'WithdrawalComplete', withdrawalId: 2, txId: payment }])
  t.same(r.findings, [`withdrawal 2 of 10000000 units of USDT to ${bob.address} marked paid by ${payment}, but the Vault never paid it`])
})

t.test('a log that declares its chain: tokens from the declaration, held against the chain', async (t) => {
  const seeded: Command = { type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '21'.repeat(32) }
  const declared = (change: Partial<DeclareChain> = {}): Command => ({ type: 'DeclareChain', chainId: chain.anvil.chainId, vault: chain.deployment.vault,
    tokens: chain.deployment.tokens.map(({ asset, address, decimals }) => ({ asset, address, decimals })), ...change })
  const honest = await check([seeded, declared(), ...HONEST])
  t.same(honest.findings, [])
  t.same(honest.summary.reserves.map((r) => [r.asset, r.held, r.owed]), [['USDT', 160n * USDT, 160n * USDT], ['BTC', 0n, 0n], ['ETH', 1n, 0n]],
    'every declared token\'s holdings, the dust of ETH among them')
  // Money moved between an account's sub-accounts (rules 3) stays the account's: nothing owed changes.
  const moves: Command[] = [
    { type: 'SubAccountTransfer', account: alice.address, sub: 0, fromSub: 0, toSub: 2, fromWallet: 'SPOT', toWallet: 'PERP', asset: 'USDT', amount: 30_000_000 },
    { type: 'SubAccountTransfer', account: alice.address, sub: 2, fromSub: 2, toSub: 0, fromWallet: 'PERP', toWallet: 'SPOT', asset: 'USDT', amount: 5_000_000 },
  ]
  const state = createState()
  const applied = [...genesisCommands(DEFAULT_GENESIS), seeded, declared(), ...HONEST, ...moves]
    .map((command, i) => apply(state, { seq: i + 1, time: 1_000 + i, command }))
  t.same(applied.slice(-2).map((r) => r.ok), [true, true], 'both moves apply')
  const moved = await check([seeded, declared(), ...HONEST, ...moves])
  t.same(moved.findings, [])
  t.same(moved.summary.reserves, honest.summary.reserves)
  const usdt = chain.deployment.tokens.find((x) => x.asset === 'USDT')!
  const other = '0x' + '99'.repeat(20)
  const elsewhere = await check([seeded, declared({ tokens: [{ asset: 'USDT', address: other, decimals: 6 }] }), ...HONEST])
  const paired = `USDT is paired with token ${usdt.address} here, but USDT was ${getAddress(other)} in the log's chain declaration`
  t.same(elsewhere.findings.filter((f) => f === paired).length, 4, 'each credit and the payment of the real token')
  t.ok(elsewhere.findings.includes(`the log declares USDT's token ${getAddress(other)}, which is no ERC-20 on this chain`), elsewhere.findings.join('\n'))
  const decimals = await check([seeded, declared({ tokens: [{ asset: 'USDT', address: usdt.address, decimals: 18 }] }), ...HONEST])
  t.match(decimals.findings, [`the log declares USDT's token ${usdt.address} with 18 decimals, but it has 6`])
  const mainnet = await check([seeded, declared({ chainId: 1 }), ...HONEST])
  t.same(mainnet.findings, [`the log declares its money on chain 1, but the Vault was read on chain ${chain.anvil.chainId}`])
})

t.test('a deposit for a sub-account no address has (a Vault from before it refused them): credited to the master account', async (t) => {
  const snapshot = await chain.provider.send('evm_snapshot', [])
  t.teardown(() => chain.provider.send('evm_revert', [snapshot]))
  await chain.legacyVault()
  await chain.mint('USDT', alice.address, 5n * USDT)
  const beyond = (await chain.deposit(alice, 'USDT', 5n * USDT, 99)).ref
  const later = await deposit(bob, 'USDT', 6n * USDT)
  const toSub = (sub: number): Command => ({ ...credit(alice, 5, beyond), sub } as Command)
  const credited = await check([...HONEST, toSub(0), credit(bob, 6, later)])
  t.same(credited.findings, [])
  t.equal(credited.summary.depositsMatched, 5)
  // A build before that rule submitted it for sub-account 99, which the ledger refused.
  const refused = await check([...HONEST, toSub(99), credit(bob, 6, later)])
  t.same(refused.findings, [], 'refused by the ledger in the log: skipped, as the watcher of the day did')
  t.same([refused.summary.depositsMatched, refused.summary.depositsSkipped], [4, 2])
  const passed = await check([...HONEST, credit(bob, 6, later)])
  t.match(passed.findings, [new RegExp(`deposit ${beyond} .* sub-account 99 was never credited, though later deposits were`)])
  const elsewhere = await check([...HONEST, toSub(3), credit(bob, 6, later)])
  t.match(elsewhere.findings, [`credited to ${alice.address} sub-account 3 (ref ${beyond}), but the Vault's deposit is for sub-account 99`])
})

// Last in the file: it adds payments to the chain's history.
t.test('withdrawals paid together in one transaction (withdrawMany) each match their payment', async (t) => {
  const usdt = chain.deployment.tokens.find((x) => x.asset === 'USDT')!.address
  const together = await chain.operator.run(async (s) => (await mined(await (chain.vault.connect(s) as Contract)
    .withdrawMany([2, 3], [usdt, usdt], [alice.address, alice.address], [10n * USDT, 10n * USDT]))).hash as string)
  const ten: Command = { type: 'WithdrawalRequest', account: alice.address, sub: 0, asset: 'USDT', amount: 10_000_000, address: alice.address }
  const completed = (withdrawalId: number, txId: string): Command => ({ type: 'WithdrawalComplete', withdrawalId, txId })
  const r = await check([...HONEST, ten, ten, completed(2, together), completed(3, together)])
  t.same(r.findings, [])
  t.equal(r.summary.paymentsMatched, 3)
  t.same(r.summary.reserves.map((x) => [x.held, x.owed]), [[140n * USDT, 140n * USDT]])
  // One of them marked paid by another transaction (withdrawal 1's) is a finding.
  const wrong = await check([...HONEST, ten, ten, completed(2, together), completed(3, payment)])
  t.equal(wrong.findings.length, 1, wrong.findings.join('\n'))
  t.match(wrong.findings[0], new RegExp(`^withdrawal 3 .* marked paid by ${payment}.*transaction ${together}`))
  t.match(wrong.summary, { paymentsMarked: 3, paymentsMatched: 2 }, 'the summary counts it marked, not matched')
})
