// Market stream names, as Binance USD-M spells them: parsed into what a feed must produce.
// Symbols are lowercase in names; a well-formed name for a symbol that does not exist is
// accepted (Binance does the same) and simply never carries data.

import { isKlineInterval, isPerpKlineInterval, type KlineInterval } from '../../replica/projections/intervals.js'

/** Diff and partial depth cadences, ms; 250 is the default (no suffix). */
export const DEPTH_SPEEDS = [100, 250, 500] as const
export type DepthSpeed = (typeof DEPTH_SPEEDS)[number]
export const PARTIAL_LEVELS = [5, 10, 20] as const

export type StreamSpec =
  | { kind: 'depth'; symbol: string; speed: DepthSpeed; levels: 0 | 5 | 10 | 20 }
  /** `<s>@rpiDepth@500ms`: a perpetual's 500 ms diffs (no RPI orders here). */
  | { kind: 'rpiDepth'; symbol: string }
  | { kind: 'trade'; symbol: string }
  | { kind: 'aggTrade'; symbol: string }
  /** offsetMs: Binance spot's `<s>@kline_<interval>@+08:00`, the intervals read in UTC+8 (its one zone); else 0. */
  | { kind: 'kline'; symbol: string; interval: KlineInterval; offsetMs: number }
  /**
   * `<pair>_<contractType>@continuousKline_<interval>`: the klines of the pair's contract of
   * that type; only PERPETUAL has one here (the others are well-formed and carry nothing).
   */
  | { kind: 'continuousKline'; pair: string; contractType: ContractType; interval: KlineInterval }
  /** symbol null: the `!…@arr` form over every market. */
  | { kind: 'markPrice'; symbol: string | null; fast: boolean }
  | { kind: 'indexPrice'; pair: string; fast: boolean }
  | { kind: 'ticker'; symbol: string | null }
  | { kind: 'miniTicker'; symbol: string | null }
  | { kind: 'bookTicker'; symbol: string | null }
  | { kind: 'forceOrder'; symbol: string | null }
  /** `!contractInfo`: a perpetual listed or its status changed. */
  | { kind: 'contractInfo' }
  /**
   * Binance streams of what this exchange has none of: the multi-assets mode's asset index
   * (`!assetIndex@arr`, `<asset>@assetIndex`), composite indexes (`<s>@compositeIndex`), the
   * TradFi perpetuals' market sessions (`tradingSession`) and spot block trades
   * (`<s>@blockTrade`). Accepted, so a subscription naming them with others is not refused, and
   * never carry data.
   */
  | { kind: 'none'; name: string }
  /** A spot market's 5-minute average price (Binance spot's stream). */
  | { kind: 'avgPrice'; symbol: string }
  | { kind: 'referencePrice'; symbol: string }
  /** Binance spot's rolling window ticker; symbol null: `!ticker_<window>@arr`, over the spot markets. */
  | { kind: 'windowTicker'; symbol: string | null; window: TickerWindow }

/** Binance spot's rolling window ticker streams' windows. */
export const TICKER_WINDOWS = ['1h', '4h', '1d'] as const
export type TickerWindow = (typeof TICKER_WINDOWS)[number]
const isTickerWindow = (w: string): w is TickerWindow => (TICKER_WINDOWS as readonly string[]).includes(w)

/** The zone kline streams may name (Binance spot: `@+08:00` only), and its offset east of UTC. */
const KLINE_ZONE = '@+08:00'
export const KLINE_OFFSETS = [0, 8 * 3_600_000] as const

/** Binance USD-M's contract types, as continuous kline stream names spell them. */
type ContractType = 'perpetual' | 'current_quarter' | 'next_quarter'
const CONTINUOUS = /^([a-z0-9]{1,32})_(perpetual|current_quarter|next_quarter)@continuousKline_([0-9a-zA-Z]+)$/

/** Most streams one connection may hold (Binance: 1024). */
export const STREAMS_PER_CONNECTION_MAX = 1024
/** Longest stream name accepted; far above any real one, it bounds what a client can make us keep. */
const NAME_MAX = 64

const SYMBOL = /^[a-z0-9]{1,32}$/
/** `@depth` is 250 ms; Binance names only the other two speeds. */
const DEPTH = /^depth(5|10|20)?(?:@(100ms|500ms))?$/

