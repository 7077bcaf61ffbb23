// Spot: a buy locks quote at its limit (a market buy: the exact cost the book shows), a sell
// locks base; fills pay from the lock, refund price improvement, and fees (0.1%, rounded up)
// come out of the asset received. BTCUSDT: price × 100 = ticks, qty × 10,000 = lots,
// 1 USDT unit per tick·lot, 10,000 BTC units (scale 8) per lot.

import t from 'tap'
import fc from 'fast-check'
import { ALICE, BOB, BTCSPOT, CAROL, COIN, DAVE, TestExchange, USDT } from '../helpers/exchange.js'
import { runs } from '../helpers/property.js'
import { balanceEvents, cancel, limit, market, orderEvents, orderTrail, placedId, rejection, spotTradeEvents, type OrderExtra } from '../helpers/commands.js'
import { restoredAlike, spotScene, tradeAt } from '../helpers/spot-book.js'
import type { PlaceOrder } from '../../core/commands.js'
import type { OrderEvent } from '../../core/events.js'
import { stateLeaves, stateRoot } from '../../core/root.js'
import { ORDER_STRATEGIES, QUOTE_ORDERS_AS_BINANCE } from '../../core/rules.js'
import type { SpotBalance } from '../../core/state.js'

const spot = { marketId: BTCSPOT }

function setup(aliceUsdt = 10_000): TestExchange {
  const ex = new TestExchange()
  ex.fund(ALICE, aliceUsdt, 0, 'SPOT')
  ex.deposit(BOB, 'BTC', COIN) // 1 BTC
  return ex
}

const bal = (ex: TestExchange, who: string, asset: string): [number, number] => {
  const b: SpotBalance | undefined = ex.sub(who).spot.get(asset)
  return [b?.free ?? 0, b?.locked ?? 0]
}

t.test('a resting buy locks quote, a taker sell fills it, fees come from what each receives', async (t) => {
  const ex = setup()
  // Buy 0.1 BTC at 30000.00: locks 1000 × 3,000,000 = 3,000,000,000 (3000 USDT).
  const r1 = ex.ok(limit(ALICE, 'BUY', 3_000_000, 1_000, spot))
  t.equal(r1.orderId, 1, 'the result carries the order id')
  t.match(balanceEvents(r1), [{ wallet: 'SPOT', asset: 'USDT', free: 7_000_000_000, locked: 3_000_000_000, reason: 'ORDER' }])

  // Bob sells 0.04 BTC at 29000.00 as taker: trades at Alice's 30000.00.
  // Quote 400 × 3,000,000 = 1,200,000,000; base 400 × 10,000 = 4,000,000.
  // Alice (maker) pays 4,000,000 × 0.001 = 4,000 BTC units; Bob (taker) 1,200,000 USDT units.
  const r2 = ex.ok(limit(BOB, 'SELL', 2_900_000, 400, spot))
  t.match(balanceEvents(r2), [{ asset: 'BTC', free: 96_000_000, locked: 4_000_000, reason: 'ORDER' }])
  const tr = spotTradeEvents(r2)
  t.equal(tr.length, 1)
  t.same([tr[0]!.priceTicks, tr[0]!.qtyLots, tr[0]!.buyerIsMaker], [3_000_000, 400, true])
  t.match(tr[0]!.maker, {
    account: ALICE, side: 'BUY', status: 'PARTIALLY_FILLED', executedQtyLots: 400, fee: 4_000, feeAsset: 'BTC',
    base: { asset: 'BTC', free: 3_996_000, locked: 0 },
    quote: { asset: 'USDT', free: 7_000_000_000, locked: 1_800_000_000 },
  })
  t.match(tr[0]!.taker, {
    account: BOB, side: 'SELL', status: 'FILLED', executedQtyLots: 400, fee: 1_200_000, feeAsset: 'USDT',
    base: { asset: 'BTC', free: 96_000_000, locked: 0 },
    quote: { asset: 'USDT', free: 1_198_800_000, locked: 0 },
  })

  // Canceling returns the other 600 lots' lock: 1,800,000,000.
  const r3 = ex.ok(cancel(ALICE, { orderId: 1, marketId: BTCSPOT }))
  t.same(orderTrail(r3), [[ALICE, 1, 'CANCELED', 'CANCELED', 400]])
  t.match(balanceEvents(r3), [{ asset: 'USDT', free: 8_800_000_000, locked: 0, reason: 'ORDER' }])

  // Every unit is somewhere: wallets plus fees.
  t.same(ex.state.fees.get('BTC'), 4_000)
  t.same(ex.state.fees.get('USDT'), 1_200_000)
  t.equal(bal(ex, ALICE, 'USDT')[0] + bal(ex, BOB, 'USDT')[0] + 1_200_000, 10_000 * USDT)
  t.equal(bal(ex, ALICE, 'BTC')[0] + bal(ex, BOB, 'BTC')[0] + 4_000, COIN)
})

