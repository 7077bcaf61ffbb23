// Per-sub-account read models: order history through its statuses, user trades with fees
// and realized PnL, income rows and their three-month window.

import fc from 'fast-check'
import t from 'tap'
import type { PlaceOrder } from '../../core/commands.js'
import type { IncomeRecord, OrderRecord, UserTradeRecord } from '../../replica/projections/index.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, CAROL, DAVE, ETHPERP } from '../helpers/exchange.js'
import { Fixture, limit } from '../helpers/projections-fixture.js'
import { runs } from '../helpers/property.js'

const M = Date.UTC(2023, 10, 15, 10, 0, 0)
const DAY = 86_400_000
const alice = { account: ALICE, sub: 0 }
const bob = { account: BOB, sub: 0 }
const carol = { account: CAROL, sub: 0 }
const dave = { account: DAVE, sub: 0 }

/** The scenario every test here reads: orders 1–9 and trades 1–4 of BTCUSDTPERP, then a self-trade. */
async function scenario(t: Parameters<typeof Fixture.open>[0]): Promise<{ f: Fixture; pnlSeq: number }> {
  const f = await Fixture.open(t)
  for (const a of [ALICE, BOB, CAROL, DAVE]) await f.fund(a, 10_000_000)
  await f.at(M, limit(ALICE, 'SELL', 30000, 0.03, { clientOrderId: 'ask-1' })) // order 1
  await f.at(M + 1000, limit(BOB, 'BUY', 30000, 0.01)) // order 2, trade 1
  await f.at(M + 2000, limit(BOB, 'BUY', 30000, 0.02)) // order 3, trade 2
  await f.at(M + 3000, limit(ALICE, 'SELL', 31000, 0.02, { clientOrderId: 'ask-2' })) // order 4
  await f.at(M + 4000, limit(BOB, 'BUY', 31000, 0.01)) // order 5, trade 3
  await f.at(M + 5000, { type: 'CancelOrder', account: ALICE, sub: 0, marketId: BTCPERP, orderId: 4 })
  await f.at(M + 6000, limit(BOB, 'BUY', 29000, 0.01, { timeInForce: 'IOC' })) // order 6 expires
  await f.at(M + 7000, limit(ALICE, 'SELL', 33000, 0.01, { clientOrderId: 'ask-1' })) // order 7 reuses the id
  await f.at(M + 8000, limit(CAROL, 'BUY', 32000, 0.02)) // order 8
  await f.at(M + 9000, limit(BOB, 'SELL', 32000, 0.02)) // order 9, trade 4: Bob closes half his long
  const pnlSeq = f.ex.state.seq
  await f.at(M + 10_000, limit(DAVE, 'BUY', 31500, 0.01, { stp: 'NONE' })) // order 10
  await f.at(M + 11_000, limit(DAVE, 'SELL', 31500, 0.01, { stp: 'NONE' })) // order 11, trade 5 with himself
  return { f, pnlSeq }
}

function order(o: Partial<OrderRecord>): OrderRecord {
  return {
    marketId: BTCPERP, orderId: 0, account: ALICE, sub: 0, clientOrderId: '', side: 'SELL', orderType: 'LIMIT',
    timeInForce: 'GTC', priceTicks: 0, origQtyLots: 0, executedQtyLots: 0, cumQuoteTicksLots: 0, status: 'NEW',
    positionSide: 'BOTH', reduceOnly: false, stp: 'EXPIRE_MAKER', goodTillDate: 0, time: 0, updateTime: 0, ...o,
  }
}

