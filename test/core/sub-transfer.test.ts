// Sub-account transfers (core/sub-transfer.ts, rules 3): money between two sub-accounts of one
// account, asked by the source or by sub-account 0; the perp wallet's money bounded by its
// margin as a withdrawal is; under older rules the command is unknown. 1 USDT = 1,000,000 units.

import t from 'tap'
import { apply } from '../../core/apply.js'
import type { Command, CreateSubAccount, SubAccountTransfer } from '../../core/commands.js'
import { LIMITS } from '../../core/limits.js'
import { RULES_VERSION, SUB_ACCOUNT_CREATION, SUB_ACCOUNT_TRANSFERS } from '../../core/rules.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { ALICE, BOB, BTCPERP, COIN, TestExchange, USDT } from '../helpers/exchange.js'
import { limit, rejection } from '../helpers/commands.js'

const SEED = '0x' + '3c'.repeat(32)

/** An exchange under the newest rules: Alice's master holds 100 USDT spot, 50 USDT perp and 1 BTC. */
function rig(): TestExchange {
  const ex = new TestExchange()
  ex.ok({ type: 'SetRules', version: RULES_VERSION, leafSeed: SEED })
  ex.fund(ALICE, 100, 0, 'SPOT')
  ex.fund(ALICE, 50, 0, 'PERP')
  ex.deposit(ALICE, 'BTC', COIN)
  return ex
}

const move = (over: Partial<SubAccountTransfer>): SubAccountTransfer => ({
  type: 'SubAccountTransfer', account: ALICE, sub: 0, fromSub: 0, toSub: 1, fromWallet: 'SPOT', toWallet: 'SPOT',
  asset: 'USDT', amount: 10 * USDT, ...over,
})

t.test('the master funds a sub-account and takes it back; both sides say their balances', async (t) => {
  const ex = rig()
  const r = ex.ok(move({ toWallet: 'PERP', amount: 30 * USDT, clientTranId: 'bot-1' }))
  t.same(r.events.map((e) => e.type), ['subTransfer', 'balance', 'balance'])
  t.match(r.events[0], { account: ALICE, fromSub: 0, toSub: 1, fromWallet: 'SPOT', toWallet: 'PERP', asset: 'USDT',
    amount: 30 * USDT, clientTranId: 'bot-1' })
  t.match(r.events[1], { account: ALICE, sub: 0, wallet: 'SPOT', asset: 'USDT', free: 70 * USDT, delta: -30 * USDT, reason: 'TRANSFER' })
  t.match(r.events[2], { account: ALICE, sub: 1, wallet: 'PERP', asset: 'USDT', free: 30 * USDT, delta: 30 * USDT, reason: 'TRANSFER' })
  t.same([ex.sub(ALICE).spot.get('USDT')!.free, ex.sub(ALICE, 1).perpWallet], [70 * USDT, 30 * USDT], 'sub-account 1 came into being')

  // BTC spot to spot; the sub-account pushes some back itself; the master pulls the rest.
  ex.ok(move({ asset: 'BTC', amount: COIN / 4 }))
  t.equal(ex.sub(ALICE, 1).spot.get('BTC')!.free, COIN / 4)
  ex.ok(move({ sub: 1, fromSub: 1, toSub: 0, fromWallet: 'PERP', toWallet: 'SPOT', amount: 5 * USDT }))
  ex.ok(move({ sub: 0, fromSub: 1, toSub: 0, fromWallet: 'PERP', toWallet: 'PERP', amount: 25 * USDT }))
  t.same([ex.sub(ALICE).spot.get('USDT')!.free, ex.sub(ALICE).perpWallet, ex.sub(ALICE, 1).perpWallet], [75 * USDT, 75 * USDT, 0])
  // From one sub-account to another, asked by the master; the counts the audit checks do not move.
  ex.ok(move({ fromSub: 1, toSub: 2, asset: 'BTC', amount: COIN / 4 }))
  t.equal(ex.sub(ALICE, 2).spot.get('BTC')!.free, COIN / 4)
  t.equal(ex.state.deposited.get('USDT'), BigInt(150 * USDT))
  t.equal(ex.state.withdrawn.get('USDT') ?? 0n, 0n)
})

