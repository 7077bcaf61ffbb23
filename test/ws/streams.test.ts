// Each market stream's payload against the trades and book changes that caused it, exactly.
// The rig's clock is the core's entry time, so even event times are known values.

import t from 'tap'
import { limit } from '../helpers/commands.js'
import { ALICE, BOB, BTCSPOT } from '../helpers/exchange.js'
import { connect, ok, sleep, streamRig, type Client } from './client.js'
import type { CreatePerpMarket } from '../../core/commands.js'
import { DEFAULT_GENESIS, genesisCommands } from '../../core/genesis-spec.js'
import type { PerpMarket } from '../../core/state.js'
import { leverageBrackets } from '../../gateway/format-market.js'

const S = 'btcusdtperp'

/** The next combined message of `stream`, its data. */
const on = (c: Client, stream: string, pred: (d: any) => boolean = () => true) =>
  c.next((m) => m.stream === stream && pred(m.data)).then((m) => m.data)

t.test('trade, depth, book ticker, aggregate trade, kline and tickers follow the trades exactly', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  const streams = [
    `${S}@trade`, `${S}@depth@100ms`, `${S}@depth`, `${S}@depth@500ms`, `${S}@depth5@100ms`, `${S}@bookTicker`,
    '!bookTicker', `${S}@aggTrade`, `${S}@kline_1m`, `${S}@ticker`, `${S}@miniTicker`, '!ticker@arr',
    '!miniTicker@arr', `${S}@forceOrder`, '!forceOrder@arr', `${S}@rpiDepth@500ms`,
  ]
  const c = await connect(`${rig.base}/stream?streams=${streams.join('/')}`)
  const seq0 = rig.ex.state.seq

  // An ask rests: one level on the ask side.
  await ok(rig, limit(ALICE, 'SELL', 500_000, 1000))
  const time1 = rig.ex.time
  t.same(await on(c, `${S}@bookTicker`), {
    e: 'bookTicker', u: seq0 + 1, s: 'BTCUSDTPERP', b: '0.0', B: '0.000', a: '50000.0', A: '1.000', T: time1, E: time1,
  })
  t.same(await on(c, '!bookTicker'), {
    e: 'bookTicker', u: seq0 + 1, s: 'BTCUSDTPERP', b: '0.0', B: '0.000', a: '50000.0', A: '1.000', T: time1, E: time1,
  })
  for (const name of [`${S}@depth@100ms`, `${S}@depth`, `${S}@depth@500ms`]) {
    t.same(await on(c, name), {
      e: 'depthUpdate', E: time1, T: time1, s: 'BTCUSDTPERP', U: rig.startSeq + 1, u: seq0 + 1, pu: rig.startSeq,
      b: [], a: [['50000.0', '1.000']],
    }, `${name}: U follows the last event's u (here the start), though no level moved in between`)
  }
  t.same(await on(c, `${S}@rpiDepth@500ms`), {
    e: 'depthUpdate', E: time1, T: time1, s: 'BTCUSDTPERP', U: rig.startSeq + 1, u: seq0 + 1, pu: rig.startSeq,
    b: [], a: [['50000.0', '1.000']],
  }, 'the RPI diff stream is the 500 ms one (no RPI orders here)')

  // A second ask, then a bid that takes 0.4 of the first.
  await ok(rig, limit(ALICE, 'SELL', 500_100, 500))
  await ok(rig, limit(BOB, 'BUY', 500_000, 400))
  const time3 = rig.ex.time
  t.same(await on(c, `${S}@trade`), {
    e: 'trade', E: time3, T: time3, s: 'BTCUSDTPERP', t: 1, p: '50000.0', q: '0.400', X: 'MARKET', m: false,
  })
  // The 100 ms diffs chain and end at the trade's seq with both levels' absolute quantities.
  const diffs = []
  for (let u = seq0 + 1; u < seq0 + 3;) {
    const d = await on(c, `${S}@depth@100ms`)
    t.equal(d.pu, u, 'pu is the previous u')
    t.equal(d.U, d.pu + 1)
    diffs.push(d)
    u = d.u
  }
  const levels = new Map<string, string>()
  for (const d of diffs) {
    t.same(d.b, [], 'no bid ever rested')
    for (const [p, q] of d.a) levels.set(p, q)
  }
  t.same(Object.fromEntries(levels), { '50000.0': '0.600', '50010.0': '0.500' })
  const partial = await on(c, `${S}@depth5@100ms`, (d) => d.u === seq0 + 3)
  t.match(partial, { e: 'depthUpdate', E: time3, T: time3, s: 'BTCUSDTPERP', u: seq0 + 3, b: [],
    a: [['50000.0', '0.600'], ['50010.0', '0.500']] })
  t.equal(partial.U, Math.min(partial.pu + 1, partial.u))
  t.same(await on(c, `${S}@bookTicker`, (d) => d.u === seq0 + 3), {
    e: 'bookTicker', u: seq0 + 3, s: 'BTCUSDTPERP', b: '0.0', B: '0.000', a: '50000.0', A: '0.600', T: time3, E: time3,
  })

  // The aggregate closes once an entry more than 100 ms later exists.
  await ok(rig, { type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 1, wallet: 'PERP', ref: 'later' }, 500)
  const later = rig.ex.time
  t.same(await on(c, `${S}@aggTrade`), {
    e: 'aggTrade', E: later, s: 'BTCUSDTPERP', a: 1, p: '50000.0', q: '0.400', nq: '0.400', f: 1, l: 1, T: time3, m: false,
  })
  // Klines and tickers go out on their own timers once the trade is flushed: before or after
  // the later entry, so their event time (the rig's clock) is one of the two.
  const eventTime = (d: { E: number }) => {
    t.ok(d.E === time3 || d.E === later, 'sent at the trade or after the later entry')
    return d.E
  }
  const minute = Math.floor(time3 / 60_000) * 60_000
  const kline = await on(c, `${S}@kline_1m`)
  t.same(kline, {
    e: 'kline', E: eventTime(kline), s: 'BTCUSDTPERP',
    k: {
      t: minute, T: minute + 59_999, s: 'BTCUSDTPERP', i: '1m', f: 1, L: 1, o: '50000.0', c: '50000.0', h: '50000.0',
      l: '50000.0', v: '0.400', n: 1, x: false, q: '20000.0000', V: '0.400', Q: '20000.0000', B: '0',
    },
  })
  const ticker = (E: number) => ({
    e: '24hrTicker', E, s: 'BTCUSDTPERP', p: '0.0', P: '0.000', w: '50000.0', c: '50000.0', Q: '0.400',
    o: '50000.0', h: '50000.0', l: '50000.0', v: '0.400', q: '20000.0000', O: E - 86_400_000, C: E,
    F: 1, L: 1, n: 1,
  })
  const mini = (E: number) => ({
    e: '24hrMiniTicker', E, s: 'BTCUSDTPERP', c: '50000.0', o: '50000.0', h: '50000.0', l: '50000.0',
    v: '0.400', q: '20000.0000',
  })
  const one = await on(c, `${S}@ticker`)
  t.same(one, ticker(eventTime(one)))
  const arr = await on(c, '!ticker@arr')
  t.same(arr, [ticker(eventTime(arr[0]))])
  const oneMini = await on(c, `${S}@miniTicker`)
  t.same(oneMini, mini(eventTime(oneMini)))
  const arrMini = await on(c, '!miniTicker@arr')
  t.same(arrMini, [mini(eventTime(arrMini[0]))])
  // The REST ticker agrees with the stream.
  const rest = await (await fetch(`${rig.http}/fapi/v1/ticker/24hr?symbol=BTCUSDTPERP`)).json() as Record<string, unknown>
  t.match(rest, { lastPrice: one.c, volume: one.v, quoteVolume: one.q, firstId: 1, lastId: 1, count: 1 })

  // A kline whose minute has passed is sent once more, closed.
  await ok(rig, { type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 1, wallet: 'PERP', ref: 'next-minute' }, 60_000)
  t.match(await on(c, `${S}@kline_1m`, (d) => d.k.x === true), { k: { t: minute, n: 1, x: true } })

  t.notOk(c.messages.some((m: any) => m.stream.includes('forceOrder')), 'no liquidations, no forceOrder events')
  t.same(rig.feedErrors, [], 'the feed\'s depth levels always matched the book')
  c.close()
})

