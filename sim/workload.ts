// A seeded, deterministic trading workload for the benchmarks: many accounts quoting and
// taking on the BTC and ETH perpetuals around a slowly wandering mid. The generator replays
// every command through the core on its own scratch state as it goes, so its cancels name
// orders that are really still open and its limit orders respect the per-market order cap.

import { apply } from '../core/apply.js'
import type { CancelOrder, Command, Entry, PlaceOrder, Side } from '../core/commands.js'
import { DEFAULT_GENESIS, genesisCommands } from '../core/genesis-spec.js'
import { LIMITS } from '../core/limits.js'
import { createState, type State, type SubAccount } from '../core/state.js'
import { isConditionalType } from '../core/trigger-index.js'
import { Rng } from './random.js'

export interface WorkloadOptions {
  seed: number
  /** Commands in the measured stream (setup not counted). */
  commands: number
  accounts: number
  /** Perp wallet deposit per account, USDT ledger units (scale 6). */
  depositPerAccount: number
  /** The price-moving workload's additions; absent in the plain one. */
  priceMoves?: PriceMoveOptions
}

/**
 * What makes a workload price-moving (issue 6's benchmark): signed oracle prices following
 * each market's mid, conditional orders around it, Ticks (mark refresh, premium samples),
 * and a share of accounts holding leveraged positions close to their liquidation price, so
 * every price move runs the trigger and liquidation checks for real.
 */
export interface PriceMoveOptions {
  /** Percent of the stream that is OraclePrice commands. */
  oraclePercent: number
  /** Percent that places a conditional order (STOP_MARKET, TAKE_PROFIT_MARKET, TRAILING_STOP_MARKET). */
  conditionalPercent: number
  /** A Tick every this many commands. */
  tickEvery: number
  /** Percent of the accounts opened near liquidation before the stream (at least one). */
  nearLiquidationPercent: number
  /**
   * Accounts of the price-moving workload; by default the plain one's, so that the two differ
   * only in what moves prices (more accounts alone make matching and margin slower: their
   * data no longer fits the caches as well). The near-liquidation accounts trade only their
   * own positions; the rest trade as in the plain one.
   */
  accounts?: number
}

export const PRICE_MOVES: PriceMoveOptions = { oraclePercent: 2, conditionalPercent: 5, tickEvery: 1_000, nearLiquidationPercent: 1 }

export const DEFAULT_WORKLOAD: WorkloadOptions = {
  seed: 0x5eed,
  commands: 1_000_000,
  accounts: 100,
  depositPerAccount: 1_000_000 * 1_000_000,
}

/** Percent of the stream per kind; cancels fall back to limits while nothing is open. */
export const MIX_PERCENT = { limit: 70, cancel: 20, market: 10 } as const

/** Sequencer time of entry `seq`: one millisecond apart from a fixed origin. */
export const WORKLOAD_T0 = 1_700_000_000_000

interface MarketParams {
  marketId: number
  pair: string
  startMidTicks: number
  /** Oracle price units (1e-8 USDT) per tick. */
  e8PerTick: number
  limitLots: readonly [number, number]
  marketLots: readonly [number, number]
}

// BTCUSDTPERP ticks are 0.1 USDT, ETHUSDTPERP ticks 0.01 USDT; lots are 0.001 coin. Sizes
// stay above each market's minimum notional (100 and 20 USDT) at these prices.
const MARKETS: readonly MarketParams[] = [
  { marketId: 1, pair: 'BTCUSDT', startMidTicks: 600_000, e8PerTick: 10_000_000, limitLots: [3, 50], marketLots: [3, 20] },
  { marketId: 2, pair: 'ETHUSDT', startMidTicks: 300_000, e8PerTick: 1_000_000, limitLots: [10, 500], marketLots: [10, 100] },
]

/** A limit buy is priced from this many ticks above the mid... */
const AGGRESSIVE_TICKS = 2
/** ...to this many below it, uniformly; sells mirror buys. */
const PASSIVE_TICKS = 10
/** Chance per command in a market that its mid moves one tick. */
const MID_STEP_CHANCE = 0.25
/** Tries to find an account below its open-order cap before sending the order anyway. */
const ACCOUNT_TRIES = 4

