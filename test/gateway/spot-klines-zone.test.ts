// Spot klines in a time zone (Binance spot's timeZone on /api/v3/klines and uiKlines): buckets
// start at the zone's midnight, hour, Monday or first of the month, while startTime and endTime
// stay UTC. Checked against candles built straight from the trades with calendar arithmetic in
// the zone's local time, over six weeks of trades across month and week boundaries.

import t from 'tap'
import { ALICE, BOB, BTCSPOT, COIN } from '../helpers/exchange.js'
import { marketGateway } from '../helpers/market-gateway.js'
import { Fixture, limit } from '../helpers/projections-fixture.js'

const MIN = 60_000
const HOUR = 60 * MIN

interface Fill { time: number; priceTicks: number; qtyLots: number; buyerIsTaker: boolean }

/** The local calendar's bucket start for `local` (a UTC-read time shifted into the zone), by interval. */
function localOpen(interval: string, local: number): number {
  const d = new Date(local)
  const [y, mo, day, h, mi] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()]
  switch (interval) {
    case '1s': return Math.floor(local / 1000) * 1000
    case '1M': return Date.UTC(y, mo, 1)
    case '1w': return Date.UTC(y, mo, day - ((d.getUTCDay() + 6) % 7))
    case '3d': return Math.floor(Date.UTC(y, mo, day) / (3 * 24 * HOUR)) * 3 * 24 * HOUR
    case '1d': return Date.UTC(y, mo, day)
  }
  const n = Number(interval.slice(0, -1))
  return interval.endsWith('h') ? Date.UTC(y, mo, day, h - (h % n)) : Date.UTC(y, mo, day, h, mi - (mi % n))
}

function localClose(interval: string, open: number): number {
  const d = new Date(open)
  const next = interval === '1s' ? open + 1000
    : interval === '1M' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
    : interval === '1w' ? open + 7 * 24 * HOUR
      : interval === '3d' ? open + 3 * 24 * HOUR
        : interval === '1d' ? open + 24 * HOUR
          : open + Number(interval.slice(0, -1)) * (interval.endsWith('h') ? HOUR : MIN)
  return next - 1
}

/** The open of every bucket in a zone `offsetMs` east of UTC, from the one holding `from` to the one holding `to`. */
function bucketOpens(interval: string, offsetMs: number, from: number, to: number): number[] {
  const out: number[] = []
  for (let open = localOpen(interval, from + offsetMs) - offsetMs; open <= to; open = localClose(interval, open + offsetMs) - offsetMs + 1) out.push(open)
  return out
}

/** The last of `fills` (in time order) before `time`. */
function lastBefore(fills: Fill[], time: number): Fill {
  let [lo, hi] = [0, fills.length]
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (fills[mid]!.time < time) lo = mid + 1
    else hi = mid
  }
  return fills[lo - 1]!
}

/**
 * Binance kline rows (BTCUSDT's 2 price and 4 quantity decimals) of the buckets opening at
 * `opens` in a zone `offsetMs` east of UTC: those without a fill flat at the last fill's price.
 */
function rows(fills: Fill[], interval: string, offsetMs: number, opens: number[]): unknown[][] {
  const byOpen = new Map<number, Fill[]>()
  for (const f of fills) {
    const open = localOpen(interval, f.time + offsetMs) - offsetMs
    byOpen.set(open, [...(byOpen.get(open) ?? []), f])
  }
  const price = (ticks: number): string => (ticks / 100).toFixed(2)
  const qty = (lots: number): string => (lots / 10_000).toFixed(4)
  const quote = (fs: Fill[]): string => (fs.reduce((s, f) => s + f.priceTicks * f.qtyLots, 0) / 1_000_000).toFixed(6)
  return opens.map((open) => {
    const close = localClose(interval, open + offsetMs) - offsetMs
    const fs = byOpen.get(open)
    if (fs === undefined) {
      const last = price(lastBefore(fills, open).priceTicks)
      return [open, last, last, last, last, qty(0), close, quote([]), 0, qty(0), quote([]), '0']
    }
    const ticks = fs.map((f) => f.priceTicks)
    const takers = fs.filter((f) => f.buyerIsTaker)
    return [open, price(ticks[0]!), price(Math.max(...ticks)), price(Math.min(...ticks)), price(ticks.at(-1)!),
      qty(fs.reduce((s, f) => s + f.qtyLots, 0)), close, quote(fs), fs.length,
      qty(takers.reduce((s, f) => s + f.qtyLots, 0)), quote(takers), '0']
  })
}