t.test('order history: NEW → PARTIALLY_FILLED → FILLED, CANCELED, EXPIRED', async (t) => {
  const f = await Fixture.open(t)
  for (const a of [ALICE, BOB]) await f.fund(a, 10_000_000)
  const o1 = order({ orderId: 1, clientOrderId: 'ask-1', priceTicks: 300000, origQtyLots: 30, time: M, updateTime: M })
  await f.at(M, limit(ALICE, 'SELL', 30000, 0.03, { clientOrderId: 'ask-1' }))
  t.same(await f.p.order(alice, BTCPERP, 1), o1, 'NEW')
  await f.at(M + 1000, limit(BOB, 'BUY', 30000, 0.01))
  // The maker's record was written by an earlier flush: this one merges the fill into it.
  t.same(await f.p.order(alice, BTCPERP, 1),
    { ...o1, executedQtyLots: 10, cumQuoteTicksLots: 3_000_000, status: 'PARTIALLY_FILLED', updateTime: M + 1000 })
  t.same(await f.p.order(bob, BTCPERP, 2), order({
    orderId: 2, account: BOB, clientOrderId: 'x-1-2', side: 'BUY', priceTicks: 300000, origQtyLots: 10,
    executedQtyLots: 10, cumQuoteTicksLots: 3_000_000, status: 'FILLED', time: M + 1000, updateTime: M + 1000,
  }), 'a taker filled in full')
  await f.at(M + 2000, limit(BOB, 'BUY', 30000, 0.02))
  t.same(await f.p.order(alice, BTCPERP, 1),
    { ...o1, executedQtyLots: 30, cumQuoteTicksLots: 9_000_000, status: 'FILLED', updateTime: M + 2000 })

  await f.at(M + 3000, limit(ALICE, 'SELL', 31000, 0.02))
  await f.at(M + 4000, limit(BOB, 'BUY', 31000, 0.01))
  t.equal((await f.p.order(alice, BTCPERP, 4))?.status, 'PARTIALLY_FILLED')
  await f.at(M + 5000, { type: 'CancelOrder', account: ALICE, sub: 0, marketId: BTCPERP, orderId: 4 })
  t.same(await f.p.order(alice, BTCPERP, 4), order({
    orderId: 4, clientOrderId: 'x-1-4', priceTicks: 310000, origQtyLots: 20, executedQtyLots: 10,
    cumQuoteTicksLots: 3_100_000, status: 'CANCELED', time: M + 3000, updateTime: M + 5000,
  }), 'CANCELED keeps what was filled')
  await f.at(M + 6000, limit(BOB, 'BUY', 29000, 0.01, { timeInForce: 'IOC' }))
  t.same(await f.p.order(bob, BTCPERP, 6), order({
    orderId: 6, account: BOB, clientOrderId: 'x-1-6', side: 'BUY', timeInForce: 'IOC', priceTicks: 290000,
    origQtyLots: 10, status: 'EXPIRED', time: M + 6000, updateTime: M + 6000,
  }), 'an IOC with nothing to take')
  t.equal(await f.p.order(alice, BTCPERP, 99), undefined)
  t.equal(await f.p.order(bob, BTCPERP, 1), undefined, 'one owner cannot see another\'s order')
  t.equal(await f.p.order(alice, ETHPERP, 1), undefined)
})

t.test('order history in one batch: order event, fills and expiry flushed together', async (t) => {
  // The store in this thread, whose queries see only what is flushed (the worker's write what is pending first).
  const f = await Fixture.open(t, { worker: false })
  for (const a of [ALICE, BOB]) await f.fund(a, 10_000_000)
  f.autoFlush = false
  await f.at(M, limit(ALICE, 'SELL', 30000, 0.01))
  await f.at(M + 1, limit(ALICE, 'SELL', 30001, 0.01))
  await f.at(M + 2, limit(BOB, 'BUY', 30001, 0.03, { timeInForce: 'IOC' })) // fills both, expires the rest
  t.equal(await f.p.order(alice, BTCPERP, 1), undefined, 'nothing is visible before the flush')
  await f.p.flush()
  t.same([(await f.p.order(alice, BTCPERP, 1))?.status, (await f.p.order(alice, BTCPERP, 2))?.status], ['FILLED', 'FILLED'])
  t.same(await f.p.order(bob, BTCPERP, 3), order({
    orderId: 3, account: BOB, clientOrderId: 'x-1-3', side: 'BUY', timeInForce: 'IOC', priceTicks: 300010,
    origQtyLots: 30, executedQtyLots: 20, cumQuoteTicksLots: 300000 * 10 + 300010 * 10, status: 'EXPIRED',
    time: M + 2, updateTime: M + 2,
  }))
})