t.test('a taker buy under its limit gets the difference back', async (t) => {
  const ex = setup()
  ex.ok(limit(BOB, 'SELL', 2_950_000, 500, spot)) // locks 5,000,000 BTC units
  t.same(bal(ex, BOB, 'BTC'), [95_000_000, 5_000_000])
  // Alice's limit 30000.00 locks 1,500,000,000; the fill costs 500 × 2,950,000 = 1,475,000,000.
  const r = ex.ok(limit(ALICE, 'BUY', 3_000_000, 500, spot))
  t.match(balanceEvents(r), [{ asset: 'USDT', free: 8_500_000_000, locked: 1_500_000_000 }])
  const tr = spotTradeEvents(r)[0]!
  t.match(tr.taker, { fee: 5_000, feeAsset: 'BTC', status: 'FILLED',
    quote: { free: 8_525_000_000, locked: 0 }, base: { free: 4_995_000, locked: 0 } })
  t.match(tr.maker, { fee: 1_475_000, feeAsset: 'USDT', quote: { free: 1_473_525_000, locked: 0 }, base: { free: 95_000_000, locked: 0 } })
  t.same(bal(ex, ALICE, 'USDT'), [8_525_000_000, 0])
})

t.test('a market buy locks exactly what the book will cost', async (t) => {
  const rows: { lots: number, cost: number, fills: number[], expired: boolean, btc: number }[] = [
    // 300 × 3,000,000 + 200 × 3,010,000 = 1,502,000,000; BTC 5,000,000 less fees 3,000 + 2,000.
    { lots: 500, cost: 1_502_000_000, fills: [300, 200], expired: false, btc: 4_995_000 },
    // Only 600 lots on the book: 900,000,000 + 903,000,000; the other 100 lots expire.
    { lots: 700, cost: 1_803_000_000, fills: [300, 300], expired: true, btc: 5_994_000 },
  ]
  for (const row of rows) {
    const ex = setup()
    ex.ok(limit(BOB, 'SELL', 3_000_000, 300, spot))
    ex.ok(limit(BOB, 'SELL', 3_010_000, 300, spot))
    const r = ex.ok(market(ALICE, 'BUY', row.lots, spot))
    t.match(balanceEvents(r), [{ asset: 'USDT', free: 10_000 * USDT - row.cost, locked: row.cost }], `${row.lots}: lock`)
    t.same(spotTradeEvents(r).map((e) => e.qtyLots), row.fills)
    t.equal(orderTrail(r).some(([, , x]) => x === 'EXPIRED'), row.expired)
    t.same(bal(ex, ALICE, 'USDT'), [10_000 * USDT - row.cost, 0], `${row.lots}: paid exactly`)
    t.same(bal(ex, ALICE, 'BTC'), [row.btc, 0])
  }
})

