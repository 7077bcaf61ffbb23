// Market read models: trades, aggregate trades (the 100 ms merge rule), klines and their
// interval boundaries, the time-range rule, the 24 h ticker and open interest.

import t from 'tap'
import { bucketClose, bucketOpen } from '../../replica/projections/index.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, CAROL, COIN, DAVE, ETHPERP } from '../helpers/exchange.js'
import { Fixture, limit, trade, type Teardown } from '../helpers/projections-fixture.js'

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
/** Wednesday 2023-11-15 10:00:00 UTC, after the driver's start time. */
const M = Date.UTC(2023, 10, 15, 10, 0, 0)

async function funded(t: Teardown): Promise<Fixture> {
  const f = await Fixture.open(t)
  for (const a of [ALICE, BOB, CAROL]) await f.fund(a, 10_000_000)
  return f
}

t.test('trades: recent, historical from an id, quote quantity and side', async (t) => {
  const f = await funded(t)
  await trade(f, ALICE, BOB, 30000, 0.01, M)
  await trade(f, ALICE, BOB, 30001, 0.02, M + 10)
  await trade(f, BOB, ALICE, 29999, 0.03, M + 20, 'SELL')
  await trade(f, ALICE, BOB, 30002, 0.04, M + 30)

  const recent = await f.p.recentTrades(BTCPERP, 2)
  t.same(recent, [
    { tradeId: 3, priceTicks: 299990, qtyLots: 30, quoteQtyTicksLots: 299990 * 30, time: M + 20, buyerIsMaker: true },
    { tradeId: 4, priceTicks: 300020, qtyLots: 40, quoteQtyTicksLots: 300020 * 40, time: M + 30, buyerIsMaker: false },
  ])
  t.same((await f.p.recentTrades(BTCPERP, 1000)).map((x) => x.tradeId), [1, 2, 3, 4])
  t.same((await f.p.historicalTrades(BTCPERP, { fromId: 2, limit: 2 })).map((x) => x.tradeId), [2, 3])
  t.same((await f.p.historicalTrades(BTCPERP, { fromId: 4, limit: 500 })).map((x) => x.tradeId), [4])
  t.same(await f.p.historicalTrades(BTCPERP, { fromId: 5, limit: 500 }), [])
  t.same((await f.p.historicalTrades(BTCPERP, { limit: 3 })).map((x) => x.tradeId), [2, 3, 4], 'no fromId: the newest')
  t.same(await f.p.recentTrades(ETHPERP, 10), [], 'another market has its own trades')
  await t.rejects(f.p.recentTrades(BTCPERP, 1001), 'limit above 1000')
  await t.rejects(f.p.historicalTrades(BTCPERP, { limit: 1001 }), 'historicalTrades limit above 1000 (spot\'s)')
})

