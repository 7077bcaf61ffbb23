// Bodies of the mark-price, index-price, funding-settings and insurance-fund endpoints, until
// the prices issue lands: mark is the last trade price (the core's markPriceTicks moves with
// every trade), index equals mark, and the core keeps no insurance fund yet, so its balance
// is zero. Each body says only what the state holds.

import type { PerpMarket, State } from '../core/state.js'
import type { KlineRecord } from '../replica/projections/index.js'
import { formatLedger, trimZeros } from './decimal.js'
import { FUNDING_INTERVAL_MS, markPrice } from './format-market.js'

const HOUR_MS = 60 * 60 * 1000
/** The funding rate clamp every perpetual prints until markets carry their own (±2 %). */
const FUNDING_RATE_CAP = '0.02000000'
const FUNDING_RATE_FLOOR = '-0.02000000'

/**
 * A mark or index price kline. Mark moves only with trades, so a trade kline's prices are the
 * mark's over the same interval, and its trade count is how many mark samples it took
 * (Binance's "number of basic data"). The volume fields are "0", as Binance prints them.
 * Intervals without a trade have no row: the trade projection keeps none for them.
 */
export function priceKlineBody(m: PerpMarket, k: KlineRecord): (number | string)[] {
  return [
    k.openTime, markPrice(m, k.openPriceTicks), markPrice(m, k.highPriceTicks), markPrice(m, k.lowPriceTicks),
    markPrice(m, k.closePriceTicks), '0', k.closeTime, '0', k.count, '0', '0', '0',
  ]
}

export interface FundingInfoBody {
  symbol: string
  adjustedFundingRateCap: string
  adjustedFundingRateFloor: string
  fundingIntervalHours: number
  disclaimer: boolean
}

/** Funding settings of one perpetual: the default clamp and the 8 h interval nextFundingTime uses. */
export function fundingInfoBody(m: PerpMarket): FundingInfoBody {
  return {
    symbol: m.symbol, adjustedFundingRateCap: FUNDING_RATE_CAP, adjustedFundingRateFloor: FUNDING_RATE_FLOOR,
    fundingIntervalHours: FUNDING_INTERVAL_MS / HOUR_MS, disclaimer: false,
  }
}

export interface InsuranceBody {
  symbols: string[]
  assets: { asset: string; marginBalance: string; updateTime: number }[]
}

/**
 * One insurance fund per margin (quote) asset, covering every perpetual margined in it, in
 * market order. The core holds no fund yet: the balance is zero, unchanged since the first of
 * its markets was listed, which is the time given.
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
    assets: [{ asset, marginBalance: trimZeros(formatLedger(0, state.assets.get(asset)?.scale ?? 0)), updateTime: fund.since }],
  }))
}
