// Genesis written by people, in decimal strings, turned into the integer commands the core
// applies. This is an edge (run once per log), so decimal.js is the right tool here.

import { Decimal } from 'decimal.js'
import type { Command, CreateAsset, CreatePerpMarket, CreateSpotMarket } from './commands.js'

export interface AssetSpec {
  asset: string
  /** Decimal places of the ledger. */
  scale: number
}

export interface MarketSpec {
  marketId: number
  base: string
  quote: string
  tickSize: string
  stepSize: string
  minPrice: string
  maxPrice: string
  minQty: string
  maxQty: string
  marketMaxQty: string
  minNotional: string
  makerFee: string
  takerFee: string
}

export interface BracketSpec {
  notionalCap: string
  maxLeverage: number
  maintMarginRatio: string
}

export interface PerpMarketSpec extends MarketSpec {
  brackets: BracketSpec[]
  defaultLeverage: number
  /**
   * Quote notional the impact bid and ask fill (premium index). Binance's impact margin
   * notional: 200 USDT / the initial margin rate at the highest leverage, 200 × 125 = 25,000
   * for BTC. Default: that rule.
   */
  impactNotional?: string
  /** Funding rate cap and floor, e.g. "0.003". Default ±0.75 × the first bracket's mmr (Binance's rule). */
  fundingCap?: string
  fundingFloor?: string
  /** Default 8. */
  fundingIntervalHours?: number
  /** Liquidation clearance fee, e.g. "0.0125" (the default, Binance's liquidationFee). */
  liquidationFee?: string
  /** priceProtect's threshold of |mark − last| / mark, e.g. "0.05" (the default, Binance's triggerProtect). */
  triggerProtect?: string
  /** PERCENT_PRICE around the mark, e.g. "0.05" (the default: multipliers 1.05 / 0.95); "0" turns it off. */
  percentPrice?: string
  /** marketTakeBound around the mark, e.g. "0.05" (the default); "0" turns it off. */
  marketTakeBound?: string
}

export interface SpotMarketSpec extends MarketSpec {
  /**
   * Binance spot's Price Range execution rule: a BUY trades only between bidDown and bidUp times
   * the reference price (the mean trade price of the last five minutes), a SELL between askDown
   * and askUp; four decimals, e.g. "1.1500". Absent: none.
   */
  priceRange?: { bidUp: string; bidDown: string; askUp: string; askDown: string }
}

export interface GenesisSpec {
  assets: AssetSpec[]
  perpMarkets: PerpMarketSpec[]
  spotMarkets: SpotMarketSpec[]
}

function decimals(step: string): number {
  return Math.max(0, new Decimal(step).decimalPlaces())
}

/** `value / unit` as an exact integer; throws when it is not one. */
function units(value: string, unit: string, what: string): number {
  const q = new Decimal(value).div(unit)
  if (!q.isInteger()) throw new Error(`${what} ${value} is not a multiple of ${unit}`)
  return q.toNumber()
}

function ppm(rate: string): number {
  return units(rate, '0.000001', 'rate')
}

function marketFields(s: MarketSpec, scales: Map<string, number>): Omit<CreateSpotMarket, 'type'> {
  const quoteScale = scales.get(s.quote)
  if (quoteScale === undefined || !scales.has(s.base)) throw new Error(`market ${s.base}${s.quote}: unknown asset`)
  const pricePrecision = decimals(s.tickSize)
  const quantityPrecision = decimals(s.stepSize)
  return {
    marketId: s.marketId,
    symbol: s.base + s.quote,
    base: s.base,
    quote: s.quote,
    pricePrecision,
    quantityPrecision,
    tickSize: units(s.tickSize, new Decimal(10).pow(-pricePrecision).toString(), 'tickSize'),
    stepSize: units(s.stepSize, new Decimal(10).pow(-quantityPrecision).toString(), 'stepSize'),
    minPriceTicks: units(s.minPrice, s.tickSize, 'minPrice'),
    maxPriceTicks: units(s.maxPrice, s.tickSize, 'maxPrice'),
    minQtyLots: units(s.minQty, s.stepSize, 'minQty'),
    maxQtyLots: units(s.maxQty, s.stepSize, 'maxQty'),
    marketMaxQtyLots: units(s.marketMaxQty, s.stepSize, 'marketMaxQty'),
    minNotional: units(s.minNotional, new Decimal(10).pow(-quoteScale).toString(), 'minNotional'),
    makerFeePpm: ppm(s.makerFee),
    takerFeePpm: ppm(s.takerFee),
  }
}