export interface WorkloadMix {
  limit: number
  cancel: number
  market: number
  oracle: number
  conditional: number
  /** Cancels of a conditional order by an account at its cap of them in that market (it moves its stops). */
  conditionalCancel: number
  /** Commands re-opening a liquidated near-liquidation position (a transfer and a market order each time). */
  rearm: number
}

export interface Workload {
  options: WorkloadOptions
  /** Genesis and one deposit per account. */
  setup: Command[]
  /** The measured commands. */
  stream: Command[]
  accounts: string[]
  mix: WorkloadMix
}

/** Open orders of one market as the generator knows them, removed lazily when found closed. */
class OpenOrders {
  readonly clientIds: string[] = []
  readonly owners: number[] = []

  add(clientId: string, owner: number): void {
    this.clientIds.push(clientId)
    this.owners.push(owner)
  }

  removeAt(i: number): void {
    const last = this.clientIds.length - 1
    this.clientIds[i] = this.clientIds[last]!
    this.owners[i] = this.owners[last]!
    this.clientIds.pop()
    this.owners.pop()
  }
}

class Generator {
  readonly rng: Rng
  readonly state: State = createState()
  readonly accounts: string[] = []
  readonly subs: SubAccount[] = []
  readonly mids: number[]
  readonly open: OpenOrders[]
  readonly stream: Command[] = []
  readonly mix: WorkloadMix = { limit: 0, cancel: 0, market: 0, oracle: 0, conditional: 0, conditionalCancel: 0, rearm: 0 }
  /** Accounts below this index hold the near-liquidation positions and place no other orders. */
  firstTrader = 0
  /** The near-liquidation account BTC's mid is drifting against (index into accounts), or -1. */
  target = -1
  private nextClientId = 1

  constructor(readonly options: WorkloadOptions) {
    this.rng = new Rng(options.seed)
    this.mids = MARKETS.map((m) => m.startMidTicks)
    this.open = MARKETS.map(() => new OpenOrders())
  }

  run(command: Command): void {
    const seq = this.state.seq + 1
    apply(this.state, { seq, time: WORKLOAD_T0 + seq, command })
  }

  emit(command: Command): void {
    this.stream.push(command)
    this.run(command)
  }

  next(): void {
    const k = this.rng.int(0, MARKETS.length - 1)
    if (this.rng.chance(MID_STEP_CHANCE)) {
      const up = this.rng.chance(0.5)
      // While the target holds its near-liquidation position, BTC's mid walks against it.
      this.mids[k]! += k === 0 && this.targetHolds() ? (this.target % 2 === 0 ? -1 : 1) : up ? 1 : -1
    }
    const pm = this.options.priceMoves
    if (pm !== undefined) {
      if (this.target >= 0 && this.rearm()) return
      if ((this.stream.length + 1) % pm.tickEvery === 0) {
        this.emit({ type: 'Tick' })
        return
      }
      const roll = this.rng.below(100)
      if (roll < pm.oraclePercent) return this.oraclePrice(k)
      if (roll < pm.oraclePercent + pm.conditionalPercent) return this.conditional(k)
    }
    const roll = this.rng.below(100)
    if (roll < MIX_PERCENT.limit) this.limit(k)
    else if (roll < MIX_PERCENT.limit + MIX_PERCENT.cancel) this.cancel(k)
    else this.market(k)
  }

  targetHolds(): boolean {
    if (this.target < 0) return false
    const h = this.subs[this.target]!.perp.get(MARKETS[0]!.marketId)
    return h !== undefined && h.both.qtyLots !== 0
  }

  /** A random account that trades (not one holding a near-liquidation position). */
  trader(): number {
    return this.firstTrader + this.rng.below(this.accounts.length - this.firstTrader)
  }

  pickAccount(marketId: number): number {
    let a = 0
    for (let i = 0; i < ACCOUNT_TRIES; i++) {
      a = this.trader()
      if ((this.subs[a]!.openByMarket.get(marketId) ?? 0) < LIMITS.openOrdersPerMarketMax) break
    }
    return a
  }

