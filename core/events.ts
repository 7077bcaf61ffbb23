// Events a command causes. Gateways, projections and streams are built from these alone, so
// each carries the whole new state of what it touched (order record, balances, position).

import type { Code } from './codes.js'
import type { ConditionalType, MarginType, OrderType, PegPriceType, PositionSide, PriceMatch, Side, StpMode, TimeInForce, WalletKind } from './commands.js'

/** PENDING_NEW: an OTO list's pending order, waiting for its working order to fill (core/oto-lists.ts). */
export type OrderStatus = 'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'EXPIRED' | 'EXPIRED_IN_MATCH' | 'PENDING_NEW'
/**
 * Why an order record changed, as Binance's execution type `x`. TRADE_PREVENTION: self-trade
 * prevention in DECREMENT mode took lots off an order that stays open (core/prevention.ts).
 */
export type ExecType = 'NEW' | 'CANCELED' | 'EXPIRED' | 'EXPIRED_IN_MATCH' | 'TRADE' | 'AMENDMENT' | 'REPLACED' | 'TRADE_PREVENTION'

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
  /** Conditional orders only: their trigger parameters (absent for plain orders). */
  cond?: ConditionalFields
  /** The priceMatch mode its price was taken by; absent for NONE. */
  priceMatch?: PriceMatch
  /** Spot MARKET orders sized by quote: the quote ledger units asked for; absent otherwise. */
  quoteQty?: number
  /** An OCO list's order: the list's id (Binance orderListId); absent for an order placed alone. */
  orderListId?: number
  /** A spot iceberg's slice, lots (Binance icebergQty); absent for other orders. */
  icebergLots?: number
  /** Spot pegged orders (core/peg.ts): their peg; priceTicks is the price it gave (0 until it has). */
  peg?: Peg
  /** Spot orders that expired: why (Binance spot's expiryReason). */
  expiryReason?: ExpiryReason
  /**
   * Orders self-trade prevention expired (EXPIRED_IN_MATCH) or, in DECREMENT mode, cut: the last
   * prevented match they took part in (its preventedMatchId).
   */
  preventedMatchId?: number
  /**
   * Spot orders DECREMENT cut: the lots it took off, gone from origQtyLots (what the order may
   * trade); the quantity sent is the sum. Absent when none.
   */
  preventedLots?: number
  /** Spot orders sent with one (rules 7): Binance's strategyId; absent otherwise. */
  strategyId?: number
  /** Spot orders sent with one (rules 7): Binance's strategyType; absent otherwise. */
  strategyType?: number
}

/**
 * Why a spot order expired, as Binance spot's user stream table words it: a stop or an OTO's
 * pending order refused as it was placed (REJECTED), an OCO's other order (OCO_TRIGGER), an OTO's
 * pending orders as its working order expired (OTO_PHASE_ONE_EXPIRED), an IOC's or a market
 * order's rest (UNFILLED_IOC_QUANTITY_EXPIRED, INSUFFICIENT_LIQUIDITY), a taker the Price Range
 * rule stopped, and the rest of a taker past the exchange's fills per command (EXCHANGE_CANCELED).
 */
export type ExpiryReason = 'REJECTED' | 'EXCHANGE_CANCELED' | 'OCO_TRIGGER' | 'OTO_PHASE_ONE_EXPIRED' | 'UNFILLED_IOC_QUANTITY_EXPIRED'
  | 'UNFILLED_FOK_ORDER_EXPIRED' | 'INSUFFICIENT_LIQUIDITY' | 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED'

/** A conditional order's parameters as its records show them (Binance stopPrice, activatePrice...). */
export interface ConditionalFields {
  /** The type it was placed as; the record's orderType becomes LIMIT or MARKET at trigger. */
  origType: ConditionalType
  /** Trigger price; for a trailing stop, the trigger the extreme implies (0 until activated). */
  stopPriceTicks: number
  activationPriceTicks: number
  /** Trailing retrace in 0.1 % steps; 0 for other types. */
  callbackPermille: number
  workingType: 'MARK_PRICE' | 'CONTRACT_PRICE'
  priceProtect: boolean
  closePosition: boolean
  /** Time it triggered; 0 while waiting. */
  triggerTime: number
  /** Why it expired at trigger instead of being placed ('' otherwise). */
  reason: Code | ''
  /** Spot trailing stops only: the trailing delta, BIPS. */
  trailingDeltaBips?: number
  /** Spot trailing stops only: when it started tracking the price (0 until then). */
  trailingTime?: number
}

