// Exact integer arithmetic on JS numbers with named rounding. Every value is a safe
// integer; a product that could leave the safe range is done in bigint.

import { assert, assertSafe } from './assert.js'

const MAX = Number.MAX_SAFE_INTEGER

/**
 * floor(a / b) for safe integers a and b > 0. Exact: for |a| < 2^53 the rounding error of
 * a / b is below |a / b| · 2^-53 < 1 / b, the least distance from a non-integer quotient to
 * an integer, so the float quotient never crosses the integer the exact one lies beside.
 */
export function floorDiv(a: number, b: number): number {
  if (!(b > 0)) assert(false, 'divisor must be positive')
  return Math.floor(a / b)
}

/** ceil(a / b) for safe integers, b > 0. */
export function ceilDiv(a: number, b: number): number {
  const q = floorDiv(a, b)
  return q * b === a ? q : q + 1
}

/**
 * a + b, exact: a number while the sum is safe, a bigint from there on. For sums that outgrow
 * 2^53 and must stay exact (a market's traded volume in tick·lots), without paying for bigints
 * while they are small.
 */
export function addExact(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + b
    if (s <= MAX && s >= -MAX) return s
  }
  return BigInt(a) + BigInt(b)
}

/** a * b, asserted exact. */
export function mul(a: number, b: number): number {
  const p = a * b
  return assertSafe(p, 'product')
}

/** floor(a * b / d), exact for any safe a, b and d > 0 whose result is safe. */
export function mulDivFloor(a: number, b: number, d: number): number {
  const p = a * b
  if (p <= MAX && p >= -MAX) return floorDiv(p, d)
  const big = BigInt(a) * BigInt(b)
  const bd = BigInt(d)
  let q = big / bd
  if (big % bd !== 0n && big < 0n) q -= 1n
  return assertSafe(Number(q), 'mulDivFloor')
}

/** ceil(a * b / d). */
export function mulDivCeil(a: number, b: number, d: number): number {
  return -mulDivFloor(-a, b, d)
}

export function min(a: number, b: number): number { return a < b ? a : b }
export function max(a: number, b: number): number { return a > b ? a : b }
export function abs(a: number): number { return a < 0 ? -a : a }
