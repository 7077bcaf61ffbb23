// The exchange state the core mutates. Everything here is reachable from the log alone and
// is covered by the state root and the snapshot.

import type { Bracket, MarginType, MarketStatus, OrderType, PositionSide, PriceMatch, Side, StpMode, TimeInForce } from './commands.js'
import type { ConditionalFields, OrderStatus, Peg, WithdrawalStatus } from './events.js'
export type { Peg } from './events.js'
import { addExact } from './arith.js'
import { Book, type Level } from './book.js'
import { ClientIdIndex } from './client-id-index.js'
import { GtdQueue } from './gtd.js'
import type { SpotStops } from './spot-stops.js'
import type { TriggerEntry, TriggerIndex } from './trigger-index.js'
import type { PriceRange, ReferenceBucket } from './price-range.js'

export interface Asset {
  name: string
  scale: number
}

interface MarketCommon {
  marketId: number
  symbol: string
  base: string
  quote: string
  status: MarketStatus
  pricePrecision: number
  quantityPrecision: number
  tickSize: number
  stepSize: number
  minPriceTicks: number
  maxPriceTicks: number
  minQtyLots: number
  maxQtyLots: number
  marketMaxQtyLots: number
  minNotional: number
  makerFeePpm: number
  takerFeePpm: number
  /** Quote ledger units of one tick × one lot: notional = priceTicks × qtyLots × this. */
  quotePerTickLot: number
  /** Base ledger units of one lot. */
  basePerLot: number
  nextOrderId: number
  nextTradeId: number
  /** The id the market's next prevented match gets (Binance spot's preventedMatchId, from 0). */
  nextPreventedMatchId: number
  lastPriceTicks: number
  /** Time of the entry that created the market (Binance onboardDate). */
  onboardDate: number
  book: Book
  /** Resting GTD orders by expiry; derived from the book, so not in the root or snapshot. */
  gtd: GtdQueue
  /** Resting orders with a goodTillDate (the live entries of `gtd`). */
  gtdOpen: number
}

export interface PerpMarket extends MarketCommon {
  kind: 'PERP'
  pair: string
  brackets: Bracket[]
  maxLeverage: number
  defaultLeverage: number
  /**
   * Price positions are valued at: the last trade price until the market's first oracle
   * price, then the mark by API.md's formula (core/prices.ts).
   */
  markPriceTicks: number
  /** Sum of long position lots across accounts. */
  openInterestLots: number
  /** Oracle, index, mark inputs and funding (core/prices.ts, core/funding.ts). */
  prices: PriceState
  /** priceProtect threshold of |mark − last| / mark, ppm (Binance triggerProtect). */
  triggerProtectPpm: number
  /** Waiting conditional orders and their trigger heaps (core/trigger-index.ts); the orders are in the root. */
  triggers: TriggerIndex
  /** Liquidation clearance fee on a liquidation's filled notional, ppm, to the insurance fund. */
  liquidationFeePpm: number
  /** PERCENT_PRICE: a limit price within mark × (1 ± this), ppm; 0: no band (core/price-band.ts). */
  percentPricePpm: number
  /** marketTakeBound: a market order fills within mark × (1 ± this), ppm; 0: no bound. */
  marketTakeBoundPpm: number
}

/**
 * A perpetual's price and funding state. Prices are integers at 1e-8 of the quote (`E8`, as
 * Binance prints them), rates integers at 1e-8 (`E8`: 10_000 is 0.01 %).
 */
export interface PriceState {
  /** Address (lowercase 0x hex) whose signed OraclePrice commands set the index; '' none. */
  oracle: string
  /** The newest oracle price, E8; 0 until the first. */
  indexE8: number
  /** The oracle's own time of that price, ms. */
  indexTime: number
  /** Quote ledger units the impact bid and ask fill (Binance impact margin notional). */
  impactNotional: number
  fundingCapE8: number
  fundingFloorE8: number
  fundingIntervalMs: number
  /** The rate settled at the last boundary, E8 (0 before the first). */
  lastFundingRateE8: number
  /** The boundary the next settlement happens at; 0 until the first index price. */
  nextFundingTime: number
  /** Premium samples of this interval: Σ weight × premium (E8), Σ weight, count. */
  premiumWeightedE8: number
  premiumWeights: number
  premiumSamples: number
  /** 5-s slot (time / 5000) of the newest premium sample; the newest sample, E8. */
  premiumSlot: number
  lastPremiumE8: number
  /** (mid − index) samples of the last 30 s, one per 1-s slot: flat [slot, basisE8, …]. */
  basis: number[]
  basisSumE8: number
}

