// Genesis and admin commands: assets, perpetual and spot markets, market status. Every
// market's units must divide exactly into its assets' ledger units.

import type { CreateAsset, CreatePerpMarket, CreateSpotMarket, SetMarketStatus } from './commands.js'
import type { Result } from './events.js'
import { Book } from './book.js'
import { newSpotStops } from './spot-stops.js'
import { GtdQueue } from './gtd.js'
import { LIMITS } from './limits.js'
import { newPriceState } from './prices.js'
import { newTriggerIndex } from './trigger-index.js'
import { validPriceRange } from './price-range.js'
import { accept, reject } from './results.js'
import { bracketOf, type Market, type PerpMarket, type SpotMarket, type State } from './state.js'

const NAME = /^[A-Z0-9]{1,16}$/
const SYMBOL = /^[A-Z0-9]{2,32}$/

function posInt(n: unknown, max = Number.MAX_SAFE_INTEGER): boolean {
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 && n <= max
}

function nonNegInt(n: unknown, max = Number.MAX_SAFE_INTEGER): boolean {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n <= max
}

export function createAsset(state: State, cmd: CreateAsset): Result {
  if (typeof cmd.asset !== 'string' || !NAME.test(cmd.asset)) return reject('GENESIS_INVALID')
  if (!nonNegInt(cmd.scale, LIMITS.ledgerScaleMax)) return reject('GENESIS_INVALID')
  if (state.assets.has(cmd.asset)) return reject('ALREADY_EXISTS')
  if (state.assets.size >= LIMITS.assetsMax) return reject('LIMIT_REACHED')
  state.assets.set(cmd.asset, { name: cmd.asset, scale: cmd.scale })
  return accept([{ type: 'asset', asset: cmd.asset, scale: cmd.scale }])
}

/**
 * Ledger units of `10^-decimals × size` of an asset with `scale`, or 0 when that is not a
 * whole number of ledger units.
 */
function ledgerUnits(size: number, decimals: number, scale: number): number {
  if (scale >= decimals) return size * 10 ** (scale - decimals)
  const d = 10 ** (decimals - scale)
  return size % d === 0 ? size / d : 0
}

type MarketSpec = CreatePerpMarket | CreateSpotMarket

/** What perpetual and spot markets share, as genesis derives it or a snapshot holds it. */
type MarketFields = Omit<SpotMarket, 'kind' | 'book' | 'gtd' | 'gtdOpen' | 'stops' | 'priceRange' | 'referenceBuckets'>
/**
 * A spot market's fields without what is built new for it (its book, GTD queue and stop index);
 * the price range rule's may be absent (snapshots from before it).
 */
export type SpotFields = Omit<SpotMarket, 'book' | 'gtd' | 'gtdOpen' | 'stops' | 'priceRange' | 'referenceBuckets'>
  & Partial<Pick<SpotMarket, 'priceRange' | 'referenceBuckets'>>
/** A perpetual's fields without what is built new for it (its book, GTD queue and trigger index). */
export type PerpFields = Omit<PerpMarket, 'book' | 'gtd' | 'gtdOpen' | 'triggers'>

// Markets are made by the two literals below, from genesis and from snapshots alike, every
// field in one order. A market made by spreading got a map of its own each time V8 had not
// yet settled how that spread builds objects (and kept most fields outside the object): the
// order, margin and matching code, optimized for the first markets, was thrown away when a
// later state's markets came with another map (docs/CORE.md, "Commands").

export function spotMarketOf(f: SpotFields): SpotMarket {
  return {
    marketId: f.marketId, symbol: f.symbol, base: f.base, quote: f.quote, status: f.status,
    pricePrecision: f.pricePrecision, quantityPrecision: f.quantityPrecision, tickSize: f.tickSize, stepSize: f.stepSize,
    minPriceTicks: f.minPriceTicks, maxPriceTicks: f.maxPriceTicks, minQtyLots: f.minQtyLots, maxQtyLots: f.maxQtyLots,
    marketMaxQtyLots: f.marketMaxQtyLots, minNotional: f.minNotional, makerFeePpm: f.makerFeePpm, takerFeePpm: f.takerFeePpm,
    quotePerTickLot: f.quotePerTickLot, basePerLot: f.basePerLot, nextOrderId: f.nextOrderId, nextTradeId: f.nextTradeId,
    // Snapshots from before prevented matches were numbered: from 0.
    nextPreventedMatchId: f.nextPreventedMatchId ?? 0, lastPriceTicks: f.lastPriceTicks, onboardDate: f.onboardDate, book: new Book(), gtd: new GtdQueue(), gtdOpen: 0,
    kind: 'SPOT', stops: newSpotStops(),
    // Snapshots from before the rule: none, and no prices kept.
    priceRange: f.priceRange ?? null, referenceBuckets: f.referenceBuckets ?? [],
  }
}