t.test('a market sell locks base and releases what it did not sell', async (t) => {
  const ex = setup()
  ex.fund(BOB, 10_000, 0, 'SPOT')
  ex.deposit(ALICE, 'BTC', COIN)
  ex.ok(limit(BOB, 'BUY', 3_000_000, 300, spot))
  // Sell 500 lots: 300 fill, 200 (2,000,000 BTC units) come back.
  const r = ex.ok(market(ALICE, 'SELL', 500, spot))
  t.match(balanceEvents(r), [
    { asset: 'BTC', free: COIN - 5_000_000, locked: 5_000_000 },
    { asset: 'BTC', free: COIN - 3_000_000, locked: 0 },
  ])
  // Proceeds 300 × 3,000,000 = 900,000,000 less the taker fee 900,000.
  t.same(bal(ex, ALICE, 'USDT'), [10_000 * USDT + 899_100_000, 0])
})

t.test('spot balance checks at their boundary', async (t) => {
  const rows: [string, number, () => ReturnType<typeof limit>, string][] = [
    ['buy for exactly the free quote', 3_000_000_000, () => limit(ALICE, 'BUY', 3_000_000, 1_000, spot), 'ACCEPTED'],
    ['buy one unit short', 2_999_999_999, () => limit(ALICE, 'BUY', 3_000_000, 1_000, spot), 'BALANCE_INSUFFICIENT'],
    ['market buy beyond the free quote', 1_501_999_999, () => market(ALICE, 'BUY', 500, spot), 'BALANCE_INSUFFICIENT'],
    ['market buy for exactly its cost', 1_502_000_000, () => market(ALICE, 'BUY', 500, spot), 'ACCEPTED'],
    ['sell all of Bob\'s 1 BTC', 0, () => limit(BOB, 'SELL', 3_100_000, 10_000, spot), 'ACCEPTED'],
    ['sell one lot more', 0, () => limit(BOB, 'SELL', 3_100_000, 10_001, spot), 'BALANCE_INSUFFICIENT'],
  ]
  for (const [name, units, cmd, code] of rows) {
    const ex = new TestExchange()
    if (units > 0) ex.ok({ type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: units, wallet: 'SPOT', ref: 'a' })
    ex.deposit(BOB, 'BTC', 2 * COIN)
    ex.ok(limit(BOB, 'SELL', 3_000_000, 300, spot))
    ex.ok(limit(BOB, 'SELL', 3_010_000, 300, spot))
    if (name.startsWith('sell')) ex.ok(limit(BOB, 'SELL', 3_200_000, 9_400, spot)) // 20,000 − 600 − 9,400 = 10,000 lots free
    const rej = rejection(ex, cmd())
    t.equal(rej.code, code, name)
    if (code !== 'ACCEPTED') t.ok(rej.rootUnchanged, `${name}: nothing changed`)
  }
  const ex = setup(3_000)
  ex.ok(limit(ALICE, 'BUY', 3_000_000, 1_000, spot))
  t.equal(rejection(ex, limit(ALICE, 'BUY', 2_500_000, 2, spot)).code, 'BALANCE_INSUFFICIENT', 'locked quote is not free')
})

t.test('spot self-trade prevention releases the expired maker\'s lock', async (t) => {
  const ex = setup()
  ex.deposit(ALICE, 'BTC', COIN)
  const ask = placedId(ex.ok(limit(ALICE, 'SELL', 3_000_000, 100, spot))) // locks 1,000,000 BTC units
  const r = ex.ok(limit(ALICE, 'BUY', 3_000_000, 100, spot)) // locks 300,000,000 USDT units
  t.same(r.events.map((e) => e.type), ['order', 'balance', 'preventedMatch', 'order', 'balance'])
  t.match(r.events.find((e) => e.type === 'preventedMatch'), { takerOrderId: 2, makerOrderId: ask, priceTicks: 3_000_000, makerLots: 100,
    mode: 'EXPIRE_MAKER' }, 'the prevented match: the maker\'s price and the lots it had left')
  t.same(orderTrail(r), [[ALICE, 2, 'NEW', 'NEW', 0], [ALICE, ask, 'EXPIRED_IN_MATCH', 'EXPIRED_IN_MATCH', 0]])
  t.match(balanceEvents(r), [{ asset: 'USDT', locked: 300_000_000 }, { asset: 'BTC', free: COIN, locked: 0 }])
  t.same(bal(ex, ALICE, 'USDT'), [9_700_000_000, 300_000_000], 'the buy rests with its lock')
})

