// Binance spot's Price Range execution rule (core/price-range.ts): a taker trades only within
// its side's multipliers of the reference price, the mean trade price of the last five minutes
// (80 buckets of 3,750 ms, the oldest counted for its part inside the window), fixed as it
// starts taking; reaching a price outside, the rest of it expires, the reason on its record.
// BTCUSDT: price × 100 = ticks, qty × 10,000 = lots, 1 USDT unit per tick·lot.

import t from 'tap'
import type { PlaceOrder } from '../../core/commands.js'
import { DEFAULT_GENESIS, type GenesisSpec } from '../../core/genesis-spec.js'
import { REFERENCE_BUCKET_MS, referencePrice, takerRange } from '../../core/price-range.js'
import { stateRoot } from '../../core/root.js'
import type { SpotMarket } from '../../core/state.js'
import { stateViolations } from '../../sim/model/invariants.js'
import { ALICE, BOB, BTCSPOT, CAROL, COIN, DAVE, TestExchange } from '../helpers/exchange.js'
import { limit, orderEvents, rejection, spotTradeEvents } from '../helpers/commands.js'
import { restoredAlike } from '../helpers/spot-book.js'

/** The default genesis with BTCUSDT's range at 1.1 / 0.9 for buys, 1.2 / 0.95 for sells. */
const RANGE_GENESIS: GenesisSpec = {
  ...DEFAULT_GENESIS,
  spotMarkets: DEFAULT_GENESIS.spotMarkets.map((s) => s.marketId !== BTCSPOT ? s
    : { ...s, priceRange: { bidUp: '1.1000', bidDown: '0.9000', askUp: '1.2000', askDown: '0.9500' } }),
}

const spot = { marketId: BTCSPOT }
const market = (ex: TestExchange) => ex.state.markets[BTCSPOT] as SpotMarket
const fills = (r: { events: readonly unknown[] }) => spotTradeEvents(r as never).map((e) => [e.priceTicks, e.qtyLots])

/** Bob and Dave sell, Alice and Carol buy; trades at 30,000.00 and 31,000.00: the reference is 30,500.00. */
function scene(): TestExchange {
  const ex = new TestExchange(RANGE_GENESIS)
  ex.fund(ALICE, 10_000, 0, 'SPOT')
  ex.fund(CAROL, 10_000, 0, 'SPOT')
  ex.deposit(BOB, 'BTC', COIN)
  ex.deposit(DAVE, 'BTC', COIN)
  for (const price of [3_000_000, 3_100_000]) {
    ex.ok(limit(DAVE, 'SELL', price, 10, spot))
    ex.ok(limit(CAROL, 'BUY', price, 10, spot))
  }
  return ex
}

t.test('the reference price: the mean of the window\'s trade prices; without trades in it, none', async (t) => {
  const ex = scene()
  const m = market(ex)
  t.same(referencePrice(m, ex.time), { num: 6_100_000n * BigInt(REFERENCE_BUCKET_MS), den: 2n * BigInt(REFERENCE_BUCKET_MS) },
    '(30,000.00 + 31,000.00) / 2, both buckets whole')
  t.same(takerRange(m, true, ex.time), { minTicks: 2_745_000, maxTicks: 3_355_000 }, 'a buy: 0.9 and 1.1 × 30,500.00')
  t.same(takerRange(m, false, ex.time), { minTicks: 2_897_500, maxTicks: 3_660_000 }, 'a sell: 0.95 and 1.2 × 30,500.00')
  // Half of the oldest bucket still inside the window: it counts for half.
  const oldest = m.referenceBuckets[0]!
  const later = ex.state.markets[BTCSPOT]!
  t.equal(later, m)
  ex.time = oldest.openTime + 300_000 - REFERENCE_BUCKET_MS / 2
  ex.ok(limit(DAVE, 'SELL', 3_200_000, 10, spot), 0)
  ex.ok(limit(CAROL, 'BUY', 3_200_000, 10, spot), 0)
  const at = oldest.openTime + 300_000 + REFERENCE_BUCKET_MS / 2
  const ref = referencePrice(m, at)!
  t.equal(Number(ref.num) / Number(ref.den), (6_100_000 * 1_875 + 3_200_000 * 3_750) / (2 * 1_875 + 3_750),
    'the first bucket (two trades) weighs its 1,875 ms inside the window, the newest all 3,750')
  t.equal(referencePrice(m, ex.time + 300_000 + REFERENCE_BUCKET_MS), null, 'five minutes on: no trade in the window')
  t.equal(takerRange(market(new TestExchange()), true, ex.time), null, 'no trade yet: no range')
})

