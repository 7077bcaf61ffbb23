// A rejected command changes nothing: on a state holding positions, resting perp and spot
// orders, GTD entries and a pending withdrawal, every kind of rejection leaves the state root
// as it was and returns no events. Also the bounds that refuse (TOO_MANY_ORDERS,
// LIMIT_REACHED) and commands the core does not know.

import t from 'tap'
import { gtdSize } from '../helpers/commands.js'
import { apply } from '../../core/apply.js'
import type { Command } from '../../core/commands.js'
import { LIMITS } from '../../core/limits.js'
import { stateRoot } from '../../core/root.js'
import { encodeSnapshot } from '../../core/snapshot.js'
import type { State } from '../../core/state.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, COIN, ETHPERP, TestExchange, USDT } from '../helpers/exchange.js'
import { cancel, limit, market, postOnly, rejection } from '../helpers/commands.js'

const ADDR = '0x' + '1'.repeat(40)

function populated(): TestExchange {
  const ex = new TestExchange()
  ex.ok({ type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 500 * USDT, wallet: 'PERP', ref: 'tx:1' })
  ex.fund(BOB, 100_000)
  ex.fund(ALICE, 1_000, 0, 'SPOT')
  ex.deposit(ALICE, 'BTC', COIN)
  ex.ok(limit(BOB, 'SELL', 500_000, 10))
  ex.ok(limit(ALICE, 'BUY', 500_000, 10)) // Alice long 10, Bob short 10
  ex.ok(limit(ALICE, 'BUY', 490_000, 10, { clientOrderId: 'a-bid' }))
  ex.ok(limit(BOB, 'SELL', 510_000, 10, { clientOrderId: 'b-ask' }))
  ex.ok(limit(ALICE, 'SELL', 520_000, 10, { timeInForce: 'GTD', goodTillDate: ex.time + 10_000_000 }))
  ex.ok(limit(ALICE, 'BUY', 3_000_000, 100, { marketId: BTCSPOT }))
  ex.ok({ type: 'WithdrawalRequest', account: ALICE, sub: 0, asset: 'USDT', amount: 10 * USDT, address: ADDR })
  return ex
}

/** The whole state as snapshot bytes, seq and time aside (every entry moves those). */
const image = (s: State): Buffer => Buffer.from(encodeSnapshot({ ...s, seq: 0, time: 0 }))

t.test('every kind of rejection leaves the state root (and the whole state) unchanged', async (t) => {
  const rows: [string, Command, string][] = [
    ['unknown command', { type: 'Launch' } as unknown as Command, 'COMMAND_UNKNOWN'],
    ['null command', null as unknown as Command, 'COMMAND_INVALID'],
    ['deposit duplicate ref', { type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 1, wallet: 'PERP', ref: 'tx:1' }, 'DEPOSIT_DUPLICATE'],
    ['deposit BTC to perp', { type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: 1, wallet: 'PERP', ref: 'x' }, 'ASSET_UNKNOWN'],
    ['transfer too much to perp', { type: 'Transfer', account: ALICE, sub: 0, direction: 'SPOT_TO_PERP', amount: 1_000 * USDT }, 'BALANCE_INSUFFICIENT'],
    ['transfer margin in use', { type: 'Transfer', account: ALICE, sub: 0, direction: 'PERP_TO_SPOT', amount: 1_000 * USDT }, 'BALANCE_INSUFFICIENT'],
    ['withdraw too much', { type: 'WithdrawalRequest', account: ALICE, sub: 0, asset: 'USDT', amount: 1_000 * USDT, address: ADDR }, 'BALANCE_INSUFFICIENT'],
    ['complete unknown withdrawal', { type: 'WithdrawalComplete', withdrawalId: 7, txId: '0x1' }, 'WITHDRAWAL_UNKNOWN'],
    ['fail unknown withdrawal', { type: 'WithdrawalFail', withdrawalId: 7, reason: 'x' }, 'WITHDRAWAL_UNKNOWN'],
    ['client id in use', limit(ALICE, 'BUY', 480_000, 10, { clientOrderId: 'a-bid' }), 'CLIENT_ID_DUPLICATE'],
    ['client id invalid', limit(ALICE, 'BUY', 480_000, 10, { clientOrderId: 'a b' }), 'CLIENT_ID_INVALID'],
    ['post-only would take', postOnly(ALICE, 'BUY', 510_000, 10), 'POST_ONLY_WOULD_TAKE'],
    ['FOK unfilled', limit(ALICE, 'BUY', 510_000, 11, { timeInForce: 'FOK' }), 'FOK_UNFILLED'],
    ['GTD too soon', limit(ALICE, 'BUY', 480_000, 10, { timeInForce: 'GTD', goodTillDate: 1 }), 'GTD_INVALID'],
    ['margin', limit(ALICE, 'BUY', 480_000, 1_000), 'MARGIN_INSUFFICIENT'],
    ['reduce-only beyond the long', limit(ALICE, 'SELL', 530_000, 11, { reduceOnly: true }), 'REDUCE_ONLY_REJECTED'],
    ['hedge side in one-way', limit(ALICE, 'BUY', 480_000, 10, { positionSide: 'LONG' }), 'POSITION_SIDE_INVALID'],
    ['price tick', limit(ALICE, 'BUY', 480_000.5, 10), 'PRICE_TICK'],
    ['qty step', limit(ALICE, 'BUY', 480_000, 10.5), 'QTY_STEP'],
    ['notional', limit(ALICE, 'BUY', 480_000, 2), 'NOTIONAL_TOO_SMALL'],
    ['market qty', market(ALICE, 'BUY', 120_001), 'QTY_ABOVE_MAX'],
    ['spot balance', limit(ALICE, 'BUY', 3_000_000, 100_000, { marketId: BTCSPOT }), 'BALANCE_INSUFFICIENT'],
    ['cancel unknown', cancel(ALICE, { orderId: 999 }), 'ORDER_UNKNOWN'],
    ["cancel Bob's", cancel(ALICE, { clientOrderId: 'b-ask' }), 'ORDER_UNKNOWN'],
    ['cancel restricted', cancel(ALICE, { clientOrderId: 'a-bid', restriction: 'ONLY_PARTIALLY_FILLED' }), 'CANCEL_RESTRICTED'],
    ['cancel restriction invalid', cancel(ALICE, { clientOrderId: 'a-bid', restriction: 'NEVER' as never }), 'CANCEL_RESTRICTION_INVALID'],
    ['cancel without id', cancel(ALICE, {}), 'ORDER_ID_REQUIRED'],
    ['leverage 0', { type: 'ChangeLeverage', account: ALICE, sub: 0, marketId: BTCPERP, leverage: 0 }, 'LEVERAGE_INVALID'],
    // Alice at 1x: 500 USDT long + 490 USDT bid (the GTD ask only reduces) = 990 > 499.75 wallet.
    ['leverage lowered past the margin', { type: 'ChangeLeverage', account: ALICE, sub: 0, marketId: BTCPERP, leverage: 1 }, 'MARGIN_INSUFFICIENT'],
    ['leverage past the bracket', { type: 'ChangeLeverage', account: BOB, sub: 0, marketId: BTCPERP, leverage: 125 }, 'ACCEPTED'],
    ['mode with orders', { type: 'ChangePositionMode', account: ALICE, sub: 0, dualSide: true }, 'POSITION_MODE_OPEN_ORDERS'],
    ['mode unchanged', { type: 'ChangePositionMode', account: ALICE, sub: 0, dualSide: false }, 'POSITION_MODE_UNCHANGED'],
    ['asset again', { type: 'CreateAsset', asset: 'BTC', scale: 8 }, 'ALREADY_EXISTS'],
    ['market status unknown', { type: 'SetMarketStatus', marketId: 42, status: 'HALT' }, 'MARKET_UNKNOWN'],
    ['cancel-all in an unknown market', { type: 'CancelAll', account: ALICE, sub: 0, marketId: 42 }, 'MARKET_UNKNOWN'],
    ['leverage in an unknown market', { type: 'ChangeLeverage', account: ALICE, sub: 0, marketId: ETHPERP + 40, leverage: 5 }, 'MARKET_UNKNOWN'],
  ]
  for (const [name, cmd, code] of rows) {
    const ex = populated()
    const before = image(ex.state)
    const gtdBefore = gtdSize(ex.state)
    const rej = rejection(ex, cmd)
    t.equal(rej.code, code, name)
    if (code !== 'ACCEPTED') {
      t.same([rej.eventCount, rej.rootUnchanged], [0, true], `${name}: nothing changed`)
      t.ok(image(ex.state).equals(before) && gtdSize(ex.state) === gtdBefore, `${name}: not even outside the root`)
    }
  }
})

