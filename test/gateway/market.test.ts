// Public market data over HTTP: futures and spot routes against a real core state and real
// projections, payloads checked field for field against hand-computed values, parameter
// errors with Binance's codes, weights in X-MBX-USED-WEIGHT-1M, a loopback socket, and a fuzz
// loop that no query string turns into a 5xx.

import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { ALICE, BOB, BTCSPOT, CAROL, COIN, DAVE } from '../helpers/exchange.js'
import { type Reply, marketGateway } from '../helpers/market-gateway.js'
import { Fixture, limit, trade, type Teardown } from '../helpers/projections-fixture.js'

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
/** Wednesday 2023-11-15 10:00:00 UTC. */
const M = Date.UTC(2023, 10, 15, 10, 0, 0)
const DAVE_KEY = 'D'.repeat(64)

interface Rig {
  f: Fixture
  app: FastifyInstance
  clock: { now: number }
  get(url: string, headers?: Record<string, string>): Promise<Reply>
  /** A request alone in a fresh minute: its header shows its own weight. */
  weightOf(url: string, headers?: Record<string, string>): Promise<number>
}


/**
 * BTCUSDTPERP trades (ids 1-5), resting bids and asks, one BTCUSDT spot trade and a spot
 * book; the gateway clock at 11:00, an hour after the first trade.
 */
async function rig(t: Teardown): Promise<Rig> {
  const f = await Fixture.open(t)
  for (const a of [ALICE, BOB, CAROL, DAVE]) await f.fund(a, 10_000_000)
  await trade(f, ALICE, BOB, 30000, 0.01, M) // 1
  await trade(f, ALICE, BOB, 30000, 0.005, M + 30) // 2: same price and side within 100 ms: aggregate 1
  await trade(f, ALICE, BOB, 30010, 0.02, M + 50) // 3
  await trade(f, BOB, ALICE, 29990, 0.03, M + MIN + 5, 'SELL') // 4: buyer is maker, next minute
  await trade(f, ALICE, BOB, 30020.5, 0.004, M + 2 * MIN) // 5
  await f.at(M + 3 * MIN, limit(CAROL, 'BUY', 29900, 0.1))
  for (const price of [29910, 29920, 29930, 29940, 29950]) await f.ok(limit(CAROL, 'BUY', price, 0.1), 0)
  await f.ok(limit(DAVE, 'BUY', 29950, 0.05), 0)
  await f.ok(limit(CAROL, 'SELL', 30100, 0.3), 0)
  await f.ok(limit(CAROL, 'SELL', 30050, 0.1), 0)

  await f.ok({ type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: COIN, wallet: 'SPOT', ref: 'btc-1' }, 0)
  await f.fund(BOB, 1_000_000, 'SPOT')
  const spot = { marketId: BTCSPOT }
  await f.at(M + 3 * MIN + 20_000, limit(ALICE, 'SELL', 0, 0, { ...spot, priceTicks: 3_500_000, qtyLots: 5000 }))
  await f.ok(limit(BOB, 'BUY', 0, 0, { ...spot, priceTicks: 3_500_000, qtyLots: 2000 }), 0)
  await f.ok(limit(BOB, 'BUY', 0, 0, { ...spot, priceTicks: 3_400_050, qtyLots: 1000 }), 0)
  // Dave's session: historicalTrades (MARKET_DATA) takes a live session's key.
  await f.ok({ type: 'CreateSession', account: DAVE, sub: 0, apiKey: DAVE_KEY, permissions: ['USER_DATA'], expiresAt: M + DAY,
    nonce: 1, signature: '0x' + '11'.repeat(65) }, 0)

  return { f, ...(await marketGateway(t, f, M + HOUR)) }
}

const err = (code: number, msg: string) => ({ code, msg })
const missing = (p: string) => err(-1102, `Mandatory parameter '${p}' was not sent, was empty/null, or malformed.`)
const invalidValue = (p: string) => err(-1130, `Data sent for parameter '${p}' is not valid.`)
const notDigits = (p: string) => err(-1100, `Illegal characters found in parameter '${p}'; legal range is '^[0-9]{1,20}$'.`)
const INVALID_SYMBOL = err(-1121, 'Invalid symbol.')

t.test('depth: best first, limits from the allowed set, weight by limit', async (t) => {
  const r = await rig(t)
  const seq = r.f.ex.state.seq
  const all = await r.get('/fapi/v1/depth?symbol=BTCUSDTPERP')
  t.equal(all.status, 200)
  t.same(all.body, {
    lastUpdateId: seq, E: M + HOUR, T: M + HOUR,
    bids: [['29950.0', '0.150'], ['29940.0', '0.100'], ['29930.0', '0.100'], ['29920.0', '0.100'], ['29910.0', '0.100'], ['29900.0', '0.100']],
    asks: [['30050.0', '0.100'], ['30100.0', '0.300']],
  })
  t.same(Object.keys(all.body), ['lastUpdateId', 'E', 'T', 'bids', 'asks'], 'Binance field order')
  const five = await r.get('/fapi/v1/depth?symbol=BTCUSDTPERP&limit=5')
  t.same(five.body.bids.map((l: string[]) => l[0]), ['29950.0', '29940.0', '29930.0', '29920.0', '29910.0'], 'the best five')
  t.same(five.body.asks.length, 2)
  const eth = await r.get('/fapi/v1/depth?symbol=ETHUSDTPERP&limit=10')
  t.same([eth.body.bids, eth.body.asks], [[], []], 'an empty book')

  t.equal(await r.weightOf('/fapi/v1/depth?symbol=BTCUSDTPERP&limit=5'), 2)
  t.equal(await r.weightOf('/fapi/v1/depth?symbol=BTCUSDTPERP&limit=50'), 2)
  t.equal(await r.weightOf('/fapi/v1/depth?symbol=BTCUSDTPERP&limit=100'), 5)
  t.equal(await r.weightOf('/fapi/v1/depth?symbol=BTCUSDTPERP'), 10, 'default 500')
  t.equal(await r.weightOf('/fapi/v1/depth?symbol=BTCUSDTPERP&limit=1000'), 20)

  const bad = await r.get('/fapi/v1/depth?symbol=BTCUSDTPERP&limit=7')
  t.equal(bad.status, 400)
  t.same(bad.body, err(-1100, "Illegal characters found in parameter 'limit'; legal range is '5, 10, 20, 50, 100, 500, 1000'."))
  t.same((await r.get('/fapi/v1/depth?symbol=BTCUSDTPERP&limit=abc')).body.code, -1100)
  t.equal(await r.weightOf('/fapi/v1/depth?symbol=BTCUSDTPERP&limit=2000'), 20, 'a refused request is charged too')

  // No Retail Price Improvement orders here: the RPI book is the book, 1000 levels only.
  const book = (b: { lastUpdateId: number; bids: string[][]; asks: string[][] }) => [b.lastUpdateId, b.bids, b.asks]
  t.same(book((await r.get('/fapi/v1/rpiDepth?symbol=BTCUSDTPERP')).body), book(all.body), 'rpiDepth is the depth')
  t.same(book((await r.get('/fapi/v1/rpiDepth?symbol=BTCUSDTPERP&limit=1000')).body), book(all.body))
  t.same((await r.get('/fapi/v1/rpiDepth?symbol=BTCUSDTPERP&limit=500')).body,
    err(-1100, "Illegal characters found in parameter 'limit'; legal range is '1000'."))
  t.equal(await r.weightOf('/fapi/v1/rpiDepth?symbol=BTCUSDTPERP'), 20)
})

