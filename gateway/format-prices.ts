// Bodies of the mark-, index- and premium-index kline, funding-settings and insurance-fund endpoints.
// The funding settings are the market's own (core/prices.ts); the insurance fund is the
// core's, one per quote asset (core/liquidation/insurance.ts). Each body says only what the
// state holds.

import type { PerpMarket, State } from '../core/state.js'
import type { FundingRateRecord, KlineRecord, PriceKind, PriceKlineRecord } from '../replica/projections/index.js'
import { formatLedger, trimZeros, type MarketScales } from './decimal.js'
import { markPrice, priceE8, rateE8 } from './format-market.js'

const HOUR_MS = 60 * 60 * 1000

/**
 * A mark or index price kline. Mark moves only with trades, so a trade kline's prices are the
 * mark's over the same interval, and its trade count is how many mark samples it took
 * (Binance's "number of basic data"). The volume fields are "0", as Binance prints them.
 * Intervals without a trade have no row: the trade projection keeps none for them.
 */
export function priceKlineBody(m: MarketScales, k: KlineRecord): (number | string)[] {
  return [
    k.openTime, markPrice(m, k.openPriceTicks), markPrice(m, k.highPriceTicks), markPrice(m, k.lowPriceTicks),
    markPrice(m, k.closePriceTicks), '0', k.closeTime, '0', k.count, '0', '0', '0',
  ]
}

/** A kline of sampled mark (ticks), index (E8) or premium index (E8) values; count is the samples it took. */
export function sampledPriceKlineBody(m: MarketScales, kind: PriceKind, k: PriceKlineRecord): (number | string)[] {
  const f = (n: number): string => kind === 'mark' ? markPrice(m, n) : kind === 'index' ? priceE8(m, n) : rateE8(n)
  return [k.openTime, f(k.open), f(k.high), f(k.low), f(k.close), '0', k.closeTime, '0', k.count, '0', '0', '0']
}

export interface FundingInfoBody {
  symbol: string
  adjustedFundingRateCap: string
  adjustedFundingRateFloor: string
  fundingIntervalHours: number
  disclaimer: boolean
}

/** Funding settings of one perpetual, from its market parameters (genesis). */
export function fundingInfoBody(m: PerpMarket): FundingInfoBody {
  return {
    symbol: m.symbol, adjustedFundingRateCap: rateE8(m.prices.fundingCapE8), adjustedFundingRateFloor: rateE8(m.prices.fundingFloorE8),
    fundingIntervalHours: m.prices.fundingIntervalMs / HOUR_MS, disclaimer: false,
  }
}

export interface FundingRateBody {
  symbol: string
  fundingRate: string
  fundingTime: number
  markPrice: string
}

/**
 * /fapi/v1/fundingRate over one market or all: each market's rows by the time-range rule,
 * merged by time (then market), and cut to `limit` from the end the rule starts at (the
 * oldest with a startTime, else the newest).
 */
export async function fundingRateBodies(markets: PerpMarket[], q: { startTime?: number | undefined; limit: number },
  rows: (m: PerpMarket) => Promise<FundingRateRecord[]>): Promise<FundingRateBody[]> {
  const all: { m: PerpMarket; r: FundingRateRecord }[] = []
  for (const m of markets) for (const r of await rows(m)) all.push({ m, r })
  all.sort((a, b) => a.r.fundingTime - b.r.fundingTime || a.m.marketId - b.m.marketId)
  const cut = q.startTime !== undefined ? all.slice(0, q.limit) : all.slice(Math.max(0, all.length - q.limit))
  return cut.map(({ m, r }) => ({
    symbol: m.symbol, fundingRate: rateE8(r.fundingRateE8), fundingTime: r.fundingTime, markPrice: markPrice(m, r.markPriceTicks),
  }))
}

export interface InsuranceBody {
  symbols: string[]
  assets: { asset: string; marginBalance: string; updateTime: number }[]
}

/**
 * One insurance fund per margin (quote) asset, covering every perpetual margined in it, in
 * market order. updateTime: a fund that never held anything is unchanged since the first of
 * its markets was listed, which is the time given; otherwise the time of the state read (the
 * core keeps no time of the last change).
 */
export function insuranceBodies(state: State, perps: PerpMarket[]): InsuranceBody[] {
  const funds = new Map<string, { symbols: string[]; since: number }>()
  for (const m of perps) {
    const fund = funds.get(m.quote)
    if (fund === undefined) funds.set(m.quote, { symbols: [m.symbol], since: m.onboardDate })
    else fund.symbols.push(m.symbol)
  }
  return [...funds].map(([asset, fund]) => ({
    symbols: fund.symbols,
    assets: [{
      asset, marginBalance: trimZeros(formatLedger(state.insurance.get(asset) ?? 0, state.assets.get(asset)?.scale ?? 0)),
      updateTime: state.insurance.has(asset) ? state.time : fund.since,
    }],
  }))
}

/**
 * Binance's ADL risk rating of a perpetual, by a rule of this exchange: how much of the
 * market's open interest (valued at the mark) its margin asset's insurance fund could cover.
 * A shortfall the fund cannot pay is auto-deleveraged, so under 0.1 % is HIGH, under 1 %
 * MEDIUM, else LOW; a market with no open interest has nothing to deleverage (LOW).
 */
export function adlRisk(state: State, m: PerpMarket): 'LOW' | 'MEDIUM' | 'HIGH' {
  const exposure = BigInt(m.openInterestLots) * BigInt(m.markPriceTicks) * BigInt(m.quotePerTickLot)
  if (exposure === 0n) return 'LOW'
  const fund = BigInt(state.insurance.get(m.quote) ?? 0)
  return fund * 1000n < exposure ? 'HIGH' : fund * 100n < exposure ? 'MEDIUM' : 'LOW'
}