t.test('a perpetual\'s klines stream by pair as continuous klines (contract type PERPETUAL), alone and closed', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  // Only the continuous stream is subscribed: it must carry the klines on its own. The quarterly
  // forms are well-formed names and carry nothing (there are no quarterly contracts).
  const c = await connect(`${rig.base}/stream?streams=btcusdt_perpetual@continuousKline_1m/btcusdt_current_quarter@continuousKline_1m`)
  await ok(rig, limit(ALICE, 'SELL', 500_000, 1000))
  await ok(rig, limit(BOB, 'BUY', 500_000, 400))
  const time = rig.ex.time
  const minute = Math.floor(time / 60_000) * 60_000
  const first = await on(c, 'btcusdt_perpetual@continuousKline_1m')
  t.same(first, {
    e: 'continuous_kline', E: first.E, ps: 'BTCUSDT', ct: 'PERPETUAL',
    k: {
      t: minute, T: minute + 59_999, i: '1m', f: 1, L: 1, o: '50000.0', c: '50000.0', h: '50000.0',
      l: '50000.0', v: '0.400', n: 1, x: false, q: '20000.0000', V: '0.400', Q: '20000.0000', B: '0',
    },
  }, 'Binance\'s continuous_kline: pair and contract type, and the kline without a symbol')
  t.ok(first.E >= time)
  await ok(rig, { type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 1, wallet: 'PERP', ref: 'next-minute' }, 60_000)
  t.match(await on(c, 'btcusdt_perpetual@continuousKline_1m', (d) => d.k.x === true), { ps: 'BTCUSDT', k: { t: minute, n: 1, x: true } },
    'closed once its minute has passed, with no subscriber of the symbol\'s kline stream')
  t.notOk(c.messages.some((m: any) => m.stream.includes('current_quarter')), 'nothing on the quarterly form')

  // The same names by SUBSCRIBE; an unknown interval or contract type is refused.
  const raw = await connect(`${rig.base}/ws`)
  t.same(await raw.request({ method: 'SUBSCRIBE', params: ['ethusdt_perpetual@continuousKline_5m'], id: 1 }), { result: null, id: 1 })
  for (const bad of ['btcusdt_perpetual@continuousKline_7m', 'btcusdt_weekly@continuousKline_1m', 'btcusdt@continuousKline_1m']) {
    t.same(await raw.request({ method: 'SUBSCRIBE', params: [bad], id: 2 }), { code: 2, msg: `Invalid request: invalid stream name "${bad}"`, id: 2 }, bad)
  }
  c.close()
  raw.close()
})

