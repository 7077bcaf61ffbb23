// Events a command causes. Gateways, projections and streams are built from these alone, so
// each carries the whole new state of what it touched (order record, balances, position).

import type { Code } from './codes.js'
import type { OrderType, PositionSide, Side, StpMode, TimeInForce, WalletKind } from './commands.js'

export type OrderStatus = 'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'EXPIRED' | 'EXPIRED_IN_MATCH'
/** Why an order record changed, as Binance's execution type `x`. */
export type ExecType = 'NEW' | 'CANCELED' | 'EXPIRED' | 'EXPIRED_IN_MATCH' | 'TRADE' | 'AMENDMENT'

/** An order's record: what order events carry and history read models keep. */
export interface OrderRecordFields {
  marketId: number
  orderId: number
  account: string
  sub: number
  clientOrderId: string
  side: Side
  orderType: OrderType
  timeInForce: TimeInForce
  priceTicks: number
  origQtyLots: number
  executedQtyLots: number
  /** Sum of price × qty over fills, in tick·lot units. */
  cumQuoteTicksLots: number
  status: OrderStatus
  positionSide: PositionSide
  reduceOnly: boolean
  stp: StpMode
  goodTillDate: number
  time: number
  updateTime: number
}

/** The full record of an order after a change (NEW, CANCELED, EXPIRED...). */
export interface OrderEvent extends OrderRecordFields {
  type: 'order'
  execType: ExecType
}

/** One perpetual fill. Carries both sides' order, position and wallet state after it. */
export interface PerpTradeEvent {
  type: 'trade'
  marketId: number
  tradeId: number
  time: number
  priceTicks: number
  qtyLots: number
  /** True when the buyer was the maker (Binance `m`). */
  buyerIsMaker: boolean
  maker: PerpFillSide
  taker: PerpFillSide
}

export interface PerpFillSide {
  account: string
  sub: number
  orderId: number
  clientOrderId: string
  side: Side
  positionSide: PositionSide
  /** Order state after this fill. */
  executedQtyLots: number
  cumQuoteTicksLots: number
  status: OrderStatus
  /** Fee charged, quote ledger units. */
  fee: number
  /** PnL realized by this fill, quote ledger units. */
  realizedPnl: number
  /** Position after the fill. */
  positionQtyLots: number
  positionCostTicksLots: number
  /** Perp wallet balance after the fill. */
  wallet: number
}

/** One spot fill, with both sides' balances after it. */
export interface SpotTradeEvent {
  type: 'spotTrade'
  marketId: number
  tradeId: number
  time: number
  priceTicks: number
  qtyLots: number
  buyerIsMaker: boolean
  maker: SpotFillSide
  taker: SpotFillSide
}

export interface SpotFillSide {
  account: string
  sub: number
  orderId: number
  clientOrderId: string
  side: Side
  executedQtyLots: number
  cumQuoteTicksLots: number
  status: OrderStatus
  /** Fee charged in the asset received (base for the buyer, quote for the seller). */
  fee: number
  feeAsset: string
  base: BalanceState
  quote: BalanceState
}

export interface BalanceState {
  asset: string
  free: number
  locked: number
}

export type BalanceReason =
  | 'DEPOSIT'
  | 'WITHDRAW'
  | 'WITHDRAW_REJECT'
  | 'TRANSFER'
  | 'ORDER'

/** A wallet balance after a change that is not a fill. */
export interface BalanceEvent {
  type: 'balance'
  account: string
  sub: number
  wallet: WalletKind
  asset: string
  free: number
  locked: number
  /** Signed change of free + locked. */
  delta: number
  reason: BalanceReason
  time: number
}

export interface DepositEvent {
  type: 'deposit'
  account: string
  sub: number
  asset: string
  amount: number
  wallet: WalletKind
  ref: string
  time: number
}

export interface TransferEvent {
  type: 'transfer'
  account: string
  sub: number
  direction: 'SPOT_TO_PERP' | 'PERP_TO_SPOT'
  asset: string
  amount: number
  /** Balances after the transfer: the spec's `s` and `p`. */
  spotBalance: number
  perpBalance: number
  time: number
}

export type WithdrawalStatus = 'PROCESSING' | 'COMPLETED' | 'FAILED'

export interface WithdrawalEvent {
  type: 'withdrawal'
  withdrawalId: number
  account: string
  sub: number
  asset: string
  amount: number
  address: string
  withdrawOrderId: string
  status: WithdrawalStatus
  txId: string
  reason: string
  applyTime: number
  time: number
}

export interface LeverageEvent {
  type: 'leverage'
  account: string
  sub: number
  marketId: number
  leverage: number
  /** Largest position notional allowed at this leverage, quote ledger units. */
  maxNotional: number
  time: number
}

export interface PositionModeEvent {
  type: 'positionMode'
  account: string
  sub: number
  dualSide: boolean
  time: number
}

export interface SessionEvent {
  type: 'session'
  account: string
  sub: number
  apiKey: string
  permissions: string[]
  expiresAt: number
  /**
   * ACTIVE when created; REVOKED by the owner; REPLACED by a newer session of the sub-account;
   * RSA_KEY when an RSA public key was registered on it.
   */
  status: 'ACTIVE' | 'REVOKED' | 'REPLACED' | 'RSA_KEY'
  time: number
}

export interface MarketEvent {
  type: 'market'
  marketId: number
  status: string
  time: number
}

export interface AssetEvent {
  type: 'asset'
  asset: string
  scale: number
}

/** A position's funding payment at an interval boundary (one per sub-account and market). */
export interface FundingEvent {
  type: 'funding'
  account: string
  sub: number
  marketId: number
  /** Signed change of the perp wallet: negative paid, positive received. */
  amount: number
  /** Perp wallet balance after it. */
  wallet: number
  fundingRateE8: number
  markPriceTicks: number
  /** Net position lots (LONG + SHORT + BOTH) it was charged on. */
  positionQtyLots: number
  /** The boundary settled. */
  fundingTime: number
  time: number
}

/** A market's funding settlement: the fundingRate history row. */
export interface FundingRateEvent {
  type: 'fundingRate'
  marketId: number
  fundingRateE8: number
  fundingTime: number
  markPriceTicks: number
  /** What the payers paid and the receivers got; the difference went to the exchange's fees. */
  paid: number
  received: number
  time: number
}

/** Index and mark after a Tick refreshed them (mark and index price klines, streams). */
export interface PricesEvent {
  type: 'prices'
  marketId: number
  indexE8: number
  markPriceTicks: number
  time: number
}

/** An oracle key registered for a pair. */
export interface OracleEvent {
  type: 'oracle'
  pair: string
  oracle: string
  time: number
}

export type Event =
  | OrderEvent
  | PerpTradeEvent
  | SpotTradeEvent
  | BalanceEvent
  | DepositEvent
  | TransferEvent
  | WithdrawalEvent
  | LeverageEvent
  | PositionModeEvent
  | SessionEvent
  | MarketEvent
  | AssetEvent
  | FundingEvent
  | FundingRateEvent
  | PricesEvent
  | OracleEvent

export interface Accepted {
  ok: true
  events: Event[]
  /** The order id a PlaceOrder was given. */
  orderId?: number
  /** The withdrawal id a WithdrawalRequest was given. */
  withdrawalId?: number
}

export interface Rejected {
  ok: false
  code: Code
  events: Event[]
}

export type Result = Accepted | Rejected