t.test('a market order sized by quote (quoteOrderQty) takes what the budget buys, or sells for, and no more', async (t) => {
  const ex = setup(2_000)
  ex.deposit(CAROL, 'BTC', COIN)
  // Asks: Bob 0.0100 at 50000.00, Carol 0.0200 at 50010.00.
  ex.ok(limit(BOB, 'SELL', 5_000_000, 100, spot))
  ex.ok(limit(CAROL, 'SELL', 5_001_000, 200, spot))
  // Alice spends at most 700 USDT: 100 lots × 5,000,000 = 500,000,000 units at the first level,
  // then floor(200,000,000 / 5,001,000) = 39 lots (195,039,000) at the second: 0.0139 BTC for 695.039.
  const r = ex.ok({ ...market(ALICE, 'BUY', 0, spot), quoteQty: 700_000_000 })
  const placed = r.events.find((e) => e.type === 'order' && e.execType === 'NEW')
  t.match(placed, { type: 'order', origQtyLots: 139, orderType: 'MARKET', quoteQty: 700_000_000 }, 'the record keeps what was asked')
  t.same(spotTradeEvents(r).map((e) => [e.priceTicks, e.qtyLots]), [[5_000_000, 100], [5_001_000, 39]])
  t.match(spotTradeEvents(r).at(-1)!.taker, { account: ALICE, status: 'FILLED', executedQtyLots: 139 })
  t.same(bal(ex, ALICE, 'USDT'), [2_000_000_000 - 695_039_000, 0], 'spent 695.039, nothing left locked')

  // Bids: Alice buys back 0.0100 at 49990.00; Bob sells for at most 300 USDT:
  // floor(300,000,000 / 4,999,000) = 60 lots, 299.94 USDT before his fee.
  ex.ok(limit(ALICE, 'BUY', 4_999_000, 100, spot))
  const sold = ex.ok({ ...market(BOB, 'SELL', 0, spot), quoteQty: 300_000_000 })
  t.same(spotTradeEvents(sold).map((e) => [e.priceTicks, e.qtyLots]), [[4_999_000, 60]])

  // Self-trade prevention: the only ask left is Carol's own (161 lots at 50010.00); her quote
  // order walks past it (EXPIRE_MAKER) to nothing, and is refused as too small.
  const refused = (c: PlaceOrder): string => {
    const r = rejection(ex, c)
    t.ok(r.eventCount === 0 && r.rootUnchanged, 'refused, nothing changed')
    return r.code
  }
  ex.fund(CAROL, 1_000, 0, 'SPOT')
  t.equal(refused({ ...market(CAROL, 'BUY', 0, spot), quoteQty: 100_000_000 }), 'QTY_BELOW_ZERO', 'only her own ask: nothing to buy')

  // Sized by quote only on spot MARKET orders, with no quantity; the amount a positive ledger amount.
  t.equal(refused({ ...limit(ALICE, 'BUY', 4_999_000, 0, spot), quoteQty: 100_000_000 }), 'COMMAND_INVALID')
  t.equal(refused({ ...market(ALICE, 'BUY', 10, spot), quoteQty: 100_000_000 }), 'COMMAND_INVALID')
  t.equal(refused({ ...market(ALICE, 'BUY', 0), quoteQty: 100_000_000 }), 'COMMAND_INVALID', 'not on a perpetual')
  t.equal(refused({ ...market(ALICE, 'BUY', 0, spot), quoteQty: 0 }), 'AMOUNT_INVALID')
  t.equal(refused({ ...market(ALICE, 'BUY', 0, spot), quoteQty: 1.5 }), 'AMOUNT_INVALID')
})

