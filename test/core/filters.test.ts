// Market filters and parameter checks on placement, each at its boundary: the last value
// accepted and the first refused. BTCUSDTPERP: price 100..1,000,000 (1,000..10,000,000
// ticks), qty 0.001..1000 (1..1,000,000 lots), market qty ≤ 120 BTC, notional ≥ 100 USDT.

import t from 'tap'
import type { Command, PlaceOrder } from '../../core/commands.js'
import { DEFAULT_GENESIS } from '../../core/genesis-spec.js'
import { ALICE, BOB, BTCSPOT, CAROL, ETHPERP, TestExchange } from '../helpers/exchange.js'
import { limit, market, rejection } from '../helpers/commands.js'

function setup(): TestExchange {
  const ex = new TestExchange()
  ex.fund(ALICE, 1_000_000)
  ex.fund(BOB, 1_000_000)
  ex.fund(ALICE, 1_000, 0, 'SPOT')
  return ex
}

const rows: [string, Command, string][] = [
  // price
  ['LIMIT without a price', { ...limit(ALICE, 'BUY', 0, 10), priceTicks: undefined } as PlaceOrder, 'PRICE_REQUIRED'],
  ['price 0', limit(ALICE, 'BUY', 0, 10), 'PRICE_BELOW_ZERO'],
  ['price negative', limit(ALICE, 'BUY', -10, 10), 'PRICE_BELOW_ZERO'],
  ['price 99.9', limit(ALICE, 'BUY', 999, 1_000), 'PRICE_BELOW_MIN'],
  ['price 100.0 (1000 lots = 100 USDT)', limit(ALICE, 'BUY', 1_000, 1_000), 'ACCEPTED'],
  ['price 1,000,000.0', limit(ALICE, 'BUY', 10_000_000, 1), 'ACCEPTED'],
  ['price 1,000,000.1', limit(ALICE, 'BUY', 10_000_001, 1), 'PRICE_ABOVE_MAX'],
  ['price 50000.05 (half a tick)', limit(ALICE, 'BUY', 500_000.5, 10), 'PRICE_TICK'],
  // quantity
  ['qty 0', limit(ALICE, 'BUY', 500_000, 0), 'QTY_BELOW_ZERO'],
  ['qty negative', limit(ALICE, 'BUY', 500_000, -1), 'QTY_BELOW_ZERO'],
  ['qty 0.0105 (half a step)', limit(ALICE, 'BUY', 500_000, 10.5), 'QTY_STEP'],
  ['qty 1000 BTC', limit(ALICE, 'BUY', 1_000, 1_000_000), 'ACCEPTED'],
  ['qty 1000.001 BTC', limit(ALICE, 'BUY', 1_000, 1_000_001), 'QTY_ABOVE_MAX'],
  ['MARKET qty 120.001 BTC', market(ALICE, 'BUY', 120_001), 'QTY_ABOVE_MAX'],
  // notional: ticks × lots × 100 ≥ 100,000,000
  ['1 lot at 99999.9 = 99.9999 USDT', limit(ALICE, 'BUY', 999_999, 1), 'NOTIONAL_TOO_SMALL'],
  ['1 lot at 100000.0 = 100 USDT', limit(ALICE, 'BUY', 1_000_000, 1), 'ACCEPTED'],
  // ETHUSDTPERP: tick 0.01, step 0.001, 10 units per tick·lot, min 20 USDT.
  ['ETH 9 lots at 2000.00 = 18 USDT', limit(ALICE, 'BUY', 200_000, 9, { marketId: ETHPERP }), 'NOTIONAL_TOO_SMALL'],
  ['ETH 10 lots at 2000.00 = 20 USDT', limit(ALICE, 'BUY', 200_000, 10, { marketId: ETHPERP }), 'ACCEPTED'],
  // BTCUSDT spot: tick 0.01, step 0.0001, 1 unit per tick·lot, min 5 USDT.
  ['spot 1 lot at 30000.00 = 3 USDT', limit(ALICE, 'BUY', 3_000_000, 1, { marketId: BTCSPOT }), 'NOTIONAL_TOO_SMALL'],
  ['spot 2 lots at 25000.00 = 5 USDT', limit(ALICE, 'BUY', 2_500_000, 2, { marketId: BTCSPOT }), 'ACCEPTED'],
  ['spot with reduceOnly', limit(ALICE, 'BUY', 2_500_000, 2, { marketId: BTCSPOT, reduceOnly: true }), 'COMMAND_INVALID'],
  ['spot with a positionSide', limit(ALICE, 'BUY', 2_500_000, 2, { marketId: BTCSPOT, positionSide: 'BOTH' }), 'COMMAND_INVALID'],
  // shapes
  ['side', limit(ALICE, 'HOLD' as never, 500_000, 10), 'SIDE_INVALID'],
  ['order type', { ...limit(ALICE, 'BUY', 500_000, 10), orderType: 'OCO' as never }, 'ORDER_TYPE_INVALID'],
  ['time in force', limit(ALICE, 'BUY', 500_000, 10, { timeInForce: 'DAY' as never }), 'TIF_INVALID'],
  ['unknown market', limit(ALICE, 'BUY', 500_000, 10, { marketId: 99 }), 'MARKET_UNKNOWN'],
  ['fractional market id', limit(ALICE, 'BUY', 500_000, 10, { marketId: 1.5 }), 'MARKET_UNKNOWN'],
  ['address not hex', limit('0xZZ' + 'a'.repeat(38), 'BUY', 500_000, 10), 'ACCOUNT_INVALID'],
  ['sub-account 32', limit(ALICE, 'BUY', 500_000, 10, { sub: 32 }), 'ACCOUNT_INVALID'],
  ['sub-account -1', limit(ALICE, 'BUY', 500_000, 10, { sub: -1 }), 'ACCOUNT_INVALID'],
]

