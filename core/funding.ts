// Funding: the rate of an interval from its premium samples, and settlement when a Tick's
// time crosses the interval boundary. Every position pays or receives notional at the mark ×
// rate, longs paying when the rate is positive; an isolated position from its own wallet. Payers are charged rounded up and receivers
// paid rounded down, so the payers' total covers the receivers' exactly and the remainder
// (under one ledger unit per position) goes to the exchange's fees: money is conserved.

import { abs, max, min } from './arith.js'
import type { Event, FundingEvent } from './events.js'
import { averagePremiumE8, boundaryAfter, E8, HOUR_MS } from './prices.js'
import type { PerpHolding, PerpMarket, State, SubAccount } from './state.js'
import { addFee } from './state.js'

/** 0.01 % per 8 h (API.md), E8. */
export const INTEREST_E8 = 10_000
/** The clamp of (interest − premium): ±0.05 %, E8. */
export const INTEREST_CLAMP_E8 = 50_000
const EIGHT_HOURS_MS = 8 * HOUR_MS

/** Division rounding toward zero, so a rate's sign never flips its rounding. */
function truncDiv(a: bigint, d: bigint): bigint {
  return a / d
}

/**
 * The funding rate for an average premium, E8: (P + clamp(I − P, ±0.05 %)) × interval / 8 h,
 * clamped to the market's cap and floor.
 */
export function fundingRateE8(avgPremiumE8: number, intervalMs: number, capE8: number, floorE8: number): number {
  const p = avgPremiumE8
  const raw = p + max(-INTEREST_CLAMP_E8, min(INTEREST_CLAMP_E8, INTEREST_E8 - p))
  const scaled = Number(truncDiv(BigInt(raw) * BigInt(intervalMs), BigInt(EIGHT_HOURS_MS)))
  return max(floorE8, min(capE8, scaled))
}

/** The rate the next boundary would settle at, from the samples so far. */
export function estimatedFundingRateE8(m: PerpMarket): number {
  const p = m.prices
  return fundingRateE8(averagePremiumE8(p), p.fundingIntervalMs, p.fundingCapE8, p.fundingFloorE8)
}

/**
 * One position's payment, ledger units, signed for the holder: −ceil(x) when it pays,
 * +floor(x) when it receives, x = |qty| × mark × quotePerTickLot × |rate| / 1e8.
 */
export function fundingPayment(qtyLots: number, markTicks: number, quotePerTickLot: number, rateE8: number): number {
  if (qtyLots === 0 || rateE8 === 0) return 0
  const x = BigInt(abs(qtyLots)) * BigInt(markTicks) * BigInt(quotePerTickLot) * BigInt(abs(rateE8))
  const pays = (qtyLots > 0) === (rateE8 > 0)
  const e8 = BigInt(E8)
  return pays ? -Number((x + e8 - 1n) / e8) : Number(x / e8)
}

interface HoldingPayment {
  amount: number
  paid: number
  received: number
  /** What went to (or came from) isolated wallets, per position; undefined for a cross holding. */
  isolated: FundingEvent['isolated']
}

/**
 * Pays one holding's positions: a cross position from the perp wallet, an isolated one from
 * its own isolated wallet (core/isolated.ts).
 */
function payHolding(m: PerpMarket, sub: SubAccount, h: PerpHolding, rateE8: number): HoldingPayment {
  let paid = 0
  let received = 0
  const isolated = h.marginType === 'ISOLATED' ? [] as NonNullable<FundingEvent['isolated']> : undefined
  for (const [side, p] of [['BOTH', h.both], ['LONG', h.long], ['SHORT', h.short]] as const) {
    const a = fundingPayment(p.qtyLots, m.markPriceTicks, m.quotePerTickLot, rateE8)
    if (a === 0) continue
    if (a < 0) paid -= a
    else received += a
    if (isolated) {
      p.isolatedWallet += a
      isolated.push({ positionSide: side, amount: a, isolatedWallet: p.isolatedWallet, qtyLots: p.qtyLots,
        costTicksLots: p.costTicksLots })
    } else {
      sub.perpWallet += a
    }
  }
  return { amount: received - paid, paid, received, isolated }
}

/**
 * Settles the interval ending at the market's nextFundingTime (the Tick at `time` reached
 * it): computes the rate, moves the payments between perp wallets in account order, and
 * starts the next interval. A Tick that skipped whole intervals (a stopped sequencer)
 * settles once, at the boundary it found due.
 */
export function settleFunding(state: State, m: PerpMarket, time: number, events: Event[]): void {
  const p = m.prices
  const rate = estimatedFundingRateE8(m)
  const fundingTime = p.nextFundingTime
  let paid = 0
  let received = 0
  if (rate !== 0 && m.markPriceTicks > 0) {
    for (const account of state.accounts.values()) {
      for (const sub of account.subs) {
        const h = sub?.perp.get(m.marketId)
        if (sub === undefined || h === undefined) continue
        const r = payHolding(m, sub, h, rate)
        if (r.paid === 0 && r.received === 0) continue
        paid += r.paid
        received += r.received
        events.push({
          type: 'funding', account: sub.address, sub: sub.sub, marketId: m.marketId, amount: r.amount, wallet: sub.perpWallet,
          fundingRateE8: rate, markPriceTicks: m.markPriceTicks, positionQtyLots: h.both.qtyLots + h.long.qtyLots + h.short.qtyLots,
          fundingTime, time, ...(r.isolated ? { isolated: r.isolated } : {}),
        })
      }
    }
  }
  if (paid !== received) addFee(state.fees, m.quote, paid - received)
  events.push({ type: 'fundingRate', marketId: m.marketId, fundingRateE8: rate, fundingTime, markPriceTicks: m.markPriceTicks,
    paid, received, time })
  p.lastFundingRateE8 = rate
  p.nextFundingTime = boundaryAfter(time, p.fundingIntervalMs)
  p.premiumWeightedE8 = 0
  p.premiumWeights = 0
  p.premiumSamples = 0
}