t.test('order queries: by client id (the latest), allOrders by id and time range', async (t) => {
  const { f } = await scenario(t)
  t.equal((await f.p.orderByClientId(alice, BTCPERP, 'ask-1'))?.orderId, 7, 'the latest order with the id')
  t.equal((await f.p.orderByClientId(alice, BTCPERP, 'ask-2'))?.orderId, 4)
  t.equal((await f.p.orderByClientId(bob, BTCPERP, 'x-1-3'))?.orderId, 3, 'generated ids are indexed too')
  t.equal(await f.p.orderByClientId(alice, BTCPERP, 'nope'), undefined)
  t.equal(await f.p.orderByClientId(bob, BTCPERP, 'ask-1'), undefined)

  const ids = async (q: Parameters<typeof f.p.allOrders>[2], who = alice) => (await f.p.allOrders(who, BTCPERP, q)).map((o) => o.orderId)
  t.same(await ids({ limit: 1000 }), [1, 4, 7])
  t.same((await f.p.allOrders(bob, BTCPERP, { limit: 1000 })).map((o) => [o.orderId, o.status]),
    [[2, 'FILLED'], [3, 'FILLED'], [5, 'FILLED'], [6, 'EXPIRED'], [9, 'FILLED']])
  t.same(await ids({ limit: 1 }), [7], 'neither: the most recent')
  t.same(await ids({ startTime: M + 1, limit: 1 }), [4], 'startTime: the oldest from it')
  t.same(await ids({ startTime: M + 3000, limit: 10 }), [4, 7])
  t.same(await ids({ endTime: M + 3000, limit: 1 }), [4], 'endTime: the most recent up to it')
  t.same(await ids({ startTime: M, endTime: M + 3000, limit: 10 }), [1, 4], 'both')
  t.same(await ids({ orderId: 4, limit: 10 }), [4, 7], 'from an order id')
  t.same(await ids({ orderId: 2, limit: 1 }), [4])
  t.same(await ids({ orderId: 2, endTime: M + 6999, limit: 10 }), [4], 'from an id, bounded by endTime')
  t.same(await ids({ orderId: 1, startTime: M + 1, limit: 10 }), [4, 7], 'from an id, bounded by startTime')
  t.same(await ids({ limit: 10 }, carol), [8])
  t.same(await f.p.allOrders(alice, ETHPERP, { limit: 10 }), [])
  await t.rejects(f.p.allOrders(alice, BTCPERP, { limit: 1001 }))
})