  limit(k: number): void {
    const p = MARKETS[k]!
    const a = this.pickAccount(p.marketId)
    const side: Side = this.rng.chance(0.5) ? 'BUY' : 'SELL'
    const offset = this.rng.int(-AGGRESSIVE_TICKS, PASSIVE_TICKS)
    const priceTicks = this.mids[k]! + (side === 'BUY' ? -offset : offset)
    const clientOrderId = 'w' + (this.nextClientId++).toString(36)
    const cmd: PlaceOrder = {
      type: 'PlaceOrder', account: this.accounts[a]!, sub: 0, marketId: p.marketId, side,
      orderType: 'LIMIT', timeInForce: 'GTC', priceTicks, qtyLots: this.rng.int(p.limitLots[0], p.limitLots[1]),
      clientOrderId,
    }
    this.mix.limit += 1
    this.emit(cmd)
    if (this.subs[a]!.orders.has(clientOrderId)) this.open[k]!.add(clientOrderId, a)
  }

  cancel(k: number): void {
    // Try this market, then the others, before falling back to a limit order.
    for (let j = 0; j < MARKETS.length; j++) {
      const mk = (k + j) % MARKETS.length
      const found = this.takeOpen(mk)
      if (found === null) continue
      const cmd: CancelOrder = {
        type: 'CancelOrder', account: this.accounts[found.owner]!, sub: 0, marketId: MARKETS[mk]!.marketId,
        clientOrderId: found.clientId,
      }
      this.mix.cancel += 1
      this.emit(cmd)
      return
    }
    this.limit(k)
  }

  /** The orderId of account `a`'s oldest conditional order in the market when it holds the most allowed, else 0. */
  oldestConditional(a: number, marketId: number): number {
    let n = 0
    let oldest = 0
    for (const o of this.subs[a]!.orders.values()) {
      if (o.market.marketId !== marketId || !isConditionalType(o.orderType)) continue
      n += 1
      if (oldest === 0 || o.orderId < oldest) oldest = o.orderId
    }
    return n >= LIMITS.conditionalOrdersPerMarketMax ? oldest : 0
  }

  /** A random order of market `k` that is still open, removed from the list; null if none. */
  takeOpen(k: number): { clientId: string; owner: number } | null {
    const list = this.open[k]!
    while (list.clientIds.length > 0) {
      const i = this.rng.below(list.clientIds.length)
      const clientId = list.clientIds[i]!
      const owner = list.owners[i]!
      list.removeAt(i)
      if (this.subs[owner]!.orders.has(clientId)) return { clientId, owner }
    }
    return null
  }

  /** The oracle's price for market `k`, at its mid, stamped with the entry's own time. */
  oraclePrice(k: number): void {
    const p = MARKETS[k]!
    this.mix.oracle += 1
    this.emit({ type: 'OraclePrice', pair: p.pair, priceE8: this.mids[k]! * p.e8PerTick, time: WORKLOAD_T0 + this.state.seq + 1,
      oracle: BENCH_ORACLE, signature: BENCH_SIGNATURE })
  }

