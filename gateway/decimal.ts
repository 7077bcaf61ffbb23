// Exact numbers at the edge: decimal strings in, integer ticks, lots and ledger units to the
// core; integers out as Binance's fixed-decimal strings. No floats: bigint for units, decimal.js
// only where a parameter stays a decimal (rates), and every rounding is named by the caller.

import { Decimal } from 'decimal.js'
import { assert, LIMITS, type Asset, type Code, type Market } from '../core/index.js'
import { badPrecision, fromCore, illegalDecimal, mandatoryParam, type Venue } from './errors.js'

/**
 * Binance's legal range for decimal parameters, plus an optional '-' where the caller allows it.
 * At most 20 integer and 20 fraction digits, so a value has at most 40 digits and the string
 * bounds itself; no exponent, no '+', no leading '.', no spaces.
 */
const DECIMAL_SYNTAX = /^(-?)([0-9]{1,20})(?:\.([0-9]{1,20}))?$/

/** Decimal places balances print with, as Binance futures does ("0.00000000"). */
export const BALANCE_DECIMALS = 8

/**
 * decimal.js with room for every value DECIMAL_SYNTAX admits and its products: the default
 * precision (20 significant digits) would round "0.1000000000000000001" silently.
 */
export const ExactDecimal = Decimal.clone({ precision: 100, rounding: Decimal.ROUND_DOWN, toExpNeg: -100, toExpPos: 100 })
export type ExactDecimal = InstanceType<typeof ExactDecimal>

export interface ParseOptions {
  /** Accept a leading '-'. Off by default: a sign where none is allowed is an illegal character. */
  negative?: boolean
}

interface Digits {
  negative: boolean
  int: string
  /** Fraction digits with trailing zeros removed: "1.500" has one significant decimal. */
  frac: string
}

/** Splits a parameter into sign and digits, or throws -1102 (missing/empty) / -1100 (syntax). */
function digitsOf(raw: string | undefined, name: string, opts: ParseOptions): Digits {
  if (raw === undefined || raw === '') throw mandatoryParam(name)
  const m = DECIMAL_SYNTAX.exec(raw)
  if (m === null || (m[1] === '-' && opts.negative !== true)) throw illegalDecimal(name)
  return { negative: m[1] === '-', int: m[2]!, frac: (m[3] ?? '').replace(/0+$/, '') }
}

/**
 * A decimal parameter as an exact count of 10^-decimals units (a signed bigint). More
 * significant decimals than `decimals` is -1111: nothing is ever rounded away.
 */
export function parseUnits(raw: string | undefined, name: string, decimals: number, opts: ParseOptions = {}): bigint {
  assert(Number.isSafeInteger(decimals) && decimals >= 0, 'decimals must be a non-negative integer')
  const d = digitsOf(raw, name, opts)
  if (d.frac.length > decimals) throw badPrecision()
  const units = BigInt(d.int + d.frac.padEnd(decimals, '0'))
  return d.negative ? -units : units
}

/** A decimal parameter that stays a decimal (callbackRate, rates), with at most `maxDecimals`. */
export function parseDecimal(raw: string | undefined, name: string,
  opts: ParseOptions & { maxDecimals?: number } = {}): ExactDecimal {
  const d = digitsOf(raw, name, opts)
  if (opts.maxDecimals !== undefined && d.frac.length > opts.maxDecimals) throw badPrecision()
  return new ExactDecimal(`${d.negative ? '-' : ''}${d.int}.${d.frac || '0'}`)
}

function venueOf(m: Market): Venue {
  return m.kind === 'SPOT' ? 'spot' : 'futures'
}

/**
 * The price filter on an exact price in 10^-pricePrecision units, in the core's order
 * (core/filters.ts checkPrice): not positive, off the tick (above max if beyond it), below
 * min, above max. Returns ticks, a safe integer, or the core's code.
 */
export function priceTicksOf(m: Market, units: bigint): number | Code {
  if (units <= 0n) return 'PRICE_BELOW_ZERO'
  const tick = BigInt(m.tickSize)
  const max = BigInt(m.maxPriceTicks)
  if (units % tick !== 0n) return units > max * tick ? 'PRICE_ABOVE_MAX' : 'PRICE_TICK'
  const ticks = units / tick
  if (ticks < BigInt(m.minPriceTicks)) return 'PRICE_BELOW_MIN'
  if (ticks > max) return 'PRICE_ABOVE_MAX'
  return Number(ticks)
}