t.test('user trades: fees, realized PnL, maker and buyer flags, and every filter', async (t) => {
  const { f } = await scenario(t)
  const trade = (o: Partial<UserTradeRecord>): UserTradeRecord => ({
    marketId: BTCPERP, tradeId: 0, orderId: 0, side: 'BUY', priceTicks: 0, qtyLots: 0, quoteQtyTicksLots: 0,
    realizedPnl: 0, commission: 0, commissionAsset: null, time: 0, buyer: true, maker: false, positionSide: 'BOTH', ...o,
  })
  // Taker 0.05 %, maker 0.02 % of notional; 1 tick·lot is 0.0001 USDT = 100 ledger units.
  const b1 = trade({ tradeId: 1, orderId: 2, priceTicks: 300000, qtyLots: 10, quoteQtyTicksLots: 3_000_000, commission: 150_000, time: M + 1000 })
  const b2 = trade({ tradeId: 2, orderId: 3, priceTicks: 300000, qtyLots: 20, quoteQtyTicksLots: 6_000_000, commission: 300_000, time: M + 2000 })
  const b3 = trade({ tradeId: 3, orderId: 5, priceTicks: 310000, qtyLots: 10, quoteQtyTicksLots: 3_100_000, commission: 155_000, time: M + 4000 })
  // Long 0.04 at an average 30250; selling 0.02 at 32000 realizes 0.02 × 1750 = 35 USDT.
  const b4 = trade({
    tradeId: 4, orderId: 9, side: 'SELL', priceTicks: 320000, qtyLots: 20, quoteQtyTicksLots: 6_400_000,
    realizedPnl: 35_000_000, commission: 320_000, time: M + 9000, buyer: false,
  })
  t.same(await f.p.userTrades(bob, BTCPERP, { limit: 1000 }), [b1, b2, b3, b4])
  t.same(await f.p.userTrades(alice, BTCPERP, { limit: 1000 }), [
    { ...b1, orderId: 1, side: 'SELL', commission: 60_000, buyer: false, maker: true },
    { ...b2, orderId: 1, side: 'SELL', commission: 120_000, buyer: false, maker: true },
    { ...b3, orderId: 4, side: 'SELL', commission: 62_000, buyer: false, maker: true },
  ])
  t.same(await f.p.userTrades(carol, BTCPERP, { limit: 1000 }),
    [{ ...b4, orderId: 8, side: 'BUY', realizedPnl: 0, commission: 128_000, buyer: true, maker: true }])

  const ids = async (q: Parameters<typeof f.p.userTrades>[2]) => (await f.p.userTrades(bob, BTCPERP, q)).map((x) => x.tradeId)
  t.same(await ids({ orderId: 3, limit: 10 }), [2], 'one order\'s fills')
  t.same(await ids({ orderId: 9, limit: 10 }), [4])
  t.same(await ids({ orderId: 6, limit: 10 }), [], 'an order that never filled')
  t.same(await ids({ fromId: 2, limit: 2 }), [2, 3], 'fromId')
  t.same(await ids({ fromId: 4, limit: 10 }), [4])
  t.same(await ids({ fromId: 5, limit: 10 }), [])
  t.same(await ids({ fromId: 1, endTime: M + 4000, limit: 10 }), [1, 2, 3], 'fromId bounded by endTime')
  t.same(await ids({ fromId: 1, startTime: M + 2000, limit: 10 }), [2, 3, 4], 'fromId bounded by startTime')
  const others = async (who: typeof bob, q: Parameters<typeof f.p.userTrades>[2]) => (await f.p.userTrades(who, BTCPERP, q)).map((x) => x.tradeId)
  t.same(await others(alice, { fromId: 3, limit: 10 }), [3], 'fromId: the owner\'s fills from it')
  t.same(await others(alice, { fromId: 4, limit: 10 }), [], 'none of the owner\'s from a later trade')
  t.same(await others(carol, { fromId: 2, limit: 10 }), [4], 'fromId naming someone else\'s trade: the owner\'s next')
  t.same(await others(carol, { fromId: 1, endTime: M + 8000, limit: 10 }), [], 'and bounded by endTime')
  t.same(await ids({ limit: 2 }), [3, 4], 'neither: the most recent')
  t.same(await ids({ startTime: M + 2000, limit: 2 }), [2, 3], 'startTime: the oldest from it')
  t.same(await ids({ endTime: M + 4000, limit: 1 }), [3], 'endTime: the most recent up to it')
  t.same(await ids({ startTime: M + 1000, endTime: M + 2000, limit: 10 }), [1, 2], 'both')
  t.same(await f.p.userTrades(bob, ETHPERP, { limit: 10 }), [])
  await t.rejects(f.p.userTrades(bob, BTCPERP, { limit: 1001 }))

  const self = await f.p.userTrades(dave, BTCPERP, { limit: 10 })
  t.same(self.map((x) => [x.tradeId, x.orderId, x.side, x.maker]), [[5, 11, 'SELL', false], [5, 10, 'BUY', true]],
    'a self-trade gives the owner both sides')
})

t.test('income: realized PnL, commissions, transfers; type, market and time filters', async (t) => {
  const { f, pnlSeq } = await scenario(t)
  const rows = await f.p.income(bob, { limit: 1000 })
  t.same(rows.map((r) => [r.incomeType, r.income]), [
    ['TRANSFER', 10_000_000_000_000],
    ['COMMISSION', -150_000],
    ['COMMISSION', -300_000],
    ['COMMISSION', -155_000],
    ['REALIZED_PNL', 35_000_000],
    ['COMMISSION', -320_000],
  ])
  // The maker's commission is row 0 of the entry, Bob's PnL row 1: ids are seq × 65536 + row.
  t.same(await f.p.income(bob, { incomeType: 'REALIZED_PNL', limit: 100 }), [{
    tranId: pnlSeq * 65_536 + 1, incomeType: 'REALIZED_PNL', marketId: BTCPERP, income: 35_000_000, asset: null,
    info: '4', time: M + 9000, tradeId: 4,
  }])
  const incomes = async (q: Parameters<typeof f.p.income>[1]) => (await f.p.income(bob, q)).map((r) => r.income)
  t.same(await incomes({ incomeType: 'COMMISSION', limit: 2 }), [-155_000, -320_000], 'neither: the most recent')
  t.same(await incomes({ incomeType: 'COMMISSION', startTime: M + 2000, limit: 2 }), [-300_000, -155_000], 'startTime')
  t.same(await incomes({ endTime: M + 4000, limit: 2 }), [-300_000, -155_000], 'endTime')
  t.same(await incomes({ startTime: M + 1000, endTime: M + 2000, limit: 10 }), [-150_000, -300_000], 'both')
  t.same(await incomes({ marketId: BTCPERP, limit: 1 }), [-320_000])
  t.same(await incomes({ marketId: ETHPERP, limit: 10 }), [])
  t.same(await incomes({ incomeType: 'TRANSFER', limit: 10 }), [10_000_000_000_000])
  t.same(await incomes({ incomeType: 'FUNDING_FEE', limit: 10 }), [])
  await t.rejects(f.p.income(bob, { limit: 1001 }))
})