t.test('the root does move when a command is accepted', async (t) => {
  const ex = populated()
  const before = stateRoot(ex.state)
  ex.ok(cancel(ALICE, { clientOrderId: 'a-bid' }))
  t.not(stateRoot(ex.state), before)
})

t.test('a rejection from apply is a value, and the entry still takes its seq', async (t) => {
  const ex = populated()
  const seq = ex.state.seq
  const r = apply(ex.state, { seq: seq + 1, time: ex.time + 1, command: { type: 'Nope' } as unknown as Command })
  t.same(r, { ok: false, code: 'COMMAND_UNKNOWN', events: [] })
  t.equal(ex.state.seq, seq + 1)
  t.throws(() => apply(ex.state, { seq: seq + 3, time: ex.time + 2, command: { type: 'Tick' } }), /entry seq/, 'a gap is a broken invariant')
})

t.test('TOO_MANY_ORDERS at the per-market bound; IOC is not counted', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 1_000_000)
  for (let i = 0; i < LIMITS.openOrdersPerMarketMax; i++) ex.ok(limit(ALICE, 'BUY', 400_000 + i, 10))
  t.same(rejection(ex, limit(ALICE, 'BUY', 300_000, 10)), { code: 'TOO_MANY_ORDERS', eventCount: 0, rootUnchanged: true })
  t.equal(rejection(ex, limit(ALICE, 'BUY', 300_000, 10, { timeInForce: 'IOC' })).code, 'ACCEPTED')
  t.equal(rejection(ex, limit(ALICE, 'BUY', 300_000, 10, { marketId: ETHPERP })).code, 'ACCEPTED', 'another market has room')
})

t.test('LIMIT_REACHED for pending withdrawals and assets', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 1_000, 0, 'SPOT')
  const w: Command = { type: 'WithdrawalRequest', account: ALICE, sub: 0, asset: 'USDT', amount: 1, address: ADDR }
  for (let i = 0; i < LIMITS.pendingWithdrawalsPerAccountMax; i++) ex.ok(w)
  t.same(rejection(ex, w), { code: 'LIMIT_REACHED', eventCount: 0, rootUnchanged: true })
  ex.ok({ type: 'WithdrawalComplete', withdrawalId: 1, txId: '0x1' })
  t.equal(rejection(ex, w).code, 'ACCEPTED', 'room again once one completes')

  for (let i = ex.state.assets.size; i < LIMITS.assetsMax; i++) ex.ok({ type: 'CreateAsset', asset: `A${i}`, scale: 6 })
  t.same(rejection(ex, { type: 'CreateAsset', asset: 'ONEMORE', scale: 6 }), { code: 'LIMIT_REACHED', eventCount: 0, rootUnchanged: true })
})
