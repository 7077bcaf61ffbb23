// The mark's conversions (core/prices.ts) work in plain numbers while every intermediate is a
// safe integer and in bigint beyond: checked here against the bigint formulas themselves on
// random and edge values, for each tick size and precision a market may have.

import t from 'tap'
import { mulDivFloor } from '../../core/arith.js'
import { e8ToTicks, ticksToE8 } from '../../core/prices.js'
import type { PerpMarket } from '../../core/state.js'

const E8 = 100_000_000n

function refTicksToE8(tickSize: number, precision: number, ticks: number): number {
  return Number((BigInt(ticks) * BigInt(tickSize) * E8) / 10n ** BigInt(precision))
}

function refE8ToTicks(tickSize: number, precision: number, e8: number): number {
  const num = BigInt(e8) * 10n ** BigInt(precision)
  const den = BigInt(tickSize) * E8
  return Math.max(1, Number((2n * num + den) / (2n * den)))
}

function refMulDiv(a: number, b: number, d: number): number {
  const p = BigInt(a) * BigInt(b)
  const bd = BigInt(d)
  let q = p / bd
  if (p % bd !== 0n && p < 0n) q -= 1n
  return Number(q)
}

function rng(seed: number): () => number {
  let x = seed
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648
    return x / 2147483648
  }
}

t.test('ticks ↔ E8 and floor(a × b / d) agree with bigint, across the safe range and beyond', async (t) => {
  const r = rng(7)
  const big = (): number => Math.floor(r() * 2 ** (1 + Math.floor(r() * 60)))
  let mismatches = 0
  let checked = 0
  let unsafe = 0
  for (const [tickSize, precision] of [[1, 1], [1, 2], [5, 1], [25, 3], [1, 8], [3, 10], [7, 12], [1, 0], [50, 0]] as const) {
    const m = { tickSize, pricePrecision: precision } as PerpMarket
    for (let i = 0; i < 3_000; i++) {
      const ticks = Math.min(Number.MAX_SAFE_INTEGER, big())
      const e8 = Math.min(Number.MAX_SAFE_INTEGER, big()) * (r() < 0.1 ? -1 : 1)
      if (ticksToE8(m, ticks) !== refTicksToE8(tickSize, precision, ticks)) mismatches++
      if (e8ToTicks(m, e8) !== refE8ToTicks(tickSize, precision, e8)) mismatches++
      checked += 2
    }
  }
  for (let i = 0; i < 20_000; i++) {
    const a = Math.min(Number.MAX_SAFE_INTEGER, big()) * (r() < 0.3 ? -1 : 1)
    const b = Math.min(Number.MAX_SAFE_INTEGER, big()) * (r() < 0.3 ? -1 : 1)
    const d = Math.max(1, Math.min(Number.MAX_SAFE_INTEGER, big()))
    if (!Number.isSafeInteger(refMulDiv(a, b, d))) {
      // A quotient past the safe range is refused, never rounded.
      try { mulDivFloor(a, b, d); mismatches++ } catch { unsafe++ }
    } else if (mulDivFloor(a, b, d) !== refMulDiv(a, b, d)) mismatches++
    checked += 1
  }
  // Exact quotients and their neighbours, where a float quotient would round the wrong way first.
  for (const [a, b, d] of [[2 ** 52, 3, 3], [2 ** 52 - 1, 1, 3], [-(2 ** 52) + 1, 1, 3], [9_007_199_254_740_991, 1, 9_007_199_254_740_990],
    [-7, 1, 2], [7, -1, 2], [0, 5, 7]] as const) {
    if (mulDivFloor(a, b, d) !== refMulDiv(a, b, d)) mismatches++
  }
  t.equal(mismatches, 0, `${checked} conversions`)
  t.ok(unsafe > 0, `${unsafe} quotients past the safe range refused`)
  t.equal(e8ToTicks({ tickSize: 1, pricePrecision: 1 } as PerpMarket, 3_001_005_000_000), 300_101, '30010.05 rounds half up to 30010.1')
  t.equal(ticksToE8({ tickSize: 1, pricePrecision: 1 } as PerpMarket, 300_101), 3_001_010_000_000)
})