t.test('a kline stream sends an interval without trades flat at the last price, and a new subscriber the current interval', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  const c = await connect(`${rig.base}/stream?streams=${S}@kline_1m/btcusdt_perpetual@continuousKline_1m`)
  await ok(rig, limit(ALICE, 'SELL', 500_000, 1000))
  await ok(rig, limit(BOB, 'BUY', 500_000, 400))
  const minute = Math.floor(rig.ex.time / 60_000) * 60_000
  t.match(await on(c, `${S}@kline_1m`), { k: { t: minute, n: 1, x: false } })
  // Binance's empty kline: the last close throughout, no volume, trade ids -1.
  const flat = (open: number, x: boolean) => ({
    t: open, T: open + 59_999, s: 'BTCUSDTPERP', i: '1m', f: -1, L: -1, o: '50000.0', c: '50000.0', h: '50000.0', l: '50000.0',
    v: '0.000', n: 0, x, q: '0.0000', V: '0.000', Q: '0.0000', B: '0',
  })
  const deposit = (ref: string) => ({ type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 1, wallet: 'PERP', ref }) as const
  await ok(rig, deposit('next-minute'), 60_000)
  t.match(await on(c, `${S}@kline_1m`, (d) => d.k.x === true), { k: { t: minute, n: 1, x: true } })
  const next = await on(c, `${S}@kline_1m`, (d) => d.k.t === minute + 60_000)
  t.same(next, { e: 'kline', E: next.E, s: 'BTCUSDTPERP', k: flat(minute + 60_000, false) }, 'the next minute, with no trade')
  const { s: _s, ...continuous } = flat(minute + 60_000, false)
  t.same((await on(c, 'btcusdt_perpetual@continuousKline_1m', (d) => d.k.t === minute + 60_000)).k, continuous, 'by pair too')
  await ok(rig, deposit('two-minutes-on'), 60_000)
  t.same((await on(c, `${S}@kline_1m`, (d) => d.k.x === true)).k, flat(minute + 60_000, true), 'closed at its end, still flat')
  t.same((await on(c, `${S}@kline_1m`, (d) => d.k.t === minute + 120_000)).k, flat(minute + 120_000, false))

  // Subscribed while nothing trades: the current minute at once, without waiting for a trade.
  const late = await connect(`${rig.base}/ws`)
  t.same(await late.request({ method: 'SUBSCRIBE', params: [`${S}@kline_5m`], id: 1 }), { result: null, id: 1 })
  const five = Math.floor(rig.ex.time / 300_000) * 300_000
  t.match(await late.next((m) => m.e === 'kline'), { k: { t: five, i: '5m', n: five === minute - (minute % 300_000) ? 1 : 0, x: false } })
  // A market that never traded has no kline to send.
  t.same(await late.request({ method: 'SUBSCRIBE', params: ['ethusdtperp@kline_1m'], id: 2 }), { result: null, id: 2 })
  await sleep(600)
  t.notOk(late.messages.some((m: any) => m.s === 'ETHUSDTPERP'), 'nothing for ETHUSDTPERP')
  c.close()
  late.close()
})

t.test('!contractInfo: a listing with its brackets, then status changes; the streams of what is absent here are accepted', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  const c = await connect(`${rig.base}/ws`)
  // One SUBSCRIBE naming Binance USD-M streams this exchange has nothing for: accepted whole.
  t.same(await c.request({ method: 'SUBSCRIBE', params: ['!contractInfo', '!assetIndex@arr', 'btcusd@assetIndex', `${S}@compositeIndex`,
    'tradingSession', 'btcusdt@blockTrade'], id: 1 }), { result: null, id: 1 })
  await ok(rig, { type: 'CreateAsset', asset: 'SOL', scale: 8 })
  const btc = genesisCommands(DEFAULT_GENESIS).find((cmd) => cmd.type === 'CreatePerpMarket') as CreatePerpMarket
  await ok(rig, { ...btc, marketId: 9, symbol: 'SOLUSDTPERP', pair: 'SOLUSDT', base: 'SOL' })
  const listedAt = rig.ex.time
  const listed = await c.next((m) => m.e === 'contractInfo')
  // The brackets as GET /fapi/v1/leverageBracket lists them, each with the leverages it allows
  // (from one above the next bracket's most, the last from 1).
  const brackets = leverageBrackets(rig.ex.state, rig.ex.state.markets[9] as PerpMarket)
  t.equal(brackets.length, btc.brackets.length)
  t.same(listed, {
    e: 'contractInfo', E: listed.E, s: 'SOLUSDTPERP', ps: 'SOLUSDT', ct: 'PERPETUAL', dt: 4133404800000, ot: listedAt, cs: 'TRADING',
    bks: brackets.map((b, i) => ({ bs: b.bracket, bnf: b.notionalFloor, bnc: b.notionalCap, mmr: b.maintMarginRatio, cf: b.cum,
      mi: i + 1 < brackets.length ? brackets[i + 1]!.initialLeverage + 1 : 1, ma: b.initialLeverage })),
  }, 'a listing: the contract and its leverage brackets')
  t.match(listed.bks[0], { bs: 1, bnf: 0, cf: 0, ma: 125 })

  await ok(rig, { type: 'SetMarketStatus', marketId: 9, status: 'HALT' })
  await ok(rig, { type: 'SetMarketStatus', marketId: 9, status: 'TRADING' })
  const halted = await c.next((m) => m.e === 'contractInfo')
  t.same(halted, { e: 'contractInfo', E: halted.E, s: 'SOLUSDTPERP', ps: 'SOLUSDT', ct: 'PERPETUAL', dt: 4133404800000, ot: listedAt,
    cs: 'HALT' }, 'a status change, without brackets (they did not change)')
  t.match(await c.next((m) => m.e === 'contractInfo'), { s: 'SOLUSDTPERP', cs: 'TRADING' })
  await ok(rig, { type: 'SetMarketStatus', marketId: BTCSPOT, status: 'HALT' })
  await ok(rig, limit(ALICE, 'SELL', 500_000, 1000))
  await ok(rig, limit(BOB, 'BUY', 500_000, 400))
  await sleep(300)
  t.same(c.messages.filter((m: any) => m.e !== undefined), [], 'a spot market\'s status is not a contract\'s; the empty streams stay empty')
  c.close()
})