t.test('indexInfo and delivery-price: no composite indexes, no quarterly contracts', async (t) => {
  const r = await rig(t)
  t.same((await r.get('/fapi/v1/indexInfo')).body, [])
  t.same((await r.get('/fapi/v1/indexInfo?symbol=BTCUSDTPERP')).body, [])
  t.same((await r.get('/fapi/v1/indexInfo?symbol=DEFIUSDT')).body, INVALID_SYMBOL)
  t.same((await r.get('/futures/data/delivery-price?pair=BTCUSDT')).body, [])
  t.same((await r.get('/futures/data/delivery-price?pair=NOPE')).body, INVALID_SYMBOL)
  t.same((await r.get('/futures/data/delivery-price')).body, missing('pair'))
})

t.test('symbols: missing, empty, unknown, spot on futures, duplicated', async (t) => {
  const r = await rig(t)
  for (const path of ['depth', 'trades', 'historicalTrades', 'aggTrades', 'klines?interval=1m', 'openInterest']) {
    const url = `/fapi/v1/${path}`
    const sep = url.includes('?') ? '&' : '?'
    const key = { 'X-MBX-APIKEY': DAVE_KEY }
    const none = await r.get(url, key)
    t.equal(none.status, 400, `${path} without symbol`)
    t.same(none.body, missing('symbol'), `${path} without symbol`)
    t.same((await r.get(`${url}${sep}symbol=`, key)).body, missing('symbol'), `${path} with an empty symbol`)
    t.same((await r.get(`${url}${sep}symbol=NOPE`, key)).body, INVALID_SYMBOL, `${path} unknown`)
    t.same((await r.get(`${url}${sep}symbol=BTCUSDT`, key)).body, INVALID_SYMBOL, `${path} spot symbol`)
    t.same((await r.get(`${url}${sep}symbol=btcusdtperp`, key)).body, INVALID_SYMBOL, `${path} lower case`)
  }
  for (const path of ['ticker/24hr', 'ticker/price', 'ticker/bookTicker', 'premiumIndex', 'fundingRate']) {
    t.same((await r.get(`/fapi/v1/${path}?symbol=NOPE`)).body, INVALID_SYMBOL, `${path} unknown`)
    t.same((await r.get(`/fapi/v1/${path}?symbol=BTCUSDT`)).body, INVALID_SYMBOL, `${path} spot symbol`)
  }
  for (const path of ['depth', 'trades', 'klines?interval=1m', 'ticker/24hr']) {
    const sep = path.includes('?') ? '&' : '?'
    t.same((await r.get(`/api/v1/${path}${sep}symbol=BTCUSDTPERP`)).body, INVALID_SYMBOL, `spot ${path} with a perp symbol`)
  }
  const dup = await r.get('/fapi/v1/depth?symbol=BTCUSDTPERP&symbol=BTCUSDTPERP')
  t.equal(dup.status, 400)
  t.same(dup.body, err(-1101, 'Duplicate values for a parameter detected.'))
})

t.test('GET parameters come from the query string; a form body does not override them', async (t) => {
  const r = await rig(t)
  const form = { 'content-type': 'application/x-www-form-urlencoded' }
  const both = await r.app.inject({ method: 'GET', url: '/fapi/v1/openInterest?symbol=BTCUSDTPERP', headers: form, payload: 'symbol=NOPE' })
  t.equal(both.statusCode, 200)
  t.equal(both.json().symbol, 'BTCUSDTPERP')
  // The spec: "GET endpoints take parameters in the query string"; fastify does not parse GET bodies.
  const body = await r.app.inject({ method: 'GET', url: '/fapi/v1/openInterest', headers: form, payload: 'symbol=ETHUSDTPERP' })
  t.same(body.json(), missing('symbol'))
})

const TRADES = [
  { id: 1, price: '30000.0', qty: '0.010', quoteQty: '300.0000', time: M, isBuyerMaker: false },
  { id: 2, price: '30000.0', qty: '0.005', quoteQty: '150.0000', time: M + 30, isBuyerMaker: false },
  { id: 3, price: '30010.0', qty: '0.020', quoteQty: '600.2000', time: M + 50, isBuyerMaker: false },
  { id: 4, price: '29990.0', qty: '0.030', quoteQty: '899.7000', time: M + MIN + 5, isBuyerMaker: true },
  { id: 5, price: '30020.5', qty: '0.004', quoteQty: '120.0820', time: M + 2 * MIN, isBuyerMaker: false },
]

