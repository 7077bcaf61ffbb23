// Random order flow for the liquidation properties (test/core/liquidation.property.test.ts and
// liquidation-budget.test.ts): prices walking in both perpetuals, a market maker re-quoting
// around them, traders taking and making (one in hedge mode), Ticks and cancels; as
// fast-check steps, and the commands each step becomes. Each test adds its own kinds.

import fc from 'fast-check'
import type { Command, OraclePrice } from '../../core/commands.js'
import type { PerpMarket, State } from '../../core/state.js'
import { BTCPERP, ETHPERP } from './exchange.js'

export const ORACLE = '0x' + '9'.repeat(40)
export const SIGNATURE = '0x' + '1'.repeat(130)
export const MAKER = '0x' + '7'.repeat(40)
/** Per market: the pair, and E8 per tick (BTC tick 0.1, ETH tick 0.01). */
export const PERPS = [{ marketId: BTCPERP, pair: 'BTCUSDT', e8PerTick: 10_000_000 }, { marketId: ETHPERP, pair: 'ETHUSDT', e8PerTick: 1_000_000 }]
/** Starting prices, E8, per entry of PERPS. */
export const START_E8 = [3_000_000_000_000, 200_000_000_000]

export type FlowStep =
  | { kind: 'price'; m: number; movePpm: number; dtMs: number }
  | { kind: 'quote'; m: number; spreadPpm: number; lots: number }
  | { kind: 'trade'; m: number; who: number; buy: boolean; lots: number; offsetPpm: number; market: boolean; long: boolean }
  | { kind: 'tick'; dtMs: number }
  | { kind: 'cancel'; m: number; who: number }

const perp = fc.integer({ min: 0, max: 1 })

/** The flow's steps for `traders` traders (cancel's who = traders: the maker), trades weighted `tradeWeight`. */
export function flowSteps(traders: number, tradeWeight: number): fc.WeightedArbitrary<FlowStep>[] {
  return [
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('price' as const), m: perp, movePpm: fc.integer({ min: -40_000, max: 40_000 }),
      dtMs: fc.integer({ min: 1, max: 2_000 }) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('quote' as const), m: perp, spreadPpm: fc.integer({ min: 100, max: 30_000 }),
      lots: fc.integer({ min: 5, max: 400 }) }) },
    { weight: tradeWeight, arbitrary: fc.record({ kind: fc.constant('trade' as const), m: perp, who: fc.integer({ min: 0, max: traders - 1 }),
      buy: fc.boolean(), lots: fc.integer({ min: 5, max: 300 }), offsetPpm: fc.integer({ min: -20_000, max: 20_000 }), market: fc.boolean(),
      long: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const), dtMs: fc.integer({ min: 100, max: 4 * 3_600_000 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), m: perp, who: fc.integer({ min: 0, max: traders }) }) },
  ]
}

export interface Flow {
  state: State
  /** The time of the command before this step. */
  time: number
  traders: readonly string[]
  /** The trader in hedge mode, who opens or closes either side; everyone else trades BOTH. */
  hedge: string
  /** The walking prices, E8, per entry of PERPS: a price step moves one (and an OraclePrice publishes it with `oracle`). */
  pricesE8: number[]
  oracle: boolean
}

/** The commands a step becomes, each with the time it advances the clock by. */
export function flowCommands(f: Flow, s: FlowStep): { command: Command; dtMs: number }[] {
  const which = s.kind === 'tick' ? 0 : s.m
  const { marketId, pair, e8PerTick } = PERPS[which]!
  const pm = f.state.markets[marketId] as PerpMarket
  const mid = Math.round(f.pricesE8[which]! / e8PerTick)
  const clamp = (ticks: number): number => Math.max(pm.minPriceTicks, Math.min(pm.maxPriceTicks, ticks))
  switch (s.kind) {
    case 'price': {
      f.pricesE8[which] = Math.max(1_000 * e8PerTick, Math.round(f.pricesE8[which]! * (1 + s.movePpm / 1e6) / e8PerTick) * e8PerTick)
      if (!f.oracle) return []
      const oracle: OraclePrice = { type: 'OraclePrice', pair, priceE8: f.pricesE8[which]!, time: f.time + s.dtMs, oracle: ORACLE,
        signature: SIGNATURE }
      return [{ command: oracle, dtMs: s.dtMs }]
    }
    case 'quote': {
      const off = Math.max(1, Math.round(mid * s.spreadPpm / 1e6))
      return [
        { command: { type: 'CancelAll', account: MAKER, sub: 0, marketId }, dtMs: 1 },
        { command: { type: 'PlaceOrder', account: MAKER, sub: 0, marketId, side: 'BUY', orderType: 'LIMIT',
          priceTicks: clamp(mid - off), qtyLots: s.lots }, dtMs: 1 },
        { command: { type: 'PlaceOrder', account: MAKER, sub: 0, marketId, side: 'SELL', orderType: 'LIMIT',
          priceTicks: clamp(mid + off), qtyLots: s.lots }, dtMs: 1 },
      ]
    }
    case 'trade': {
      const account = f.traders[s.who]!
      const side = s.buy ? 'BUY' : 'SELL'
      const positionSide = account === f.hedge ? (s.long ? 'LONG' : 'SHORT') : 'BOTH'
      const common = { type: 'PlaceOrder', account, sub: 0, marketId, side, positionSide, qtyLots: s.lots } as const
      if (s.market) return [{ command: { ...common, orderType: 'MARKET' }, dtMs: 1 }]
      return [{ command: { ...common, orderType: 'LIMIT', priceTicks: clamp(Math.round(mid * (1 + s.offsetPpm / 1e6))) }, dtMs: 1 }]
    }
    case 'tick':
      return [{ command: { type: 'Tick' }, dtMs: s.dtMs }]
    case 'cancel':
      return [{ command: { type: 'CancelAll', account: s.who === f.traders.length ? MAKER : f.traders[s.who]!, sub: 0, marketId }, dtMs: 1 }]
  }
}