t.test('aggregate trades merge within 100 ms at one price and taker side', async (t) => {
  const f = await funded(t)
  await f.at(M - 1000, limit(ALICE, 'SELL', 30000, 0.06))
  await f.at(M, limit(BOB, 'BUY', 30000, 0.01)) // trade 1 opens aggregate 1
  await f.at(M + 50, limit(BOB, 'BUY', 30000, 0.01)) // trade 2: 50 ms on, merges
  await f.at(M + 100, limit(BOB, 'BUY', 30000, 0.01)) // trade 3: 100 ms after the first, merges
  await f.at(M + 201, limit(BOB, 'BUY', 30000, 0.01)) // trade 4: 201 ms after the first: aggregate 2
  await f.at(M + 302, limit(BOB, 'BUY', 30000, 0.01)) // trade 5: 101 ms after aggregate 2 began: aggregate 3
  await f.at(M + 305, limit(ALICE, 'SELL', 30001, 0.01))
  // One taker takes the last 0.01 at 30000 (trade 6, merges into 3) and 0.01 at 30001 (trade 7, new price).
  await f.at(M + 312, limit(BOB, 'BUY', 30001, 0.02))
  await f.at(M + 315, limit(CAROL, 'BUY', 30001, 0.01))
  await f.at(M + 317, limit(ALICE, 'SELL', 30001, 0.01)) // trade 8: same price, seller takes: aggregate 5

  const agg = (aggId: number, priceTicks: number, qtyLots: number, firstTradeId: number, lastTradeId: number,
    time: number, buyerIsMaker = false) => ({ aggId, priceTicks, qtyLots, firstTradeId, lastTradeId, time, buyerIsMaker })
  const all = [
    agg(1, 300000, 30, 1, 3, M),
    agg(2, 300000, 10, 4, 4, M + 201),
    agg(3, 300000, 20, 5, 6, M + 302),
    agg(4, 300010, 10, 7, 7, M + 312),
    agg(5, 300010, 10, 8, 8, M + 317, true),
  ]
  t.same(await f.p.aggTrades(BTCPERP, { limit: 500 }), all)
  t.same(await f.p.aggTrades(BTCPERP, { limit: 2 }), all.slice(3), 'neither time: the most recent')
  t.same(await f.p.aggTrades(BTCPERP, { startTime: M + 201, limit: 1 }), all.slice(1, 2), 'startTime: the oldest from it')
  t.same(await f.p.aggTrades(BTCPERP, { startTime: M + 1, limit: 1000 }), all.slice(1))
  t.same(await f.p.aggTrades(BTCPERP, { endTime: M + 302, limit: 2 }), all.slice(1, 3), 'endTime: the most recent up to it')
  t.same(await f.p.aggTrades(BTCPERP, { startTime: M + 1, endTime: M + 312, limit: 1000 }), all.slice(1, 4), 'both')
  t.same(await f.p.aggTrades(BTCPERP, { startTime: M + 1, endTime: M + 312, limit: 2 }), all.slice(1, 3), 'both, limited')
  t.same(await f.p.aggTrades(BTCPERP, { startTime: M + 400, endTime: M + 300, limit: 10 }), [], 'start after end')
  t.same(await f.p.aggTrades(BTCPERP, { fromId: 2, limit: 2 }), all.slice(1, 3), 'fromId')
  t.same(await f.p.aggTrades(BTCPERP, { fromId: 3, endTime: M + 312, limit: 10 }), all.slice(2, 4), 'fromId bounded by endTime')
  t.same(await f.p.aggTrades(BTCPERP, { fromId: 2, startTime: M + 312, limit: 10 }), all.slice(3), 'fromId bounded by startTime')
  t.same(await f.p.aggTrades(BTCPERP, { fromId: 6, limit: 10 }), [])
  await t.rejects(f.p.aggTrades(BTCPERP, { limit: 1001 }))

  // The open aggregate survives a flush and keeps merging afterwards.
  await f.at(M + 320, limit(CAROL, 'BUY', 30001, 0.02))
  await f.at(M + 417, limit(ALICE, 'SELL', 30001, 0.02)) // exactly 100 ms after aggregate 5 began
  t.same((await f.p.aggTrades(BTCPERP, { limit: 1 }))[0], agg(5, 300010, 30, 8, 9, M + 317, true))
})