t.test('trades and historicalTrades', async (t) => {
  const r = await rig(t)
  const all = await r.get('/fapi/v1/trades?symbol=BTCUSDTPERP')
  t.equal(all.status, 200)
  t.same(all.body, TRADES)
  t.same(Object.keys(all.body[0]), ['id', 'price', 'qty', 'quoteQty', 'time', 'isBuyerMaker'])
  t.same((await r.get('/fapi/v1/trades?symbol=BTCUSDTPERP&limit=2')).body, TRADES.slice(3), 'the newest two, ascending')
  t.same((await r.get('/fapi/v1/trades?symbol=ETHUSDTPERP')).body, [])
  t.same((await r.get('/fapi/v1/trades?symbol=BTCUSDTPERP&limit=1000')).body.length, 5)
  t.same((await r.get('/fapi/v1/trades?symbol=BTCUSDTPERP&limit=1001')).body, invalidValue('limit'))
  t.same((await r.get('/fapi/v1/trades?symbol=BTCUSDTPERP&limit=0')).body, invalidValue('limit'))
  t.same((await r.get('/fapi/v1/trades?symbol=BTCUSDTPERP&limit=-5')).body, notDigits('limit'))
  t.same((await r.get('/fapi/v1/trades?symbol=BTCUSDTPERP&limit=1.5')).body, notDigits('limit'))
  t.equal(await r.weightOf('/fapi/v1/trades?symbol=BTCUSDTPERP'), 5)

  const key = { 'X-MBX-APIKEY': DAVE_KEY }
  const noKey = await r.get('/fapi/v1/historicalTrades?symbol=BTCUSDTPERP')
  t.equal(noKey.status, 401)
  t.same(noKey.body, err(-2014, 'API-key format invalid.'))
  t.same((await r.get('/fapi/v1/historicalTrades?symbol=BTCUSDTPERP', { 'X-MBX-APIKEY': '' })).body.code, -2014)
  // A key no session has (found by exploratory testing: any text passed).
  t.same((await r.get('/fapi/v1/historicalTrades?symbol=BTCUSDTPERP', { 'X-MBX-APIKEY': 'any-key-for-now' })).body.code, -2014)
  const unknown = await r.get('/fapi/v1/historicalTrades?symbol=BTCUSDTPERP', { 'X-MBX-APIKEY': 'E'.repeat(64) })
  t.same([unknown.status, unknown.body.code], [401, -2015], 'well formed, but no live session\'s')
  t.same((await r.get('/fapi/v1/historicalTrades?symbol=BTCUSDTPERP', key)).body, TRADES, 'no fromId: the newest, up to 100')
  t.same((await r.get('/fapi/v1/historicalTrades?symbol=BTCUSDTPERP&fromId=2&limit=2', key)).body, TRADES.slice(1, 3))
  t.same((await r.get('/fapi/v1/historicalTrades?symbol=BTCUSDTPERP&fromId=6', key)).body, [])
  t.same((await r.get('/fapi/v1/historicalTrades?symbol=BTCUSDTPERP&fromId=99999999999999999999', key)).body, [])
  t.same((await r.get('/fapi/v1/historicalTrades?symbol=BTCUSDTPERP&limit=500', key)).status, 200)
  t.same((await r.get('/fapi/v1/historicalTrades?symbol=BTCUSDTPERP&limit=501', key)).body, invalidValue('limit'))
  t.same((await r.get('/fapi/v1/historicalTrades?symbol=BTCUSDTPERP&fromId=x', key)).body, notDigits('fromId'))
  t.equal(await r.weightOf('/fapi/v1/historicalTrades?symbol=BTCUSDTPERP', key), 20)

  // Three months on, the trades are past historicalTrades' reach (Dave's session opened again: it lasts a day).
  await r.f.at(M + 91 * DAY, { type: 'CreateSession', account: DAVE, sub: 0, apiKey: 'F'.repeat(64), permissions: ['USER_DATA'],
    expiresAt: M + 92 * DAY, nonce: 2, signature: '0x' + '11'.repeat(65) })
  r.clock.now = M + 91 * DAY
  t.same((await r.get('/fapi/v1/historicalTrades?symbol=BTCUSDTPERP', { 'X-MBX-APIKEY': 'F'.repeat(64) })).body, [])
})

const AGG = [
  { a: 1, p: '30000.0', q: '0.015', f: 1, l: 2, T: M, m: false },
  { a: 2, p: '30010.0', q: '0.020', f: 3, l: 3, T: M + 50, m: false },
  { a: 3, p: '29990.0', q: '0.030', f: 4, l: 4, T: M + MIN + 5, m: true },
  { a: 4, p: '30020.5', q: '0.004', f: 5, l: 5, T: M + 2 * MIN, m: false },
]

t.test('aggTrades: merged fills, ids and the time-range rule', async (t) => {
  const r = await rig(t)
  const u = '/fapi/v1/aggTrades?symbol=BTCUSDTPERP'
  t.same((await r.get(u)).body, AGG)
  t.same(Object.keys((await r.get(u)).body[0]), ['a', 'p', 'q', 'f', 'l', 'T', 'm'])
  t.same((await r.get(`${u}&limit=2`)).body, AGG.slice(2), 'neither time: the newest')
  t.same((await r.get(`${u}&startTime=${M + 1}&limit=1`)).body, AGG.slice(1, 2), 'startTime: the oldest from it')
  t.same((await r.get(`${u}&endTime=${M + MIN + 5}&limit=2`)).body, AGG.slice(1, 3), 'endTime: the newest up to it')
  t.same((await r.get(`${u}&startTime=${M}&endTime=${M + 50}`)).body, AGG.slice(0, 2), 'both, inclusive')
  t.same((await r.get(`${u}&startTime=${M + 50}&endTime=${M}`)).body, [], 'start after end')
  t.same((await r.get(`${u}&fromId=3`)).body, AGG.slice(2))
  t.same((await r.get(`${u}&startTime=99999999999999999999`)).body, [], 'a time beyond every trade')
  t.same((await r.get(`${u}&limit=1001`)).body, invalidValue('limit'))
  t.same((await r.get(`${u}&startTime=-1`)).body, notDigits('startTime'))
  t.same((await r.get(`${u}&endTime=1e12`)).body, notDigits('endTime'))
  t.same((await r.get(`${u}&startTime=123456789012345678901`)).body, notDigits('startTime'), 'over 20 digits')
  t.equal(await r.weightOf(u), 20)
})