export function perpMarketOf(f: PerpFields): PerpMarket {
  return {
    marketId: f.marketId, symbol: f.symbol, base: f.base, quote: f.quote, status: f.status,
    pricePrecision: f.pricePrecision, quantityPrecision: f.quantityPrecision, tickSize: f.tickSize, stepSize: f.stepSize,
    minPriceTicks: f.minPriceTicks, maxPriceTicks: f.maxPriceTicks, minQtyLots: f.minQtyLots, maxQtyLots: f.maxQtyLots,
    marketMaxQtyLots: f.marketMaxQtyLots, minNotional: f.minNotional, makerFeePpm: f.makerFeePpm, takerFeePpm: f.takerFeePpm,
    quotePerTickLot: f.quotePerTickLot, basePerLot: f.basePerLot, nextOrderId: f.nextOrderId, nextTradeId: f.nextTradeId,
    // Snapshots from before prevented matches were numbered: from 0.
    nextPreventedMatchId: f.nextPreventedMatchId ?? 0, lastPriceTicks: f.lastPriceTicks, onboardDate: f.onboardDate, book: new Book(), gtd: new GtdQueue(), gtdOpen: 0,
    kind: 'PERP', pair: f.pair, brackets: f.brackets.map(bracketOf), maxLeverage: f.maxLeverage,
    defaultLeverage: f.defaultLeverage, markPriceTicks: f.markPriceTicks, openInterestLots: f.openInterestLots,
    prices: f.prices, triggerProtectPpm: f.triggerProtectPpm, triggers: newTriggerIndex(), liquidationFeePpm: f.liquidationFeePpm,
    percentPricePpm: f.percentPricePpm, marketTakeBoundPpm: f.marketTakeBoundPpm,
  }
}

/** Validates what perpetual and spot markets share and derives their unit sizes. */
function commonMarket(state: State, cmd: MarketSpec, time: number): MarketFields | null {
  if (!nonNegInt(cmd.marketId, LIMITS.marketsMax - 1) || state.markets[cmd.marketId] !== undefined) return null
  if (typeof cmd.symbol !== 'string' || !SYMBOL.test(cmd.symbol) || state.marketsBySymbol.has(cmd.symbol)) return null
  const base = state.assets.get(cmd.base)
  const quote = state.assets.get(cmd.quote)
  if (!base || !quote || base === quote) return null
  if (!nonNegInt(cmd.pricePrecision, LIMITS.precisionMax) || !nonNegInt(cmd.quantityPrecision, LIMITS.precisionMax)) return null
  if (!posInt(cmd.tickSize) || !posInt(cmd.stepSize)) return null
  if (!posInt(cmd.minPriceTicks) || !posInt(cmd.maxPriceTicks) || cmd.minPriceTicks > cmd.maxPriceTicks) return null
  if (!posInt(cmd.minQtyLots) || !posInt(cmd.maxQtyLots) || cmd.minQtyLots > cmd.maxQtyLots) return null
  if (!posInt(cmd.marketMaxQtyLots) || cmd.minQtyLots > cmd.marketMaxQtyLots) return null
  if (!nonNegInt(cmd.minNotional) || !nonNegInt(cmd.makerFeePpm, LIMITS.feePpmMax) || !nonNegInt(cmd.takerFeePpm, LIMITS.feePpmMax)) return null
  // One tick times one lot must be a whole number of quote units; one lot of base units.
  const tickUnits = ledgerUnits(cmd.tickSize, cmd.pricePrecision, quote.scale)
  const quotePerTickLot = tickUnits === 0 ? 0 : ledgerUnits(tickUnits * cmd.stepSize, cmd.quantityPrecision, 0)
  const basePerLot = ledgerUnits(cmd.stepSize, cmd.quantityPrecision, base.scale)
  if (!posInt(quotePerTickLot) || !posInt(basePerLot)) return null
  // The largest order's notional must be exact; positions are bounded by the brackets.
  if (!posInt(cmd.maxPriceTicks * Math.max(cmd.maxQtyLots, cmd.marketMaxQtyLots) * quotePerTickLot, LIMITS.ledgerAmountMax)) return null
  return {
    marketId: cmd.marketId, symbol: cmd.symbol, base: cmd.base, quote: cmd.quote, status: 'TRADING',
    pricePrecision: cmd.pricePrecision, quantityPrecision: cmd.quantityPrecision,
    tickSize: cmd.tickSize, stepSize: cmd.stepSize,
    minPriceTicks: cmd.minPriceTicks, maxPriceTicks: cmd.maxPriceTicks,
    minQtyLots: cmd.minQtyLots, maxQtyLots: cmd.maxQtyLots, marketMaxQtyLots: cmd.marketMaxQtyLots,
    minNotional: cmd.minNotional, makerFeePpm: cmd.makerFeePpm, takerFeePpm: cmd.takerFeePpm,
    quotePerTickLot, basePerLot, nextOrderId: 1, nextTradeId: 1, nextPreventedMatchId: 0, lastPriceTicks: 0, onboardDate: time,
  }
}

