// Market filters and parameter checks on placement, each at its boundary: the last value
// accepted and the first refused. BTCUSDTPERP: price 100..1,000,000 (1,000..10,000,000
// ticks), qty 0.001..1000 (1..1,000,000 lots), market qty ≤ 120 BTC, notional ≥ 100 USDT.

import t from 'tap'
import type { Command, PlaceOrder } from '../../core/commands.js'
import { DEFAULT_GENESIS } from '../../core/genesis-spec.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, CAROL, ETHPERP, NO_BAND_GENESIS, TestExchange } from '../helpers/exchange.js'
import { limit, market, orderEvents, rejection, tradeEvents } from '../helpers/commands.js'
import { publish, registerOracle } from '../helpers/oracle.js'
import type { PerpMarket } from '../../core/state.js'

function setup(spec = DEFAULT_GENESIS): TestExchange {
  const ex = new TestExchange(spec)
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
  // A bid at twice the mark: beyond the price band, so without one.
  const ex = setup(NO_BAND_GENESIS)
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

// The price band (core/price-band.ts), Binance's BTCUSDT figures: PERCENT_PRICE 1.05 / 0.95 and
// marketTakeBound 0.05 around the mark, which here (no oracle) is the last trade, 50000.0.
function banded(): TestExchange {
  const ex = setup()
  ex.ok(limit(BOB, 'SELL', 500_000, 2))
  ex.ok(limit(ALICE, 'BUY', 500_000, 2))
  return ex
}

t.test('price band: a limit price within 5 % of the mark, the cap and floor inclusive', async (t) => {
  // Cap floor(500,000 × 1.05) = 525,000 ticks; floor ceil(500,000 × 0.95) = 475,000. Each on a
  // fresh book: an accepted one may trade and move the mark.
  for (const [cmd, code] of [
    [limit(ALICE, 'BUY', 525_001, 2), 'PRICE_ABOVE_BAND'], [limit(ALICE, 'BUY', 525_000, 2), 'ACCEPTED'],
    [limit(ALICE, 'BUY', 525_001, 2, { timeInForce: 'IOC' }), 'PRICE_ABOVE_BAND'],
    [limit(BOB, 'SELL', 474_999, 3), 'PRICE_BELOW_BAND'], [limit(BOB, 'SELL', 475_000, 3), 'ACCEPTED'],
    // A buy far below and a sell far above the mark are no risk: no band on those sides.
    [limit(ALICE, 'BUY', 1_000, 1_000), 'ACCEPTED'], [limit(BOB, 'SELL', 10_000_000, 1), 'ACCEPTED'],
  ] as const) {
    const r = rejection(banded(), cmd)
    t.equal(r.code, code, `${cmd.side} ${cmd.timeInForce ?? 'GTC'} at ${cmd.priceTicks}`)
    if (code !== 'ACCEPTED') t.same([r.eventCount, r.rootUnchanged], [0, true], 'nothing changed')
  }
})

t.test('price band: none before the first mark, none on a market that turns it off', async (t) => {
  t.equal(rejection(setup(), limit(ALICE, 'BUY', 1_000_000, 1)).code, 'ACCEPTED', 'no mark yet: twice any later cap')
  const spec = structuredClone(DEFAULT_GENESIS)
  spec.perpMarkets[0]!.percentPrice = '0'
  spec.perpMarkets[0]!.marketTakeBound = '0.1'
  const ex = setup(spec)
  ex.ok(limit(BOB, 'SELL', 500_000, 2))
  ex.ok(limit(ALICE, 'BUY', 500_000, 2))
  t.equal(rejection(ex, limit(ALICE, 'BUY', 1_000_000, 1)).code, 'ACCEPTED')
  ex.ok(limit(BOB, 'SELL', 549_000, 2))
  t.equal(rejection(ex, market(ALICE, 'BUY', 2)).code, 'ACCEPTED', 'a 10 % take bound reaches 54900.0')
})

t.test('price band: a market order fills within 5 % of the mark it found; the rest expires', async (t) => {
  const ex = banded()
  ex.ok(limit(BOB, 'SELL', 510_000, 2))
  ex.ok(limit(BOB, 'SELL', 525_000, 2))
  ex.ok(limit(BOB, 'SELL', 525_100, 2))
  // Bound floor(500,000 × 1.05) = 525,000: the first fill moves the mark to 51000.0, but the
  // bound stays the one the order found.
  const r = ex.ok(market(ALICE, 'BUY', 6))
  t.same(tradeEvents(r).map((e) => [e.priceTicks, e.qtyLots]), [[510_000, 2], [525_000, 2]])
  const last = orderEvents(r).at(-1)!
  t.same([last.execType, last.status, last.executedQtyLots], ['EXPIRED', 'EXPIRED', 4])
  t.equal(ex.state.markets[BTCPERP]!.book.side(false).best()!.priceTicks, 525_100, 'the ask beyond stays')
})

t.test('price band: a market order whose best price is already beyond it is refused (-4131)', async (t) => {
  const ex = banded()
  ex.ok(limit(BOB, 'SELL', 525_100, 2))
  const r = rejection(ex, market(ALICE, 'BUY', 2))
  t.same([r.code, r.eventCount, r.rootUnchanged], ['MARKET_BEYOND_BAND', 0, true])
  ex.ok(limit(ALICE, 'BUY', 474_900, 3))
  t.equal(rejection(ex, market(BOB, 'SELL', 2)).code, 'MARKET_BEYOND_BAND', 'bids below ceil(500,000 × 0.95) = 475,000')
  t.equal(rejection(ex, market(ALICE, 'SELL', 2, { reduceOnly: true })).code, 'MARKET_BEYOND_BAND', 'closing orders too')
})

t.test('price band: an amendment\'s new price is checked; a quantity change alone is not', async (t) => {
  // With an oracle the mark follows the index, so it can move away from a resting order.
  const ex = setup()
  registerOracle(ex)
  await publish(ex, '50000')
  const btc = (): PerpMarket => ex.state.markets[BTCPERP] as PerpMarket
  const cap = (): number => Math.floor(btc().markPriceTicks * 1.05)
  const placed = ex.ok(limit(ALICE, 'BUY', cap(), 10))
  const amend = (priceTicks: number, qtyLots: number): Command =>
    ({ type: 'ModifyOrder', account: ALICE, sub: 0, marketId: BTCPERP, orderId: placed.orderId, side: 'BUY', priceTicks, qtyLots })
  t.equal(rejection(ex, amend(cap() + 1, 10)).code, 'PRICE_ABOVE_BAND')
  const before = cap()
  await publish(ex, '45000', 1_000)
  t.ok(cap() < before, `the mark fell: cap ${before} → ${cap()}`)
  t.equal(rejection(ex, amend(before, 5)).code, 'ACCEPTED', 'the order, now above the cap, may still shrink')
  t.equal(rejection(ex, amend(cap() + 1, 5)).code, 'PRICE_ABOVE_BAND')
  t.equal(rejection(ex, amend(cap(), 5)).code, 'ACCEPTED')
})