t.test('what a sub-account transfer is refused for, changing nothing', async (t) => {
  const ex = rig()
  ex.ok(move({ amount: 20 * USDT }))
  ex.fund(BOB, 10, 0, 'SPOT')
  // Alice's master holds 50 USDT perp; 10 lots at 50000.0 at 20x hold 25 of it: 25 may leave.
  ex.ok(limit(ALICE, 'BUY', 500_000, 10))
  const rows: [string, Command, string][] = [
    ['perp money held as margin', move({ fromWallet: 'PERP', amount: 25 * USDT + 1 }), 'BALANCE_INSUFFICIENT'],
    ['more spot than the source holds', move({ amount: 80 * USDT + 1 }), 'BALANCE_INSUFFICIENT'],
    ['from a sub-account that does not exist', move({ fromSub: 5, toSub: 0 }), 'BALANCE_INSUFFICIENT'],
    ['asked by another sub-account than the source or the master', move({ sub: 2, fromSub: 1, toSub: 0 }), 'ACCOUNT_INVALID'],
    ['a sub-account asking for the master\'s money', move({ sub: 1, fromSub: 0, toSub: 1 }), 'ACCOUNT_INVALID'],
    ['to itself', move({ toSub: 0 }), 'COMMAND_INVALID'],
    ['a sub-account past the bound', move({ toSub: LIMITS.subAccountsMax }), 'ACCOUNT_INVALID'],
    ['a negative sub-account', move({ fromSub: -1 }), 'ACCOUNT_INVALID'],
    ['a bad address', move({ account: '0x12' }), 'ACCOUNT_INVALID'],
    ['BTC into a perp wallet', move({ asset: 'BTC', toWallet: 'PERP', amount: 1 }), 'ASSET_UNKNOWN'],
    ['BTC out of a perp wallet', move({ asset: 'BTC', fromWallet: 'PERP', amount: 1 }), 'ASSET_UNKNOWN'],
    ['an unknown asset', move({ asset: 'DOGE' }), 'ASSET_UNKNOWN'],
    ['an unknown wallet', move({ toWallet: 'MARGIN' as never }), 'COMMAND_INVALID'],
    ['amount 0', move({ amount: 0 }), 'AMOUNT_INVALID'],
    ['amount fractional', move({ amount: 1.5 }), 'AMOUNT_INVALID'],
    ['a client id past 64 characters', move({ clientTranId: 'x'.repeat(65) }), 'COMMAND_INVALID'],
    ['a client id that is no string', move({ clientTranId: 7 as never }), 'COMMAND_INVALID'],
  ]
  for (const [name, cmd, code] of rows) t.same(rejection(ex, cmd), { code, eventCount: 0, rootUnchanged: true }, name)
  t.equal(rejection(ex, move({ fromWallet: 'PERP', amount: 25 * USDT })).code, 'ACCEPTED', 'exactly what margin leaves free')
  // A balance past the ledger bound.
  const big = new TestExchange()
  big.ok({ type: 'SetRules', version: RULES_VERSION, leafSeed: SEED })
  big.ok({ type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: LIMITS.ledgerAmountMax, wallet: 'SPOT', ref: 'a' })
  big.ok({ type: 'Deposit', account: ALICE, sub: 1, asset: 'BTC', amount: 1, wallet: 'SPOT', ref: 'b' })
  t.same(rejection(big, move({ asset: 'BTC', amount: LIMITS.ledgerAmountMax })), { code: 'OVERFLOW', eventCount: 0, rootUnchanged: true })
})

t.test('under rules older than 3 the command is unknown, as older builds answered', async (t) => {
  t.equal(SUB_ACCOUNT_TRANSFERS, 3)
  const undeclared = new TestExchange()
  undeclared.fund(ALICE, 100, 0, 'SPOT')
  t.same(rejection(undeclared, move({})), { code: 'COMMAND_UNKNOWN', eventCount: 0, rootUnchanged: true }, 'a log declaring no rules')
  const two = new TestExchange()
  two.ok({ type: 'SetRules', version: 2, leafSeed: SEED })
  two.fund(ALICE, 100, 0, 'SPOT')
  t.same(rejection(two, move({})), { code: 'COMMAND_UNKNOWN', eventCount: 0, rootUnchanged: true }, 'rules 2')
  two.ok({ type: 'SetRules', version: 3 })
  t.equal(rejection(two, move({})).code, 'ACCEPTED', 'from the declaration of rules 3 on')
})

t.test('a snapshot taken after transfers restores to the same root and goes on alike', async (t) => {
  const ex = rig()
  ex.ok(move({ toWallet: 'PERP', amount: 40 * USDT }))
  ex.ok(move({ asset: 'BTC', toSub: 3, amount: COIN / 2 }))
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(stateRoot(restored), stateRoot(ex.state))
  const next = move({ sub: 3, fromSub: 3, toSub: 1, asset: 'BTC', amount: COIN / 8 })
  const entry = { seq: ex.state.seq + 1, time: ex.time + 1, command: next }
  const a = apply(ex.state, entry)
  const b = apply(restored, entry)
  t.ok(a.ok)
  t.same(b, a)
  t.equal(stateRoot(restored), stateRoot(ex.state))
})