const K1M = [
  [M, '30000.0', '30010.0', '30000.0', '30010.0', '0.035', M + MIN - 1, '1050.2000', 3, '0.035', '1050.2000', '0'],
  [M + MIN, '29990.0', '29990.0', '29990.0', '29990.0', '0.030', M + 2 * MIN - 1, '899.7000', 1, '0.000', '0.0000', '0'],
  [M + 2 * MIN, '30020.5', '30020.5', '30020.5', '30020.5', '0.004', M + 3 * MIN - 1, '120.0820', 1, '0.004', '120.0820', '0'],
  // The state's time is M + 3 min 20 s: its minute has no trade, so it is flat at the last price.
  [M + 3 * MIN, '30020.5', '30020.5', '30020.5', '30020.5', '0.000', M + 4 * MIN - 1, '0.0000', 0, '0.000', '0.0000', '0'],
]

t.test('klines: intervals, ranges, limits and weights', async (t) => {
  const r = await rig(t)
  const u = '/fapi/v1/klines?symbol=BTCUSDTPERP'
  t.same((await r.get(`${u}&interval=1m`)).body, K1M)
  t.same((await r.get(`${u}&interval=1h`)).body, [
    [M, '30000.0', '30020.5', '29990.0', '30020.5', '0.069', M + HOUR - 1, '2069.9820', 5, '0.039', '1170.2820', '0'],
  ])
  t.same((await r.get(`${u}&interval=1m&limit=1`)).body, K1M.slice(3), 'the newest: the current minute')
  t.same((await r.get(`${u}&interval=1m&startTime=${M + 1}`)).body, K1M.slice(1), 'by open time, from startTime')
  t.same((await r.get(`${u}&interval=1m&endTime=${M + MIN}&limit=1`)).body, K1M.slice(1, 2))
  t.same((await r.get(`${u}&interval=1m&startTime=${M}&endTime=${M + MIN}`)).body, K1M.slice(0, 2))
  t.same((await r.get(`${u}&interval=1m&startTime=${M + MIN}&endTime=${M}`)).body, [])
  t.same((await r.get(`${u}&interval=1M`)).body[0].slice(0, 2), [Date.UTC(2023, 10, 1), '30000.0'], 'months from the 1st')
  t.same((await r.get(`${u}&interval=1w`)).body[0][0], Date.UTC(2023, 10, 13), 'weeks from Monday')

  t.same((await r.get(u)).body, missing('interval'))
  t.same((await r.get(`${u}&interval=`)).body, missing('interval'))
  t.same((await r.get(`${u}&interval=2m`)).body, err(-1120, 'Invalid interval.'))
  t.same((await r.get(`${u}&interval=1H`)).body, err(-1120, 'Invalid interval.'), 'case matters: 1M is a month')
  t.equal((await r.get(`${u}&interval=1m&limit=1500`)).status, 200)
  t.same((await r.get(`${u}&interval=1m&limit=1501`)).body, invalidValue('limit'))

  t.equal(await r.weightOf(`${u}&interval=1m&limit=99`), 1)
  t.equal(await r.weightOf(`${u}&interval=1m&limit=100`), 2)
  t.equal(await r.weightOf(`${u}&interval=1m`), 5, 'default 500')
  t.equal(await r.weightOf(`${u}&interval=1m&limit=1000`), 5)
  t.equal(await r.weightOf(`${u}&interval=1m&limit=1001`), 10)
})

t.test('klines: an interval without trades is flat at the last price, from the first trade to the current interval', async (t) => {
  const f = await Fixture.open(t)
  for (const a of [ALICE, BOB, CAROL]) await f.fund(a, 10_000_000)
  await trade(f, ALICE, BOB, 30000, 0.01, M)
  await trade(f, ALICE, BOB, 30100, 0.02, M + 3 * MIN + 5)
  // No trade: only the state's time moves on, into 10:05.
  await f.at(M + 5 * MIN + 10_000, limit(CAROL, 'BUY', 29000, 0.1))
  const r = await marketGateway(t, f, M + HOUR)
  const flat = (open: number, price: string) => [open, price, price, price, price, '0.000', open + MIN - 1, '0.0000', 0, '0.000', '0.0000', '0']
  const all = [
    [M, '30000.0', '30000.0', '30000.0', '30000.0', '0.010', M + MIN - 1, '300.0000', 1, '0.010', '300.0000', '0'],
    flat(M + MIN, '30000.0'),
    flat(M + 2 * MIN, '30000.0'),
    [M + 3 * MIN, '30100.0', '30100.0', '30100.0', '30100.0', '0.020', M + 4 * MIN - 1, '602.0000', 1, '0.020', '602.0000', '0'],
    flat(M + 4 * MIN, '30100.0'),
    flat(M + 5 * MIN, '30100.0'),
  ]
  const u = '/fapi/v1/klines?symbol=BTCUSDTPERP&interval=1m'
  t.same((await r.get(u)).body, all)
  t.same((await r.get(`${u}&limit=2`)).body, all.slice(-2), 'limit counts intervals: the newest two are both empty')
  t.same((await r.get(`${u}&startTime=${M + MIN}&limit=2`)).body, all.slice(1, 3))
  t.same((await r.get(`${u}&endTime=${M + 2 * MIN}`)).body, all.slice(0, 3))
  t.same((await r.get(`${u}&endTime=${M + 4 * MIN}&limit=3`)).body, all.slice(2, 5))
  t.same((await r.get(`${u}&startTime=${M - HOUR}&limit=3`)).body, all.slice(0, 3), 'none before the first trade')
  t.same((await r.get(`${u}&endTime=${M - 1}`)).body, [])
  t.same((await r.get(`${u}&startTime=${M + 6 * MIN}`)).body, [], 'none after the current interval')
  t.same((await r.get(`${u}&startTime=${M + 5 * MIN}&endTime=${M + HOUR}`)).body, all.slice(5))
  t.same((await r.get('/fapi/v1/klines?symbol=BTCUSDTPERP&interval=3m')).body, [
    [M, '30000.0', '30000.0', '30000.0', '30000.0', '0.010', M + 3 * MIN - 1, '300.0000', 1, '0.010', '300.0000', '0'],
    [M + 3 * MIN, '30100.0', '30100.0', '30100.0', '30100.0', '0.020', M + 6 * MIN - 1, '602.0000', 1, '0.020', '602.0000', '0'],
  ])
  t.same((await r.get('/fapi/v1/continuousKlines?pair=BTCUSDT&contractType=PERPETUAL&interval=1m')).body, all)
  t.same((await r.get('/fapi/v1/markPriceKlines?symbol=BTCUSDTPERP&interval=1m&limit=3')).body.map((k: unknown[]) => k.slice(0, 5)),
    [M + 3 * MIN, M + 4 * MIN, M + 5 * MIN].map((open) => [open, ...Array(4).fill('30100.00000000')]),
    'with no oracle price yet, the mark is the last trade: flat too')
  t.same((await r.get('/fapi/v1/klines?symbol=ETHUSDTPERP&interval=1m')).body, [], 'a market that never traded has none')
  t.same((await r.get('/api/v3/klines?symbol=BTCUSDT&interval=1m')).body, [])
})