export interface SpotMarket extends MarketCommon {
  kind: 'SPOT'
  /** Waiting stop orders (core/spot-stops.ts); derived from them, so the snapshot stores the orders. */
  stops: SpotStops
  /** The Price Range execution rule (core/price-range.ts); null: takers trade at any price. */
  priceRange: PriceRange | null
  /** The trade prices of the last five minutes the reference price is the mean of (kept only under a rule). */
  referenceBuckets: ReferenceBucket[]
}

export type Market = PerpMarket | SpotMarket

export interface Order {
  orderId: number
  market: Market
  owner: SubAccount
  clientOrderId: string
  side: Side
  orderType: OrderType
  timeInForce: TimeInForce
  priceTicks: number
  origQtyLots: number
  executedQtyLots: number
  cumQuoteTicksLots: number
  status: OrderStatus
  positionSide: PositionSide
  reduceOnly: boolean
  stp: StpMode
  goodTillDate: number
  time: number
  updateTime: number
  /** Perp: whether the resting remainder counts toward order margin. */
  marginCounted: boolean
  /** Spot: ledger units still locked for the resting remainder (quote for buys, base for sells). */
  lockedRemaining: number
  /** The price level the order rests in (null while not resting). */
  level: Level | null
  // Intrusive FIFO links inside the order's price level.
  prev: Order | null
  next: Order | null
  // The last four are set on every order, if only to null, 0 and undefined: all orders then
  // share one hidden class, and the matching path reads them through monomorphic accesses.
  /** Conditional orders: trigger parameters and trailing state (null for plain orders). */
  cond: Conditional | null
  /** Times it was amended (Binance's amendment count; capped by LIMITS.amendmentsPerOrderMax). */
  amendCount: number
  /** The priceMatch mode its price was last taken by (undefined: NONE). */
  priceMatch: PriceMatch | undefined
  /** Spot MARKET orders sized by quote: the quote ledger units asked for (0: sized by quantity). */
  quoteQty: number
  /** A quote-sized order the book ran short for (rules 5): it ends EXPIRED once it has taken what there is. */
  quoteShort: boolean
  /** The OCO order list it was placed in (core/order-lists.ts); null for an order placed alone. */
  list: OrderList | null
  /** Spot iceberg orders: the lots the book shows at a time (0: not an iceberg). */
  icebergLots: number
  /**
   * Resting: the lots the book shows and a taker may take before it requeues (core/book.ts): all
   * it has left, an iceberg's slice only (what is left of it). Meaningless off the book.
   */
  visibleLots: number
  /** Spot pegged orders (core/peg.ts): how its price is taken from the book; null for the others. */
  peg: Peg | null
  /**
   * Spot: lots self-trade prevention took off it in DECREMENT mode (core/prevention.ts), already
   * gone from origQtyLots, which is what it may trade; the quantity it was sent with is the sum.
   */
  preventedLots: number
  /** The last prevented match it took part in (Binance spot's preventedMatchId); -1: none. */
  preventedMatchId: number
  /** Spot, rules 7 (core/strategy.ts): the strategyId it was sent with; -1: none. */
  strategyId: number
  /** Spot, rules 7: the strategyType it was sent with; 0: none (a sent one is at least 1,000,000). */
  strategyType: number
}

/**
 * An OCO order list (Binance spot's one-cancels-the-other): two orders on one spot market, one
 * quantity, one side. While it executes, both legs are open, the list is reachable from either,
 * and the two together hold what the larger needs; once one leg fills, triggers or leaves, the
 * other goes with it and the list is done. A leg keeps its list (done) for its records.
 */
export interface OrderList {
  orderListId: number
  listClientOrderId: string
  /** OTO and OTOCO lists (core/oto-lists.ts): a working order, then one pending order or an OCO pair. */
  contingency: 'OCO' | 'OTO' | 'OTOCO'
  /** An OTO list's working order until it fills in full (its pending orders wait); null otherwise. */
  working: Order | null
  /**
   * OPO (Binance's one-pays-the-other, an OTO or OTOCO whose pending orders sell what the working
   * buy brings): the base each fill brings, net of its fee, is held by the first pending order
   * until they are placed with that quantity (core/oto-lists.ts).
   */
  opo: boolean
  /**
   * Its open orders, in orderId order: an OCO's below and above legs; an OTO's working order,
   * then its pending order or pair (below, above); once an OTOCO's working order filled, the pair.
   */
  legs: Order[]
  /** Every order it was placed with, in orderId order, as its status events list them. */
  orders: { orderId: number; clientOrderId: string }[]
  /** ALL_DONE: a leg filled, triggered or was canceled, and the other went with it. */
  done: boolean
  /** Placement time (Binance's transactionTime). */
  time: number
}