t.test('three-month windows: income and trades age out on read; prune reclaims the trade tape', async (t) => {
  const { f } = await scenario(t)
  await f.at(M + 91 * DAY, { type: 'Transfer', account: BOB, sub: 0, direction: 'PERP_TO_SPOT', amount: 1_000_000 })
  t.same((await f.p.income(bob, { limit: 1000 })).map((r) => [r.incomeType, r.income]), [['TRANSFER', -1_000_000]],
    'only the last 90 days')
  t.same(await f.p.recentTrades(BTCPERP, 1000), [])
  t.same(await f.p.historicalTrades(BTCPERP, { fromId: 1, limit: 500 }), [])
  t.equal((await f.p.income(bob, { endTime: M + DAY, limit: 1000 }, M + 10 * DAY)).length, 6, 'an earlier now still sees them')
  t.equal((await f.p.recentTrades(BTCPERP, 1000, M + DAY)).length, 5)

  const pruned = await f.p.prune()
  t.ok(pruned > 0, `prune deleted ${pruned} keys`)
  t.same((await f.p.income(bob, { limit: 1000 })).map((r) => r.income), [-1_000_000], 'answers unchanged by pruning')
  // A fill's income is stored in its user trade, which is kept: only the window hides it.
  t.same((await f.p.income(bob, { endTime: M + DAY, limit: 1000 }, M + 10 * DAY)).map((r) => r.incomeType),
    ['COMMISSION', 'COMMISSION', 'COMMISSION', 'REALIZED_PNL', 'COMMISSION'], 'the deposit\'s row is gone, the fills\' income stays with their user trades')
  t.same(await f.p.recentTrades(BTCPERP, 1000, M + DAY), [])
  t.equal((await f.p.userTrades(bob, BTCPERP, { limit: 1000 })).length, 4, 'user trades are kept')
  t.equal((await f.p.aggTrades(BTCPERP, { limit: 1000 })).length, 5, 'aggregate trades are kept')
  t.equal(await f.p.prune(), 0, 'nothing more to prune')
})

t.test('spot fills: user trades carry the fee asset, and no income', async (t) => {
  const f = await Fixture.open(t)
  await f.ok({ type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: 100_000_000, wallet: 'SPOT', ref: 'b:1' })
  await f.fund(BOB, 10_000, 'SPOT')
  // BTCUSDT spot: tick 0.01 and step 0.0001, so 30000 is 3_000_000 ticks and 0.01 BTC 100 lots.
  const spot = (account: string, side: 'BUY' | 'SELL') => ({
    type: 'PlaceOrder' as const, account, sub: 0, marketId: BTCSPOT, side, orderType: 'LIMIT' as const,
    timeInForce: 'GTC' as const, priceTicks: 3_000_000, qtyLots: 100,
  })
  await f.at(M, spot(ALICE, 'SELL'))
  await f.at(M + 1, spot(BOB, 'BUY'))
  const base = {
    marketId: BTCSPOT, tradeId: 1, priceTicks: 3_000_000, qtyLots: 100, quoteQtyTicksLots: 300_000_000,
    realizedPnl: 0, time: M + 1, positionSide: 'BOTH' as const,
  }
  // The buyer pays 0.1 % of the 0.01 BTC received, the seller 0.1 % of the 300 USDT.
  t.same(await f.p.userTrades(bob, BTCSPOT, { limit: 10 }),
    [{ ...base, orderId: 2, side: 'BUY', commission: 1000, commissionAsset: 'BTC', buyer: true, maker: false }])
  t.same(await f.p.userTrades(alice, BTCSPOT, { limit: 10 }),
    [{ ...base, orderId: 1, side: 'SELL', commission: 300_000, commissionAsset: 'USDT', buyer: false, maker: true }])
  t.equal((await f.p.order(alice, BTCSPOT, 1))?.status, 'FILLED')
  t.equal((await f.p.recentTrades(BTCSPOT, 10)).length, 1)
  t.equal((await f.p.klines(BTCSPOT, '1m', { limit: 10 }))[0]?.quoteVolumeTicksLots, 300_000_000)
  t.same(await f.p.income(alice, { limit: 10 }), [], 'spot fills are not perp income')
  t.equal(await f.p.openInterest(BTCSPOT), undefined)
})

