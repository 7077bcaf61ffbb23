// Market-data parameters read the Binance way, each failure as Binance words it: symbols
// (-1121 when unknown or of the wrong venue), limits, times, ids and kline intervals, bounded
// here so that no client value can reach a projection assertion.

import type { MarketStatus, StpMode } from '../core/commands.js'
import type { Market, PerpMarket, SpotMarket, State } from '../core/state.js'
import { isKlineInterval, isPerpKlineInterval, type KlineInterval } from '../replica/projections/index.js'
import { LIMITS } from '../core/limits.js'
import {
  CLIENT_ID_LEGAL_RANGE, eitherParam, illegalChars, invalidCancelRestrictions, invalidInterval, invalidParam, invalidSide, invalidSymbol, mandatoryParam,
  lookupIntervalTooBig, symbolStatusMismatch,
} from './errors.js'
import { MICROSECONDS_FROM } from './time-unit.js'

export type Params = Map<string, string>

/** Binance's legal range for INT and LONG parameters. */
export const INT_LEGAL_RANGE = '^[0-9]{1,20}$'
const INT_SYNTAX = /^[0-9]{1,20}$/
/**
 * Times past the end of year 9999 mean "no bound" as much as any larger value does; the cap
 * keeps endTime + 1 (the projections' exclusive key bound) a safe integer.
 */
export const TIME_MAX = 253402300799999
/** Ids past this match nothing; the cap keeps them valid key parts. */
const ID_MAX = Number.MAX_SAFE_INTEGER - 1

/** A parameter's value, with an empty one read as not sent (Binance treats both as null). */
export function optional(params: Params, name: string): string | undefined {
  const v = params.get(name)
  return v === undefined || v === '' ? undefined : v
}

export function required(params: Params, name: string): string {
  const v = optional(params, name)
  if (v === undefined) throw mandatoryParam(name)
  return v
}

/**
 * `contractType` of a pair's contract (continuous klines, basis): PERPETUAL, or a quarterly
 * contract Binance lists, which no pair has here (its rows are none); anything else is -1130.
 */
export function contractTypeParam(params: Params): 'PERPETUAL' | 'QUARTERLY' {
  const v = required(params, 'contractType')
  if (v === 'PERPETUAL') return v
  if (v === 'CURRENT_QUARTER' || v === 'NEXT_QUARTER') return 'QUARTERLY'
  throw invalidParam('contractType')
}

/** An unsigned integer parameter, exact as a bigint; -1100 when it is not plain digits. */
export function unsigned(params: Params, name: string): bigint | undefined {
  const v = optional(params, name)
  if (v === undefined) return undefined
  if (!INT_SYNTAX.test(v)) throw illegalChars(name, INT_LEGAL_RANGE)
  return BigInt(v)
}

/** `limit` in 1..max (default when not sent); out of range is -1130. */
export function limitParam(params: Params, dflt: number, max: number): number {
  const n = unsigned(params, 'limit')
  if (n === undefined) return dflt
  if (n < 1n || n > BigInt(max)) throw invalidParam('limit')
  return Number(n)
}

/** `limit` from a fixed set (futures depth): anything else is -1100 quoting the set, as Binance does. */
export function limitOneOf(params: Params, dflt: number, allowed: readonly number[]): number {
  const v = optional(params, 'limit')
  if (v === undefined) return dflt
  const n = INT_SYNTAX.test(v) ? Number(v) : NaN
  if (!allowed.includes(n)) throw illegalChars('limit', allowed.join(', '))
  return n
}

/**
 * The limit a request's weight is priced at: the value sent when it reads as an integer,
 * else the default. Never throws, so a request is charged before it is validated.
 */
export function limitForWeight(params: Params, dflt: number): number {
  const v = optional(params, 'limit')
  return v !== undefined && INT_SYNTAX.test(v) ? Number(v) : dflt
}

/** A time parameter in ms, capped at TIME_MAX. */
export function timeParam(params: Params, name: string): number | undefined {
  const n = unsigned(params, name)
  if (n === undefined) return undefined
  return n > BigInt(TIME_MAX) ? TIME_MAX : Number(n)
}