t.test('filters at their boundaries', async (t) => {
  for (const [name, cmd, code] of rows) {
    const ex = setup()
    const rej = rejection(ex, cmd)
    t.equal(rej.code, code, name)
    if (code !== 'ACCEPTED') t.same([rej.eventCount, rej.rootUnchanged], [0, true], `${name}: nothing changed`)
  }
})

t.test('a MARKET order\'s notional is checked at the touch before any trade, then at the mark', async (t) => {
  const ex = setup()
  ex.fund(CAROL, 1_000)
  ex.ok(limit(BOB, 'SELL', 500_000, 2))
  // No mark yet: the best ask 50000.0 prices it. 1 lot = 50 USDT, 2 lots = 100 USDT.
  t.equal(rejection(ex, market(ALICE, 'BUY', 1)).code, 'NOTIONAL_TOO_SMALL')
  t.equal(rejection(ex, market(ALICE, 'BUY', 2)).code, 'ACCEPTED')
  t.equal((ex.state.markets[1] as { markPriceTicks: number }).markPriceTicks, 500_000)
  // Carol bids 1 lot at 100000.0: at that touch 1 lot is worth 100 USDT, at the mark only 50.
  ex.ok(limit(CAROL, 'BUY', 1_000_000, 1))
  t.equal(rejection(ex, market(ALICE, 'SELL', 1)).code, 'NOTIONAL_TOO_SMALL', 'the mark decides')
  t.equal(rejection(ex, market(ALICE, 'SELL', 2)).code, 'ACCEPTED')
})

t.test('QTY_BELOW_MIN when the minimum is above one step', async (t) => {
  const spec = structuredClone(DEFAULT_GENESIS)
  spec.perpMarkets[0]!.minQty = '0.01' // 10 lots
  const ex = new TestExchange(spec)
  ex.fund(ALICE, 10_000)
  t.equal(ex.state.markets[1]!.minQtyLots, 10)
  t.equal(rejection(ex, limit(ALICE, 'BUY', 500_000, 9)).code, 'QTY_BELOW_MIN')
  t.equal(rejection(ex, limit(ALICE, 'BUY', 500_000, 10)).code, 'ACCEPTED')
})