t.test('allOrders by time range: every rule, against the orders as placed', async (t) => {
  // Orders of three owners interleaved, several in one millisecond and long gaps between
  // some: the time bounds are found by bisecting order ids (account-queries.ts).
  const f = await Fixture.open(t)
  f.autoFlush = false
  const owners = [alice, bob, carol]
  for (const o of owners) await f.fund(o.account, 10_000_000)
  const placed = new Map<string, { orderId: number; time: number }[]>(owners.map((o) => [o.account, []]))
  let seed = 7
  const next = (n: number): number => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) % n }
  for (let i = 0; i < 240; i++) {
    const who = owners[next(3)]!
    const dt = [0, 0, 1, 5, 1000][next(5)]!
    // Most expire at once (IOC, nothing to match); some rest, far from each other's prices.
    const rest = next(4) === 0
    const buy = next(2) === 0
    const r = await f.ok(limit(who.account, buy ? 'BUY' : 'SELL', buy ? (rest ? 25000 : 20000) : (rest ? 35000 : 40000), 0.01,
      { timeInForce: rest ? 'GTC' : 'IOC' }), dt)
    if (!r.ok) throw new Error(r.code)
    placed.get(who.account)!.push({ orderId: r.orderId!, time: f.ex.time })
  }
  await f.p.flush()
  const first = placed.get(ALICE)![0]!.time
  const last = f.ex.time
  for (const o of owners) {
    t.same((await f.p.allOrders(o, BTCPERP, { limit: 1000 })).map((r) => r.orderId), placed.get(o.account)!.map((p) => p.orderId))
  }
  // Mostly an order's own time or next to it, where an off-by-one in a bound would show.
  const times = [...placed.values()].flat().map((p) => p.time)
  const time = fc.oneof(fc.tuple(fc.constantFrom(...times), fc.integer({ min: -1, max: 1 })).map(([at, d]) => at + d),
    fc.integer({ min: first - 3, max: last + 3 }))
  await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 2 }), fc.option(time), fc.option(time), fc.integer({ min: 1, max: 30 }),
    async (i, startTime, endTime, n) => {
      const all = placed.get(owners[i]!.account)!
      const q = { startTime: startTime ?? undefined, endTime: endTime ?? undefined, limit: n }
      const inRange = all.filter((p) => (q.startTime === undefined || p.time >= q.startTime) && (q.endTime === undefined || p.time <= q.endTime))
      // Only a startTime anchors the answer at the old end.
      const want = q.startTime === undefined ? inRange.slice(-n) : inRange.slice(0, n)
      const got = (await f.p.allOrders(owners[i]!, BTCPERP, q)).map((r) => r.orderId)
      return got.join() === want.map((p) => p.orderId).join()
    }), runs(300))
})