t.test('mark and index price streams print what premiumIndex prints', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  await ok(rig, limit(ALICE, 'SELL', 500_000, 1000))
  await ok(rig, limit(BOB, 'BUY', 500_000, 10))
  const c = await connect(`${rig.base}/stream?streams=${S}@markPrice@1s/!markPrice@arr@1s/btcusdt@indexPrice@1s`)
  const now = rig.ex.time
  const next = Math.floor(now / 28_800_000) * 28_800_000 + 28_800_000
  const btc = { e: 'markPriceUpdate', E: now, s: 'BTCUSDTPERP', p: '50000.00000000', ap: '50000.00000000',
    P: '50000.00000000', i: '50000.00000000', r: '0.00000000', T: next }
  t.same(await on(c, `${S}@markPrice@1s`), btc)
  const all = await on(c, '!markPrice@arr@1s')
  t.same(all.map((m: { s: string }) => m.s), ['BTCUSDTPERP', 'ETHUSDTPERP'])
  t.same(all[0], btc)
  t.same(await on(c, 'btcusdt@indexPrice@1s'), { e: 'indexPriceUpdate', E: now, i: 'BTCUSDT', p: '50000.00000000' })
  // Binance's older futures connector SUBSCRIBEs every name in lowercase: the same streams.
  const lower = await connect(`${rig.base}/ws`)
  t.same(await lower.request({ method: 'SUBSCRIBE', params: [`${S}@markprice@1s`, '!markprice@arr@1s'], id: 1 }), { result: null, id: 1 })
  t.same(await lower.request({ method: 'LIST_SUBSCRIPTIONS', id: 2 }), { result: [`${S}@markPrice@1s`, '!markPrice@arr@1s'], id: 2 },
    'kept as Binance writes them')
  t.same(await lower.next((m) => m.e === 'markPriceUpdate'), btc, 'carrying the mark price')
  t.same((await lower.next((m) => Array.isArray(m)))[0], btc, 'and the all-market array')
  t.same(await lower.request({ method: 'UNSUBSCRIBE', params: [`${S}@MARKPRICE@1s`, '!markPrice@arr@1s'], id: 3 }), { result: null, id: 3 })
  t.same(await lower.request({ method: 'LIST_SUBSCRIPTIONS', id: 4 }), { result: [], id: 4 }, 'unsubscribed by either spelling')
  lower.close()
  const byPath = await connect(`${rig.base}/ws/${S}@markprice@1s`)
  t.same(await byPath.request({ method: 'LIST_SUBSCRIPTIONS', id: 5 }), { result: [`${S}@markPrice@1s`], id: 5 }, 'in the path too')
  byPath.close()
  const premium = await (await fetch(`${rig.http}/fapi/v1/premiumIndex?symbol=BTCUSDTPERP`)).json() as Record<string, unknown>
  t.match(premium, { markPrice: btc.p, indexPrice: btc.i, lastFundingRate: btc.r, nextFundingTime: btc.T })
  c.close()
})

