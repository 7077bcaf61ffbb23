// The spot scene the spot-stop and order-list tests start from, and their snapshot check.
// BTCUSDT: price × 100 = ticks, qty × 10,000 = lots, 1 USDT unit per tick·lot (1 USDT =
// 1,000,000 units), 10,000 BTC units per lot.

import type { Command } from '../../core/commands.js'
import type { Result } from '../../core/events.js'
import { apply } from '../../core/apply.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import type { State } from '../../core/state.js'
import { ALICE, BOB, BTCSPOT, CAROL, COIN, DAVE, TestExchange } from './exchange.js'
import { limit } from './commands.js'

const spot = { marketId: BTCSPOT }

/**
 * Alice and Carol hold 10,000 USDT, Bob and Dave 1 BTC; `buyer` (Alice unless named) buys 0.001
 * BTC from Dave at 30,000.00, which sets the last price.
 */
export function spotScene(buyer = ALICE): TestExchange {
  const ex = new TestExchange()
  ex.fund(ALICE, 10_000, 0, 'SPOT')
  ex.fund(CAROL, 10_000, 0, 'SPOT')
  ex.deposit(BOB, 'BTC', COIN)
  ex.deposit(DAVE, 'BTC', COIN)
  ex.ok(limit(DAVE, 'SELL', 3_000_000, 10, spot))
  ex.ok(limit(buyer, 'BUY', 3_000_000, 10, spot))
  return ex
}

/** A trade at `priceTicks` between Carol (buying) and Dave (selling), which moves the last price. */
export function tradeAt(ex: TestExchange, priceTicks: number, lots = 10): Result {
  ex.ok(limit(DAVE, 'SELL', priceTicks, lots, spot))
  return ex.ok(limit(CAROL, 'BUY', priceTicks, lots, spot))
}

/**
 * Restores `ex`'s state from its snapshot and applies `commands` to both: the restored state,
 * and each command's results straight through and after the restore.
 */
export function restoredAlike(ex: TestExchange, commands: Command[]): { restored: State; results: [Result, Result][] } {
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  const results: [Result, Result][] = []
  for (const command of commands) {
    const entry = { seq: ex.state.seq + 1, time: ex.time + 1, command }
    results.push([apply(ex.state, structuredClone(entry)), apply(restored, structuredClone(entry))])
    ex.time += 1
  }
  return { restored, results }
}
