// Maintenance margin of a notional in plain numbers, for the liquidation checks that run after
// every trade: the same ceil((N × mmr − cum) / 1e6) as `maintenanceMargin` (core/margin.ts),
// but with N split as q × 1e6 + r and cum as cq × 1e6 + cr, so every product stays below
// 2^53 and no bigint is made. A test checks it equals `maintenanceMargin` across the range.

import { ceilDiv } from '../arith.js'
import type { PerpMarket } from '../state.js'

const PPM = 1_000_000

interface Table {
  caps: number[]
  mmrPpm: number[]
  /** cum of each bracket (ppm × ledger units) as cumHigh × 1e6 + cumLow. */
  cumHigh: number[]
  cumLow: number[]
}

/** Kept on the market object itself (non-enumerable: snapshots and the root never see it). */
const TABLE = Symbol('maintenance table')
type Tabled = PerpMarket & { [TABLE]?: Table }

function tableOf(m: PerpMarket): Table {
  let t = (m as Tabled)[TABLE]
  if (t !== undefined) return t
  t = { caps: [], mmrPpm: [], cumHigh: [], cumLow: [] }
  let cum = 0n
  let prevCap = 0n
  let prevMmr = 0n
  for (const b of m.brackets) {
    const mmr = BigInt(b.mmrPpm)
    cum += prevCap * (mmr - prevMmr)
    t.caps.push(b.notionalCap)
    t.mmrPpm.push(b.mmrPpm)
    t.cumHigh.push(Number(cum / 1_000_000n))
    t.cumLow.push(Number(cum % 1_000_000n))
    prevCap = BigInt(b.notionalCap)
    prevMmr = mmr
  }
  Object.defineProperty(m, TABLE, { value: t, enumerable: false, writable: false, configurable: true })
  return t
}

/** ceil((N × mmr − cum) / 1e6), at least 0, for a notional N (ledger units, 0 ≤ N ≤ 2^52). */
export function fastMaintenance(m: PerpMarket, notional: number): number {
  const t = tableOf(m)
  let i = 0
  while (i < t.caps.length - 1 && notional > t.caps[i]!) i++
  const mmr = t.mmrPpm[i]!
  const q = Math.floor(notional / PPM)
  const r = notional - q * PPM
  // q × mmr ≤ 2^52 / 1e6 × 1e6; r × mmr < 1e12: both exact.
  const high = q * mmr - t.cumHigh[i]!
  const low = r * mmr - t.cumLow[i]!
  const x = high + ceilDiv(low, PPM)
  return x > 0 ? x : 0
}

/**
 * ceil(1.25 × the highest maintenance rate of the brackets a notional up to `notional` (ledger
 * units) falls in), ppm: maintenance is continuous in the notional (the cum terms) and on
 * [0, notional] rises no faster than that rate, so 1.25 × maintenance no faster than this.
 */
export function warningRate(m: PerpMarket, notional: number): number {
  const t = tableOf(m)
  let top = 0
  for (let i = 0; i < t.caps.length; i++) {
    if (t.mmrPpm[i]! > top) top = t.mmrPpm[i]!
    if (notional <= t.caps[i]!) break
  }
  return Math.ceil((5 * top) / 4)
}

/** ceil(grown × rate / 1e6) for a notional growth (ledger units, ≥ 0); Infinity past 2^52. */
export function warningRise(rate: number, grown: number): number {
  if (grown > 2 ** 52) return Infinity
  const q = Math.floor(grown / PPM)
  return q * rate + ceilDiv((grown - q * PPM) * rate, PPM)
}
