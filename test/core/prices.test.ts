// Oracle prices, the index and the mark (API.md "Prices, funding, liquidation"). BTCUSDTPERP:
// a tick is 0.1 USDT, so 1 tick = 10,000,000 E8. Hand-computed figures throughout.

import t from 'tap'
import { impactPriceE8, markInputs, premiumE8 } from '../../core/prices.js'
import type { PerpMarket } from '../../core/state.js'
import { verifyOraclePrice } from '../../replica/oracle-signature.js'
import { limit, rejection } from '../helpers/commands.js'
import { ALICE, BOB, BTCPERP, CAROL, DAVE, TestExchange } from '../helpers/exchange.js'
import { e8, ORACLE, publish, registerOracle, signedPrice, STRANGER } from '../helpers/oracle.js'

const btc = (ex: TestExchange): PerpMarket => ex.state.markets[BTCPERP] as PerpMarket

function funded(): TestExchange {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB, CAROL, DAVE]) ex.fund(a, 1_000_000)
  return ex
}

t.test('before any oracle price the mark is the last trade price, as before', async (t) => {
  const ex = funded()
  registerOracle(ex)
  ex.ok(limit(BOB, 'SELL', 300_500, 10))
  ex.ok(limit(ALICE, 'BUY', 300_500, 10))
  t.equal(btc(ex).markPriceTicks, 300_500)
  t.equal(btc(ex).prices.indexE8, 0)
  ex.ok({ type: 'Tick' }, 1000)
  t.equal(btc(ex).markPriceTicks, 300_500, 'a Tick leaves it')
})

t.test('the index is the newest oracle price; with an empty book the mark is the index', async (t) => {
  const ex = funded()
  registerOracle(ex)
  const r = await publish(ex, '30000')
  t.ok(r.ok)
  t.same(r.events, [{ type: 'prices', marketId: BTCPERP, indexE8: 3_000_000_000_000, markPriceTicks: 300_000, time: ex.time }])
  await publish(ex, '30010.04')
  t.equal(btc(ex).prices.indexE8, 3_001_004_000_000)
  t.equal(btc(ex).markPriceTicks, 300_100, '30010.04 rounds to the nearest tick, 30010.0')
  await publish(ex, '30010.05')
  t.equal(btc(ex).markPriceTicks, 300_101, 'a half tick rounds up')
  // A trade that empties the book: the mark stays the index, not the trade.
  ex.ok(limit(BOB, 'SELL', 301_000, 10))
  ex.ok(limit(ALICE, 'BUY', 301_000, 10))
  t.equal(btc(ex).lastPriceTicks, 301_000)
  t.equal(btc(ex).markPriceTicks, 300_101)
})

t.test('the mark is the median of its three estimates: each branch', async (t) => {
  const ex = funded()
  registerOracle(ex)
  await publish(ex, '30000')
  // Resting quotes 29900 / 30220: mid 30060, so each Tick samples a basis of +60.
  ex.ok(limit(CAROL, 'BUY', 299_000, 10))
  ex.ok(limit(DAVE, 'SELL', 302_200, 10))
  ex.ok({ type: 'Tick' }, 1000)
  t.same(btc(ex).prices.basis.slice(1), [6_000_000_000], 'one basis sample of 60 USDT')

  // Last trade 30050: p1 = 30000 (no funding rate yet), p2 = 30060, p3 = 30050.
  ex.ok(limit(BOB, 'SELL', 300_500, 10))
  ex.ok(limit(ALICE, 'BUY', 300_500, 10))
  t.same(markInputs(btc(ex), ex.time), { fundingBasisE8: e8('30000'), movingAverageE8: e8('30060'), lastTradeE8: e8('30050') })
  t.equal(btc(ex).markPriceTicks, 300_500, 'last trade branch')

  // Last trade 30100: the moving average, 30060, is the median.
  ex.ok(limit(BOB, 'SELL', 301_000, 10))
  ex.ok(limit(ALICE, 'BUY', 301_000, 10))
  t.equal(btc(ex).markPriceTicks, 300_600, 'moving average branch')

  // Last trade 29960, below the index while the mid is above: the index-and-funding estimate.
  ex.ok(limit(BOB, 'BUY', 299_600, 10))
  ex.ok(limit(ALICE, 'SELL', 299_600, 10))
  t.equal(btc(ex).markPriceTicks, 300_000, 'funding basis branch')

  // 31 s without a Tick: the basis sample leaves the window, so p2 is the index again.
  ex.ok({ type: 'Tick' }, 31_000)
  t.equal(btc(ex).prices.basis.length, 2, 'the Tick took a fresh sample')
  t.equal(btc(ex).markPriceTicks, 300_000)
})