t.test("continuousKlines: a pair's PERPETUAL contract is its perpetual's klines", async (t) => {
  const r = await rig(t)
  const u = '/fapi/v1/continuousKlines?contractType=PERPETUAL'
  t.same((await r.get(`${u}&pair=BTCUSDT&interval=1m`)).body, K1M)
  t.same((await r.get(`${u}&pair=BTCUSDTPERP&interval=1m&limit=1`)).body, K1M.slice(3), 'the symbol names the pair too')
  t.same((await r.get(`${u}&pair=BTCUSDT&interval=1m&startTime=${M + 1}`)).body, K1M.slice(1))
  t.same((await r.get('/fapi/v1/continuousKlines?pair=BTCUSDT&contractType=CURRENT_QUARTER&interval=1m')).body, [],
    'a quarterly contract: none here, so no klines (as its stream carries none)')
  t.same((await r.get('/fapi/v1/continuousKlines?pair=BTCUSDT&contractType=NEXT_QUARTER&interval=1m')).body, [])
  t.match((await r.get('/fapi/v1/continuousKlines?pair=BTCUSDT&contractType=NEXT_QUARTER&interval=7m')).body, { code: -1120 },
    'the interval is still checked')
  t.same((await r.get('/fapi/v1/continuousKlines?pair=BTCUSDT&contractType=QUARTERLY&interval=1m')).body, invalidValue('contractType'))
  t.same((await r.get('/fapi/v1/continuousKlines?pair=XYZUSDT&contractType=NEXT_QUARTER&interval=1m')).body.code, -1121, 'and the pair')
  t.same((await r.get('/fapi/v1/continuousKlines?pair=BTCUSDT&interval=1m')).body, missing('contractType'))
  t.same((await r.get(`${u}&interval=1m`)).body, missing('pair'))
  t.same((await r.get(`${u}&pair=NOPE&interval=1m`)).body, err(-1121, 'Invalid symbol.'))
  t.same((await r.get(`${u}&pair=BTCUSDT&interval=2m`)).body, err(-1120, 'Invalid interval.'))
  t.equal(await r.weightOf(`${u}&pair=BTCUSDT&interval=1m`), 5, 'weighed as klines')
})

const BTC_TICKER = {
  symbol: 'BTCUSDTPERP', priceChange: '20.5', priceChangePercent: '0.068',
  // 2069.982 / 0.069 = 29999.739…
  weightedAvgPrice: '29999.7', lastPrice: '30020.5', lastQty: '0.004', openPrice: '30000.0', highPrice: '30020.5',
  lowPrice: '29990.0', volume: '0.069', quoteVolume: '2069.9820', openTime: M + HOUR - DAY, closeTime: M + HOUR,
  firstId: 1, lastId: 5, count: 5,
}
const ETH_TICKER = {
  symbol: 'ETHUSDTPERP', priceChange: '0.00', priceChangePercent: '0.000', weightedAvgPrice: '0.00', lastPrice: '0.00',
  lastQty: '0.000', openPrice: '0.00', highPrice: '0.00', lowPrice: '0.00', volume: '0.000', quoteVolume: '0.00000',
  openTime: M + HOUR - DAY, closeTime: M + HOUR, firstId: -1, lastId: -1, count: 0,
}

t.test('ticker/24hr: one symbol, every perpetual without one', async (t) => {
  const r = await rig(t)
  const one = await r.get('/fapi/v1/ticker/24hr?symbol=BTCUSDTPERP')
  t.equal(one.status, 200)
  t.same(one.body, BTC_TICKER)
  t.same(Object.keys(one.body), Object.keys(BTC_TICKER), 'Binance field order')
  const all = await r.get('/fapi/v1/ticker/24hr')
  t.same(all.body, [BTC_TICKER, ETH_TICKER], 'an array of the perpetuals only')
  t.equal(await r.weightOf('/fapi/v1/ticker/24hr?symbol=BTCUSDTPERP'), 1)
  t.equal(await r.weightOf('/fapi/v1/ticker/24hr'), 40)

  // A day after the last trade the window is empty: prices stay at the last trade.
  r.clock.now = M + 2 * MIN + DAY + MIN
  const later = (await r.get('/fapi/v1/ticker/24hr?symbol=BTCUSDTPERP')).body
  t.match(later, { priceChange: '0.0', openPrice: '30020.5', lastPrice: '30020.5', volume: '0.000', count: 0, firstId: -1, lastId: -1 })
})