type TimeBound = 'startTime' | 'endTime'
const US_PER_MS = 1000n
/** TIME_MAX in µs: the cap keeps the order of any two bounds, so checks made in µs hold in ms. */
const TIME_MAX_US = BigInt(TIME_MAX) * US_PER_MS
const MICROSECONDS_FROM_BIG = BigInt(MICROSECONDS_FROM)

/**
 * A startTime or endTime in µs, capped at TIME_MAX_US. On spot (`spotUnits`) in ms or µs as
 * Binance spot reads its time parameters, told apart by size as `timestamp` is
 * (MICROSECONDS_FROM); USDⓈ-M documents ms only, so a futures bound is always ms.
 */
function boundMicros(params: Params, name: TimeBound, spotUnits: boolean): bigint | undefined {
  const n = unsigned(params, name)
  if (n === undefined) return undefined
  const us = spotUnits && n >= MICROSECONDS_FROM_BIG ? n : n * US_PER_MS
  return us > TIME_MAX_US ? TIME_MAX_US : us
}

/**
 * A bound in the whole ms the projections keep, selecting exactly the rows the µs bound
 * selects (rows hold whole ms; both bounds are inclusive): a startTime rounds up, an endTime
 * down: 1_700_000_000_000_500 µs as a startTime selects from ms 1_700_000_000_001, as an
 * endTime up to ms 1_700_000_000_000.
 */
function boundMs(us: bigint, name: TimeBound): number {
  return Number(name === 'startTime' ? (us + US_PER_MS - 1n) / US_PER_MS : us / US_PER_MS)
}

/**
 * startTime and endTime in ms, not checked against each other (klines and aggTrades: an
 * inverted range selects no rows). `spotUnits`: sent in ms or µs (boundMicros).
 */
export function timeBounds(params: Params, spotUnits = false): { startTime?: number; endTime?: number } {
  const out: { startTime?: number; endTime?: number } = {}
  for (const name of ['startTime', 'endTime'] as const) {
    const us = boundMicros(params, name, spotUnits)
    if (us !== undefined) out[name] = boundMs(us, name)
  }
  return out
}

/**
 * The optional startTime/endTime of a history query; -1130 naming startTime when it is after
 * endTime and, with `maxSpanMs`, -1127 when further from it than that (Binance's 24-hour trade
 * windows: "More than 24 hours between startTime and endTime.").
 * `spotUnits`: sent in ms or µs (boundMicros), checked in µs so that rounding to ms neither opens a
 * span Binance refuses nor refuses one it takes (two bounds inside one ms select no rows).
 */
export function timeRange(params: Params, maxSpanMs?: number, spotUnits = false): { startTime?: number; endTime?: number } {
  const startUs = boundMicros(params, 'startTime', spotUnits)
  const endUs = boundMicros(params, 'endTime', spotUnits)
  if (startUs !== undefined && endUs !== undefined) {
    if (startUs > endUs) throw invalidParam('startTime')
    if (maxSpanMs !== undefined && endUs - startUs > BigInt(maxSpanMs) * US_PER_MS) throw lookupIntervalTooBig(maxSpanMs)
  }
  return {
    ...(startUs !== undefined ? { startTime: boundMs(startUs, 'startTime') } : {}),
    ...(endUs !== undefined ? { endTime: boundMs(endUs, 'endTime') } : {}),
  }
}

/** A required whole number of at most `maxDigits` digits (leverage, countdownTime); -1130 naming it otherwise. */
export function wholeParam(params: Params, name: string, maxDigits: number): number {
  const raw = required(params, name)
  if (raw.length > maxDigits || !/^\d+$/.test(raw)) throw invalidParam(name)
  return Number(raw)
}

/** The order a query or cancel names: orderId, origClientOrderId or both (-1102 for neither). */
/**
 * A client id naming an order or list to find (origClientOrderId, clientAlgoId, …): longer than
 * any id can be (LIMITS.clientOrderIdLengthMax, the ids the exchange makes too) is -1100 with
 * Binance's legal range, before it reaches a history key, which holds at most 255 bytes.
 */
export function clientIdRefParam(params: Params, name: string): string | undefined {
  const id = optional(params, name)
  if (id !== undefined && id.length > LIMITS.clientOrderIdLengthMax) throw illegalChars(name, CLIENT_ID_LEGAL_RANGE)
  return id
}