t.test('spot klines read in a time zone match candles built from the trades in local time', async (t) => {
  const f = await Fixture.open(t)
  await f.ok({ type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: 20 * COIN, wallet: 'SPOT', ref: 'btc-zone' }, 0)
  await f.fund(BOB, 10_000_000, 'SPOT')
  // Six weeks from Saturday 2023-11-18 09:13 UTC into 2024, gaps of 7 minutes to 31 hours, prices wandering.
  const fills: Fill[] = []
  let time = Date.UTC(2023, 10, 18, 9, 13, 0)
  let seed = 7
  const next = (n: number): number => { seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648; return seed % n }
  while (time < Date.UTC(2024, 0, 3)) {
    const priceTicks = 3_000_000 + next(400_000)
    const qtyLots = 10 + next(500)
    const buyerIsTaker = next(2) === 0
    const spot = { marketId: BTCSPOT, priceTicks, qtyLots }
    await f.at(time, limit(buyerIsTaker ? ALICE : BOB, buyerIsTaker ? 'SELL' : 'BUY', 0, 0, spot))
    const r = await f.ok(limit(buyerIsTaker ? BOB : ALICE, buyerIsTaker ? 'BUY' : 'SELL', 0, 0, spot), 0)
    t.ok(r.events.some((e) => e.type === 'spotTrade' || e.type === 'trade'), 'a trade')
    fills.push({ time, priceTicks, qtyLots, buyerIsTaker })
    time += 7 * MIN + next(31 * 60) * MIN
  }
  const r = await marketGateway(t, f, time)
  // Binance serves a kline for every interval from the first trade's to the current one (the
  // state's time: the last fill's here), those without trades flat at the last price.
  const now = fills.at(-1)!.time
  const expected = (interval: string, offsetMs: number, pick = (opens: number[]): number[] => opens): unknown[][] =>
    rows(fills, interval, offsetMs, pick(bucketOpens(interval, offsetMs, fills[0]!.time, now)))
  // Each request in a minute of its own: zoned klines weigh up to 20, and this asks hundreds.
  const get = async (q: string): Promise<unknown> => {
    r.clock.now += 60_000
    return (await r.get(`/api/v3/klines?symbol=BTCUSDT&${q}`)).body
  }

  const zones: [string, number][] = [['0', 0], ['8', 8 * HOUR], ['%2B08:00', 8 * HOUR], ['-1:30', -90 * MIN], ['05:45', 345 * MIN],
    ['-12', -12 * HOUR], ['14:00', 14 * HOUR], ['-3:15', -195 * MIN]]
  for (const interval of ['15m', '1h', '4h', '12h', '1d', '3d', '1w', '1M']) {
    for (const [zone, offset] of zones) {
      const all = expected(interval, offset)
      const at = `${interval} at ${zone}`
      t.same(await get(`interval=${interval}&timeZone=${zone}&limit=1000`), all.slice(-1000), `${at}: the newest thousand`)
      t.same(await get(`interval=${interval}&timeZone=${zone}&limit=3`), all.slice(-3), `${at}: the newest three`)
      // startTime inside a bucket: that bucket opened before it and is left out; endTime inside
      // one: that bucket opened before it and is in, whole.
      const [a, b] = [all[1]![0] as number, all[Math.min(5, all.length - 1)]![0] as number]
      t.same(await get(`interval=${interval}&timeZone=${zone}&startTime=${a + 1}&endTime=${b + 1}&limit=1000`),
        all.filter((k) => (k[0] as number) > a && (k[0] as number) <= b), `${at}: startTime and endTime, UTC`)
      t.same(await get(`interval=${interval}&timeZone=${zone}&startTime=${a}&limit=2`),
        all.filter((k) => (k[0] as number) >= a).slice(0, 2), `${at}: two from startTime`)
    }
  }
  // Random ranges and limits (a fixed LCG, so a failure replays): the rule UTC klines follow.
  const span = [fills[0]!.time - 40 * 24 * HOUR, fills.at(-1)!.time + 40 * 24 * HOUR]
  const intervals = ['1s', '1m', '5m', '15m', '30m', '1h', '2h', '4h', '6h', '8h', '12h', '1d', '3d', '1w', '1M']
  for (let i = 0; i < 300; i++) {
    const interval = intervals[next(intervals.length)]!
    const [zone, offset] = zones[next(zones.length)]!
    const start = next(3) === 0 ? undefined : span[0]! + next(span[1]! - span[0]!)
    const end = next(3) === 0 ? undefined : (start ?? span[0]!) + next(span[1]! - (start ?? span[0]!))
    const lim = 1 + next(next(2) === 0 ? 5 : 1000)
    const want = expected(interval, offset, (opens) => {
      const inRange = opens.filter((o) => (start === undefined || o >= start) && (end === undefined || o <= end))
      return start === undefined ? inRange.slice(Math.max(0, inRange.length - lim)) : inRange.slice(0, lim)
    })
    const q = `interval=${interval}&timeZone=${zone}&limit=${lim}${start === undefined ? '' : `&startTime=${start}`}${end === undefined ? '' : `&endTime=${end}`}`
    t.same(await get(q), want, q)
  }
  t.same(await get('interval=1d&timeZone=8'), await get('interval=1d&timeZone=%2B08:00'))
  t.same((await r.get('/api/v3/uiKlines?symbol=BTCUSDT&interval=1w&timeZone=-1:30')).body, await get('interval=1w&timeZone=-1:30'))
  for (const bad of ['15', '-13', '1:60', 'UTC', '+8h', '14:01']) {
    t.same(await get(`interval=1d&timeZone=${encodeURIComponent(bad)}`),
      { code: -1130, msg: "Data sent for parameter 'timeZone' is not valid." }, `timeZone ${bad}`)
  }
  // Weight: Binance's 2 in UTC; in a zone, 2 per 100 klines asked for (each is merged from several stored candles).
  for (const [q, w] of [['', 2], ['&timeZone=0', 2], ['&timeZone=%2B00:00', 2], ['&timeZone=8', 10], ['&timeZone=8&limit=50', 2],
    ['&timeZone=-1:30&limit=101', 4], ['&timeZone=5:45&limit=1000', 20]] as const) {
    t.equal(await r.weightOf(`/api/v3/klines?symbol=BTCUSDT&interval=1d${q}`), w, `weight${q || ' in UTC'}`)
  }
  // The futures klines take no timeZone (USDⓈ-M has none): UTC whatever is sent.
  t.same((await r.get('/fapi/v1/klines?symbol=BTCUSDTPERP&interval=1d&timeZone=8')).body, [])
  // Binance spot's 1s klines, in any zone; USDⓈ-M has none.
  const newest1s = expected('1s', 0, (opens) => opens.slice(-1000))
  t.equal(newest1s.filter((k) => k[8] !== 0).length, 1, 'the newest thousand seconds hold the last fill, the rest flat')
  t.same(await get('interval=1s&limit=1000'), newest1s)
  t.same(await get('interval=1s&timeZone=5:45&limit=1000'), newest1s, 'a zone of whole minutes keeps the seconds')
  for (const path of ['/fapi/v1/klines?symbol=BTCUSDTPERP', '/fapi/v1/markPriceKlines?symbol=BTCUSDTPERP', '/fapi/v1/indexPriceKlines?pair=BTCUSDT',
    '/fapi/v1/premiumIndexKlines?symbol=BTCUSDTPERP', '/fapi/v1/continuousKlines?pair=BTCUSDT&contractType=PERPETUAL']) {
    t.same((await r.get(`${path}&interval=1s`)).body, { code: -1120, msg: 'Invalid interval.' }, `${path}: no 1s`)
  }
})