t.test('ticker/price, bookTicker, openInterest, premiumIndex, fundingRate', async (t) => {
  const r = await rig(t)
  const now = M + HOUR
  const btcPrice = { symbol: 'BTCUSDTPERP', price: '30020.5', time: now }
  for (const v of ['v1', 'v2']) {
    r.clock.now = now
    t.same((await r.get(`/fapi/${v}/ticker/price?symbol=BTCUSDTPERP`)).body, btcPrice, v)
    t.same((await r.get(`/fapi/${v}/ticker/price`)).body, [btcPrice, { symbol: 'ETHUSDTPERP', price: '0.00', time: now }], v)
    t.equal(await r.weightOf(`/fapi/${v}/ticker/price?symbol=BTCUSDTPERP`), 1)
    t.equal(await r.weightOf(`/fapi/${v}/ticker/price`), 2)
  }

  r.clock.now = now
  const seq = r.f.ex.state.seq
  const btcBook = { symbol: 'BTCUSDTPERP', bidPrice: '29950.0', bidQty: '0.150', askPrice: '30050.0', askQty: '0.100', time: now, lastUpdateId: seq }
  t.same((await r.get('/fapi/v1/ticker/bookTicker?symbol=BTCUSDTPERP')).body, btcBook)
  t.same((await r.get('/fapi/v1/ticker/bookTicker')).body, [btcBook,
    { symbol: 'ETHUSDTPERP', bidPrice: '0.00', bidQty: '0.000', askPrice: '0.00', askQty: '0.000', time: now, lastUpdateId: seq }])
  t.equal(await r.weightOf('/fapi/v1/ticker/bookTicker?symbol=BTCUSDTPERP'), 2)
  t.equal(await r.weightOf('/fapi/v1/ticker/bookTicker'), 5)

  r.clock.now = now
  // Bob's long: 0.01 + 0.005 + 0.02 + 0.03 + 0.004.
  t.same((await r.get('/fapi/v1/openInterest?symbol=BTCUSDTPERP')).body, { openInterest: '0.069', symbol: 'BTCUSDTPERP', time: now })
  t.same((await r.get('/fapi/v1/openInterest?symbol=ETHUSDTPERP')).body, { openInterest: '0.000', symbol: 'ETHUSDTPERP', time: now })
  t.equal(await r.weightOf('/fapi/v1/openInterest?symbol=BTCUSDTPERP'), 1)

  r.clock.now = now
  const sixteen = Date.UTC(2023, 10, 15, 16)
  const btcMark = {
    symbol: 'BTCUSDTPERP', markPrice: '30020.50000000', indexPrice: '30020.50000000', estimatedSettlePrice: '30020.50000000',
    lastFundingRate: '0.00000000', interestRate: '0.00010000', nextFundingTime: sixteen, time: now,
  }
  t.same((await r.get('/fapi/v1/premiumIndex?symbol=BTCUSDTPERP')).body, btcMark)
  const all = (await r.get('/fapi/v1/premiumIndex')).body
  t.same(all.map((x: { symbol: string }) => x.symbol), ['BTCUSDTPERP', 'ETHUSDTPERP'])
  t.equal(all[1].markPrice, '0.00000000')
  r.clock.now = sixteen
  t.equal((await r.get('/fapi/v1/premiumIndex?symbol=BTCUSDTPERP')).body.nextFundingTime, Date.UTC(2023, 10, 16, 0), 'on a boundary: the next one')
  t.equal(await r.weightOf('/fapi/v1/premiumIndex?symbol=BTCUSDTPERP'), 1)
  t.equal(await r.weightOf('/fapi/v1/premiumIndex'), 10)

  t.same((await r.get('/fapi/v1/fundingRate')).body, [])
  t.same((await r.get(`/fapi/v1/fundingRate?symbol=BTCUSDTPERP&startTime=${M}&endTime=${now}&limit=1000`)).body, [])
  t.same((await r.get('/fapi/v1/fundingRate?limit=1001')).body, invalidValue('limit'))
  t.same((await r.get('/fapi/v1/fundingRate?startTime=yesterday')).body, notDigits('startTime'))
  t.equal(await r.weightOf('/fapi/v1/fundingRate'), 1)
})

t.test('spot market data under /api/v1 and /api/v3', async (t) => {
  const r = await rig(t)
  const now = M + HOUR
  for (const v of ['v1', 'v3']) {
    const depth = await r.get(`/api/${v}/depth?symbol=BTCUSDT`)
    t.same(depth.body, { lastUpdateId: r.f.ex.state.seq, bids: [['34000.50', '0.1000']], asks: [['35000.00', '0.3000']] }, v)
    t.same((await r.get(`/api/${v}/trades?symbol=BTCUSDT`)).body, [
      { id: 1, price: '35000.00', qty: '0.2000', quoteQty: '7000.000000', time: M + 3 * MIN + 20_000, isBuyerMaker: false, isBestMatch: true },
    ], v)
    // ccxt's spot fetchTrades reads these.
    t.same((await r.get(`/api/${v}/aggTrades?symbol=BTCUSDT`)).body, [
      { a: 1, p: '35000.00', q: '0.2000', f: 1, l: 1, T: M + 3 * MIN + 20_000, m: false, M: true },
    ], `${v} aggTrades`)
    t.same((await r.get(`/api/${v}/klines?symbol=BTCUSDT&interval=1m`)).body, [
      [M + 3 * MIN, '35000.00', '35000.00', '35000.00', '35000.00', '0.2000', M + 4 * MIN - 1, '7000.000000', 1, '0.2000', '7000.000000', '0'],
    ], v)
  }
  const ticker = {
    symbol: 'BTCUSDT', priceChange: '0.00', priceChangePercent: '0.000', weightedAvgPrice: '35000.00', prevClosePrice: '35000.00',
    lastPrice: '35000.00', lastQty: '0.2000', bidPrice: '34000.50', bidQty: '0.1000', askPrice: '35000.00', askQty: '0.3000',
    openPrice: '35000.00', highPrice: '35000.00', lowPrice: '35000.00', volume: '0.2000', quoteVolume: '7000.000000',
    openTime: now - DAY, closeTime: now, firstId: 1, lastId: 1, count: 1,
  }
  const one = await r.get('/api/v1/ticker/24hr?symbol=BTCUSDT')
  t.same(one.body, ticker)
  t.same(Object.keys(one.body), Object.keys(ticker))
  const all = (await r.get('/api/v1/ticker/24hr')).body
  t.same(all.map((x: { symbol: string }) => x.symbol), ['BTCUSDT', 'ETHUSDT'], 'spot symbols only')
  t.same(all[0], ticker)

  t.same((await r.get('/api/v1/depth?symbol=BTCUSDT&limit=6000')).status, 200, 'over 5000: truncated, as Binance spot')
  t.same((await r.get('/api/v1/depth?symbol=BTCUSDT&limit=0')).body, invalidValue('limit'))
  t.same((await r.get('/api/v1/trades?symbol=BTCUSDT&limit=1001')).body, invalidValue('limit'))
  t.same((await r.get('/api/v3/aggTrades?symbol=BTCUSDT&limit=1001')).body, invalidValue('limit'))
  t.same((await r.get('/api/v3/aggTrades?symbol=BTCUSDTPERP')).body, INVALID_SYMBOL, 'a perpetual is no spot symbol')
  t.same((await r.get(`/api/v3/aggTrades?symbol=BTCUSDT&startTime=${M + 4 * MIN}`)).body, [], 'from after the trade')
  t.same((await r.get('/api/v1/klines?symbol=BTCUSDT&interval=1m&limit=1001')).body, invalidValue('limit'))
  t.same((await r.get('/api/v1/klines?symbol=BTCUSDT&interval=7m')).body, err(-1120, 'Invalid interval.'))
  t.same((await r.get('/api/v1/depth')).body, missing('symbol'))

  t.equal(await r.weightOf('/api/v1/depth?symbol=BTCUSDT'), 5)
  t.equal(await r.weightOf('/api/v1/depth?symbol=BTCUSDT&limit=500'), 25)
  t.equal(await r.weightOf('/api/v1/depth?symbol=BTCUSDT&limit=1000'), 50)
  t.equal(await r.weightOf('/api/v1/depth?symbol=BTCUSDT&limit=5000'), 250)
  t.equal(await r.weightOf('/api/v1/trades?symbol=BTCUSDT'), 25)
  t.equal(await r.weightOf('/api/v3/aggTrades?symbol=BTCUSDT'), 4)
  t.equal(await r.weightOf('/api/v1/klines?symbol=BTCUSDT&interval=1d'), 2)
  t.equal(await r.weightOf('/api/v1/ticker/24hr?symbol=BTCUSDT'), 2)
  t.equal(await r.weightOf('/api/v1/ticker/24hr'), 80)
})