t.test('rules 5: a quote-sized buy needs its whole amount free; one the book runs short for ends EXPIRED', async (t) => {
  const ex = setup(2_000)
  ex.deposit(ALICE, 'BTC', COIN)
  ex.fund(BOB, 1_000, 0, 'SPOT')
  const ended = (r: { events: readonly { type: string }[] }) => r.events.filter((e): e is OrderEvent => e.type === 'order')
    .map((e) => [e.execType, e.status, e.expiryReason])
  // Under the older rules (as logs written before replay): what the book gives, FILLED.
  ex.ok(limit(BOB, 'SELL', 5_000_000, 10, spot))
  const old = ex.ok({ ...market(ALICE, 'BUY', 0, spot), quoteQty: 5_000_000_000 })
  t.same(ended(old), [['NEW', 'NEW', undefined]], 'rules 1: 2.5 times her balance asked, 0.001 BTC filled')
  t.equal(spotTradeEvents(old).at(-1)!.taker.status, 'FILLED')

  ex.ok({ type: 'SetRules', version: QUOTE_ORDERS_AS_BINANCE, leafSeed: '0x' + '6b'.repeat(32) })
  // Asks: Bob 0.0100 at 50000.00, 500 USDT. Alice asks to spend 700: she takes all of it, and the
  // order expires for want of liquidity (Binance's market order FAQ), the trade PARTIALLY_FILLED.
  ex.ok(limit(BOB, 'SELL', 5_000_000, 100, spot))
  const short = ex.ok({ ...market(ALICE, 'BUY', 0, spot), quoteQty: 700_000_000 })
  t.same(spotTradeEvents(short).map((e) => [e.priceTicks, e.qtyLots, e.taker.status]), [[5_000_000, 100, 'PARTIALLY_FILLED']])
  t.same(ended(short), [['NEW', 'NEW', undefined], ['EXPIRED', 'EXPIRED', 'INSUFFICIENT_LIQUIDITY']])
  t.same(bal(ex, ALICE, 'USDT'), [2_000_000_000 - 50_000_000 - 500_000_000, 0], 'paid 500, nothing left locked')

  // More quote than she holds free (1450): refused, however little the book would give.
  ex.ok(limit(BOB, 'SELL', 5_000_000, 100, spot))
  const before = rejection(ex, { ...market(ALICE, 'BUY', 0, spot), quoteQty: 1_450_000_001 })
  t.same(before, { code: 'BALANCE_INSUFFICIENT', eventCount: 0, rootUnchanged: true })
  // The budget the limit: FILLED, as under any rules. 300 USDT: 60 lots.
  const spent = ex.ok({ ...market(ALICE, 'BUY', 0, spot), quoteQty: 300_000_000 })
  t.same(spotTradeEvents(spent).map((e) => [e.qtyLots, e.taker.status]), [[60, 'FILLED']])
  t.same(ended(spent), [['NEW', 'NEW', undefined]])

  // A sell for 300 USDT into one bid of 0.0010 at 49990.00 (49.99): the bid taken, the order expired.
  ex.ok(limit(BOB, 'BUY', 4_999_000, 10, spot))
  const sold = ex.ok({ ...market(ALICE, 'SELL', 0, spot), quoteQty: 300_000_000 })
  t.same(spotTradeEvents(sold).map((e) => [e.priceTicks, e.qtyLots]), [[4_999_000, 10]])
  t.same(ended(sold).at(-1), ['EXPIRED', 'EXPIRED', 'INSUFFICIENT_LIQUIDITY'])
  t.same(spotTradeEvents(sold)[0]!.taker.executedQtyLots, 10)
})