t.test('klines: 1m and 1h buckets, their fields and the time-range rule', async (t) => {
  const f = await funded(t)
  await trade(f, ALICE, BOB, 30000, 0.01, M + 5_000) // a
  await trade(f, BOB, ALICE, 30100, 0.02, M + 59_999, 'SELL') // b: last ms of minute 0
  await trade(f, ALICE, BOB, 29900, 0.03, M + 60_000) // c: first ms of minute 1
  await trade(f, ALICE, BOB, 30050, 0.01, M + HOUR - 1) // d: last ms of the hour
  await trade(f, BOB, ALICE, 30200, 0.01, M + HOUR, 'SELL') // e: next hour

  const k1 = {
    openTime: M, closeTime: M + MIN - 1, openPriceTicks: 300000, highPriceTicks: 301000, lowPriceTicks: 300000,
    closePriceTicks: 301000, volumeLots: 30, quoteVolumeTicksLots: 3_000_000 + 6_020_000, count: 2,
    takerBuyVolumeLots: 10, takerBuyQuoteVolumeTicksLots: 3_000_000, firstTradeId: 1, lastTradeId: 2,
  }
  const k2 = {
    openTime: M + MIN, closeTime: M + 2 * MIN - 1, openPriceTicks: 299000, highPriceTicks: 299000, lowPriceTicks: 299000,
    closePriceTicks: 299000, volumeLots: 30, quoteVolumeTicksLots: 8_970_000, count: 1,
    takerBuyVolumeLots: 30, takerBuyQuoteVolumeTicksLots: 8_970_000, firstTradeId: 3, lastTradeId: 3,
  }
  const k3 = {
    openTime: M + 59 * MIN, closeTime: M + HOUR - 1, openPriceTicks: 300500, highPriceTicks: 300500, lowPriceTicks: 300500,
    closePriceTicks: 300500, volumeLots: 10, quoteVolumeTicksLots: 3_005_000, count: 1,
    takerBuyVolumeLots: 10, takerBuyQuoteVolumeTicksLots: 3_005_000, firstTradeId: 4, lastTradeId: 4,
  }
  const k4 = {
    openTime: M + HOUR, closeTime: M + HOUR + MIN - 1, openPriceTicks: 302000, highPriceTicks: 302000, lowPriceTicks: 302000,
    closePriceTicks: 302000, volumeLots: 10, quoteVolumeTicksLots: 3_020_000, count: 1,
    takerBuyVolumeLots: 0, takerBuyQuoteVolumeTicksLots: 0, firstTradeId: 5, lastTradeId: 5,
  }
  t.same(await f.p.klines(BTCPERP, '1m', { limit: 1500 }), [k1, k2, k3, k4])
  t.same(await f.p.klines(BTCPERP, '1m', { limit: 2 }), [k3, k4], 'neither: the most recent')
  t.same(await f.p.klines(BTCPERP, '1m', { startTime: M + 1, limit: 2 }), [k2, k3], 'startTime: the oldest from it')
  t.same(await f.p.klines(BTCPERP, '1m', { endTime: M + 59 * MIN, limit: 2 }), [k2, k3], 'endTime: the most recent up to it')
  t.same(await f.p.klines(BTCPERP, '1m', { startTime: M, endTime: M + MIN, limit: 1500 }), [k1, k2], 'both')
  t.same(await f.p.klines(BTCPERP, '1m', { startTime: M, endTime: M + HOUR, limit: 3 }), [k1, k2, k3], 'both, limited')
  t.same(await f.p.klines(BTCPERP, '1m', { startTime: M + HOUR + 1, limit: 10 }), [])

  t.same(await f.p.klines(BTCPERP, '1h', { limit: 1500 }), [
    {
      openTime: M, closeTime: M + HOUR - 1, openPriceTicks: 300000, highPriceTicks: 301000, lowPriceTicks: 299000,
      closePriceTicks: 300500, volumeLots: 70, quoteVolumeTicksLots: 9_020_000 + 8_970_000 + 3_005_000, count: 4,
      takerBuyVolumeLots: 50, takerBuyQuoteVolumeTicksLots: 3_000_000 + 8_970_000 + 3_005_000, firstTradeId: 1, lastTradeId: 4,
    },
    { ...k4, closeTime: M + 2 * HOUR - 1 },
  ])
  const day = await f.p.klines(BTCPERP, '1d', { limit: 10 })
  t.same(day.map((k) => [k.openTime, k.closeTime, k.count, k.volumeLots]), [[Date.UTC(2023, 10, 15), Date.UTC(2023, 10, 16) - 1, 5, 80]])
  await t.rejects(f.p.klines(BTCPERP, '1m', { limit: 1501 }))
})

t.test('klines: weeks start Monday 00:00 UTC, months on the first', async (t) => {
  const f = await funded(t)
  await trade(f, ALICE, BOB, 30000, 0.01, M) // Wednesday 15 Nov
  await trade(f, ALICE, BOB, 30100, 0.01, Date.UTC(2023, 10, 20) - 1) // Sunday 19 Nov, last ms
  await trade(f, ALICE, BOB, 30200, 0.01, Date.UTC(2023, 10, 20)) // Monday 20 Nov
  await trade(f, ALICE, BOB, 30300, 0.01, Date.UTC(2023, 11, 1) - 1) // Thursday 30 Nov, last ms
  await trade(f, ALICE, BOB, 30400, 0.01, Date.UTC(2023, 11, 1)) // Friday 1 Dec

  const weeks = await f.p.klines(BTCPERP, '1w', { limit: 10 })
  t.same(weeks.map((k) => [k.openTime, k.closeTime, k.count, k.openPriceTicks, k.closePriceTicks]), [
    [Date.UTC(2023, 10, 13), Date.UTC(2023, 10, 20) - 1, 2, 300000, 301000],
    [Date.UTC(2023, 10, 20), Date.UTC(2023, 10, 27) - 1, 1, 302000, 302000],
    [Date.UTC(2023, 10, 27), Date.UTC(2023, 11, 4) - 1, 2, 303000, 304000],
  ])
  const months = await f.p.klines(BTCPERP, '1M', { limit: 10 })
  t.same(months.map((k) => [k.openTime, k.closeTime, k.count, k.highPriceTicks]), [
    [Date.UTC(2023, 10, 1), Date.UTC(2023, 11, 1) - 1, 4, 303000],
    [Date.UTC(2023, 11, 1), Date.UTC(2024, 0, 1) - 1, 1, 304000],
  ])
  t.same((await f.p.klines(BTCPERP, '1M', { endTime: Date.UTC(2023, 11, 1) - 1, limit: 10 })).map((k) => k.openTime),
    [Date.UTC(2023, 10, 1)], 'endTime compares open times')
})