export function genesisCommands(spec: GenesisSpec): Command[] {
  const scales = new Map(spec.assets.map((a) => [a.asset, a.scale]))
  const out: Command[] = spec.assets.map((a): CreateAsset => ({ type: 'CreateAsset', asset: a.asset, scale: a.scale }))
  for (const p of spec.perpMarkets) {
    const fields = marketFields(p, scales)
    const quoteUnit = new Decimal(10).pow(-scales.get(p.quote)!).toString()
    const cmd: CreatePerpMarket = {
      type: 'CreatePerpMarket', ...fields, symbol: fields.symbol + 'PERP', pair: fields.symbol,
      brackets: p.brackets.map((b) => ({
        notionalCap: units(b.notionalCap, quoteUnit, 'notionalCap'),
        maxLeverage: b.maxLeverage,
        mmrPpm: ppm(b.maintMarginRatio),
      })),
      defaultLeverage: p.defaultLeverage,
    }
    if (p.impactNotional !== undefined) cmd.impactNotional = units(p.impactNotional, quoteUnit, 'impactNotional')
    if (p.fundingCap !== undefined) cmd.fundingCapE8 = units(p.fundingCap, '0.00000001', 'fundingCap')
    if (p.fundingFloor !== undefined) cmd.fundingFloorE8 = units(p.fundingFloor, '0.00000001', 'fundingFloor')
    if (p.fundingIntervalHours !== undefined) cmd.fundingIntervalMs = p.fundingIntervalHours * 3_600_000
    if (p.liquidationFee !== undefined) cmd.liquidationFeePpm = ppm(p.liquidationFee)
    if (p.triggerProtect !== undefined) cmd.triggerProtectPpm = ppm(p.triggerProtect)
    if (p.percentPrice !== undefined) cmd.percentPricePpm = ppm(p.percentPrice)
    if (p.marketTakeBound !== undefined) cmd.marketTakeBoundPpm = ppm(p.marketTakeBound)
    out.push(cmd)
  }
  for (const s of spec.spotMarkets) {
    const cmd: CreateSpotMarket = { type: 'CreateSpotMarket', ...marketFields(s, scales) }
    const r = s.priceRange
    if (r !== undefined) {
      const e4 = (v: string): number => units(v, '0.0001', 'priceRange multiplier')
      cmd.priceRange = { bidUpE4: e4(r.bidUp), bidDownE4: e4(r.bidDown), askUpE4: e4(r.askUp), askDownE4: e4(r.askDown) }
    }
    out.push(cmd)
  }
  return out
}

const BTC_BRACKETS: BracketSpec[] = [
  { notionalCap: '50000', maxLeverage: 125, maintMarginRatio: '0.004' },
  { notionalCap: '600000', maxLeverage: 100, maintMarginRatio: '0.005' },
  { notionalCap: '3000000', maxLeverage: 75, maintMarginRatio: '0.0065' },
  { notionalCap: '12000000', maxLeverage: 50, maintMarginRatio: '0.01' },
  { notionalCap: '70000000', maxLeverage: 25, maintMarginRatio: '0.02' },
  { notionalCap: '100000000', maxLeverage: 20, maintMarginRatio: '0.025' },
  { notionalCap: '230000000', maxLeverage: 10, maintMarginRatio: '0.05' },
  { notionalCap: '480000000', maxLeverage: 5, maintMarginRatio: '0.1' },
  { notionalCap: '600000000', maxLeverage: 4, maintMarginRatio: '0.125' },
  { notionalCap: '800000000', maxLeverage: 3, maintMarginRatio: '0.15' },
  { notionalCap: '1200000000', maxLeverage: 2, maintMarginRatio: '0.25' },
  { notionalCap: '1800000000', maxLeverage: 1, maintMarginRatio: '0.5' },
]