function validBrackets(cmd: CreatePerpMarket): boolean {
  const b = cmd.brackets
  if (!Array.isArray(b) || b.length === 0 || b.length > LIMITS.bracketsMax) return false
  for (let i = 0; i < b.length; i++) {
    const x = b[i]!
    if (!posInt(x.notionalCap, LIMITS.ledgerAmountMax) || !posInt(x.maxLeverage, LIMITS.leverageMax)) return false
    if (!posInt(x.mmrPpm, 1_000_000)) return false
    if (i > 0 && (x.notionalCap <= b[i - 1]!.notionalCap || x.maxLeverage > b[i - 1]!.maxLeverage)) return false
  }
  return true
}

function register(state: State, m: Market): void {
  state.markets[m.marketId] = m
  state.marketsBySymbol.set(m.symbol, m)
}

/** Binance's triggerProtect 0.05: priceProtect holds a trigger while mark and last differ by over 5 %. */
export const DEFAULT_TRIGGER_PROTECT_PPM = 50_000

/** Binance's liquidation clearance fee for BTCUSDT: 1.25 % (API.md; /fapi/v1/exchangeInfo liquidationFee). */
export const DEFAULT_LIQUIDATION_FEE_PPM = 12_500

/** Binance's BTCUSDT band: PERCENT_PRICE multipliers 1.05 / 0.95, marketTakeBound 0.05. */
export const DEFAULT_PRICE_BAND_PPM = 50_000

export function createPerpMarket(state: State, cmd: CreatePerpMarket, time: number): Result {
  const common = commonMarket(state, cmd, time)
  if (common === null || !validBrackets(cmd)) return reject('GENESIS_INVALID')
  if (typeof cmd.pair !== 'string' || !SYMBOL.test(cmd.pair)) return reject('GENESIS_INVALID')
  const margin = state.markets.find((m) => m?.kind === 'PERP')
  if (margin && margin.quote !== cmd.quote) return reject('GENESIS_INVALID')
  const maxLeverage = cmd.brackets[0]!.maxLeverage
  if (!posInt(cmd.defaultLeverage, maxLeverage)) return reject('GENESIS_INVALID')
  if (state.markets.some((x) => x?.kind === 'PERP' && x.pair === cmd.pair)) return reject('GENESIS_INVALID')
  const prices = newPriceState(cmd, state.assets.get(cmd.quote)!.scale)
  if (prices === null) return reject('GENESIS_INVALID')
  const triggerProtectPpm = cmd.triggerProtectPpm ?? DEFAULT_TRIGGER_PROTECT_PPM
  if (!posInt(triggerProtectPpm, 1_000_000)) return reject('GENESIS_INVALID')
  const liquidationFeePpm = cmd.liquidationFeePpm ?? DEFAULT_LIQUIDATION_FEE_PPM
  if (!nonNegInt(liquidationFeePpm, LIMITS.feePpmMax)) return reject('GENESIS_INVALID')
  const percentPricePpm = cmd.percentPricePpm ?? DEFAULT_PRICE_BAND_PPM
  const marketTakeBoundPpm = cmd.marketTakeBoundPpm ?? DEFAULT_PRICE_BAND_PPM
  if (!nonNegInt(percentPricePpm, 999_999) || !nonNegInt(marketTakeBoundPpm, 999_999)) return reject('GENESIS_INVALID')
  const m = perpMarketOf({
    ...common, kind: 'PERP', pair: cmd.pair, brackets: cmd.brackets,
    maxLeverage, defaultLeverage: cmd.defaultLeverage, markPriceTicks: 0, openInterestLots: 0, prices,
    triggerProtectPpm, liquidationFeePpm, percentPricePpm, marketTakeBoundPpm,
  })
  register(state, m)
  return accept([{ type: 'market', marketId: m.marketId, status: m.status, time }])
}

export function createSpotMarket(state: State, cmd: CreateSpotMarket, time: number): Result {
  const common = commonMarket(state, cmd, time)
  if (common === null) return reject('GENESIS_INVALID')
  const r = cmd.priceRange
  if (r !== undefined && (typeof r !== 'object' || r === null || !validPriceRange(r))) return reject('GENESIS_INVALID')
  const priceRange = r === undefined ? null : { bidUpE4: r.bidUpE4, bidDownE4: r.bidDownE4, askUpE4: r.askUpE4, askDownE4: r.askDownE4 }
  const m = spotMarketOf({ ...common, kind: 'SPOT', priceRange, referenceBuckets: [] })
  register(state, m)
  return accept([{ type: 'market', marketId: m.marketId, status: m.status, time }])
}

export function setMarketStatus(state: State, cmd: SetMarketStatus, time: number): Result {
  const m = state.markets[cmd.marketId]
  if (m === undefined) return reject('MARKET_UNKNOWN')
  if (cmd.status !== 'TRADING' && cmd.status !== 'HALT' && cmd.status !== 'BREAK') return reject('COMMAND_INVALID')
  m.status = cmd.status
  return accept([{ type: 'market', marketId: m.marketId, status: m.status, time }])
}