/** The stream a name denotes, or null when the name is not one. */
export function parseStream(name: unknown): StreamSpec | null {
  if (typeof name !== 'string' || name.length > NAME_MAX) return null
  switch (name) {
    case '!markPrice@arr': return { kind: 'markPrice', symbol: null, fast: false }
    case '!markPrice@arr@1s': return { kind: 'markPrice', symbol: null, fast: true }
    case '!ticker@arr': return { kind: 'ticker', symbol: null }
    case '!miniTicker@arr': return { kind: 'miniTicker', symbol: null }
    case '!bookTicker': return { kind: 'bookTicker', symbol: null }
    case '!forceOrder@arr': return { kind: 'forceOrder', symbol: null }
    case '!contractInfo': return { kind: 'contractInfo' }
    case '!assetIndex@arr':
    case 'tradingSession': return { kind: 'none', name }
  }
  const continuous = CONTINUOUS.exec(name)
  if (continuous) {
    const interval = continuous[3]!
    return isPerpKlineInterval(interval) ? { kind: 'continuousKline', pair: continuous[1]!, contractType: continuous[2] as ContractType, interval } : null
  }
  const arrWindow = /^!ticker_([0-9a-z]+)@arr$/.exec(name)
  if (arrWindow) return isTickerWindow(arrWindow[1]!) ? { kind: 'windowTicker', symbol: null, window: arrWindow[1] } : null
  const at = name.indexOf('@')
  if (at <= 0) return null
  const symbol = name.slice(0, at)
  const rest = name.slice(at + 1)
  if (!SYMBOL.test(symbol)) return null
  const depth = DEPTH.exec(rest)
  if (depth) {
    const speed = depth[2] === undefined ? 250 : Number(depth[2].slice(0, -2)) as DepthSpeed
    return { kind: 'depth', symbol, speed, levels: depth[1] === undefined ? 0 : Number(depth[1]) as 5 | 10 | 20 }
  }
  if (rest.startsWith('ticker_')) {
    const window = rest.slice('ticker_'.length)
    return isTickerWindow(window) ? { kind: 'windowTicker', symbol, window } : null
  }
  if (rest.startsWith('kline_')) {
    const zoned = rest.endsWith(KLINE_ZONE)
    const interval = rest.slice('kline_'.length, zoned ? -KLINE_ZONE.length : undefined)
    return isKlineInterval(interval) ? { kind: 'kline', symbol, interval, offsetMs: zoned ? KLINE_OFFSETS[1] : 0 } : null
  }
  switch (rest) {
    case 'trade': return { kind: 'trade', symbol }
    case 'aggTrade': return { kind: 'aggTrade', symbol }
    case 'markPrice': return { kind: 'markPrice', symbol, fast: false }
    case 'markPrice@1s': return { kind: 'markPrice', symbol, fast: true }
    case 'indexPrice': return { kind: 'indexPrice', pair: symbol, fast: false }
    case 'indexPrice@1s': return { kind: 'indexPrice', pair: symbol, fast: true }
    case 'ticker': return { kind: 'ticker', symbol }
    case 'miniTicker': return { kind: 'miniTicker', symbol }
    case 'bookTicker': return { kind: 'bookTicker', symbol }
    case 'forceOrder': return { kind: 'forceOrder', symbol }
    case 'avgPrice': return { kind: 'avgPrice', symbol }
    case 'referencePrice': return { kind: 'referencePrice', symbol }
    case 'rpiDepth@500ms': return { kind: 'rpiDepth', symbol }
    case 'assetIndex':
    case 'compositeIndex':
    case 'blockTrade': return { kind: 'none', name }
    default: return null
  }
}

/** The words of stream names that are not lowercase, by their lowercase spelling. */
const FOLDED_WORDS = new Map(['markPrice', 'aggTrade', 'indexPrice', 'miniTicker', 'bookTicker', 'forceOrder', 'avgPrice',
  'referencePrice', 'rpiDepth', 'assetIndex', 'compositeIndex', 'blockTrade', 'continuousKline', 'contractInfo', 'tradingSession']
  .map((w) => [w.toLowerCase(), w]))

const foldWords = (s: string): string => s.replace(/[A-Za-z]+/g, (w) => FOLDED_WORDS.get(w.toLowerCase()) ?? w)