t.test('raw streams carry the bare event; partial depth is sent every cadence; spot markets stream too, in the all-market streams of the spot stream host only', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  const c = await connect(`${rig.base}/ws/${S}@depth20@500ms`)
  const seq = rig.ex.state.seq
  t.same(await c.next(), { e: 'depthUpdate', E: rig.ex.time, T: rig.ex.time, s: 'BTCUSDTPERP', U: seq, u: seq, pu: seq,
    b: [], a: [] }, 'an empty book still gets its partial depth')
  c.close()
  // A spot market's partial depth in Binance spot's form, as the REST snapshot's.
  const spotDepth = await connect(`${rig.base}/ws/btcusdt@depth5@100ms`)
  t.same(await spotDepth.next(), { lastUpdateId: rig.ex.state.seq, bids: [], asks: [] }, 'spot: {lastUpdateId, bids, asks}')
  spotDepth.close()

  await rig.run({ type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: 100_000_000, wallet: 'SPOT', ref: 'btc' })
  await rig.run({ type: 'Deposit', account: BOB, sub: 0, asset: 'USDT', amount: 1_000_000 * 1_000_000, wallet: 'SPOT', ref: 'usdt' })
  const spot = await connect(`${rig.base}/ws/btcusdt@trade`)
  const spotAgg = await connect(`${rig.base}/ws/btcusdt@aggTrade`)
  const windows = await connect(`${rig.base}/stream?streams=btcusdt@ticker_1h/!ticker_4h@arr`)
  const all = await connect(`${rig.base}/stream?streams=btcusdt@bookTicker/btcusdt@miniTicker/!bookTicker/!miniTicker@arr/!ticker@arr`)
  // The spot stream host (a spot client's stream base `…/spot`): the same names carry the spot markets.
  const spotAll = await connect(`${rig.base}/spot/stream?streams=!bookTicker/!miniTicker@arr/btcusdt@ticker`)
  t.same(await spotAll.request({ method: 'SUBSCRIBE', params: ['!ticker@arr'], id: 1 }), { result: null, id: 1 })
  t.same(await spotAll.request({ method: 'LIST_SUBSCRIPTIONS', id: 2 }), { result: ['!bookTicker', '!miniTicker@arr', 'btcusdt@ticker', '!ticker@arr'], id: 2 },
    'the names as the client wrote them')
  const spotRaw = await connect(`${rig.base}/spot/ws/!miniTicker@arr`)
  await ok(rig, limit(ALICE, 'SELL', 500_000, 100, { marketId: BTCSPOT }))
  await ok(rig, limit(BOB, 'BUY', 500_000, 100, { marketId: BTCSPOT }))
  const spotTrade = await spot.next()
  t.same(spotTrade, { e: 'trade', E: spotTrade.E, s: 'BTCUSDT', t: 1, p: '5000.00', q: '0.0100', T: rig.ex.time, m: false, M: true },
    'Binance spot\'s letters')
  // Its aggregate, once an entry more than 100 ms later exists.
  await ok(rig, { type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 1, wallet: 'PERP', ref: 'spot-later' }, 500)
  t.same(await spotAgg.next(), { e: 'aggTrade', E: rig.ex.time, s: 'BTCUSDT', a: 1, p: '5000.00', q: '0.0100', f: 1, l: 1, T: spotTrade.T,
    m: false, M: true })
  spotAgg.close()
  spot.close()
  // Binance spot's average price stream: what GET /api/v3/avgPrice answers, with the last trade's time.
  const tradeTime = spotTrade.T
  const avg = await connect(`${rig.base}/ws/btcusdt@avgPrice`)
  const first = await avg.next() as { E: number }
  const rest = (await (await fetch(`${rig.http}/api/v3/avgPrice?symbol=BTCUSDT`)).json()) as { price: string }
  t.same(first, { e: 'avgPrice', E: first.E, s: 'BTCUSDT', i: '5m', w: rest.price, T: tradeTime })
  t.equal(rest.price, '5000.00')
  avg.close()
  // The Price Range rule's reference price, every second: null for a market without trades.
  const refs = await connect(`${rig.base}/stream?streams=btcusdt@referencePrice/ethusdt@referencePrice`)
  const ref = await on(refs, 'btcusdt@referencePrice')
  t.same(ref, { e: 'referencePrice', s: 'BTCUSDT', r: '5000.000000', t: ref.t })
  t.same((await (await fetch(`${rig.http}/api/v3/referencePrice?symbol=BTCUSDT`)).json() as { referencePrice: string }).referencePrice, ref.r,
    'as REST has it')
  t.match(await on(refs, 'ethusdt@referencePrice'), { e: 'referencePrice', s: 'ETHUSDT', r: null })
  refs.close()
  // Binance spot's rolling window tickers: GET /api/v3/ticker's figures for the window; the array form over the spot markets.
  const oneHour = await on(windows, 'btcusdt@ticker_1h')
  const r = (await (await fetch(`${rig.http}/api/v3/ticker?symbol=BTCUSDT&windowSize=1h`)).json()) as Record<string, unknown>
  t.same(oneHour, { e: '1hTicker', E: oneHour.E, s: 'BTCUSDT', p: r.priceChange, P: r.priceChangePercent, o: r.openPrice, h: r.highPrice,
    l: r.lowPrice, c: r.lastPrice, w: r.weightedAvgPrice, v: r.volume, q: r.quoteVolume, O: r.openTime, C: oneHour.C, F: r.firstId,
    L: r.lastId, n: r.count })
  t.match(oneHour, { c: '5000.00', v: '0.0100', n: 1 })
  t.match(await on(windows, '!ticker_4h@arr'), [{ e: '4hTicker', s: 'BTCUSDT', c: '5000.00' }])
  windows.close()

  // The all-market streams are USD-M's: a spot trade shows in its own streams, not in them.
  await ok(rig, limit(ALICE, 'SELL', 500_000, 100))
  await ok(rig, limit(BOB, 'BUY', 500_000, 100))
  t.match(await on(all, 'btcusdt@miniTicker'), { s: 'BTCUSDT', v: '0.0100' })
  t.same((await on(all, '!miniTicker@arr')).map((x: { s: string }) => x.s), ['BTCUSDTPERP'])
  t.same((await on(all, '!ticker@arr')).map((x: { s: string }) => x.s), ['BTCUSDTPERP'])
  const books = all.messages as { stream: string; data: { s: string } }[]
  t.ok(books.some((m) => m.stream === 'btcusdt@bookTicker'), 'the spot book ticker on its own stream')
  t.same([...new Set(books.filter((m) => m.stream === '!bookTicker').map((m) => m.data.s))], ['BTCUSDTPERP'], '!bookTicker: the perpetual only')
  all.close()

  // On the spot stream host they carry the spot market only, under the names the client wrote.
  t.same((await on(spotAll, '!miniTicker@arr')).map((x: { s: string }) => x.s), ['BTCUSDT'])
  t.same((await spotRaw.next()).map((x: { s: string }) => x.s), ['BTCUSDT'], 'the raw form too')
  const [spotTicker] = await on(spotAll, '!ticker@arr')
  t.same(spotTicker, await on(spotAll, 'btcusdt@ticker', (d) => d.E === spotTicker.E), 'the array holds the symbol\'s event')
  // A spot market's 24 h ticker has Binance spot's letters, with GET /api/v3/ticker/24hr's figures.
  const r24 = (await (await fetch(`${rig.http}/api/v3/ticker/24hr?symbol=BTCUSDT`)).json()) as Record<string, unknown>
  t.same(spotTicker, { e: '24hrTicker', E: spotTicker.E, s: 'BTCUSDT', p: r24.priceChange, P: r24.priceChangePercent, w: r24.weightedAvgPrice,
    x: r24.prevClosePrice, c: r24.lastPrice, Q: r24.lastQty, b: r24.bidPrice, B: r24.bidQty, a: r24.askPrice, A: r24.askQty, o: r24.openPrice,
    h: r24.highPrice, l: r24.lowPrice, v: r24.volume, q: r24.quoteVolume, O: spotTicker.O, C: spotTicker.C, F: r24.firstId, L: r24.lastId,
    n: r24.count })
  t.match(spotTicker, { c: '5000.00', v: '0.0100', b: '0.00', a: '0.00', x: '5000.00' })
  t.equal(spotTicker.C - spotTicker.O, 86_400_000, 'a rolling day')
  await ok(rig, limit(ALICE, 'SELL', 500_100, 100, { marketId: BTCSPOT }))
  t.same(await on(spotAll, '!bookTicker', (d) => d.u === rig.ex.state.seq), { u: rig.ex.state.seq, s: 'BTCUSDT', b: '0.00', B: '0.0000', a: '5001.00',
    A: '0.0100' }, 'a spot book ticker as Binance spot sends it: no event type, no times')
  await sleep(300)
  t.same([...new Set((spotAll.messages as { data: { s?: string } | { s: string }[] }[]).flatMap((m) => [m.data].flat().map((d) => d.s)))],
    ['BTCUSDT'], 'no perpetual on the spot host, though the perpetual traded too')
  spotAll.close()
  spotRaw.close()
})

