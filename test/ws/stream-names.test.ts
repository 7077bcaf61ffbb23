// Every stream name API.md lists parses to the stream it names, and names are built back the
// same way feeds publish them; near misses are refused.

import t from 'tap'
import { KLINE_INTERVALS } from '../../replica/projections/index.js'
import { canonicalStreamName, parseStream, streamName } from '../../gateway/ws/streams.js'

const s = 'btcusdtperp'
/** Every listed stream name and what it denotes. */
const LISTED: [string, object][] = [
  [`${s}@depth`, { kind: 'depth', symbol: s, speed: 250, levels: 0 }],
  [`${s}@depth@100ms`, { kind: 'depth', symbol: s, speed: 100, levels: 0 }],
  [`${s}@depth@500ms`, { kind: 'depth', symbol: s, speed: 500, levels: 0 }],
  [`${s}@depth5`, { kind: 'depth', symbol: s, speed: 250, levels: 5 }],
  [`${s}@depth10@100ms`, { kind: 'depth', symbol: s, speed: 100, levels: 10 }],
  [`${s}@depth20@500ms`, { kind: 'depth', symbol: s, speed: 500, levels: 20 }],
  [`${s}@trade`, { kind: 'trade', symbol: s }],
  [`${s}@aggTrade`, { kind: 'aggTrade', symbol: s }],
  [`${s}@markPrice`, { kind: 'markPrice', symbol: s, fast: false }],
  [`${s}@markPrice@1s`, { kind: 'markPrice', symbol: s, fast: true }],
  ['!markPrice@arr', { kind: 'markPrice', symbol: null, fast: false }],
  ['!markPrice@arr@1s', { kind: 'markPrice', symbol: null, fast: true }],
  ['btcusdt@indexPrice', { kind: 'indexPrice', pair: 'btcusdt', fast: false }],
  ['btcusdt@indexPrice@1s', { kind: 'indexPrice', pair: 'btcusdt', fast: true }],
  [`${s}@ticker`, { kind: 'ticker', symbol: s }],
  ['!ticker@arr', { kind: 'ticker', symbol: null }],
  [`${s}@miniTicker`, { kind: 'miniTicker', symbol: s }],
  ['!miniTicker@arr', { kind: 'miniTicker', symbol: null }],
  [`${s}@bookTicker`, { kind: 'bookTicker', symbol: s }],
  ['!bookTicker', { kind: 'bookTicker', symbol: null }],
  [`${s}@forceOrder`, { kind: 'forceOrder', symbol: s }],
  ['!forceOrder@arr', { kind: 'forceOrder', symbol: null }],
  [`${s}@avgPrice`, { kind: 'avgPrice', symbol: s }],
  [`${s}@referencePrice`, { kind: 'referencePrice', symbol: s }],
  [`${s}@ticker_1h`, { kind: 'windowTicker', symbol: s, window: '1h' }],
  [`${s}@ticker_4h`, { kind: 'windowTicker', symbol: s, window: '4h' }],
  ['!ticker_1d@arr', { kind: 'windowTicker', symbol: null, window: '1d' }],
  ...KLINE_INTERVALS.map((i): [string, object] => [`${s}@kline_${i}`, { kind: 'kline', symbol: s, interval: i, offsetMs: 0 }]),
  // Binance spot's klines in UTC+8, its one zone.
  ...KLINE_INTERVALS.map((i): [string, object] => [`btcusdt@kline_${i}@+08:00`, { kind: 'kline', symbol: 'btcusdt', interval: i, offsetMs: 8 * 3_600_000 }]),
]

t.test('every listed name parses', async (t) => {
  for (const [name, spec] of LISTED) t.same(parseStream(name), spec, name)
})