  /** A stop or take-profit 5–200 ticks from the mid, or a trailing stop with a 0.5–2 % callback. */
  conditional(k: number): void {
    const p = MARKETS[k]!
    const a = this.trader()
    // At the cap (-4045 past it), the account cancels its oldest conditional order there
    // instead, as a bot moving its stops does: the stream places conditional orders, not
    // refusals of them.
    const oldest = this.oldestConditional(a, p.marketId)
    if (oldest !== 0) {
      this.mix.conditionalCancel += 1
      this.emit({ type: 'CancelOrder', account: this.accounts[a]!, sub: 0, marketId: p.marketId, orderId: oldest })
      return
    }
    const side: Side = this.rng.chance(0.5) ? 'BUY' : 'SELL'
    const away = this.rng.int(5, 200)
    const kind = this.rng.below(3)
    const account = this.accounts[a]!
    const marketId = p.marketId
    const qtyLots = this.rng.int(p.marketLots[0], p.marketLots[1])
    const clientOrderId = 'c' + (this.nextClientId++).toString(36)
    // Whole literals, as every other command, not a spread of shared fields: V8 gives an
    // object made by a spread 4 fields in the object and the rest in a separate properties
    // array, one more cold memory read per command when the benchmark applies a million
    // commands generated long before.
    // A stop buys above the price and sells below it; a take-profit the other way round.
    const cmd: PlaceOrder = kind === 0
      ? { type: 'PlaceOrder', account, sub: 0, marketId, side, qtyLots, clientOrderId, orderType: 'STOP_MARKET',
        stopPriceTicks: this.mids[k]! + (side === 'BUY' ? away : -away) }
      : kind === 1
        ? { type: 'PlaceOrder', account, sub: 0, marketId, side, qtyLots, clientOrderId, orderType: 'TAKE_PROFIT_MARKET',
          stopPriceTicks: this.mids[k]! + (side === 'BUY' ? -away : away), workingType: 'MARK_PRICE' }
        : { type: 'PlaceOrder', account, sub: 0, marketId, side, qtyLots, clientOrderId, orderType: 'TRAILING_STOP_MARKET',
          callbackPermille: this.rng.int(5, 20) }
    this.mix.conditional += 1
    this.emit(cmd)
  }

  market(k: number): void {
    const p = MARKETS[k]!
    const a = this.trader()
    const cmd: PlaceOrder = {
      type: 'PlaceOrder', account: this.accounts[a]!, sub: 0, marketId: p.marketId,
      side: this.rng.chance(0.5) ? 'BUY' : 'SELL', orderType: 'MARKET',
      qtyLots: this.rng.int(p.marketLots[0], p.marketLots[1]),
    }
    this.mix.market += 1
    this.emit(cmd)
  }

  /**
   * Once the target's position is gone (liquidated, or closed by ADL), it opens a new one at
   * the market: its perp wallet set to the initial margin at 100×, the fee and a little more,
   * so the drift reaches its liquidation price some 4,000 ticks later. Then the next
   * near-liquidation account becomes the target (longs and shorts alternate, so the mid
   * swings back and forth). True if it emitted the re-arming commands.
   */
  rearm(): boolean {
    const a = this.target
    const btc = MARKETS[0]!
    if (this.targetHolds()) return false
    // Not before the book on the side it takes from could fill it twice over.
    const m = this.state.markets[btc.marketId]
    if (m === undefined || m.kind !== 'PERP') return false
    let depth = 0
    for (const level of (a % 2 === 0 ? m.book.asks : m.book.bids).levels) depth += level.qtyLots
    if (depth < 2 * NEAR_LOTS) return false
    const account = this.accounts[a]!
    // Ledger units (scale 6) of NEAR_LOTS lots (0.001 BTC) at the mid (0.1 USDT ticks).
    const notional = NEAR_LOTS * this.mids[0]! * 100
    const wallet = Math.floor(notional / NEAR_LEVERAGE) + Math.floor(notional / 1_000) + 2_000_000
    const have = this.subs[a]!.perpWallet
    if (have !== wallet) {
      this.emit({ type: 'Transfer', account, sub: 0, direction: have > wallet ? 'PERP_TO_SPOT' : 'SPOT_TO_PERP', amount: Math.abs(have - wallet) })
      this.mix.rearm += 1
    }
    this.emit({ type: 'PlaceOrder', account, sub: 0, marketId: btc.marketId, side: a % 2 === 0 ? 'BUY' : 'SELL', orderType: 'MARKET', qtyLots: NEAR_LOTS })
    this.mix.rearm += 1
    this.target = (a + 1) % this.firstTrader
    return true
  }
}