t.test('spot historicalTrades, uiKlines and the windowed tickers', async (t) => {
  const r = await rig(t)
  const now = M + HOUR
  const spotTrade = { id: 1, price: '35000.00', qty: '0.2000', quoteQty: '7000.000000', time: M + 3 * MIN + 20_000, isBuyerMaker: false, isBestMatch: true }
  t.same((await r.get('/api/v3/historicalTrades?symbol=BTCUSDT')).body, [spotTrade], 'no key needed')
  t.same((await r.get('/api/v3/historicalTrades?symbol=BTCUSDT&fromId=2')).body, [])
  t.same((await r.get('/api/v3/uiKlines?symbol=BTCUSDT&interval=1m')).body, (await r.get('/api/v3/klines?symbol=BTCUSDT&interval=1m')).body)

  // The one spot trade, 0.2 at 35000.00, at M + 3m20s; now is M + 1h.
  const traded = { symbol: 'BTCUSDT', priceChange: '0.00', priceChangePercent: '0.000', weightedAvgPrice: '35000.00',
    openPrice: '35000.00', highPrice: '35000.00', lowPrice: '35000.00', lastPrice: '35000.00', volume: '0.2000',
    quoteVolume: '7000.000000', firstId: 1, lastId: 1, count: 1 }
  const quiet = { ...traded, weightedAvgPrice: '0.00', volume: '0.0000', quoteVolume: '0.000000', firstId: -1, lastId: -1, count: 0 }
  const day = await r.get('/api/v3/ticker?symbol=BTCUSDT')
  t.same(day.body, { ...traded, openTime: now - DAY, closeTime: now }, 'windowSize 1d by default')
  t.same(Object.keys(day.body), ['symbol', 'priceChange', 'priceChangePercent', 'weightedAvgPrice', 'openPrice', 'highPrice',
    'lowPrice', 'lastPrice', 'volume', 'quoteVolume', 'openTime', 'closeTime', 'firstId', 'lastId', 'count'], "Binance's order")
  t.same((await r.get('/api/v3/ticker?symbol=BTCUSDT&windowSize=57m')).body, { ...traded, openTime: now - 57 * MIN, closeTime: now },
    "the trade's minute opens the window")
  t.same((await r.get('/api/v3/ticker?symbol=BTCUSDT&windowSize=56m')).body, { ...quiet, openTime: now - 56 * MIN, closeTime: now })
  // Asked 12.345 s past a minute: openTime is still on the minute the figures start from, as Binance's.
  const off = await marketGateway(t, r.f, now + 12_345)
  t.same((await off.get('/api/v3/ticker?symbol=BTCUSDT&windowSize=57m')).body, { ...traded, openTime: now - 57 * MIN, closeTime: now + 12_345 },
    'openTime on a minute: the window up to 59,999 ms wider than windowSize')
  const { priceChange: _c, priceChangePercent: _p, weightedAvgPrice: _w, ...mini } = traded
  t.same((await r.get('/api/v3/ticker?symbol=BTCUSDT&windowSize=7d&type=MINI')).body, { ...mini, openTime: now - 7 * DAY, closeTime: now })
  const both = (await r.get('/api/v3/ticker?symbols=["BTCUSDT","ETHUSDT"]&windowSize=2h')).body
  t.same(both.map((x: { symbol: string; count: number }) => [x.symbol, x.count]), [['BTCUSDT', 1], ['ETHUSDT', 0]])

  // The trading day: UTC from midnight; at UTC−10 local midnight was M; at UTC−11 it is now.
  const midnight = Date.UTC(2023, 10, 15)
  t.same((await r.get('/api/v3/ticker/tradingDay?symbol=BTCUSDT')).body, { ...traded, openTime: midnight, closeTime: midnight + DAY - 1 })
  t.same((await r.get('/api/v3/ticker/tradingDay?symbol=BTCUSDT&timeZone=-10')).body, { ...traded, openTime: M, closeTime: M + DAY - 1 })
  t.same((await r.get('/api/v3/ticker/tradingDay?symbol=BTCUSDT&timeZone=-9:30')).body,
    { ...traded, openTime: M - 30 * MIN, closeTime: M - 30 * MIN + DAY - 1 })
  t.same((await r.get('/api/v3/ticker/tradingDay?symbol=BTCUSDT&timeZone=-11:00&type=MINI')).body,
    { ...mini, volume: '0.0000', quoteVolume: '0.000000', firstId: -1, lastId: -1, count: 0, openTime: now, closeTime: now + DAY - 1 })

  for (const bad of ['60m', '24h', '8d', '1w', '0m', '1d2h', '07m']) {
    t.same((await r.get(`/api/v3/ticker?symbol=BTCUSDT&windowSize=${bad}`)).body, invalidValue('windowSize'), `windowSize ${bad}`)
  }
  for (const bad of ['15', '-13', '1:60', 'UTC']) {
    t.same((await r.get(`/api/v3/ticker/tradingDay?symbol=BTCUSDT&timeZone=${bad}`)).body, invalidValue('timeZone'), `timeZone ${bad}`)
  }
  t.same((await r.get('/api/v3/ticker?symbol=BTCUSDT&type=FULLER')).body, invalidValue('type'))
  t.same((await r.get('/api/v3/ticker')).body, missing('symbol'))
  t.same((await r.get('/api/v3/ticker?symbols=["BTCUSDT","NOPE"]')).body, INVALID_SYMBOL)
  t.same((await r.get('/api/v3/ticker?symbols=["BTCUSDTPERP"]')).body, INVALID_SYMBOL, 'spot symbols only')
  t.same((await r.get('/api/v3/ticker?symbols=BTCUSDT')).body, invalidValue('symbols'))
  t.same((await r.get('/api/v3/ticker?symbol=BTCUSDT&symbols=["BTCUSDT"]')).body, invalidValue('symbols'))
  t.equal(await r.weightOf('/api/v3/ticker?symbol=BTCUSDT'), 4)
  t.equal(await r.weightOf('/api/v3/ticker/tradingDay?symbols=["BTCUSDT","ETHUSDT"]'), 8)
  t.equal(await r.weightOf('/api/v3/historicalTrades?symbol=BTCUSDT'), 25)
})