t.test('names the feeds publish under are the names clients subscribe to', async (t) => {
  t.equal(streamName.depth('ethusdtperp', 250, 0), 'ethusdtperp@depth')
  t.equal(streamName.depth('ethusdtperp', 100, 0), 'ethusdtperp@depth@100ms')
  t.equal(streamName.depth('ethusdtperp', 500, 20), 'ethusdtperp@depth20@500ms')
  t.equal(streamName.markPrice(null, true), '!markPrice@arr@1s')
  t.equal(streamName.markPrice('ethusdtperp', false), 'ethusdtperp@markPrice')
  t.equal(streamName.indexPrice('ethusdt', true), 'ethusdt@indexPrice@1s')
  t.equal(streamName.kline('ethusdtperp', '1M'), 'ethusdtperp@kline_1M')
  t.equal(streamName.kline('btcusdt', '1d', 8 * 3_600_000), 'btcusdt@kline_1d@+08:00')
  t.equal(streamName.avgPrice('btcusdt'), 'btcusdt@avgPrice')
  t.same(parseStream(streamName.avgPrice('btcusdt')), { kind: 'avgPrice', symbol: 'btcusdt' })
  t.same(parseStream(streamName.referencePrice('btcusdt')), { kind: 'referencePrice', symbol: 'btcusdt' })
  t.equal(streamName.windowTicker('btcusdt', '4h'), 'btcusdt@ticker_4h')
  t.equal(streamName.windowTicker(null, '1d'), '!ticker_1d@arr')
  for (const near of ['btcusdt@ticker_2h', '!ticker_1h', '!ticker_5m@arr']) t.equal(parseStream(near), null, near)
})

t.test('near misses are not streams', async (t) => {
  for (const name of ['BTCUSDTPERP@trade', 'btcusdtperp@depth@250ms', 'btcusdtperp@depth15', 'btcusdtperp@depth@1000ms',
    'btcusdtperp@kline_2m', 'btcusdt_perpetual@continuousKline_1s', 'btcusdt@kline_1d@+09:00', 'btcusdt@kline_1d@+8', 'btcusdt@kline_@+08:00', 'btcusdt@kline_1d@+08:00@+08:00',
    'btcusdtperp@markPrice@3s', '@trade', 'btcusdtperp', 'btcusdtperp@', '!ticker',
    '!markPrice@arr@2s', 'btc usdt@trade', 'x'.repeat(60) + '@trade', 42, null]) {
    t.equal(parseStream(name), null, String(name))
  }
})

t.test('names with a word in other case are kept as Binance writes them; symbols and intervals are not folded', async (t) => {
  const cases: [unknown, string | null][] = [
    ['btcusdtperp@markPrice@1s', 'btcusdtperp@markPrice@1s'],
    ['btcusdtperp@markprice@1s', 'btcusdtperp@markPrice@1s'],
    ['btcusdtperp@MARKPRICE', 'btcusdtperp@markPrice'],
    ['btcusdtperp@aggtrade', 'btcusdtperp@aggTrade'],
    ['btcusdtperp@bookticker', 'btcusdtperp@bookTicker'],
    ['btcusdtperp@miniticker', 'btcusdtperp@miniTicker'],
    ['btcusdtperp@forceorder', 'btcusdtperp@forceOrder'],
    ['btcusdtperp@rpidepth@500ms', 'btcusdtperp@rpiDepth@500ms'],
    ['btcusdtperp@compositeindex', 'btcusdtperp@compositeIndex'],
    ['btcusdt@indexprice@1s', 'btcusdt@indexPrice@1s'],
    ['btcusdt_perpetual@continuouskline_1m', 'btcusdt_perpetual@continuousKline_1m'],
    ['btcusdt_perpetual@continuouskline_1M', 'btcusdt_perpetual@continuousKline_1M'],
    ['!markprice@arr@1s', '!markPrice@arr@1s'],
    ['!miniticker@arr', '!miniTicker@arr'],
    ['!bookticker', '!bookTicker'],
    ['!forceorder@arr', '!forceOrder@arr'],
    ['!contractinfo', '!contractInfo'],
    ['!assetindex@arr', '!assetIndex@arr'],
    ['tradingsession', 'tradingSession'],
    ['btcusdtperp@kline_1M', 'btcusdtperp@kline_1M'],
    ['btcusdtperp@kline_1m', 'btcusdtperp@kline_1m'],
    ['BTCUSDTPERP@aggTrade', null],
    ['btcusdtperp@markprice@3s', null],
    ['btcusdtperp@kline_1Mo', null],
    ['btcusdtperp@tradex', null],
    [42, null],
  ]
  for (const [name, want] of cases) t.equal(canonicalStreamName(name), want, String(name))
  // Every listed name, its stream part lowercased (intervals kept), folds back: a stream word
  // added to the parser but not to the folded words fails here.
  for (const [name] of LISTED) {
    const at = name.indexOf('@')
    const lower = (w: string): string => w.replace(/kline_[0-9a-zA-Z]+|[A-Za-z]+/g, (m) => (m.startsWith('kline_') ? m : m.toLowerCase()))
    const folded = name.startsWith('!') || at < 0 ? lower(name) : name.slice(0, at + 1) + lower(name.slice(at + 1))
    t.equal(canonicalStreamName(folded), name, folded)
  }
})
