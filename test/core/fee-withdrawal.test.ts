// The operator's withdrawal of collected fees (core/wallet.ts, FeeWithdrawal): only under rules 2
// on, never more than the fees hold; debited at once, counted as withdrawn when paid, back in
// the fees when it fails; money stays conserved throughout, and no sub-account appears for it.

import t from 'tap'
import type { Command } from '../../core/commands.js'
import { stateRoot } from '../../core/root.js'
import { RULES_VERSION } from '../../core/rules.js'
import { FEES_ACCOUNT } from '../../core/wallet.js'
import { stateViolations } from '../../sim/model/invariants.js'
import { ALICE, BOB, TestExchange } from '../helpers/exchange.js'
import { limit, market } from '../helpers/commands.js'

const TO = '0x' + 'f0'.repeat(20)
const withdraw = (amount: number, asset = 'USDT', address = TO): Command => ({ type: 'FeeWithdrawal', asset, amount, address })

/** Alice and Bob trade 10 lots at 50,000.0: fees in USDT for the exchange. */
function traded(rules = true): TestExchange {
  const ex = new TestExchange()
  if (rules) ex.ok({ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '44'.repeat(32) })
  ex.fund(ALICE, 100_000)
  ex.fund(BOB, 100_000)
  ex.ok(limit(ALICE, 'BUY', 500_000, 10))
  ex.ok(market(BOB, 'SELL', 10))
  return ex
}
const feesOf = (ex: TestExchange): number => Number(ex.state.fees.get('USDT') ?? 0)

t.test('under rules 1 the command is unknown', async (t) => {
  const ex = traded(false)
  t.same(ex.run(withdraw(1)), { ok: false, code: 'COMMAND_UNKNOWN', events: [] })
})

t.test('refusals change nothing', async (t) => {
  const ex = traded()
  const fees = feesOf(ex)
  t.ok(fees > 0, `the trade left ${fees} units of fees`)
  const root = stateRoot(ex.state)
  t.same(ex.run(withdraw(fees + 1)), { ok: false, code: 'BALANCE_INSUFFICIENT', events: [] }, 'more than the fees')
  t.same(ex.run(withdraw(1, 'DOGE')), { ok: false, code: 'ASSET_UNKNOWN', events: [] })
  t.same(ex.run(withdraw(0)), { ok: false, code: 'AMOUNT_INVALID', events: [] })
  t.same(ex.run(withdraw(1.5)), { ok: false, code: 'AMOUNT_INVALID', events: [] })
  t.same(ex.run(withdraw(1, 'USDT', '0x12')), { ok: false, code: 'COMMAND_INVALID', events: [] })
  t.same(ex.run(withdraw(1, 'BTC')), { ok: false, code: 'BALANCE_INSUFFICIENT', events: [] }, 'no BTC fees')
  t.equal(stateRoot(ex.state), root)
})

t.test('paid: debited at once, withdrawn when complete; failed: back in the fees', async (t) => {
  const ex = traded()
  const fees = feesOf(ex)
  const deposited = ex.state.deposited.get('USDT')!
  const r = ex.ok(withdraw(fees - 1))
  t.match(r, { withdrawalId: 1, events: [{ type: 'withdrawal', withdrawalId: 1, account: FEES_ACCOUNT, sub: 0, asset: 'USDT',
    amount: fees - 1, address: TO, status: 'PROCESSING' }] })
  t.equal(feesOf(ex), 1, 'the fees left')
  t.same(stateViolations(ex.state), [], 'conserved while pending')
  ex.ok({ type: 'WithdrawalComplete', withdrawalId: 1, txId: '0x' + 'ab'.repeat(32) })
  t.equal(ex.state.withdrawn.get('USDT'), BigInt(fees - 1), 'counted as withdrawn')
  t.equal(ex.state.deposited.get('USDT'), deposited)
  t.same(stateViolations(ex.state), [], 'conserved once paid')
  t.notOk(ex.state.accounts.has(FEES_ACCOUNT), 'no account for it')

  ex.ok(market(BOB, 'BUY', 5))
  const before = feesOf(ex)
  ex.ok(withdraw(before))
  t.equal(feesOf(ex), 0)
  ex.ok({ type: 'WithdrawalFail', withdrawalId: 2, reason: 'InsufficientBalance' })
  t.equal(feesOf(ex), before, 'refunded to the fees')
  t.same(stateViolations(ex.state), [], 'conserved after the refund')
  t.equal(ex.state.withdrawals.size, 0)
})