// Binance spot: "All time and timestamp related fields are milliseconds by default. To receive the
// information in microseconds, please add the parameter timeUnit=MICROSECOND or
// timeUnit=microsecond in the URL." Found by review: the parameter was ignored.
t.test('timeUnit=MICROSECOND: every time of a spot market\'s events in µs, a perpetual\'s in ms; other units refused', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  await rig.run({ type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: 100_000_000, wallet: 'SPOT', ref: 'btc' })
  await rig.run({ type: 'Deposit', account: BOB, sub: 0, asset: 'USDT', amount: 1_000_000 * 1_000_000, wallet: 'SPOT', ref: 'usdt' })
  // Each stream and the time fields its events hold (a kline's inside `k`).
  const times: [string, string[]][] = [
    ['btcusdt@trade', ['E', 'T']], ['btcusdt@aggTrade', ['E', 'T']], ['btcusdt@kline_1m', ['E', 'k.t', 'k.T']],
    ['btcusdt@depth@100ms', ['E']], ['btcusdt@ticker', ['E', 'O', 'C']], ['btcusdt@miniTicker', ['E']],
    ['btcusdt@ticker_1h', ['E', 'O', 'C']], ['btcusdt@avgPrice', ['E', 'T']], ['btcusdt@referencePrice', ['t']],
    ['btcusdt@bookTicker', []], ['btcusdt@depth5@100ms', []],
    // A perpetual's: USD-M has no time unit.
    ['btcusdtperp@trade', []], ['btcusdtperp@markPrice@1s', []], ['btcusdtperp@depth@100ms', []],
  ]
  const streams = times.map(([n]) => n).join('/')
  const ms = await connect(`${rig.base}/stream?streams=${streams}`)
  const us = await connect(`${rig.base}/stream?streams=${streams}&timeUnit=MICROSECOND`)
  const spotHost = await connect(`${rig.base}/spot/ws/!miniTicker@arr?timeUnit=microsecond`)
  const asMs = await connect(`${rig.base}/ws/btcusdt@trade?timeUnit=MILLISECOND`)
  await ok(rig, limit(ALICE, 'SELL', 500_000, 100, { marketId: BTCSPOT }))
  await ok(rig, limit(BOB, 'BUY', 500_000, 100, { marketId: BTCSPOT }))
  await ok(rig, limit(ALICE, 'SELL', 500_000, 100))
  await ok(rig, limit(BOB, 'BUY', 500_000, 100))
  // Its aggregates, once an entry more than 100 ms later exists.
  await ok(rig, { type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 1, wallet: 'PERP', ref: 'later' }, 500)
  const scaled = (event: any, fields: string[]) => {
    const copy = structuredClone(event)
    for (const f of fields) {
      const [holder, key] = f.startsWith('k.') ? [copy.k, f.slice(2)] : [copy, f]
      if (typeof holder[key] !== 'number') throw new Error(`${f}: not a number`)
      holder[key] *= 1000
    }
    return copy
  }
  const got = new Map<string, any>()
  for (const [name, fields] of times) {
    // The µs client subscribed last, so the ms client got each frame it got.
    const inUs = await on(us, name)
    const inMs = await on(ms, name, (d) => JSON.stringify(scaled(d, fields)) === JSON.stringify(inUs))
    t.same(inUs, scaled(inMs, fields), `${name}: ${fields.length === 0 ? 'as in ms' : fields.join(', ')} in µs`)
    got.set(name, inUs)
  }
  const trade = got.get('btcusdt@trade')
  t.same([trade.t, trade.T], [1, (await (await fetch(`${rig.http}/api/v3/trades?symbol=BTCUSDT`)).json() as { time: number }[])[0]!.time * 1000],
    'the trade id as it was, its time in µs')
  const [mini] = await spotHost.next()
  t.match(mini, { e: '24hrMiniTicker', s: 'BTCUSDT', E: got.get('btcusdt@miniTicker').E }, 'the spot host\'s all-market stream (lowercase microsecond)')
  t.equal((await asMs.next()).T * 1000, trade.T, 'timeUnit=MILLISECOND: ms')
  for (const c of [ms, us, spotHost, asMs]) c.close()

  for (const unit of ['NANOSECOND', 'MICROSECONDS', '', 'us']) {
    const err = await connect(`${rig.base}/ws/btcusdt@trade?timeUnit=${unit}`).catch((e: { status: number; body: string }) => e)
    t.same([(err as { status: number }).status, JSON.parse((err as { body: string }).body)],
      [400, { code: -1194, msg: 'Invalid value for time unit; expected either MICROSECOND or MILLISECOND.' }], `timeUnit=${unit}: refused`)
  }
})