export function orderRefParam(params: Params): { orderId?: number; clientOrderId?: string } {
  const orderId = idParam(params, 'orderId')
  const clientOrderId = clientIdRefParam(params, 'origClientOrderId')
  if (orderId === undefined && clientOrderId === undefined) throw eitherParam('orderId', 'origClientOrderId')
  return { ...(orderId !== undefined ? { orderId } : {}), ...(clientOrderId !== undefined ? { clientOrderId } : {}) }
}

/** A trade or aggregate id parameter, capped where no id can reach. */
export function idParam(params: Params, name: string): number | undefined {
  const n = unsigned(params, name)
  if (n === undefined) return undefined
  return n > BigInt(ID_MAX) ? ID_MAX : Number(n)
}

/** A kline interval; 1s only for a spot market (Binance spot has it, USDⓈ-M does not). */
export function intervalParam(params: Params, spot = false): KlineInterval {
  const v = required(params, 'interval')
  if (!isKlineInterval(v) || !(spot || isPerpKlineInterval(v))) throw invalidInterval()
  return v
}

function marketOf(state: State, symbol: string): Market {
  const m = state.marketsBySymbol.get(symbol)
  if (m === undefined) throw invalidSymbol()
  return m
}

/** The required `symbol` as a perpetual market; a spot symbol is as unknown here as a typo. */
export function perpParam(state: State, params: Params): PerpMarket {
  const m = marketOf(state, required(params, 'symbol'))
  if (m.kind !== 'PERP') throw invalidSymbol()
  return m
}

/**
 * The perpetual of `pair` (indexPriceKlines, continuousKlines). The perpetual's own symbol
 * names its pair too: on Binance a perpetual's symbol is its pair, and clients (ccxt's
 * fetchIndexOHLCV) send the one for the other.
 */
export function perpOfPair(state: State, params: Params): PerpMarket {
  const pair = required(params, 'pair')
  const m = allPerps(state).find((x) => x.pair === pair || x.symbol === pair)
  if (m === undefined) throw invalidSymbol()
  return m
}

export function spotParam(state: State, params: Params): SpotMarket {
  const m = marketOf(state, required(params, 'symbol'))
  if (m.kind !== 'SPOT') throw invalidSymbol()
  return m
}

/** The optional `symbol`: one perpetual market, or every one when not sent. */
export function perpsParam(state: State, params: Params): PerpMarket[] {
  return optional(params, 'symbol') === undefined ? allPerps(state) : [perpParam(state, params)]
}

export function spotsParam(state: State, params: Params): SpotMarket[] {
  return optional(params, 'symbol') === undefined ? allSpots(state) : [spotParam(state, params)]
}

export function allPerps(state: State): PerpMarket[] {
  return state.markets.filter((m): m is PerpMarket => m?.kind === 'PERP')
}

export function allSpots(state: State): SpotMarket[] {
  return state.markets.filter((m): m is SpotMarket => m?.kind === 'SPOT')
}

/** A flag Binance takes as "true"/"TRUE" (priceProtect is documented upper case). */
export function looseBool(p: Params, name: string): boolean | undefined {
  const v = optional(p, name)
  if (v === undefined) return undefined
  const lower = v.toLowerCase()
  if (lower !== 'true' && lower !== 'false') throw invalidParam(name)
  return lower === 'true'
}

/** cancelRestrictions: ONLY_NEW or ONLY_PARTIALLY_FILLED; anything else is -1145. */
export function cancelRestrictionParam(p: Params): 'ONLY_NEW' | 'ONLY_PARTIALLY_FILLED' | undefined {
  const v = optional(p, 'cancelRestrictions')
  if (v !== undefined && v !== 'ONLY_NEW' && v !== 'ONLY_PARTIALLY_FILLED') throw invalidCancelRestrictions()
  return v
}

/** Binance spot's limit on `symbols` (a JSON array). */
const SYMBOLS_MAX = 100

/**
 * Spot markets by `symbol`, or by `symbols` as a JSON array of at most 100 (`many`: answer a
 * list); neither names every spot market, unless `required`. Both at once is refused.
 */