/** Builds the workload; deterministic in its options. */
export function generateWorkload(options: WorkloadOptions = DEFAULT_WORKLOAD): Workload {
  const setup: Command[] = genesisCommands(DEFAULT_GENESIS)
  const g = new Generator(options)
  for (const c of setup) g.run(c)
  const accounts = options.priceMoves?.accounts ?? options.accounts
  for (let i = 0; i < accounts; i++) {
    const account = '0x' + g.rng.hex(40)
    const deposit: Command = {
      type: 'Deposit', account, sub: 0, asset: 'USDT', amount: options.depositPerAccount, wallet: 'PERP',
      ref: 'bench-' + i,
    }
    setup.push(deposit)
    g.run(deposit)
    g.accounts.push(account)
    g.subs.push(g.state.accounts.get(account)!.subs[0]!)
  }
  if (options.priceMoves) nearLiquidation(g, setup, options.priceMoves)
  while (g.stream.length < options.commands) g.next()
  // A re-arming transfer and order may overshoot by one.
  g.stream.length = options.commands
  return { options, setup, stream: g.stream, accounts: g.accounts, mix: g.mix }
}

/** The oracle the price-moving workload registers; the core checks a signature's shape only. */
const BENCH_ORACLE = '0x' + '0b'.repeat(20)
const BENCH_SIGNATURE = '0x' + '5e'.repeat(65)
/** Leverage of the near-liquidation positions, and how far (ticks) their entry is from the mid, against them. */
const NEAR_LEVERAGE = 100
const NEAR_ENTRY_TICKS = 2_200
/** Size of each near-liquidation position: 0.2 BTC. */
const NEAR_LOTS = 200

/**
 * Setup of the price-moving workload: each pair's oracle, then a share of the accounts opens
 * a 100× position (half long, half short, BTC) with a counterparty account, entered far
 * enough from the start mid (where the oracle prices are set first) against it that it is
 * some 1,600 ticks from liquidation. In the stream
 * BTC's mid drifts against one of them at a time (the target) until it is liquidated, which
 * then re-opens its position (Generator.rearm) and hands the target on.
 */
function nearLiquidation(g: Generator, setup: Command[], pm: PriceMoveOptions): void {
  const add = (c: Command): void => {
    setup.push(c)
    g.run(c)
  }
  for (const p of MARKETS) add({ type: 'SetOracle', pair: p.pair, oracle: BENCH_ORACLE })
  // Prices first, so marks follow the index rather than these trades' far-off prices.
  for (const [k, p] of MARKETS.entries()) {
    add({ type: 'OraclePrice', pair: p.pair, priceE8: g.mids[k]! * p.e8PerTick, time: WORKLOAD_T0 + g.state.seq + 1,
      oracle: BENCH_ORACLE, signature: BENCH_SIGNATURE })
  }
  const btc = MARKETS[0]!
  const n = Math.max(1, Math.round((g.accounts.length * pm.nearLiquidationPercent) / 100))
  const counterparty = g.accounts[g.accounts.length - 1]!
  for (let i = 0; i < n; i++) {
    const account = g.accounts[i]!
    const long = i % 2 === 0
    const entry = btc.startMidTicks + (long ? NEAR_ENTRY_TICKS : -NEAR_ENTRY_TICKS)
    const lots = NEAR_LOTS
    // The position's initial margin and a little more, not the workload's large deposit.
    add({ type: 'Transfer', account, sub: 0, direction: 'PERP_TO_SPOT', amount: g.subs[i]!.perpWallet - NEAR_LOTS * 620_000 })
    add({ type: 'ChangeLeverage', account, sub: 0, marketId: btc.marketId, leverage: NEAR_LEVERAGE })
    add({ type: 'PlaceOrder', account: counterparty, sub: 0, marketId: btc.marketId, side: long ? 'SELL' : 'BUY', orderType: 'LIMIT',
      timeInForce: 'GTC', priceTicks: entry, qtyLots: lots, clientOrderId: `near-${i}` })
    add({ type: 'PlaceOrder', account, sub: 0, marketId: btc.marketId, side: long ? 'BUY' : 'SELL', orderType: 'MARKET', qtyLots: lots })
  }
  g.firstTrader = n
  g.target = 0
}

/** Log entries for commands applied in order, the first with `firstSeq`. */
export function toEntries(commands: readonly Command[], firstSeq: number): Entry[] {
  return commands.map((command, i) => ({ seq: firstSeq + i, time: WORKLOAD_T0 + firstSeq + i, command }))
}