// Sub-accounts made for the master (rules 4).

const create = (over: Partial<CreateSubAccount> = {}): CreateSubAccount => ({ type: 'CreateSubAccount', account: ALICE, sub: 0, ...over })
const subsOf = (ex: TestExchange, account = ALICE): number[] =>
  (ex.state.accounts.get(account)?.subs ?? []).flatMap((s, i) => (s === undefined ? [] : [i]))

t.test('the master makes sub-accounts: the lowest number none holds, empty, one at a time', async (t) => {
  const ex = rig()
  const first = ex.ok(create())
  t.same(first.events, [{ type: 'subAccountCreated', account: ALICE, sub: 1, time: ex.time }])
  t.same(subsOf(ex), [0, 1])
  const made = ex.state.accounts.get(ALICE)!.subs[1]!
  t.same([made.perpWallet, made.spot.size, made.perp.size], [0, 0, 0], 'empty')
  t.equal((ex.ok(create()).events[0] as { sub: number }).sub, 2, 'the next request, the next number')
  // Sub-accounts in use are skipped: 3 holds money, 4 a leverage setting.
  ex.ok(move({ toSub: 3 }))
  ex.ok({ type: 'ChangeLeverage', account: ALICE, sub: 4, marketId: BTCPERP, leverage: 5 })
  t.equal((ex.ok(create()).events[0] as { sub: number }).sub, 5)
  // A master with no sub-account in use yet, nor any money: an account of its own from the request on.
  const bob = ex.ok(create({ account: BOB }))
  t.same(bob.events, [{ type: 'subAccountCreated', account: BOB, sub: 1, time: ex.time }])
  t.same(subsOf(ex, BOB), [1], 'its master holds nothing yet: only the new one exists')
  // Money reaches the new one as it reaches any.
  ex.ok(move({ toSub: 1, amount: 5 * USDT }))
  t.equal(ex.state.accounts.get(ALICE)!.subs[1]!.spot.get('USDT')!.free, 5 * USDT)
})

t.test('what making a sub-account is refused for, changing nothing', async (t) => {
  const ex = rig()
  t.same(rejection(ex, create({ sub: 1 })), { code: 'ACCOUNT_INVALID', eventCount: 0, rootUnchanged: true }, 'a sub-account asks')
  t.same(rejection(ex, create({ account: '0x1234' })), { code: 'ACCOUNT_INVALID', eventCount: 0, rootUnchanged: true }, 'not an address')
  t.same(rejection(ex, create({ sub: -1 })), { code: 'ACCOUNT_INVALID', eventCount: 0, rootUnchanged: true }, 'not a sub-account')
  for (let n = 1; n < LIMITS.subAccountsMax; n++) ex.ok(create())
  t.same(subsOf(ex).length, LIMITS.subAccountsMax, 'every number taken')
  t.same(rejection(ex, create()), { code: 'LIMIT_REACHED', eventCount: 0, rootUnchanged: true }, 'past the last number')
})

t.test('under rules older than 4 making a sub-account is unknown, as older builds answered', async (t) => {
  t.equal(SUB_ACCOUNT_CREATION, 4)
  t.ok(RULES_VERSION >= 4)
  const three = new TestExchange()
  three.ok({ type: 'SetRules', version: 3, leafSeed: SEED })
  three.fund(ALICE, 100, 0, 'SPOT')
  t.same(rejection(three, create()), { code: 'COMMAND_UNKNOWN', eventCount: 0, rootUnchanged: true }, 'rules 3')
  t.equal(rejection(three, move({})).code, 'ACCEPTED', 'while rules 3 move money between sub-accounts')
  three.ok({ type: 'SetRules', version: 4 })
  t.equal(rejection(three, create()).code, 'ACCEPTED', 'from the declaration of rules 4 on')
})

t.test('a snapshot after making sub-accounts restores them: the next one gets the same number either way', async (t) => {
  const ex = rig()
  ex.ok(create())
  ex.ok(create())
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(stateRoot(restored), stateRoot(ex.state), 'an empty sub-account is in the root and the snapshot')
  const entry = { seq: ex.state.seq + 1, time: ex.time + 1, command: create() as Command }
  const a = apply(ex.state, entry)
  const b = apply(restored, entry)
  t.same(b, a)
  t.same((a.events[0] as { sub: number }).sub, 3)
  t.equal(stateRoot(restored), stateRoot(ex.state))
})