t.test('1s klines: spot markets only, kept as long as trades, then pruned', async (t) => {
  const f = await funded(t)
  await f.ok({ type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: COIN, wallet: 'SPOT', ref: 'btc-1s' }, 0)
  await f.fund(BOB, 1_000_000, 'SPOT')
  const spot = (priceTicks: number, qtyLots: number) => ({ marketId: BTCSPOT, priceTicks, qtyLots })
  const spotTrade = async (time: number, priceTicks: number): Promise<void> => {
    await f.at(time, limit(ALICE, 'SELL', 0, 0, spot(priceTicks, 100)))
    await f.ok(limit(BOB, 'BUY', 0, 0, spot(priceTicks, 100)), 0)
  }
  await spotTrade(M + 1_250, 3_000_000)
  await spotTrade(M + 1_999, 3_000_100) // the same second
  await spotTrade(M + 2_000, 3_000_200) // the next
  await trade(f, ALICE, BOB, 30000, 0.01, M + 3_000) // a perpetual's trade: no 1s kline
  const seconds = await f.p.klines(BTCSPOT, '1s', { limit: 10 })
  t.same(seconds.map((k) => [k.openTime, k.closeTime, k.count, k.openPriceTicks, k.closePriceTicks]), [
    [M + 1_000, M + 1_999, 2, 3_000_000, 3_000_100],
    [M + 2_000, M + 2_999, 1, 3_000_200, 3_000_200],
  ])
  t.same(await f.p.klines(BTCPERP, '1s', { limit: 10 }), [], 'USDⓈ-M has no 1s klines')
  t.equal((await f.p.klines(BTCPERP, '1m', { limit: 10 })).length, 1, 'the perpetual\'s other klines as before')

  // 90 days on (a later trade moves the projections' time): hidden first, then pruned.
  await spotTrade(M + 90 * DAY + 1_500, 3_000_300)
  t.same((await f.p.klines(BTCSPOT, '1s', { limit: 10 })).map((k) => k.openTime), [M + 2_000, M + 90 * DAY + 1_000],
    'the second 90 days back and more is past the window')
  t.same((await f.p.klines(BTCSPOT, '1m', { limit: 10 })).map((k) => k.count), [3, 1], 'minutes are kept')
  const pruned = await f.p.prune()
  t.ok(pruned >= 1)
  t.same((await f.p.klines(BTCSPOT, '1s', { startTime: 0, limit: 10 })).map((k) => k.openTime), [M + 2_000, M + 90 * DAY + 1_000],
    'pruning changed no answer')
  await f.p.prune(M + 91 * DAY)
  t.same((await f.p.klines(BTCSPOT, '1s', { startTime: 0, limit: 10 })).map((k) => k.openTime), [M + 90 * DAY + 1_000])
})