/**
 * A pegged order's instructions. Its priceTicks is the price the book gave it, 0 until it has
 * one (a stop before its trigger, an OTO list's pending order before its placement).
 */
export interface Peg {
  type: PegPriceType
  /** Levels deeper than the best (Binance's pegOffsetValue; 0: the best). */
  offsetLevels: number
  /** The price the order was sent with (checked by the filters, recorded as its price), 0 without one. */
  sentPriceTicks: number
}

/** The full record of an order after a change (NEW, CANCELED, EXPIRED...). */
export interface OrderEvent extends OrderRecordFields {
  type: 'order'
  execType: ExecType
  /**
   * AMENDMENT events (a perpetual order's price and quantity, back of the queue) and REPLACED
   * events (a spot order's quantity, in place) only: what the amendment changed.
   */
  amendment?: AmendmentFields
  /** The CANCELED event of a cancel that named itself (CancelOrder.cancelClientOrderId) only. */
  cancelClientOrderId?: string
}

/** One amendment: price and quantity before it (after it: the record's own), and its number. */
export interface AmendmentFields {
  priceBeforeTicks: number
  origQtyBeforeLots: number
  /** 1 for the order's first amendment, and so on. */
  count: number
  /** REPLACED only: the client id the order had before (its own is the new one). */
  clientOrderIdBefore?: string
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
  /**
   * An auto-deleveraging fill (core/liquidation/adl.ts): a liquidation closed against an
   * opposite position at the bankruptcy price, off the book. Not a market trade: public
   * trades, tickers and klines skip it, and it does not move the last price.
   */
  adl?: true
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
  /** The position side's accumulated realized PnL after the fill (Binance `cr`). */
  positionRealizedPnl: number
  /** The position's realized PnL since it last opened (for its break-even price, gateway/format-account.ts). */
  positionRealizedSinceOpen: number
  /** Perp (cross) wallet balance after the fill. */
  wallet: number
  /** Isolated positions only: the position's isolated wallet after the fill. */
  isolatedWallet?: number
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

/** A deposit seen on chain, `confirmations` of `required` deep, not credited yet. */
export interface DepositPendingEvent {
  type: 'depositPending'
  account: string
  sub: number
  asset: string
  amount: number
  ref: string
  confirmations: number
  required: number
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

/** Money moved between two sub-accounts of `account` (SubAccountTransfer); each side's balance event follows. */
export interface SubTransferEvent {
  type: 'subTransfer'
  account: string
  fromSub: number
  toSub: number
  fromWallet: WalletKind
  toWallet: WalletKind
  asset: string
  amount: number
  /** The client's id, '' when none was sent. */
  clientTranId: string
  time: number
}

/** A sub-account made for the account's master (CreateSubAccount): empty, its number `sub`. */
export interface SubAccountCreatedEvent {
  type: 'subAccountCreated'
  account: string
  sub: number
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

/** A session's listen key opened, extended or closed; `expiresAt` 0 once closed. */
export interface ListenKeyEvent {
  type: 'listenKey'
  account: string
  sub: number
  apiKey: string
  expiresAt: number
  status: 'OPEN' | 'EXTENDED' | 'CLOSED'
  /** SPOT for the spot stream's key; absent for the futures stream's. */
  stream?: 'SPOT'
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
  /** Signed payment over the holding (cross and isolated positions): negative paid, positive received. */
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
  /**
   * Isolated positions paid from (or into) their own wallets, not the perp wallet: each one's
   * side, payment and isolated wallet after it. Absent for a cross holding.
   */
  isolated?: { positionSide: PositionSide; amount: number; isolatedWallet: number; qtyLots: number; costTicksLots: number }[]
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
  /** The premium index sample (E8) when this Tick took the 5-s slot's sample (core/prices.ts). */
  premiumE8?: number
  /** At the first Tick of each 5-minute bucket: the top traders' positions (core/top-traders.ts). */
  topTraders?: TopTradersFields
}

/** Among a market's holders, the fifth with the highest margin balance: net long and short ones, and their lots. */
export interface TopTradersFields {
  longAccounts: number
  shortAccounts: number
  longLots: number
  shortLots: number
}

/** An oracle key registered for a pair. */
export interface OracleEvent {
  type: 'oracle'
  pair: string
  oracle: string
  time: number
}

/** A market's margin type changed for a sub-account (nothing was open there). */
export interface MarginTypeEvent {
  type: 'marginType'
  account: string
  sub: number
  marketId: number
  marginType: MarginType
  time: number
}

/** Margin moved between the cross wallet and an isolated position (Binance positionMargin). */
export interface PositionMarginEvent {
  type: 'positionMargin'
  account: string
  sub: number
  marketId: number
  positionSide: PositionSide
  /** Binance's type: 1 add (cross → isolated), 2 reduce (isolated → cross). */
  direction: 'ADD' | 'REDUCE'
  /** Quote ledger units moved, positive. */
  amount: number
  /** Cross wallet and the position's isolated wallet after the move. */
  wallet: number
  isolatedWallet: number
  /** The position it backs. */
  positionQtyLots: number
  positionCostTicksLots: number
  time: number
}

/** The insurance fund of an asset changed (core/liquidation): a clearance fee in, a shortfall covered out. */
export interface InsuranceEvent {
  type: 'insurance'
  asset: string
  /** Signed change of the fund. */
  amount: number
  /** The fund after it. */
  balance: number
  reason: 'LIQUIDATION_FEE' | 'SHORTFALL'
  /** The liquidated sub-account and position the change is for. */
  account: string
  sub: number
  marketId: number
  positionSide: PositionSide
  /** Its perp (cross) wallet after the change. */
  wallet: number
  /** An isolated position still open: its isolated wallet after the change. */
  isolatedWallet?: number
  time: number
}

/** A liquidation or ADL order's record when it ends (Binance forceOrder stream, /fapi/v1/forceOrders). */
export interface ForceOrderEvent extends OrderRecordFields {
  type: 'forceOrder'
  autoCloseType: 'LIQUIDATION' | 'ADL'
  /** Lots of the order's last fill (Binance `l`). */
  lastFilledQtyLots: number
}

/** One position of a margin call (Binance MARGIN_CALL `p` rows). */
export interface MarginCallPosition {
  marketId: number
  positionSide: PositionSide
  qtyLots: number
  marginType: MarginType
  isolatedWallet: number
  markPriceTicks: number
  unrealizedPnl: number
  maintenance: number
}

/**
 * A cross account, or an isolated position, crossed the warning level (margin ratio =
 * maintenance / margin balance ≥ 80 %; core/liquidation/flags.ts). Once per crossing.
 */
export interface MarginCallEvent {
  type: 'marginCall'
  account: string
  sub: number
  /** Cross wallet balance (Binance `cw`). */
  wallet: number
  positions: MarginCallPosition[]
  time: number
}

/**
 * A match self-trade prevention stopped (Binance's prevented match): the taker met a maker of
 * its own sub-account; the mode says which of them expired.
 */
export interface PreventedMatchEvent {
  type: 'preventedMatch'
  marketId: number
  /** Numbered per market from 0 (Binance spot's preventedMatchId). */
  preventedMatchId: number
  account: string
  sub: number
  takerOrderId: number
  makerOrderId: number
  /** The maker's price, and the lots it had left there (which did not trade). */
  priceTicks: number
  makerLots: number
  /** The lots the taker had left as it met the maker. */
  takerLots: number
  mode: StpMode
  time: number
}

/**
 * An OCO order list's status (Binance spot's listStatus): EXEC_STARTED/EXECUTING as it is
 * placed, ALL_DONE/ALL_DONE once a leg filled, triggered or was canceled and the other went.
 */
export interface OrderListEvent {
  type: 'orderList'
  marketId: number
  account: string
  sub: number
  orderListId: number
  listClientOrderId: string
  /** OCO, or OTO for OTO and OTOCO lists (as Binance names both). */
  contingencyType: 'OCO' | 'OTO'
  /** UPDATED: one of its orders took a new client id (an amendment keeping priority). */
  listStatusType: 'EXEC_STARTED' | 'UPDATED' | 'ALL_DONE'
  listOrderStatus: 'EXECUTING' | 'ALL_DONE'
  /** Its orders, in orderId order. */
  orders: { orderId: number; clientOrderId: string }[]
  /** Placement time (transactionTime). */
  time: number
  /** When this status came about. */
  updateTime: number
}

export type Event =
  | OrderEvent
  | OrderListEvent
  | PreventedMatchEvent
  | PerpTradeEvent
  | SpotTradeEvent
  | BalanceEvent
  | DepositEvent
  | DepositPendingEvent
  | TransferEvent
  | SubTransferEvent
  | SubAccountCreatedEvent
  | WithdrawalEvent
  | LeverageEvent
  | PositionModeEvent
  | SessionEvent
  | ListenKeyEvent
  | MarketEvent
  | AssetEvent
  | FundingEvent
  | FundingRateEvent
  | PricesEvent
  | OracleEvent
  | MarginTypeEvent
  | PositionMarginEvent
  | InsuranceEvent
  | ForceOrderEvent
  | MarginCallEvent

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