/**
 * The name a subscription is kept and published under: `name` itself, or, where its stream
 * part spells a word in other case (`btcusdt@markprice@1s`, `!miniticker@arr`: Binance's own
 * older futures connector lowercases every name it SUBSCRIBEs), the name as Binance writes it.
 * Symbols and kline intervals are not folded (`1m` is a minute, `1M` a month). Null: no stream.
 */
export function canonicalStreamName(name: unknown): string | null {
  if (parseStream(name) !== null) return name as string
  if (typeof name !== 'string' || name.length > NAME_MAX) return null
  const at = name.indexOf('@')
  const folded = name.startsWith('!') || at < 0 ? foldWords(name) : name.slice(0, at + 1) + foldWords(name.slice(at + 1))
  return folded !== name && parseStream(folded) !== null ? folded : null
}

/**
 * The all-market streams (`!ticker@arr`, `!miniTicker@arr`, `!bookTicker`) carry the
 * perpetuals, as on Binance USD-M's stream host: a USD-M client takes every symbol of those
 * streams for one of its markets (ccxt's watchTickers and watchBidsAsks filled in BTCUSDT as a
 * market of its own). A connection on the spot stream host (paths under `/spot/`, which a spot
 * client is given as its stream base URL) is Binance spot's: the same names carry the spot
 * markets. Within the gateway the spot host's form of such a stream is a stream of its own,
 * named with SPOT_HOST before the name (a prefix no client name can hold: names never hold `/`).
 */
const SPOT_HOST = 'spot/'
/** Each all-market name and its spot host's stream, made once (the book ticker asks at every batch). */
const ON_SPOT_HOST = new Map(['!ticker@arr', '!miniTicker@arr', '!bookTicker'].map((n) => [n, SPOT_HOST + n]))

/** The stream a connection's name denotes, on the spot stream host or not. */
export function hubStream(name: string, spotHost: boolean): string {
  return spotHost ? ON_SPOT_HOST.get(name) ?? name : name
}

/** The stream an all-market event of a market of this kind goes to (`name` as USD-M spells it). */
export function allMarketsStream(name: string, kind: 'PERP' | 'SPOT'): string {
  return hubStream(name, kind === 'SPOT')
}

/** A stream's name as its subscribers wrote it (what combined payloads say). */
export function clientStreamName(stream: string): string {
  return stream.startsWith(SPOT_HOST) ? stream.slice(SPOT_HOST.length) : stream
}

// The names feeds publish under, built the one way parseStream reads them.

export const streamName = {
  depth: (symbol: string, speed: DepthSpeed, levels: number): string =>
    `${symbol}@depth${levels === 0 ? '' : levels}${speed === 250 ? '' : `@${speed}ms`}`,
  rpiDepth: (symbol: string): string => `${symbol}@rpiDepth@500ms`,
  trade: (symbol: string): string => `${symbol}@trade`,
  aggTrade: (symbol: string): string => `${symbol}@aggTrade`,
  kline: (symbol: string, interval: KlineInterval, offsetMs = 0): string => `${symbol}@kline_${interval}${offsetMs === 0 ? '' : KLINE_ZONE}`,
  /** A perpetual's klines under its pair (lowercase, as `kline` takes its symbol). */
  continuousKline: (pair: string, interval: KlineInterval): string => `${pair}_perpetual@continuousKline_${interval}`,
  markPrice: (symbol: string | null, fast: boolean): string =>
    `${symbol === null ? '!markPrice@arr' : `${symbol}@markPrice`}${fast ? '@1s' : ''}`,
  indexPrice: (pair: string, fast: boolean): string => `${pair}@indexPrice${fast ? '@1s' : ''}`,
  ticker: (symbol: string | null): string => symbol === null ? '!ticker@arr' : `${symbol}@ticker`,
  miniTicker: (symbol: string | null): string => symbol === null ? '!miniTicker@arr' : `${symbol}@miniTicker`,
  bookTicker: (symbol: string | null): string => symbol === null ? '!bookTicker' : `${symbol}@bookTicker`,
  forceOrder: (symbol: string | null): string => symbol === null ? '!forceOrder@arr' : `${symbol}@forceOrder`,
  contractInfo: (): string => '!contractInfo',
  avgPrice: (symbol: string): string => `${symbol}@avgPrice`,
  referencePrice: (symbol: string): string => `${symbol}@referencePrice`,
  windowTicker: (symbol: string | null, window: TickerWindow): string => symbol === null ? `!ticker_${window}@arr` : `${symbol}@ticker_${window}`,
}