t.test('bucket arithmetic of every interval', async (t) => {
  const ts = Date.UTC(2024, 1, 29, 13, 47, 31, 123) // Thursday, leap day
  t.equal(bucketOpen('1s', ts), Date.UTC(2024, 1, 29, 13, 47, 31))
  t.equal(bucketClose('1s', Date.UTC(2024, 1, 29, 13, 47, 31)), Date.UTC(2024, 1, 29, 13, 47, 32) - 1)
  t.equal(bucketOpen('1m', ts), Date.UTC(2024, 1, 29, 13, 47))
  t.equal(bucketOpen('3m', ts), Date.UTC(2024, 1, 29, 13, 45))
  t.equal(bucketOpen('5m', ts), Date.UTC(2024, 1, 29, 13, 45))
  t.equal(bucketOpen('15m', ts), Date.UTC(2024, 1, 29, 13, 45))
  t.equal(bucketOpen('30m', ts), Date.UTC(2024, 1, 29, 13, 30))
  t.equal(bucketOpen('1h', ts), Date.UTC(2024, 1, 29, 13))
  t.equal(bucketOpen('2h', ts), Date.UTC(2024, 1, 29, 12))
  t.equal(bucketOpen('4h', ts), Date.UTC(2024, 1, 29, 12))
  t.equal(bucketOpen('6h', ts), Date.UTC(2024, 1, 29, 12))
  t.equal(bucketOpen('8h', ts), Date.UTC(2024, 1, 29, 8))
  t.equal(bucketOpen('12h', ts), Date.UTC(2024, 1, 29, 12))
  t.equal(bucketOpen('1d', ts), Date.UTC(2024, 1, 29))
  t.equal(bucketOpen('3d', ts) % (3 * DAY), 0, '3d aligns to the epoch')
  t.ok(bucketOpen('3d', ts) <= ts && ts < bucketOpen('3d', ts) + 3 * DAY)
  t.equal(bucketOpen('1w', ts), Date.UTC(2024, 1, 26), 'the Monday before')
  t.equal(bucketOpen('1w', Date.UTC(2024, 1, 26)), Date.UTC(2024, 1, 26), 'a Monday opens its own week')
  t.equal(bucketOpen('1w', Date.UTC(2024, 1, 26) - 1), Date.UTC(2024, 1, 19))
  t.equal(bucketOpen('1M', ts), Date.UTC(2024, 1, 1))
  t.equal(bucketClose('1M', Date.UTC(2024, 1, 1)), Date.UTC(2024, 2, 1) - 1, 'February of a leap year')
  t.equal(bucketClose('1M', Date.UTC(2023, 11, 1)), Date.UTC(2024, 0, 1) - 1, 'December rolls the year')
  t.equal(bucketClose('1w', Date.UTC(2024, 1, 26)), Date.UTC(2024, 2, 4) - 1)
  t.equal(bucketClose('8h', Date.UTC(2024, 1, 29, 8)), Date.UTC(2024, 1, 29, 16) - 1)
})

t.test('24 h ticker from minute buckets', async (t) => {
  const f = await funded(t)
  const now = Date.UTC(2023, 10, 16, 12, 0, 30)
  await trade(f, ALICE, BOB, 29000, 0.01, Date.UTC(2023, 10, 15, 11, 58)) // x: before the window's first bucket
  await trade(f, ALICE, BOB, 29500, 0.02, Date.UTC(2023, 10, 15, 12, 0, 10)) // y: older than 24 h, in the overlapping bucket
  await trade(f, BOB, ALICE, 30900, 0.02, Date.UTC(2023, 10, 16, 11), 'SELL') // z
  await trade(f, ALICE, BOB, 30500, 0.01, Date.UTC(2023, 10, 16, 12, 0, 20)) // w

  t.same(await f.p.ticker24h(BTCPERP, now), {
    marketId: BTCPERP, openPriceTicks: 295000, highPriceTicks: 309000, lowPriceTicks: 295000, lastPriceTicks: 305000,
    lastQtyLots: 10, priceChangeTicks: 10000, volumeLots: 50,
    quoteVolumeTicksLots: 295000 * 20 + 309000 * 20 + 305000 * 10,
    openTime: now - DAY, closeTime: now, firstId: 2, lastId: 4, count: 3,
  })
  const later = now + 2 * DAY
  t.same(await f.p.ticker24h(BTCPERP, later), {
    marketId: BTCPERP, openPriceTicks: 305000, highPriceTicks: 305000, lowPriceTicks: 305000, lastPriceTicks: 305000,
    lastQtyLots: 10, priceChangeTicks: 0, volumeLots: 0, quoteVolumeTicksLots: 0,
    openTime: later - DAY, closeTime: later, firstId: -1, lastId: -1, count: 0,
  }, 'no trade in the window: the last price, nothing else')
  const never = await f.p.ticker24h(ETHPERP, now)
  t.same([never.lastPriceTicks, never.count, never.firstId], [0, 0, -1], 'a market that never traded')
  t.equal((await f.p.ticker24h(BTCPERP)).closeTime, f.p.flushedTime, 'now defaults to the last entry time')
})

