// Countdown cancel-all (core/countdown.ts): the first Tick at or after a sub-account's deadline
// cancels its open orders in that market, placed before the countdown or after it; a later
// call replaces the deadline (heartbeats), 0 clears it; the deadline is in the root and the
// snapshot, and bad commands change nothing.

import t from 'tap'
import type { CountdownCancelAll } from '../../core/commands.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { ALICE, BOB, BTCPERP, ETHPERP, TestExchange } from '../helpers/exchange.js'
import { limit, orderTrail, placedId, rejection } from '../helpers/commands.js'

const countdown = (account: string, countdownMs: number, marketId = BTCPERP): CountdownCancelAll =>
  ({ type: 'CountdownCancelAll', account, sub: 0, marketId, countdownMs })
const TICK = { type: 'Tick' } as const

function setup(): TestExchange {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB]) ex.fund(a, 100_000)
  return ex
}

t.test('the first Tick at the deadline cancels the market\'s open orders, placed before or after', async (t) => {
  const ex = setup()
  const a1 = placedId(ex.ok(limit(ALICE, 'BUY', 490_000, 10)))
  const eth = placedId(ex.ok(limit(ALICE, 'BUY', 300_000, 10, { marketId: ETHPERP })))
  const bob = placedId(ex.ok(limit(BOB, 'BUY', 480_000, 10)))
  t.same(ex.ok(countdown(ALICE, 60_000), 0).events, [], 'set: no events')
  const deadline = ex.time + 60_000
  const a2 = placedId(ex.ok(limit(ALICE, 'SELL', 510_000, 10)))
  t.same(ex.ok(TICK, deadline - 1 - ex.time).events, [], 'a millisecond early: nothing')
  const fired = ex.ok(TICK, 1)
  t.same(orderTrail(fired), [[ALICE, a1, 'CANCELED', 'CANCELED', 0], [ALICE, a2, 'CANCELED', 'CANCELED', 0]], 'both of ALICE\'s BTC orders')
  t.ok(ex.state.markets[BTCPERP]!.book.orders.has(bob), "BOB's order stays")
  t.equal(ex.state.markets[BTCPERP]!.book.orders.size, 1)
  t.ok(ex.state.markets[ETHPERP]!.book.orders.has(eth), 'ETH is another market')
  t.same(ex.ok(TICK, 60_000).events, [], 'it fires once')
  t.equal(ex.state.countdownSubs.size, 0)
})

t.test('heartbeats push the deadline back; 0 clears it', async (t) => {
  const ex = setup()
  const id = placedId(ex.ok(limit(ALICE, 'BUY', 490_000, 10)))
  ex.ok(countdown(ALICE, 60_000), 0)
  ex.ok(TICK, 50_000)
  ex.ok(countdown(ALICE, 60_000), 0)
  t.same(ex.ok(TICK, 59_999).events, [], 'the first deadline has passed: replaced')
  t.same(orderTrail(ex.ok(TICK, 1)), [[ALICE, id, 'CANCELED', 'CANCELED', 0]], 'the second fires')

  const kept = placedId(ex.ok(limit(ALICE, 'BUY', 490_000, 10)))
  ex.ok(countdown(ALICE, 1_000))
  ex.ok(countdown(ALICE, 0))
  t.same(ex.ok(TICK, 5_000).events, [], 'cleared')
  t.ok(ex.state.markets[BTCPERP]!.book.orders.has(kept))
  t.same(ex.ok(countdown(BOB, 0)).events, [], '0 with no countdown: nothing to clear')
})

t.test('deadlines due in one Tick fire in (deadline, account, market) order', async (t) => {
  const ex = setup()
  const b = placedId(ex.ok(limit(BOB, 'BUY', 480_000, 10)))
  const aEth = placedId(ex.ok(limit(ALICE, 'BUY', 300_000, 10, { marketId: ETHPERP })))
  const aBtc = placedId(ex.ok(limit(ALICE, 'BUY', 490_000, 10)))
  ex.ok(countdown(BOB, 1_000), 0)
  ex.ok(countdown(ALICE, 2_000, ETHPERP), 0)
  ex.ok(countdown(ALICE, 2_000), 0)
  t.same(orderTrail(ex.ok(TICK, 5_000)).map((e) => [e[0], e[1]]), [[BOB, b], [ALICE, aBtc], [ALICE, aEth]])
})

t.test('in the root and the snapshot: a restored replica fires the same', async (t) => {
  const ex = setup()
  placedId(ex.ok(limit(ALICE, 'BUY', 490_000, 10)))
  const before = stateRoot(ex.state)
  ex.ok(countdown(ALICE, 10_000), 0)
  t.not(stateRoot(ex.state), before, 'a countdown changes the root')
  const restored = new TestExchange()
  Object.assign(restored, { state: decodeSnapshot(encodeSnapshot(ex.state)), time: ex.time })
  t.equal(stateRoot(restored.state), stateRoot(ex.state))
  t.same(restored.run(TICK, 10_000), ex.run(TICK, 10_000), 'the same cancels')
  t.equal(stateRoot(restored.state), stateRoot(ex.state))
})

t.test('bad commands are refused and change nothing', async (t) => {
  const ex = setup()
  placedId(ex.ok(limit(ALICE, 'BUY', 490_000, 10)))
  const root = stateRoot(ex.state)
  for (const [c, code] of [
    [countdown(ALICE, 1_000, 99), 'MARKET_UNKNOWN'],
    [countdown('0xnope', 1_000), 'ACCOUNT_INVALID'],
    [countdown(ALICE, -1), 'COMMAND_INVALID'],
    [countdown(ALICE, 1.5), 'COMMAND_INVALID'],
    [countdown(ALICE, 86_400_001), 'COMMAND_INVALID'],
    [{ ...countdown(ALICE, 1_000), countdownMs: '1000' as unknown as number }, 'COMMAND_INVALID'],
  ] as const) {
    t.equal(rejection(ex, c).code, code, JSON.stringify(c))
  }
  t.equal(stateRoot(ex.state), root)
  t.equal(ex.ok(countdown(ALICE, 86_400_000)).ok, true, 'a day is the longest')
})