/**
 * What a conditional order waits for (core/conditional.ts): the parameters its records show
 * (events.ts ConditionalFields; stopPriceTicks here is the placed trigger), and its state.
 */
export interface Conditional extends Omit<ConditionalFields, 'reason'> {
  /** Trailing stops: activated, and the highest (SELL) or lowest (BUY) price seen since. */
  activated: boolean
  extremeTicks: number
  /** Spot trailing stops: the delta, BIPS (0: not trailing), and when the trailing started (0: not yet). */
  trailingDeltaBips: number
  trailingTime: number
  reason: string
  /** Its live heap entry while it waits in one (derived, not in the root; activated trailing stops wait in core/trailing.ts). */
  entry: TriggerEntry | null
}

export interface Position {
  /** Signed lots: positive long, negative short. LONG and SHORT sides keep their sign. */
  qtyLots: number
  /** Signed sum of entry price × qty still open, tick·lot units, same sign as qtyLots. */
  costTicksLots: number
  updateTime: number
  /**
   * Isolated margin of the position, quote ledger units (Binance isolatedWallet): funded from
   * the cross wallet as the position opens, returned as it closes (core/isolated.ts). Always 0
   * for a cross position and for a flat one.
   */
  isolatedWallet: number
  /**
   * Realized PnL of this position side's fills, before fees, quote ledger units, summed over
   * the sub-account's life in the market (Binance's `cr`, accumulated realized).
   */
  realizedPnl: number
  /**
   * Realized PnL, quote ledger units, of the partial closes since the position last opened
   * from flat (or flipped); 0 while flat. With costTicksLots it gives Binance's break-even
   * price, (cost of the entries − what the closes got back) / size (gateway/format-account.ts).
   */
  realizedSinceOpen: number
}

/** One sub-account's standing in one perpetual market. */
export interface PerpHolding {
  marketId: number
  leverage: number
  /** Cross (default) or isolated, per market as Binance keeps it; changes only with nothing open. */
  marginType: MarginType
  both: Position
  long: Position
  short: Position
  /** Resting non-reducing orders that need margin: lots and tick·lot notional per side. */
  buyLots: number
  buyNotional: number
  sellLots: number
  sellNotional: number
}

export interface SpotBalance {
  free: number
  locked: number
}

export interface SubAccount {
  address: string
  sub: number
  spot: Map<string, SpotBalance>
  /** Perp wallet in the quote asset, ledger units. */
  perpWallet: number
  dualSide: boolean
  /** Perp holdings by marketId, in the order they were first used. */
  perp: Map<number, PerpHolding>
  /** Open orders by clientOrderId, across all markets, in placement order. */
  orders: ClientIdIndex
  /** Count of open orders per marketId. */
  openByMarket: Map<number, number>
  pendingWithdrawals: number
  /** apiKey of the live session ('' when none): one per sub-account. */
  sessionKey: string
  /** Highest session nonce used. */
  lastNonce: number
  /**
   * Resting perpetual closing orders (reduce-only or a hedge-mode close): derived from the
   * books, so not in the root or the snapshot; lets a fill that shrank a position skip the
   * scan for orders it left too large when there are none (core/reduce-only.ts).
   */
  closingResting: number
  /**
   * Liquidation flags (core/liquidation/flags.ts) by target: 'C' the cross account, or
   * '<marketId>:<positionSide>' an isolated position. Bits: 1 margin call sent, 2 in liquidation.
   * Only non-zero entries are kept.
   */
  riskFlags: Map<string, number>
  /**
   * Countdown cancel-all deadlines (entry time, ms) by marketId (core/countdown.ts): the first
   * Tick at or after one cancels the sub-account's open orders in that market.
   */
  countdowns: Map<number, number>
}

export interface Account {
  address: string
  subs: (SubAccount | undefined)[]
}

export interface Withdrawal {
  withdrawalId: number
  account: string
  sub: number
  asset: string
  amount: number
  address: string
  withdrawOrderId: string
  status: WithdrawalStatus
  txId: string
  applyTime: number
}

export interface Session {
  apiKey: string
  account: string
  sub: number
  permissions: string[]
  expiresAt: number
  createdAt: number
  signature: string
  /** SPKI PEM of the RSA or Ed25519 key requests may also be signed with; absent until one is registered. */
  rsaPublicKey?: string
  /** Until when (entry time, ms) the session's listen key is live; absent or 0 when it has none. */
  listenKeyUntil?: number
  /** The same for the spot stream's key (ListenKey with stream SPOT). */
  spotListenKeyUntil?: number
}

/** The chain a log declared (core/chain-declaration.ts). */
export interface ChainDeclaration {
  chainId: number
  vault: string
  tokens: { asset: string; address: string; decimals: number }[]
}