t.test('open interest follows the long side and matches the core', async (t) => {
  const f = await funded(t)
  const oi = async () => (await f.p.openInterest(BTCPERP))?.openInterestLots
  const core = () => {
    const m = f.ex.state.markets[BTCPERP]!
    return m.kind === 'PERP' ? m.openInterestLots : -1
  }
  t.equal(await f.p.openInterest(BTCPERP), undefined, 'no trade yet')
  await f.at(M, limit(ALICE, 'SELL', 30000, 0.05))
  await f.ok(limit(BOB, 'BUY', 30000, 0.03)) // Bob long 30, Alice short 30
  t.equal(await oi(), 30)
  await f.at(M + 10 * MIN, limit(CAROL, 'BUY', 30000, 0.02)) // Carol long 20, Alice short 50
  t.same(await f.p.openInterest(BTCPERP), { marketId: BTCPERP, openInterestLots: 50, time: M + 10 * MIN, longAccounts: 2, shortAccounts: 1 })
  t.equal(core(), 50)
  await f.ok(limit(CAROL, 'BUY', 29990, 0.01))
  await f.ok(limit(BOB, 'SELL', 29990, 0.01)) // a long passes 10 lots to another long
  t.equal(await oi(), 50, 'unchanged when longs trade between themselves')
  await f.at(M + 20 * MIN, limit(BOB, 'SELL', 30010, 0.02))
  await f.ok(limit(CAROL, 'SELL', 30010, 0.03))
  await f.ok(limit(ALICE, 'BUY', 30010, 0.05)) // everyone flat
  t.equal(await oi(), 0)
  t.equal(core(), 0)
  await f.ok(limit(BOB, 'SELL', 30010, 0.01))
  await f.ok(limit(CAROL, 'BUY', 30010, 0.01)) // a fresh position
  t.equal(await oi(), 10)
  t.equal(core(), 10)

  const hist = await f.p.openInterestHistory(BTCPERP, { limit: 500 })
  t.same(hist.map((r) => [r.openInterestLots, r.time]), [[30, M + 1], [50, M + 10 * MIN], [10, f.ex.time]],
    'the last value of each 5-minute bucket that changed')
  // Net long and net short sub-accounts at each bucket's end: BOB / ALICE; BOB, CAROL / ALICE; CAROL / BOB.
  t.same(hist.map((r) => [r.longAccounts, r.shortAccounts]), [[1, 1], [2, 1], [1, 1]], 'accounts long and short')
  t.same((await f.p.openInterestHistory(BTCPERP, { endTime: M + 15 * MIN, limit: 1 })).map((r) => r.openInterestLots), [50])
  t.equal(await f.p.openInterest(3), undefined, 'a spot market has none')
})

t.test('sub-accounts net long and net short: hedge sides net out, and a reopen keeps them', async (t) => {
  const f = await funded(t)
  await f.fund(DAVE, 10_000_000)
  await f.ok({ type: 'ChangePositionMode', account: CAROL, sub: 0, dualSide: true })
  const counts = async () => {
    const r = await f.p.openInterest(BTCPERP)
    return [r?.openInterestLots, r?.longAccounts, r?.shortAccounts]
  }
  await trade(f, ALICE, BOB, 30000, 0.03, M) // BOB long 30 / ALICE short 30
  t.same(await counts(), [30, 1, 1])
  await trade(f, BOB, DAVE, 30000, 0.01, M + 1, 'BUY') // BOB sells 10 of his long to DAVE
  t.same(await counts(), [30, 2, 1], 'a new long account, the same open interest')
  await f.ok(limit(ALICE, 'SELL', 30000, 0.02))
  await f.ok(limit(CAROL, 'BUY', 30000, 0.02, { positionSide: 'LONG' }))
  t.same(await counts(), [50, 3, 1])
  await f.ok(limit(BOB, 'BUY', 30000, 0.02))
  await f.ok(limit(CAROL, 'SELL', 30000, 0.02, { positionSide: 'SHORT' }))
  t.same(await counts(), [70, 2, 1], 'CAROL long 20 and short 20 is net flat: neither')
  await f.reopen()
  await f.ok(limit(DAVE, 'BUY', 30000, 0.01))
  await f.ok(limit(CAROL, 'SELL', 30000, 0.01, { positionSide: 'SHORT' }))
  t.same(await counts(), [80, 2, 2], 'after a reopen: CAROL net short')
  await f.ok(limit(CAROL, 'BUY', 30000, 0.03, { positionSide: 'SHORT' }))
  await f.ok(limit(BOB, 'SELL', 30000, 0.03))
  t.same(await counts(), [50, 3, 1], 'CAROL\'s short closed: net long again, with BOB (10) and DAVE')
})