/** The quantity filter, as core/filters.ts checkQty: market orders are bounded by marketMaxQty. */
export function qtyLotsOf(m: Market, units: bigint, isMarket: boolean): number | Code {
  if (units <= 0n) return 'QTY_BELOW_ZERO'
  const step = BigInt(m.stepSize)
  const max = BigInt(isMarket ? m.marketMaxQtyLots : m.maxQtyLots)
  if (units % step !== 0n) return units > max * step ? 'QTY_ABOVE_MAX' : 'QTY_STEP'
  const lots = units / step
  if (lots < BigInt(m.minQtyLots)) return 'QTY_BELOW_MIN'
  if (lots > max) return 'QTY_ABOVE_MAX'
  return Number(lots)
}

/**
 * A price parameter as ticks of `m`. Off-tick and out-of-range prices are refused here, with
 * the code the core would return for the same exact value, mapped through fromCore: the core
 * never sees a fractional tick and the log never holds one. Perp prices may carry a '-' (then
 * -4001, Binance's futures form); spot takes Binance's spot syntax, which has no sign.
 */
export function parsePriceTicks(m: Market, raw: string | undefined, name = 'price'): number {
  const units = parseUnits(raw, name, m.pricePrecision, { negative: m.kind === 'PERP' })
  const r = priceTicksOf(m, units)
  if (typeof r === 'string') throw fromCore(r, { venue: venueOf(m), op: 'place' })
  return r
}

/** A quantity parameter as lots of `m`; refused like prices (-4003/-4004/-4005/-4023, spot -1013). */
export function parseQtyLots(m: Market, raw: string | undefined, isMarket: boolean, name = 'quantity'): number {
  const units = parseUnits(raw, name, m.quantityPrecision, { negative: m.kind === 'PERP' })
  const r = qtyLotsOf(m, units, isMarket)
  if (typeof r === 'string') throw fromCore(r, { venue: venueOf(m), op: 'place', marketOrder: isMarket })
  return r
}

/**
 * An amount of an asset in its ledger units. More decimals than the asset's scale is -1111;
 * zero, negative or beyond the ledger bound is the core's AMOUNT_INVALID (-1130 naming it).
 */
export function parseAmount(asset: Asset, raw: string | undefined, name = 'amount'): number {
  const units = parseUnits(raw, name, asset.scale, { negative: true })
  if (units <= 0n || units > BigInt(LIMITS.ledgerAmountMax)) {
    throw fromCore('AMOUNT_INVALID', { venue: 'spot', op: 'wallet', param: name })
  }
  return Number(units)
}

// ---------------------------------------------------------------------------------------------
// Formatting.

/** What prints a market's prices and quantities: a Market, or the copy a page's format carries (pages.ts). */
export type MarketScales = Pick<Market, 'tickSize' | 'stepSize' | 'pricePrecision' | 'quantityPrecision'>

/** What printing a balance or fee reads of the state: assets' ledger scales (State, or a page's copy). */
export interface AssetScales {
  readonly assets: ReadonlyMap<string, { readonly scale: number }>
}

function big(n: number | bigint, what: string): bigint {
  if (typeof n === 'bigint') return n
  if (!Number.isSafeInteger(n)) assert(false, `${what} is not a safe integer: ${n}`)
  return BigInt(n)
}

const pow10 = (n: number): bigint => 10n ** BigInt(n)

// Formatting runs for every row of every answer and stream: in numbers while they are exact (a
// safe integer), half the time of the BigInt form (docs/BENCHMARKS.md, session 46), which takes
// over past 2^53.

/** 10^n as a safe integer, for n up to 15. */
const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i)

/** a × b exactly (b a safe integer): a number while the product is safe, else a bigint. */
function times(a: number | bigint, b: number, what: string): number | bigint {
  if (typeof a === 'bigint') return a * BigInt(b)
  if (!Number.isSafeInteger(a)) assert(false, `${what} is not a safe integer: ${a}`)
  // Two safe integers whose exact product is safe multiply exactly; a product past 2^53 is never safe.
  const p = a * b
  return Number.isSafeInteger(p) ? p : BigInt(a) * BigInt(b)
}

/** `units × 10^-decimals` with exactly `decimals` places: 1234n, 2 → "12.34"; -5n, 3 → "-0.005". */
export function formatUnits(units: number | bigint, decimals: number): string {
  assert(Number.isSafeInteger(decimals) && decimals >= 0, 'decimals must be a non-negative integer')
  let neg: boolean
  let digits: string
  if (typeof units === 'number') {
    if (!Number.isSafeInteger(units)) assert(false, `units is not a safe integer: ${units}`)
    neg = units < 0
    digits = String(neg ? -units : units)
  } else {
    neg = units < 0n
    digits = (neg ? -units : units).toString()
  }
  const abs = digits.padStart(decimals + 1, '0')
  const cut = abs.length - decimals
  return (neg ? '-' : '') + abs.slice(0, cut) + (decimals > 0 ? '.' + abs.slice(cut) : '')
}