t.test('a buy fills to the range\'s top and its rest expires, with the reason; the next buy\'s range has moved', async (t) => {
  const ex = scene()
  ex.ok(limit(BOB, 'SELL', 3_300_000, 10, spot))
  ex.ok(limit(BOB, 'SELL', 3_400_000, 10, spot))
  const before = ex.sub(ALICE).spot.get('USDT')!.free
  const r = ex.ok(limit(ALICE, 'BUY', 3_500_000, 30, { ...spot, timeInForce: 'GTC' }))
  t.same(fills(r), [[3_300_000, 10]], '33,000.00 is within 33,550.00; 34,000.00 is not')
  t.match(orderEvents(r).at(-1), { execType: 'EXPIRED', status: 'EXPIRED', executedQtyLots: 10,
    expiryReason: 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED' }, 'a GTC order expires rather than rest')
  t.equal(ex.sub(ALICE).spot.get('USDT')!.free, before - 33_000_000, 'paid for 10 lots (its fee in the base it got); the rest of its hold freed')
  t.equal(market(ex).book.asks.best()!.priceTicks, 3_400_000, 'the ask beyond the range is untouched')
  // The trade at 33,000.00 moved the mean to 31,333.33: a buy may now go to 34,466.66.
  t.same(fills(ex.ok(limit(ALICE, 'BUY', 3_400_000, 10, spot))), [[3_400_000, 10]])
  t.same(stateViolations(ex.state), [])
})

t.test('a sell uses the ask multipliers; market, fill-or-kill and quote-sized orders see the range as the sweep will', async (t) => {
  const ex = scene()
  ex.ok(limit(CAROL, 'BUY', 2_900_000, 10, spot))
  ex.ok(limit(CAROL, 'BUY', 2_850_000, 10, spot))
  // A sell's floor is 0.95 × 30,500.00 = 28,975.00: 29,000.00 is in, 28,500.00 out.
  const fok = rejection(ex, { ...limit(BOB, 'SELL', 2_800_000, 20, spot), timeInForce: 'FOK' })
  t.same([fok.code, fok.rootUnchanged], ['FOK_UNFILLED', true], 'only 10 lots within the range')
  const sell: PlaceOrder = { type: 'PlaceOrder', account: BOB, sub: 0, marketId: BTCSPOT, side: 'SELL', orderType: 'MARKET', qtyLots: 20 }
  const r = ex.ok(sell)
  t.same(fills(r), [[2_900_000, 10]])
  t.match(orderEvents(r).at(-1), { status: 'EXPIRED', expiryReason: 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED' })
  // A quote-sized buy walks the book as the sweep will: the lots within the range only.
  ex.ok(limit(DAVE, 'SELL', 3_300_000, 10, spot))
  ex.ok(limit(DAVE, 'SELL', 3_600_000, 10, spot))
  const quote = ex.ok({ type: 'PlaceOrder', account: ALICE, sub: 0, marketId: BTCSPOT, side: 'BUY', orderType: 'MARKET', qtyLots: 0,
    quoteQty: 100_000_000 })
  t.same(fills(quote), [[3_300_000, 10]], 'sized to the 10 lots at 33,000.00: 36,000.00 is past 1.1 × the mean')
  t.match(orderEvents(quote)[0], { origQtyLots: 10 })
  t.same(stateViolations(ex.state), [])
})

t.test('a market without the rule, or with the default wide one, trades as before', async (t) => {
  const ex = new TestExchange({ ...DEFAULT_GENESIS, spotMarkets: DEFAULT_GENESIS.spotMarkets.map(({ priceRange: _r, ...s }) => s) })
  ex.fund(ALICE, 10_000, 0, 'SPOT')
  ex.deposit(DAVE, 'BTC', COIN)
  ex.ok(limit(DAVE, 'SELL', 3_000_000, 10, spot))
  ex.ok(limit(ALICE, 'BUY', 3_000_000, 10, spot))
  ex.ok(limit(DAVE, 'SELL', 9_000_000, 10, spot))
  t.same(fills(ex.ok(limit(ALICE, 'BUY', 9_000_000, 10, spot))), [[9_000_000, 10]], 'three times the last price: no rule, it trades')
  t.equal(market(ex).priceRange, null)
  t.same(market(ex).referenceBuckets, [], 'no prices kept without a rule')
  t.match(market(new TestExchange()).priceRange, { bidUpE4: 50_000, bidDownE4: 2_000 }, 'the default genesis: 5× and a fifth')
})

t.test('a snapshot keeps the window\'s prices: the same root, the same ranges after the restore', async (t) => {
  const ex = scene()
  ex.ok(limit(BOB, 'SELL', 3_300_000, 10, spot))
  ex.ok(limit(BOB, 'SELL', 3_400_000, 10, spot))
  const { restored, results } = restoredAlike(ex, [limit(ALICE, 'BUY', 3_500_000, 30, spot), limit(ALICE, 'BUY', 3_500_000, 10, spot)])
  t.same(results.map(([a, b]) => JSON.stringify(a) === JSON.stringify(b)), [true, true])
  t.match(orderEvents(results[0]![0]).at(-1), { expiryReason: 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED' })
  t.equal(stateRoot(restored), stateRoot(ex.state))
})

t.test('genesis refuses a rule that is not one', async (t) => {
  const bad = (priceRange: Record<string, string>) => () => new TestExchange({ ...DEFAULT_GENESIS,
    spotMarkets: [{ ...DEFAULT_GENESIS.spotMarkets[0]!, priceRange: priceRange as never }] })
  t.throws(bad({ bidUp: '0.9000', bidDown: '0.8000', askUp: '1.1000', askDown: '0.9000' }), /GENESIS_INVALID/, 'up under 1')
  t.throws(bad({ bidUp: '1.1000', bidDown: '1.2000', askUp: '1.1000', askDown: '0.9000' }), /GENESIS_INVALID/, 'down over 1')
  t.throws(bad({ bidUp: '1.10005', bidDown: '0.9000', askUp: '1.1000', askDown: '0.9000' }), /not a multiple/, 'five decimals')
})
