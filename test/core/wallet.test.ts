// Wallet: deposits (idempotent by ref; the perp wallet holds only USDT), spot ⇄ perp
// transfers bounded by what perp margin leaves free, and withdrawals that debit on request,
// then complete or fail with a refund. 1 USDT = 1,000,000 units.

import t from 'tap'
import type { Command, Deposit } from '../../core/commands.js'
import { LIMITS } from '../../core/limits.js'
import { stateLeaves, stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { ALICE, BOB, BTCSPOT, CAROL, COIN, DAVE, NO_BAND_GENESIS, TestExchange, USDT } from '../helpers/exchange.js'
import { limit, rejection } from '../helpers/commands.js'

const ADDR = '0x' + '1'.repeat(40)

const dep = (over: Partial<Deposit>): Deposit =>
  ({ type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 100 * USDT, wallet: 'SPOT', ref: 'tx1:0', ...over })

const xfer = (direction: 'SPOT_TO_PERP' | 'PERP_TO_SPOT', amount: number, account = ALICE): Command =>
  ({ type: 'Transfer', account, sub: 0, direction, amount })

t.test('deposits', async (t) => {
  const ex = new TestExchange()
  const r = ex.ok(dep({}))
  t.same(r.events.map((e) => e.type), ['deposit', 'balance'])
  t.match(r.events[0], { account: ALICE, asset: 'USDT', amount: 100 * USDT, wallet: 'SPOT', ref: 'tx1:0' })
  t.match(r.events[1], { wallet: 'SPOT', asset: 'USDT', free: 100 * USDT, locked: 0, delta: 100 * USDT, reason: 'DEPOSIT' })
  const p = ex.ok(dep({ wallet: 'PERP', amount: 50 * USDT, ref: 'tx2:0' }))
  t.match(p.events[1], { wallet: 'PERP', asset: 'USDT', free: 50 * USDT, delta: 50 * USDT })
  ex.ok(dep({ asset: 'BTC', amount: COIN, ref: 'tx3:0' }))
  t.same([ex.sub(ALICE).perpWallet, ex.sub(ALICE).spot.get('USDT')!.free, ex.sub(ALICE).spot.get('BTC')!.free],
    [50 * USDT, 100 * USDT, COIN])
  t.equal(ex.state.deposited.get('USDT'), BigInt(150 * USDT))

  const rows: [string, Deposit, string][] = [
    ['the same ref again', dep({}), 'DEPOSIT_DUPLICATE'],
    ['the same ref for someone else', dep({ account: BOB }), 'DEPOSIT_DUPLICATE'],
    ['BTC into the perp wallet', dep({ asset: 'BTC', wallet: 'PERP', ref: 'n1' }), 'ASSET_UNKNOWN'],
    ['an unknown asset', dep({ asset: 'DOGE', ref: 'n2' }), 'ASSET_UNKNOWN'],
    ['amount 0', dep({ amount: 0, ref: 'n3' }), 'AMOUNT_INVALID'],
    ['amount negative', dep({ amount: -1, ref: 'n4' }), 'AMOUNT_INVALID'],
    ['amount fractional', dep({ amount: 1.5, ref: 'n5' }), 'AMOUNT_INVALID'],
    ['amount over the ledger bound', dep({ amount: LIMITS.ledgerAmountMax + 1, ref: 'n6' }), 'AMOUNT_INVALID'],
    ['a balance past the ledger bound', dep({ amount: LIMITS.ledgerAmountMax, ref: 'n7' }), 'OVERFLOW'],
    ['an empty ref', dep({ ref: '' }), 'COMMAND_INVALID'],
    ['an unknown wallet', dep({ wallet: 'MARGIN' as never, ref: 'n8' }), 'COMMAND_INVALID'],
    ['a bad address', dep({ account: '0x123', ref: 'n9' }), 'ACCOUNT_INVALID'],
  ]
  for (const [name, cmd, code] of rows) {
    t.same(rejection(ex, cmd), { code, eventCount: 0, rootUnchanged: true }, name)
  }
})

t.test('transfers between spot and perp report both balances', async (t) => {
  const ex = new TestExchange()
  ex.ok(dep({}))
  const r = ex.ok(xfer('SPOT_TO_PERP', 40 * USDT))
  t.same(r.events.map((e) => e.type), ['transfer', 'balance', 'balance'])
  t.match(r.events[0], { direction: 'SPOT_TO_PERP', asset: 'USDT', amount: 40 * USDT, spotBalance: 60 * USDT, perpBalance: 40 * USDT })
  t.match(r.events[1], { wallet: 'SPOT', free: 60 * USDT, delta: -40 * USDT, reason: 'TRANSFER' })
  t.match(r.events[2], { wallet: 'PERP', free: 40 * USDT, delta: 40 * USDT, reason: 'TRANSFER' })

  t.equal(rejection(ex, xfer('SPOT_TO_PERP', 60 * USDT + 1)).code, 'BALANCE_INSUFFICIENT')
  // 10 lots at 50000.0 hold 25 USDT of the 40 in perp: 15 may leave.
  ex.ok(limit(ALICE, 'BUY', 500_000, 10))
  t.same(rejection(ex, xfer('PERP_TO_SPOT', 15 * USDT + 1)), { code: 'BALANCE_INSUFFICIENT', eventCount: 0, rootUnchanged: true })
  const back = ex.ok(xfer('PERP_TO_SPOT', 15 * USDT))
  t.match(back.events[0], { direction: 'PERP_TO_SPOT', spotBalance: 75 * USDT, perpBalance: 25 * USDT })

  const rows: [string, Command, string][] = [
    ['an account with nothing', xfer('SPOT_TO_PERP', 1, BOB), 'BALANCE_INSUFFICIENT'],
    ['amount 0', xfer('SPOT_TO_PERP', 0), 'AMOUNT_INVALID'],
    ['an unknown direction', { type: 'Transfer', account: ALICE, sub: 0, direction: 'SIDEWAYS' as never, amount: 1 }, 'COMMAND_INVALID'],
    ['perp to spot with all margin in use', xfer('PERP_TO_SPOT', 1), 'BALANCE_INSUFFICIENT'],
  ]
  for (const [name, cmd, code] of rows) t.same(rejection(ex, cmd), { code, eventCount: 0, rootUnchanged: true }, name)
})

t.test('perp to spot: unrealized loss counts, unrealized profit does not', async (t) => {
  // Marks 10 % apart in one trade: without the price band.
  const ex = new TestExchange(NO_BAND_GENESIS)
  // Alice with 130: the loss to come leaves her above maintenance, so no liquidation steps in.
  ex.fund(ALICE, 130)
  ex.fund(BOB, 100)
  for (const a of [CAROL, DAVE]) ex.fund(a, 1_000)
  ex.ok(limit(BOB, 'SELL', 500_000, 10))
  ex.ok(limit(ALICE, 'BUY', 500_000, 10)) // Alice long 10 (fee 250,000), Bob short 10 (fee 100,000)
  ex.ok(limit(CAROL, 'SELL', 400_000, 3))
  ex.ok(limit(DAVE, 'BUY', 400_000, 3)) // the mark is now 40000.0
  // Bob: wallet 99,900,000, unrealized (5,000,000 − 4,000,000) × 100 = +100,000,000,
  // IM 4,000,000 × 100 / 20 = 20,000,000: available 179,900,000, but only the wallet may leave.
  t.equal(rejection(ex, xfer('PERP_TO_SPOT', 99_900_001, BOB)).code, 'BALANCE_INSUFFICIENT')
  t.equal(rejection(ex, xfer('PERP_TO_SPOT', 99_900_000, BOB)).code, 'ACCEPTED')
  // Alice: wallet 129,750,000 − 100,000,000 loss − 20,000,000 IM: 9,750,000 may leave.
  t.equal(rejection(ex, xfer('PERP_TO_SPOT', 9_750_001)).code, 'BALANCE_INSUFFICIENT')
  t.equal(rejection(ex, xfer('PERP_TO_SPOT', 9_750_000)).code, 'ACCEPTED')
})

t.test('withdrawals: request debits, complete keeps it, fail refunds', async (t) => {
  const ex = new TestExchange()
  ex.ok(dep({}))
  const w = (amount: number, withdrawOrderId?: string): Command =>
    ({ type: 'WithdrawalRequest', account: ALICE, sub: 0, asset: 'USDT', amount, address: ADDR, ...(withdrawOrderId ? { withdrawOrderId } : {}) })
  const r1 = ex.ok(w(30 * USDT, 'w-1'))
  t.equal(r1.withdrawalId, 1)
  t.match(r1.events, [
    { type: 'withdrawal', withdrawalId: 1, amount: 30 * USDT, address: ADDR, withdrawOrderId: 'w-1', status: 'PROCESSING', txId: '' },
    { type: 'balance', wallet: 'SPOT', asset: 'USDT', free: 70 * USDT, delta: -30 * USDT, reason: 'WITHDRAW' },
  ])
  const r2 = ex.ok(w(20 * USDT))
  t.equal(r2.withdrawalId, 2)
  t.equal(ex.sub(ALICE).spot.get('USDT')!.free, 50 * USDT)
  t.equal(ex.sub(ALICE).pendingWithdrawals, 2)

  const rows: [string, Command, string][] = [
    ['more than is free', w(50 * USDT + 1), 'BALANCE_INSUFFICIENT'],
    ['an address that is not one', { ...w(1), address: 'bob' } as Command, 'COMMAND_INVALID'],
    ['an unknown asset', { ...w(1), asset: 'DOGE' } as Command, 'ASSET_UNKNOWN'],
    ['completing an unknown withdrawal', { type: 'WithdrawalComplete', withdrawalId: 99, txId: '0xabc' }, 'WITHDRAWAL_UNKNOWN'],
    ['completing without a txId', { type: 'WithdrawalComplete', withdrawalId: 1, txId: '' }, 'COMMAND_INVALID'],
  ]
  for (const [name, cmd, code] of rows) t.same(rejection(ex, cmd), { code, eventCount: 0, rootUnchanged: true }, name)

  const done = ex.ok({ type: 'WithdrawalComplete', withdrawalId: 1, txId: '0xabc' })
  t.match(done.events, [{ type: 'withdrawal', withdrawalId: 1, status: 'COMPLETED', txId: '0xabc', amount: 30 * USDT }])
  t.equal(ex.state.withdrawn.get('USDT'), BigInt(30 * USDT))
  t.equal(rejection(ex, { type: 'WithdrawalComplete', withdrawalId: 1, txId: '0xabc' }).code, 'WITHDRAWAL_UNKNOWN', 'completes once')
  t.equal(rejection(ex, { type: 'WithdrawalFail', withdrawalId: 1, reason: 'late' }).code, 'WITHDRAWAL_UNKNOWN', 'a completed one cannot fail')

  const failed = ex.ok({ type: 'WithdrawalFail', withdrawalId: 2, reason: 'reverted' })
  t.match(failed.events, [
    { type: 'withdrawal', withdrawalId: 2, status: 'FAILED', reason: 'reverted' },
    { type: 'balance', wallet: 'SPOT', asset: 'USDT', free: 70 * USDT, delta: 20 * USDT, reason: 'WITHDRAW_REJECT' },
  ])
  t.equal(rejection(ex, { type: 'WithdrawalFail', withdrawalId: 2, reason: 'again' }).code, 'WITHDRAWAL_UNKNOWN')
  t.equal(ex.sub(ALICE).pendingWithdrawals, 0)
  // deposited − withdrawn = what the account holds.
  t.equal(ex.state.deposited.get('USDT')! - ex.state.withdrawn.get('USDT')!, BigInt(ex.sub(ALICE).spot.get('USDT')!.free))
})

t.test('locked spot balance cannot be withdrawn', async (t) => {
  const ex = new TestExchange()
  ex.ok(dep({}))
  ex.ok(limit(ALICE, 'BUY', 3_000_000, 20, { marketId: BTCSPOT })) // locks 20 × 3,000,000 = 60 USDT
  const w = (amount: number): Command => ({ type: 'WithdrawalRequest', account: ALICE, sub: 0, asset: 'USDT', amount, address: ADDR })
  t.equal(rejection(ex, w(40 * USDT + 1)).code, 'BALANCE_INSUFFICIENT')
  t.equal(rejection(ex, w(40 * USDT)).code, 'ACCEPTED')
})

t.test('lifetime totals count exactly past 2^53 (9.0e9 USDT), in the root and the snapshot', async (t) => {
  const ex = new TestExchange()
  const max = LIMITS.ledgerAmountMax
  for (const [i, account] of [ALICE, BOB, CAROL].entries()) ex.ok(dep({ account, amount: max, ref: `big-${i}` }))
  ex.ok(dep({ account: DAVE, amount: 1, ref: 'one' }))
  const total = 3n * BigInt(max) + 1n
  t.ok(total > BigInt(Number.MAX_SAFE_INTEGER))
  t.equal(ex.state.deposited.get('USDT'), total, 'as numbers, the last unit would have been lost')
  ex.ok({ type: 'WithdrawalRequest', account: ALICE, sub: 0, asset: 'USDT', amount: max, address: ADDR })
  ex.ok({ type: 'WithdrawalComplete', withdrawalId: 1, txId: '0x1' })
  t.equal(ex.state.withdrawn.get('USDT'), BigInt(max))
  t.ok(stateLeaves(ex.state).includes(`deposited|USDT|${total}`), 'the root hashes the exact total')
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(restored.deposited.get('USDT'), total)
  t.equal(stateRoot(restored), stateRoot(ex.state))
})