t.test('spot klines in UTC+8 (`@+08:00`) and of 1s: buckets from the local midnight or the second, closed at their own end', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  await rig.run({ type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: 100_000_000, wallet: 'SPOT', ref: 'btc' })
  await rig.run({ type: 'Deposit', account: BOB, sub: 0, asset: 'USDT', amount: 1_000_000 * 1_000_000, wallet: 'SPOT', ref: 'usdt' })
  const c = await connect(`${rig.base}/stream?streams=btcusdt@kline_1d@+08:00/btcusdt@kline_1d/btcusdt@kline_1h@+08:00/btcusdt@kline_1s`)
  await ok(rig, limit(ALICE, 'SELL', 500_000, 100, { marketId: BTCSPOT }))
  await ok(rig, limit(BOB, 'BUY', 500_000, 100, { marketId: BTCSPOT }))
  const time = rig.ex.time
  const DAY = 86_400_000
  const EIGHT = 8 * 3_600_000
  const localDay = Math.floor((time + EIGHT) / DAY) * DAY - EIGHT
  const utcDay = Math.floor(time / DAY) * DAY
  t.not(localDay, utcDay, 'the rig\'s clock lies where the two days differ')
  const body = { s: 'BTCUSDT', f: 1, L: 1, o: '5000.00', c: '5000.00', h: '5000.00', l: '5000.00', v: '0.0100', n: 1, x: false,
    q: '50.000000', V: '0.0100', Q: '50.000000', B: '0' }
  const zoned = await on(c, 'btcusdt@kline_1d@+08:00')
  t.same(zoned, { e: 'kline', E: zoned.E, s: 'BTCUSDT', k: { t: localDay, T: localDay + DAY - 1, i: '1d', ...body } })
  t.match(await on(c, 'btcusdt@kline_1d'), { k: { t: utcDay, T: utcDay + DAY - 1, i: '1d', n: 1 } })
  // An hour is the same in UTC+8 as in UTC.
  const hour = Math.floor(time / 3_600_000) * 3_600_000
  t.match(await on(c, 'btcusdt@kline_1h@+08:00'), { k: { t: hour, T: hour + 3_599_999, i: '1h', n: 1 } })
  // Binance spot's 1s klines.
  const second = Math.floor(time / 1000) * 1000
  t.match(await on(c, 'btcusdt@kline_1s'), { k: { t: second, T: second + 999, i: '1s', n: 1 } })
  const rest = await (await fetch(`${rig.http}/api/v3/klines?symbol=BTCUSDT&interval=1d&timeZone=8`)).json() as unknown[][]
  t.same(rest.map((k) => [k[0], k[6], k[8]]), [[localDay, localDay + DAY - 1, 1]], 'as REST has it with timeZone=8')
  // Past the local day's end (nothing traded since): the zoned kline is sent closed.
  await ok(rig, { type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 1, wallet: 'SPOT', ref: 'next-day' }, localDay + DAY - time)
  t.match(await on(c, 'btcusdt@kline_1d@+08:00', (d) => d.k.x === true), { k: { t: localDay, n: 1, x: true } })
  t.match(await on(c, 'btcusdt@kline_1s', (d) => d.k.x === true), { k: { t: second, n: 1, x: true } }, 'the second, closed')
  c.close()
  // By SUBSCRIBE, as ccxt's watchOHLCV with timezone '+08:00' asks; and a percent-encoded `+` in the URL.
  const raw = await connect(`${rig.base}/ws`)
  t.same(await raw.request({ method: 'SUBSCRIBE', params: ['ethusdt@kline_1m@+08:00'], id: 1 }), { result: null, id: 1 })
  t.same(await raw.request({ method: 'LIST_SUBSCRIPTIONS', id: 2 }), { result: ['ethusdt@kline_1m@+08:00'], id: 2 })
  raw.close()
  const encoded = await connect(`${rig.base}/stream?streams=btcusdt@kline_1w%40%2B08%3A00`)
  t.same(await encoded.request({ method: 'LIST_SUBSCRIPTIONS', id: 3 }), { result: ['btcusdt@kline_1w@+08:00'], id: 3 })
  encoded.close()
})