// Found by exploratory testing: with the market maker's asks gone, a book of bids alone took no
// basis samples; one pair of orders making it two-sided then set the whole 30-s average, and
// with a trade between them the mark jumped to their mid within a second.
t.test('rules 6: a second with one side of the book empty samples a basis of zero', async (t) => {
  for (const rules of [1, 6]) {
    const ex = funded()
    if (rules === 6) ex.ok({ type: 'SetRules', version: 6, leafSeed: '0x' + '6b'.repeat(32) })
    registerOracle(ex)
    await publish(ex, '30000')
    ex.ok(limit(CAROL, 'BUY', 299_000, 10))
    for (let i = 0; i < 30; i++) ex.ok({ type: 'Tick' }, 1000)
    t.same(btc(ex).prices.basis.filter((_, i) => i % 2 === 1), rules === 6 ? Array(30).fill(0) : [], `rules ${rules}: bids alone`)
    // An ask makes it two-sided: mid 30060, a basis of +60 USDT.
    ex.ok(limit(DAVE, 'SELL', 302_200, 10))
    ex.ok({ type: 'Tick' }, 1000)
    t.equal(markInputs(btc(ex), ex.time).movingAverageE8, rules === 6 ? e8('30002') : e8('30060'),
      rules === 6 ? 'one sample among thirty: 60 / 30 = 2 above the index' : 'under older rules the one sample is the whole average')
  }
})

t.test('impact prices fill the impact notional best first, the last level in part', async (t) => {
  const ex = funded()
  registerOracle(ex)
  await publish(ex, '30000')
  const m = btc(ex)
  t.equal(m.prices.impactNotional, 25_000_000_000, '200 USDT × 125 (the first bracket\'s leverage)')
  ex.ok(limit(ALICE, 'BUY', 300_100, 500))
  ex.ok(limit(CAROL, 'BUY', 300_000, 1000))
  // 15,005 USDT at 30010, then 9,995 USDT at 30000: 25,000 / (0.5 + 0.33316̅) = 30006.00120024…
  t.equal(impactPriceE8(m, m.book.bids, m.prices.impactNotional), 3_000_600_120_024)
  t.equal(impactPriceE8(m, m.book.asks, m.prices.impactNotional), 0, 'an empty side cannot fill it')
  t.equal(premiumE8(m), 0, 'no premium without both impact prices')
  ex.ok(limit(BOB, 'SELL', 301_000, 1000))
  // (max(0, 30006.00120024 − 30000) − max(0, 30000 − 30100)) / 30000 = 0.000200040008.
  t.equal(premiumE8(m), 20_004)
})

t.test('oracle prices: registration, signer, staleness; a rejection changes nothing', async (t) => {
  const ex = funded()
  t.same(rejection(ex, await signedPrice(ex, '30000')), { code: 'ORACLE_UNKNOWN', eventCount: 0, rootUnchanged: true },
    'no oracle registered yet')
  t.equal(ex.run({ type: 'SetOracle', pair: 'BTCUSDT', oracle: '0x1234' }).ok, false)
  t.same(rejection(ex, { type: 'SetOracle', pair: 'XRPUSDT', oracle: ORACLE.address }).code, 'MARKET_UNKNOWN')
  registerOracle(ex)
  t.same(rejection(ex, await signedPrice(ex, '30000', 1, 'BTCUSDT', STRANGER)).code, 'ORACLE_UNKNOWN', 'another key')
  t.ok((await publish(ex, '30000', 1000)).ok)
  const time = btc(ex).prices.indexTime
  const cases: [string, object, string][] = [
    ['the same time again', { ...(await signedPrice(ex, '30001')), time }, 'ORACLE_STALE'],
    ['older than the newest', { ...(await signedPrice(ex, '30001')), time: time - 1 }, 'ORACLE_STALE'],
    ['a minute behind the sequencer', await signedPrice(ex, '30001', -60_001), 'ORACLE_STALE'],
    ['over 5 s ahead of the sequencer', await signedPrice(ex, '30001', 5_020), 'ORACLE_STALE'],
    ['a zero price', await signedPrice(ex, '0'), 'COMMAND_INVALID'],
    ['an unknown pair', await signedPrice(ex, '30001', 1, 'XRPUSDT'), 'MARKET_UNKNOWN'],
    ['a malformed signature', { ...(await signedPrice(ex, '30001')), signature: '0x12' }, 'COMMAND_INVALID'],
  ]
  for (const [name, cmd, code] of cases) {
    t.same(rejection(ex, cmd as never), { code, eventCount: 0, rootUnchanged: true }, name)
  }
  t.equal(btc(ex).prices.indexE8, e8('30000'))
})

t.test('oracle signatures: good, wrong signer, tampered', async (t) => {
  const ex = new TestExchange()
  const good = await signedPrice(ex, '30000.5')
  t.equal(verifyOraclePrice(good), true)
  t.equal(good.oracle, ORACLE.address)
  t.equal(verifyOraclePrice({ ...good, oracle: STRANGER.address }), false, 'a signature by someone else than it names')
  t.equal(verifyOraclePrice({ ...good, priceE8: good.priceE8 + 1 }), false, 'price changed after signing')
  t.equal(verifyOraclePrice({ ...good, time: good.time + 1 }), false, 'time changed')
  t.equal(verifyOraclePrice({ ...good, pair: 'ETHUSDT' }), false, 'pair changed')
  t.equal(verifyOraclePrice({ ...good, signature: '0xdeadbeef' }), false, 'malformed signature')
  t.equal(verifyOraclePrice({ ...good, priceE8: 1.5 }), false, 'not an integer')
})