const ETH_BRACKETS: BracketSpec[] = [
  { notionalCap: '50000', maxLeverage: 100, maintMarginRatio: '0.005' },
  { notionalCap: '600000', maxLeverage: 75, maintMarginRatio: '0.0065' },
  { notionalCap: '3000000', maxLeverage: 50, maintMarginRatio: '0.01' },
  { notionalCap: '12000000', maxLeverage: 25, maintMarginRatio: '0.02' },
  { notionalCap: '50000000', maxLeverage: 10, maintMarginRatio: '0.05' },
  { notionalCap: '100000000', maxLeverage: 5, maintMarginRatio: '0.1' },
  { notionalCap: '300000000', maxLeverage: 2, maintMarginRatio: '0.25' },
  { notionalCap: '800000000', maxLeverage: 1, maintMarginRatio: '0.5' },
]

/** The default spot markets' Price Range rule: trades within 5× and a fifth of the reference price. */
const SPOT_PRICE_RANGE = { bidUp: '5.0000', bidDown: '0.2000', askUp: '5.0000', askDown: '0.2000' }

/** The embedded default: USDT-margined BTC and ETH perpetuals and their spot markets. */
export const DEFAULT_GENESIS: GenesisSpec = {
  assets: [
    { asset: 'USDT', scale: 6 },
    { asset: 'BTC', scale: 8 },
    { asset: 'ETH', scale: 8 },
  ],
  perpMarkets: [
    { marketId: 1, base: 'BTC', quote: 'USDT', tickSize: '0.1', stepSize: '0.001', minPrice: '100', maxPrice: '1000000',
      minQty: '0.001', maxQty: '1000', marketMaxQty: '120', minNotional: '100', makerFee: '0.0002', takerFee: '0.0005',
      brackets: BTC_BRACKETS, defaultLeverage: 20,
      impactNotional: '25000', fundingCap: '0.003', fundingFloor: '-0.003', fundingIntervalHours: 8 },
    { marketId: 2, base: 'ETH', quote: 'USDT', tickSize: '0.01', stepSize: '0.001', minPrice: '10', maxPrice: '100000',
      minQty: '0.001', maxQty: '10000', marketMaxQty: '2000', minNotional: '20', makerFee: '0.0002', takerFee: '0.0005',
      brackets: ETH_BRACKETS, defaultLeverage: 20,
      impactNotional: '20000', fundingCap: '0.00375', fundingFloor: '-0.00375', fundingIntervalHours: 8 },
  ],
  spotMarkets: [
    { marketId: 3, base: 'BTC', quote: 'USDT', tickSize: '0.01', stepSize: '0.0001', minPrice: '0.01', maxPrice: '1000000',
      minQty: '0.0001', maxQty: '1000', marketMaxQty: '100', minNotional: '5', makerFee: '0.001', takerFee: '0.001',
      priceRange: SPOT_PRICE_RANGE },
    { marketId: 4, base: 'ETH', quote: 'USDT', tickSize: '0.01', stepSize: '0.0001', minPrice: '0.01', maxPrice: '100000',
      minQty: '0.0001', maxQty: '9000', marketMaxQty: '1000', minNotional: '5', makerFee: '0.001', takerFee: '0.001',
      priceRange: SPOT_PRICE_RANGE },
  ],
}