t.test('a spot iceberg shows one slice in the depth streams, and the next once the slice is used up', async (t) => {
  const rig = await streamRig()
  t.teardown(() => rig.close())
  await rig.run({ type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: 100_000_000, wallet: 'SPOT', ref: 'btc' })
  await rig.run({ type: 'Deposit', account: BOB, sub: 0, asset: 'USDT', amount: 1_000_000 * 1_000_000, wallet: 'SPOT', ref: 'usdt' })
  const c = await connect(`${rig.base}/stream?streams=btcusdt@depth@100ms/btcusdt@depth5@100ms`)
  const spot = { marketId: BTCSPOT }
  // 0.0030 BTC at 31,000.00 in slices of 0.0010, then a plain 0.0020 behind it.
  await ok(rig, { ...limit(ALICE, 'SELL', 3_100_000, 30, spot), timeInForce: 'GTC', icebergLots: 10 })
  const placed = rig.ex.state.seq
  const shown = await on(c, 'btcusdt@depth@100ms', (d) => d.u === placed)
  t.same(shown, { e: 'depthUpdate', E: shown.E, s: 'BTCUSDT', U: shown.U, u: placed, b: [], a: [['31000.00', '0.0010']] },
    'the slice only, in Binance spot\'s letters (no USD-M T or pu)')
  await ok(rig, limit(ALICE, 'SELL', 3_100_000, 20, spot))
  // A buy of 0.0025: the slice (the next one goes behind the plain ask), then 0.0015 of the plain ask.
  await ok(rig, limit(BOB, 'BUY', 3_100_000, 25, spot))
  const traded = rig.ex.state.seq
  t.match(await on(c, 'btcusdt@depth@100ms', (d) => d.u === traded), { a: [['31000.00', '0.0015']] }, '0.0005 of the plain ask and the next slice')
  t.match(await on(c, 'btcusdt@depth5@100ms', (d) => d.lastUpdateId === traded), { asks: [['31000.00', '0.0015']] })
  const rest = (await (await fetch(`${rig.http}/api/v3/depth?symbol=BTCUSDT`)).json()) as { asks: string[][] }
  t.same(rest.asks, [['31000.00', '0.0015']], 'the REST book agrees')
  // 0.0012 more: the plain ask's 0.0005, then 0.0007 of the slice.
  await ok(rig, limit(BOB, 'BUY', 3_100_000, 12, spot))
  const last = rig.ex.state.seq
  t.match(await on(c, 'btcusdt@depth@100ms', (d) => d.u === last), { a: [['31000.00', '0.0003']] })
  // 0.0013: the slice's 0.0003, then the last slice, all 0.0010 left, in one sweep: the level empties.
  await ok(rig, limit(BOB, 'BUY', 3_100_000, 13, spot))
  const gone = rig.ex.state.seq
  t.match(await on(c, 'btcusdt@depth@100ms', (d) => d.u === gone), { a: [['31000.00', '0.0000']] })
  t.same(rig.feedErrors, [], 'the levels built from events matched the book throughout')
  c.close()
})

t.test('levels that disagree with the book are reported and corrected from it', async (t) => {
  // A feed that garbles cancel events stands in for core events the depth model does not know.
  const rig = await streamRig({}, (ctx) => ({
    ...ctx,
    onCommitted: (listener) => ctx.onCommitted!((c) => listener({
      entries: c.entries,
      results: c.results.map((r) => ({ ...r, events: r.events.map((e) => e.type === 'order' && e.execType === 'CANCELED'
        ? { ...e, execType: 'TRADE' as const, status: 'PARTIALLY_FILLED' as const } : e) })),
    })),
  }))
  t.teardown(() => rig.close())
  const c = await connect(`${rig.base}/ws/${S}@depth@100ms`)
  const placed = await ok(rig, limit(ALICE, 'BUY', 499_000, 100))
  t.match(await c.next(), { b: [['49900.0', '0.100']], a: [] })
  const orderId = (placed.events[0] as { orderId: number }).orderId
  await ok(rig, { type: 'CancelOrder', account: ALICE, sub: 0, marketId: 1, orderId })
  t.match(await c.next(), { u: rig.ex.state.seq, b: [['49900.0', '0.000']], a: [] }, 'the level is removed all the same')
  t.equal(rig.feedErrors.length, 1)
  t.match(rig.feedErrors[0], /depth levels of BTCUSDTPERP differ from the book at seq \d+; reset/)
  c.close()
})