t.test('rules 7: a spot order keeps its strategyId and strategyType on every record; older rules ignore them', async (t) => {
  const tags = { strategyId: 37_463_720, strategyType: 1_000_000 }
  // Under older rules (as logs written before replay): accepted as if sent without them.
  const plain = setup()
  const ex = setup()
  plain.ok(limit(ALICE, 'BUY', 3_000_000, 1_000, spot))
  const old = ex.ok(limit(ALICE, 'BUY', 3_000_000, 1_000, { ...spot, ...tags }))
  t.notOk('strategyId' in orderEvents(old)[0]! || 'strategyType' in orderEvents(old)[0]!, 'rules 1: the record has no tags')
  t.equal(stateRoot(ex.state), stateRoot(plain.state), 'rules 1: the root of the same order sent without them')
  t.equal(rejection(ex, limit(ALICE, 'BUY', 3_000_000, 10, { ...spot, strategyType: 999_999 })).code, 'ACCEPTED', 'rules 1: not checked either')

  ex.ok({ type: 'SetRules', version: ORDER_STRATEGIES, leafSeed: '0x' + '7a'.repeat(32) })
  const placed = ex.ok(limit(ALICE, 'BUY', 2_990_000, 1_000, { ...spot, ...tags }))
  t.match(orderEvents(placed), [{ execType: 'NEW', status: 'NEW', ...tags }])
  const id = placed.orderId!
  const idOnly = ex.ok(limit(ALICE, 'BUY', 2_980_000, 10, { ...spot, strategyId: 0 }))
  t.match(orderEvents(idOnly)[0], { strategyId: 0 })
  t.notOk('strategyType' in orderEvents(idOnly)[0]!, 'a strategyId alone: no strategyType')
  const leaves = stateLeaves(ex.state)
  t.ok(leaves.includes(`strategy|${BTCSPOT}|${id}|37463720|1000000`), 'the tags are a leaf of the root')
  t.ok(leaves.includes(`strategy|${BTCSPOT}|${idOnly.orderId}|0|0`), 'a strategyId alone too')
  t.equal(leaves.filter((l) => l.startsWith('strategy|')).length, 2, 'untagged orders have none')

  // Bob sells 0.04 into it (after her two bids at 30,000.00): his record has no tags; Alice's cancel of the rest still shows hers.
  const fill = ex.ok(limit(BOB, 'SELL', 2_990_000, 1_010 + 400, spot))
  t.notOk('strategyId' in orderEvents(fill)[0]!)
  t.match(orderEvents(ex.ok(cancel(ALICE, { marketId: BTCSPOT, orderId: id }))),
    [{ execType: 'CANCELED', executedQtyLots: 400, ...tags }])

  // Refused, nothing changed: a reserved strategyType; values no order may have; any tag on a perpetual (USD-M has none).
  const refused = (extra: OrderExtra) => rejection(ex, limit(ALICE, 'BUY', 2_990_000, 10, { ...spot, ...extra }))
  t.same(refused({ strategyType: 999_999 }), { code: 'STRATEGY_TYPE_INVALID', eventCount: 0, rootUnchanged: true })
  t.same(refused({ strategyType: -1 }).code, 'STRATEGY_TYPE_INVALID')
  for (const bad of [{ strategyId: -1 }, { strategyId: 1.5 }, { strategyId: 2 ** 53 }, { strategyType: 2 ** 31 },
    { strategyType: '1000000' as unknown as number }]) {
    t.same(refused(bad), { code: 'COMMAND_INVALID', eventCount: 0, rootUnchanged: true }, JSON.stringify(bad))
  }
  t.same(refused({ strategyId: Number.MAX_SAFE_INTEGER, strategyType: 2 ** 31 - 1 }).code, 'ACCEPTED', 'the largest of each')
  t.equal(rejection(ex, limit(ALICE, 'BUY', 300_000, 10, { strategyId: 1 })).code, 'COMMAND_INVALID', 'a perpetual order')
})