t.test('income merges fills of every market with the other types: every filter, against the whole history', async (t) => {
  // Fills in two markets (some in one millisecond, self-trades among them) and transfers: a
  // fill's REALIZED_PNL and COMMISSION come from its user trade, the rest from rows of their own.
  const f = await Fixture.open(t)
  f.autoFlush = false
  const owners = [alice, bob, carol]
  for (const o of owners) await f.fund(o.account, 10_000_000)
  let seed = 11
  const next = (n: number): number => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) % n }
  for (let i = 0; i < 150; i++) {
    const dt = [0, 0, 1, 500][next(4)]!
    if (next(8) === 0) {
      await f.ok({ type: 'Transfer', account: owners[next(3)]!.account, sub: 0, direction: 'PERP_TO_SPOT', amount: 1_000_000 }, dt)
      continue
    }
    const eth = next(2) === 0
    const maker = owners[next(3)]!.account
    const taker = owners[next(3)]!.account
    const buy = next(2) === 0
    const order = (account: string, side: 'BUY' | 'SELL'): PlaceOrder => eth
      ? { ...limit(account, side, 0, 0), marketId: ETHPERP, priceTicks: 300_000 + 100 * next(10), qtyLots: 50 + next(50), stp: 'NONE' }
      : { ...limit(account, side, 30_000 + 10 * next(10), 0.005 + next(5) / 1000), stp: 'NONE' }
    const m = order(maker, buy ? 'SELL' : 'BUY')
    await f.ok(m, dt)
    await f.ok({ ...m, account: taker, side: buy ? 'BUY' : 'SELL' }, 0)
  }
  // Then 60 self-trades in one millisecond, and one fill with another account: 121 user trades
  // in one millisecond (taker before maker under each trade id, the ids of their income the
  // other way round), which the answers must still give in tranId order, whatever their limit.
  const sell = { ...limit(carol.account, 'SELL', 30_000, 0.005), stp: 'NONE' as const }
  for (let i = 0; i < 60; i++) {
    await f.ok(sell, i === 0 ? 1000 : 0)
    await f.ok({ ...sell, side: 'BUY' }, 0)
  }
  await f.ok(sell, 0)
  await f.ok({ ...sell, account: alice.account, side: 'BUY' }, 0)
  await f.p.flush()
  for (const o of owners) {
    const all = await f.p.income(o, { limit: 1000 })
    const fills = [...await f.p.userTrades(o, BTCPERP, { limit: 1000 }), ...await f.p.userTrades(o, ETHPERP, { limit: 1000 })]
    t.equal(all.filter((r) => r.incomeType === 'COMMISSION').length, fills.filter((u) => u.commission !== 0).length, 'a COMMISSION per fee paid')
    t.equal(all.filter((r) => r.incomeType === 'REALIZED_PNL').length, fills.filter((u) => u.realizedPnl !== 0).length, 'a REALIZED_PNL per fill that realized any')
    t.equal(new Set(all.map((r) => r.tranId)).size, all.length, 'tranIds are unique')
    t.ok(all.every((r, i) => i === 0 || r.time > all[i - 1]!.time || (r.time === all[i - 1]!.time && r.tranId > all[i - 1]!.tranId)), 'in (time, tranId) order')
  }
  const full = new Map<string, IncomeRecord[]>()
  for (const o of owners) full.set(o.account, await f.p.income(o, { limit: 1000 }))
  const start = M
  const times = [...full.values()].flat().map((r) => r.time)
  const time = fc.oneof(fc.tuple(fc.constantFrom(...times), fc.integer({ min: -1, max: 1 })).map(([at, d]) => at + d),
    fc.integer({ min: Math.min(...times) - 2, max: Math.max(...times) + 2 }))
  await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 2 }), fc.option(fc.constantFrom(...INCOME_TYPES_SEEN)),
    fc.option(fc.constantFrom(BTCPERP, ETHPERP)), fc.option(time), fc.option(time), fc.integer({ min: 1, max: 25 }),
    async (i, incomeType, marketId, startTime, endTime, n) => {
      const q = { incomeType: incomeType ?? undefined, marketId: marketId ?? undefined, startTime: startTime ?? undefined, endTime: endTime ?? undefined, limit: n }
      const matching = full.get(owners[i]!.account)!.filter((r) => (q.incomeType === undefined || r.incomeType === q.incomeType) &&
        (q.marketId === undefined || r.marketId === q.marketId) &&
        (q.startTime === undefined || r.time >= q.startTime) && (q.endTime === undefined || r.time <= q.endTime))
      const want = q.startTime === undefined ? matching.slice(-n) : matching.slice(0, n)
      const got = await f.p.income(owners[i]!, q, start)
      return JSON.stringify(got) === JSON.stringify(want)
    }), runs(300))
})

const INCOME_TYPES_SEEN = ['TRANSFER', 'REALIZED_PNL', 'COMMISSION'] as const