/**
 * `units × 10^-unitDecimals` printed with `decimals` places. Padding is free; dropping digits is
 * allowed only when they are zeros (asserted): formatting never rounds.
 */
export function formatExact(units: number | bigint, unitDecimals: number, decimals: number): string {
  const shift = decimals - unitDecimals
  if (typeof units === 'number' && Math.abs(shift) < POW10.length) {
    if (shift >= 0) return formatUnits(times(units, POW10[shift]!, 'units'), decimals)
    const f = POW10[-shift]!
    if (!Number.isSafeInteger(units)) assert(false, `units is not a safe integer: ${units}`)
    if (units % f !== 0) assert(false, `${units}e-${unitDecimals} does not fit ${decimals} decimals`)
    return formatUnits(units / f, decimals)
  }
  const u = big(units, 'units')
  if (shift >= 0) return formatUnits(u * pow10(shift), decimals)
  const f = pow10(-shift)
  if (u % f !== 0n) assert(false, `${u}e-${unitDecimals} does not fit ${decimals} decimals`)
  return formatUnits(u / f, decimals)
}

/** Ticks of `m` as a price string with pricePrecision decimals. */
export function formatPrice(m: MarketScales, ticks: number | bigint): string {
  return formatUnits(times(ticks, m.tickSize, 'ticks'), m.pricePrecision)
}

/** Lots of `m` as a quantity string with quantityPrecision decimals. */
export function formatQty(m: MarketScales, lots: number | bigint): string {
  return formatUnits(times(lots, m.stepSize, 'lots'), m.quantityPrecision)
}

/** Ledger units of an asset with `scale`, printed with `decimals` places (default: the scale). */
export function formatLedger(units: number | bigint, scale: number, decimals = scale): string {
  return formatExact(units, scale, decimals)
}

/** A balance as Binance futures prints them: 8 decimals, or the scale when that is finer. */
export function formatBalance(units: number | bigint, scale: number): string {
  return formatExact(units, scale, Math.max(BALANCE_DECIMALS, scale))
}

/**
 * A tick·lot notional (priceTicks × qtyLots, e.g. cumQuote) as a quote string. A tick·lot is
 * exactly tickSize × stepSize × 10^-(pricePrecision + quantityPrecision), so that many decimals
 * is the natural, exact width; fewer only when the dropped digits are zeros.
 */
export function formatNotional(m: MarketScales, tickLots: number | bigint, decimals = m.pricePrecision + m.quantityPrecision): string {
  const units = times(times(tickLots, m.tickSize, 'tickLots'), m.stepSize, 'tickLots')
  return formatExact(units, m.pricePrecision + m.quantityPrecision, decimals)
}

/** Drops trailing fraction zeros and a bare point: "100.000000" → "100", "5.50" → "5.5". */
export function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s
}

/** MIN_NOTIONAL as exchangeInfo and the -4164 text print it: the quote amount, no padding. */
export function formatMinNotional(m: Market, quoteScale: number): string {
  return trimZeros(formatLedger(m.minNotional, quoteScale))
}

export type Rounding = 'DOWN' | 'UP' | 'HALF_UP'

/** num / den (bigints, den > 0) rounded to an integer: DOWN toward zero, UP away, HALF_UP half away. */
export function divRound(num: bigint, den: bigint, rounding: Rounding): bigint {
  assert(den > 0n, 'division by a non-positive denominator')
  const neg = num < 0n
  const a = neg ? -num : num
  let q = a / den
  const r = a % den
  if (r !== 0n && (rounding === 'UP' || (rounding === 'HALF_UP' && 2n * r >= den))) q += 1n
  return neg ? -q : q
}

/**
 * `num / den × 10^-unitDecimals` with `decimals` places, rounded as the caller names: for
 * quotients that are not exact by nature, such as an average fill price.
 */
export function formatRatio(num: number | bigint, den: number | bigint, unitDecimals: number,
  decimals: number, rounding: Rounding): string {
  const n = big(num, 'numerator')
  const d = big(den, 'denominator')
  const q = decimals >= unitDecimals
    ? divRound(n * pow10(decimals - unitDecimals), d, rounding)
    : divRound(n, d * pow10(unitDecimals - decimals), rounding)
  return formatUnits(q, decimals)
}

/**
 * An order's average fill price from its tick·lot notional and filled lots, half-up to
 * `decimals` (default pricePrecision); "0" at that width when nothing filled.
 */
export function formatAvgPrice(m: MarketScales, cumTickLots: number | bigint, executedLots: number | bigint,
  decimals = m.pricePrecision): string {
  const lots = big(executedLots, 'executedLots')
  if (lots === 0n) return formatUnits(0n, decimals)
  return formatRatio(big(cumTickLots, 'cumTickLots') * BigInt(m.tickSize), lots, m.pricePrecision, decimals, 'HALF_UP')
}