t.test('rules 7: a stop keeps its tags as it triggers, an amendment keeping priority keeps them, a snapshot restores them', async (t) => {
  const ex = spotScene()
  ex.ok({ type: 'SetRules', version: ORDER_STRATEGIES, leafSeed: '0x' + '7b'.repeat(32) })
  const tags = { strategyId: 7, strategyType: 1_000_042 }
  // Bob's stop-limit sell at 29,900.00 (limit 29,800.00) waits; a trade at 29,900.00 triggers it.
  const stop = ex.ok({ ...limit(BOB, 'SELL', 2_980_000, 100, { ...spot, ...tags }), orderType: 'STOP', stopPriceTicks: 2_990_000,
    timeInForce: 'GTC' })
  t.match(orderEvents(stop), [{ orderType: 'STOP', cond: { triggerTime: 0 }, ...tags }])
  const fired = orderEvents(tradeAt(ex, 2_990_000)).filter((e) => e.orderId === stop.orderId)
  t.match(fired, [{ execType: 'NEW', orderType: 'LIMIT', status: 'NEW', cond: { origType: 'STOP' }, ...tags }])
  t.ok(fired[0]!.cond!.triggerTime > 0, 'triggered')

  // Alice's tagged buy, amended down keeping its place: the REPLACED record keeps the tags.
  const buy = ex.ok(limit(ALICE, 'BUY', 2_900_000, 1_000, { ...spot, ...tags, strategyId: 8 }))
  const amended = ex.ok({ type: 'AmendKeepPriority', account: ALICE, sub: 0, marketId: BTCSPOT, orderId: buy.orderId!, qtyLots: 500 })
  t.match(orderEvents(amended), [{ execType: 'REPLACED', origQtyLots: 500, strategyId: 8, strategyType: 1_000_042 }])

  // Restored from a snapshot: the same root, the tags on both orders, and the same results after.
  const { restored, results } = restoredAlike(ex, [cancel(ALICE, { marketId: BTCSPOT, orderId: buy.orderId! }),
    cancel(BOB, { marketId: BTCSPOT, orderId: stop.orderId! })])
  t.equal(stateRoot(restored), stateRoot(ex.state))
  for (const [a, b] of results) t.same(b, a)
  t.match(results.map(([r]) => orderEvents(r)[0]), [{ execType: 'CANCELED', strategyId: 8 }, { execType: 'CANCELED', strategyId: 7 }])
})

t.test('property: a quote-sized market buy or sell never passes its amount, and stops only where one more lot would', async (t) => {
  const ask = fc.record({ who: fc.constantFrom(BOB, CAROL, DAVE), priceTicks: fc.integer({ min: 4_990_000, max: 5_010_000 }),
    qtyLots: fc.integer({ min: 1, max: 400 }) })
  let filled = 0
  await fc.assert(fc.property(fc.array(ask, { maxLength: 12 }), fc.boolean(), fc.integer({ min: 1, max: 3_000_000_000 }), (orders, buy, quoteQty) => {
    const ex = new TestExchange()
    ex.fund(ALICE, 10_000, 0, 'SPOT')
    ex.deposit(ALICE, 'BTC', COIN)
    for (const who of [BOB, CAROL, DAVE]) {
      ex.fund(who, 10_000, 0, 'SPOT')
      ex.deposit(who, 'BTC', COIN)
    }
    // Resting orders on the side Alice's order meets: asks for her buy, bids for her sell.
    for (const o of orders) ex.run(limit(o.who, buy ? 'SELL' : 'BUY', o.priceTicks, o.qtyLots, spot))
    const r = ex.run({ ...market(ALICE, buy ? 'BUY' : 'SELL', 0, spot), quoteQty })
    // Refused only when what the amount takes fails the quantity's own filters.
    if (!r.ok) {
      if (!['QTY_BELOW_ZERO', 'QTY_BELOW_MIN', 'NOTIONAL_TOO_SMALL'].includes(r.code)) throw new Error(`refused: ${r.code}`)
      return
    }
    const fills = spotTradeEvents(r)
    if (fills.length > 0) filled++
    // 1 USDT unit per tick·lot on this market.
    const notional = fills.reduce((n, e) => n + e.priceTicks * e.qtyLots, 0)
    if (notional > quoteQty) throw new Error(`notional ${notional} past the amount ${quoteQty}`)
    // Not one more lot: the best price left on that side costs more than what remains.
    const next = ex.state.markets[BTCSPOT]!.book.side(!buy).best()
    const lots = fills.reduce((n, e) => n + e.qtyLots, 0)
    const capped = lots === 1_000_000
    if (next !== undefined && !capped && next.priceTicks <= quoteQty - notional) {
      throw new Error(`stopped at ${notional} of ${quoteQty} with ${next.priceTicks} a lot on the book`)
    }
  }), runs(300))
  t.ok(filled > 100, `${filled} of 300 orders filled; the rest found no book or too little of it`)
})