t.test('over a loopback socket', async (t) => {
  const r = await rig(t)
  const base = await r.app.listen({ port: 0, host: '127.0.0.1' })
  const depth = await fetch(`${base}/fapi/v1/depth?symbol=BTCUSDTPERP&limit=5`)
  t.equal(depth.status, 200)
  t.equal(depth.headers.get('content-type'), 'application/json; charset=utf-8')
  t.equal(depth.headers.get('x-mbx-used-weight-1m'), '2')
  const body = await depth.json() as { bids: string[][], asks: string[][] }
  t.same(body.asks, [['30050.0', '0.100'], ['30100.0', '0.300']])
  const ticker = await fetch(`${base}/fapi/v1/ticker/24hr`)
  t.same(await ticker.json(), [BTC_TICKER, ETH_TICKER])
  t.equal(ticker.headers.get('x-mbx-used-weight-1m'), '42')
  const bad = await fetch(`${base}/fapi/v1/klines?symbol=BTCUSDTPERP&interval=13m`)
  t.equal(bad.status, 400)
  t.same(await bad.json(), err(-1120, 'Invalid interval.'))
})

t.test('past 2400 weight in a minute: 429 with -1003', async (t) => {
  const r = await rig(t)
  for (let i = 0; i < 60; i++) await r.get('/fapi/v1/ticker/24hr')
  const over = await r.get('/fapi/v1/ticker/24hr')
  t.equal(over.status, 429)
  t.equal(over.body.code, -1003)
  t.equal(over.weight, 2440)
  r.clock.now += MIN
  t.equal((await r.get('/fapi/v1/ticker/24hr?symbol=BTCUSDTPERP')).status, 200, 'the next minute starts afresh')
})

t.test('fuzz: no query string yields a 5xx', async (t) => {
  const r = await rig(t)
  const futures = ['depth', 'trades', 'historicalTrades', 'aggTrades', 'klines', 'ticker/24hr', 'ticker/price',
    'ticker/bookTicker', 'openInterest', 'premiumIndex', 'fundingRate'].map((p) => `/fapi/v1/${p}`)
  const spot = ['depth', 'trades', 'klines', 'ticker/24hr'].flatMap((p) => [`/api/v1/${p}`, `/api/v3/${p}`]).concat('/api/v3/uiKlines')
  const paths = [...futures, '/fapi/v2/ticker/price', ...spot]
  /** Values a client might plausibly send for each parameter. */
  const plausible: Record<string, string[]> = {
    symbol: ['BTCUSDTPERP', 'ETHUSDTPERP', 'BTCUSDT', 'ETHUSDT'],
    limit: ['1', '5', '7', '100', '500', '1000', '1001', '1500', '1501', '5000', '5001'],
    interval: ['1m', '1h', '1d', '1w', '1M', '2m'],
    startTime: ['0', String(M), String(M + MIN), '253402300799999', '9007199254740993', '99999999999999999999'],
    endTime: ['0', String(M), String(M + HOUR), '253402300799999', '9007199254740993', '99999999999999999999'],
    fromId: ['0', '1', '3', '6', '9007199254740993', '99999999999999999999'],
    timeZone: ['0', '8', '+08:00', '-1:30', '05:45', '-12', '14:00', '15', '1:60'],
  }
  const names = Object.keys(plausible)
  const junk = [
    '', '-1', '1.5', '1e3', '%', '%zz', '%00', 'ü', '\u0000', '[]', '{}', 'null', 'NaN', 'Infinity', ' 5', '5 ', '0x10', '+5',
    '100000000000000000000', 'NOPE', 'btcusdtperp',
  ]
  // A fixed LCG: the same requests every run, so a failure replays.
  let seed = 0x5eed
  const next = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return (seed >>> 8) % n
  }
  const pick = <T>(xs: readonly T[]): T => xs[next(xs.length)]!
  const statuses = new Map<number, number>()
  for (let i = 0; i < 600; i++) {
    const parts: string[] = []
    for (const name of names) {
      if (next(3) === 0) continue
      const value = next(4) === 0 ? pick(junk) : pick(plausible[name]!)
      parts.push(next(8) === 0 ? `${name}=${value}` : `${name}=${encodeURIComponent(value)}`)
    }
    if (next(10) === 0) parts.push(pick(['x=1', '__proto__=1', 'constructor=1', '=1', '&&', 'limit=5']))
    const url = `${pick(paths)}?${parts.join('&')}`
    r.clock.now += MIN // a fresh weight window each time: refusals for weight would hide the rest
    const headers = next(4) === 0 ? {} : { 'X-MBX-APIKEY': 'k' }
    const res = await r.app.inject({ method: 'GET', url, headers })
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
    if (res.statusCode >= 500) t.fail(`${url} → ${res.statusCode} ${res.body}`)
    if (res.statusCode >= 400) {
      const b = res.json()
      if (!(Number.isInteger(b.code) && b.code < 0 && typeof b.msg === 'string')) t.fail(`${url} → ${res.body}`)
    }
  }
  t.ok((statuses.get(200) ?? 0) >= 60, `enough requests get past validation (${statuses.get(200)} of 600)`)
  t.ok((statuses.get(400) ?? 0) >= 60, `and enough are refused (${statuses.get(400)} of 600)`)
})