export function spotsListParam(state: State, p: Params, required: boolean): { markets: SpotMarket[]; many: boolean } {
  const list = optional(p, 'symbols')
  const status = symbolStatusParam(p)
  if (optional(p, 'symbol') !== undefined) {
    if (list !== undefined) throw invalidParam('symbols')
    return { markets: [inStatus(spotParam(state, p), status)], many: false }
  }
  if (list === undefined) {
    if (required) throw mandatoryParam('symbol')
    return { markets: withStatus(allSpots(state), status), many: true }
  }
  let names: unknown
  try { names = JSON.parse(list) } catch { throw invalidParam('symbols') }
  if (!Array.isArray(names) || names.length === 0 || names.length > SYMBOLS_MAX || names.some((s) => typeof s !== 'string')) {
    throw invalidParam('symbols')
  }
  const markets = (names as string[]).map((symbol) => {
    const m = state.marketsBySymbol.get(symbol)
    if (m === undefined || m.kind !== 'SPOT') throw invalidSymbol()
    return m
  })
  return { markets: withStatus(markets, status), many: true }
}

/**
 * Binance spot's `symbolStatus`: TRADING, HALT or BREAK (-1130 otherwise; a market's own status
 * has the same names); undefined when not sent.
 */
export function symbolStatusParam(p: ReadonlyMap<string, string>): MarketStatus | undefined {
  const s = p.get('symbolStatus')
  if (s === undefined || s === '') return undefined
  if (s !== 'TRADING' && s !== 'HALT' && s !== 'BREAK') throw invalidParam('symbolStatus')
  return s
}

/** The markets of `markets` in `status` (all when undefined): a list leaves the others out. */
function withStatus(markets: SpotMarket[], status: MarketStatus | undefined): SpotMarket[] {
  return status === undefined ? markets : markets.filter((m) => m.status === status)
}

/** `m`, which must be in `status` when one was asked for (-1220 otherwise). */
function inStatus(m: SpotMarket, status: MarketStatus | undefined): SpotMarket {
  if (status !== undefined && m.status !== status) throw symbolStatusMismatch()
  return m
}

/** The spot market `symbol` names, which must be in the `symbolStatus` asked for, if any. */
export function spotWithStatus(state: State, p: Params): SpotMarket {
  const status = symbolStatusParam(p)
  return inStatus(spotParam(state, p), status)
}

/** How many symbols a request names: 1 for `symbol`, the list's length for `symbols`, 0 for neither; never throws. */
export function symbolCountForWeight(p: Params): number {
  if (optional(p, 'symbol') !== undefined) return 1
  const list = optional(p, 'symbols')
  if (list === undefined) return 0
  try {
    const names: unknown = JSON.parse(list)
    return Array.isArray(names) ? Math.max(1, names.length) : 1
  } catch {
    return 1
  }
}

/** A side parameter (`side` unless named): BUY or SELL (-1117 otherwise). */
export function sideParam(p: Params, name = 'side'): 'BUY' | 'SELL' {
  const side = required(p, name)
  if (side !== 'BUY' && side !== 'SELL') throw invalidSide()
  return side
}

const STP_MODES: ReadonlySet<string> = new Set(['NONE', 'EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH'])
/** Binance spot's modes beyond USD-M's four (core/prevention.ts). */
const SPOT_STP_MODES: ReadonlySet<string> = new Set([...STP_MODES, 'DECREMENT', 'TRANSFER'])

/**
 * selfTradePreventionMode, when sent: one of USD-M's four modes or, `spot`, of Binance spot's
 * six (-1130 otherwise).
 */
export function stpParam(p: Params, spot = false): StpMode | undefined {
  const stp = optional(p, 'selfTradePreventionMode')
  if (stp !== undefined && !(spot ? SPOT_STP_MODES : STP_MODES).has(stp)) throw invalidParam('selfTradePreventionMode')
  return stp as StpMode | undefined
}

/**
 * Binance spot's timeZone, as hours (-5, 8) or hours and minutes (-1:00, 05:45), from -12:00 to
 * +14:00: its offset east of UTC in ms (0 when not sent).
 */
export function timeZoneParam(p: Params): number {
  const v = optional(p, 'timeZone') ?? '0'
  const match = /^([+-]?)([0-9]{1,2})(?::([0-5][0-9]))?$/.exec(v)
  if (match === null) throw invalidParam('timeZone')
  const minutes = (Number(match[2]) * 60 + Number(match[3] ?? 0)) * (match[1] === '-' ? -1 : 1)
  if (minutes < -12 * 60 || minutes > 14 * 60) throw invalidParam('timeZone')
  return minutes * 60_000
}
