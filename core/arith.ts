// Exact integer arithmetic on JS numbers with named rounding. Every value is a safe
// integer; a product that could leave the safe range is done in bigint.

import { assert, assertSafe } from './assert.js'

const MAX = Number.MAX_SAFE_INTEGER

/** floor(a / b) for safe integers, b > 0, exact (float division corrected by its remainder). */
export function floorDiv(a: number, b: number): number {
  assert(b > 0, 'divisor must be positive')
  let q = Math.floor(a / b)
  let r = a - q * b
  while (r < 0) { q -= 1; r += b }
  while (r >= b) { q += 1; r -= b }
  return q
}

/** ceil(a / b) for safe integers, b > 0. */
export function ceilDiv(a: number, b: number): number {
  const q = floorDiv(a, b)
  return q * b === a ? q : q + 1
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