export interface State {
  seq: number
  time: number
  /** The rules version the log declared last (core/rules.ts); 0: none declared. */
  rules: number
  /** The leaf salts' secret (SetRules, core/root.ts), 0x hex; '': leaves unsalted (rules below 2). */
  leafSeed: string
  /** The chain the log declared (DeclareChain, rules 2 on); null: none. */
  chain: ChainDeclaration | null
  /** The epoch of the newest leader's term the log holds (Lead, core/term.ts); 0: none. */
  epoch: number
  assets: Map<string, Asset>
  markets: Market[]
  marketsBySymbol: Map<string, Market>
  accounts: Map<string, Account>
  depositRefs: Set<string>
  withdrawals: Map<number, Withdrawal>
  nextWithdrawalId: number
  /** Next OCO order list id (core/order-lists.ts), one sequence across markets as Binance's orderListId. */
  nextOrderListId: number
  /** Fees collected per asset, ledger units: numbers, bigints past 2^53 (`addFee`). */
  fees: Map<string, number | bigint>
  /**
   * Everything ever deposited and withdrawn per asset, ledger units. Bigints: over an exchange's
   * life they pass 2^53 (9.0e9 USDT at 6 decimals), where numbers stop counting exactly.
   */
  deposited: Map<string, bigint>
  withdrawn: Map<string, bigint>
  /** Live sessions by apiKey (expired ones stay until replaced; gateways check expiry). */
  sessions: Map<string, Session>
  /** Insurance fund per quote asset, ledger units (core/liquidation/insurance.ts). */
  insurance: Map<string, number>
  /** Sub-accounts with a countdown set: derived from theirs, so not in the root or the snapshot. */
  countdownSubs: Set<SubAccount>
}

export function createState(): State {
  return {
    seq: 0,
    time: 0,
    rules: 0,
    leafSeed: '',
    chain: null,
    epoch: 0,
    assets: new Map(),
    markets: [],
    marketsBySymbol: new Map(),
    accounts: new Map(),
    depositRefs: new Set(),
    withdrawals: new Map(),
    nextWithdrawalId: 1,
    nextOrderListId: 1,
    fees: new Map(),
    deposited: new Map(),
    withdrawn: new Map(),
    sessions: new Map(),
    insurance: new Map(),
    countdownSubs: new Set(),
  }
}

/**
 * A market's copy of a bracket, written as a literal: a copy by spreading would take the
 * shape of whatever made the command (a literal, msgpackr, a snapshot), and the margin code
 * reading brackets would then meet several shapes and run slower on all of them.
 */
export function bracketOf(b: Bracket): Bracket {
  return { notionalCap: b.notionalCap, maxLeverage: b.maxLeverage, mmrPpm: b.mmrPpm }
}

export function newPosition(): Position {
  return { qtyLots: 0, costTicksLots: 0, updateTime: 0, isolatedWallet: 0, realizedPnl: 0, realizedSinceOpen: 0 }
}

export function newHolding(marketId: number, leverage: number): PerpHolding {
  return {
    marketId, leverage, marginType: 'CROSSED',
    both: newPosition(), long: newPosition(), short: newPosition(),
    buyLots: 0, buyNotional: 0, sellLots: 0, sellNotional: 0,
  }
}

export function newSubAccount(address: string, sub: number): SubAccount {
  return {
    address, sub,
    spot: new Map(),
    perpWallet: 0,
    dualSide: false,
    perp: new Map(),
    orders: new ClientIdIndex(),
    openByMarket: new Map(),
    pendingWithdrawals: 0,
    sessionKey: '',
    lastNonce: 0,
    closingResting: 0,
    riskFlags: new Map(),
    countdowns: new Map(),
  }
}

export function positionOf(h: PerpHolding, side: PositionSide): Position {
  return side === 'BOTH' ? h.both : side === 'LONG' ? h.long : h.short
}

/**
 * Adds to the fees collected: a number while exact, a bigint past 2^53 units (9.0e9 USDT at
 * scale 6), which an exchange's lifetime fees reach; `addExact` pays for bigints only then.
 */
export function addFee(fees: Map<string, number | bigint>, asset: string, delta: number): void {
  fees.set(asset, addExact(fees.get(asset) ?? 0, delta))
}

/**
 * Adds to a lifetime total (deposited, withdrawn): always a bigint, as these outgrow numbers;
 * they change on deposits and withdrawals only, off the fill path `addFee` keeps cheap.
 */
export function addToTotal(map: Map<string, bigint>, key: string, delta: number): void {
  map.set(key, (map.get(key) ?? 0n) + BigInt(delta))
}
