// The commands the core applies. Every command that has an issuer names it (address and
// sub-account); amounts are integers in the asset's ledger scale, prices in ticks and
// quantities in lots of their market. Decimal strings exist only at the edges.

import type { PriceRange } from './price-range.js'

export type Side = 'BUY' | 'SELL'
/** Conditional (stop, take-profit, trailing) types: they wait for a trigger (core/conditional.ts). */
export type ConditionalType = 'STOP' | 'STOP_MARKET' | 'TAKE_PROFIT' | 'TAKE_PROFIT_MARKET' | 'TRAILING_STOP_MARKET'
/** LIQUIDATION: the exchange's own closing orders (core/liquidation); never accepted from a client. */
export type OrderType = 'LIMIT' | 'MARKET' | 'POST_ONLY' | 'LIQUIDATION' | ConditionalType
/** The price a conditional order watches: the mark, or the last trade price. */
export type WorkingType = 'MARK_PRICE' | 'CONTRACT_PRICE'
export type TimeInForce = 'GTC' | 'IOC' | 'FOK' | 'GTX' | 'GTD'
export type PositionSide = 'BOTH' | 'LONG' | 'SHORT'
/**
 * DECREMENT and TRANSFER (spot only): the match is prevented, and both orders lose the lots it
 * would have traded (core/prevention.ts). TRANSFER moves them between accounts of one trade
 * group at Binance; here every self-trade is within one sub-account, so it acts as DECREMENT.
 */
export type StpMode = 'NONE' | 'EXPIRE_TAKER' | 'EXPIRE_MAKER' | 'EXPIRE_BOTH' | 'DECREMENT' | 'TRANSFER'
export type CancelRestriction = 'ONLY_NEW' | 'ONLY_PARTIALLY_FILLED'
export type WalletKind = 'SPOT' | 'PERP'
export type MarketStatus = 'TRADING' | 'HALT' | 'BREAK'
export type MarginType = 'CROSSED' | 'ISOLATED'
/**
 * Binance's priceMatch: the price is taken from the book when the command is applied
 * (core/price-match.ts). OPPONENT is the opposite side's best level, OPPONENT_n its n-th;
 * QUEUE the own side's best, QUEUE_n its n-th. NONE: the order's own price.
 */
export type PriceMatch = 'NONE' | 'OPPONENT' | 'OPPONENT_5' | 'OPPONENT_10' | 'OPPONENT_20' | 'QUEUE' | 'QUEUE_5' | 'QUEUE_10' | 'QUEUE_20'
/**
 * Binance spot's pegPriceType (core/peg.ts): the limit price is the book's best on the order's
 * own side (PRIMARY_PEG) or on the side it would trade against (MARKET_PEG), taken as the order
 * enters the book.
 */
export type PegPriceType = 'PRIMARY_PEG' | 'MARKET_PEG'

export interface Issuer {
  /** Wallet address, checksummed hex. */
  account: string
  /** Sub-account number; 0 is the default. */
  sub: number
  /** The API key that signed the request, kept for the audit trail. */
  apiKey?: string
}

export interface Bracket {
  /** Upper bound of position notional for this bracket, quote ledger units. */
  notionalCap: number
  maxLeverage: number
  /** Maintenance margin rate in parts per million. */
  mmrPpm: number
}

export interface CreateAsset {
  type: 'CreateAsset'
  asset: string
  /** Ledger units per whole coin are 10^scale. */
  scale: number
}

interface MarketSpecCommon {
  marketId: number
  symbol: string
  base: string
  quote: string
  pricePrecision: number
  quantityPrecision: number
  /** Tick size in units of 10^-pricePrecision. */
  tickSize: number
  /** Step size in units of 10^-quantityPrecision. */
  stepSize: number
  minPriceTicks: number
  maxPriceTicks: number
  minQtyLots: number
  maxQtyLots: number
  /** MARKET_LOT_SIZE maximum for market orders. */
  marketMaxQtyLots: number
  /** Minimum order value, quote ledger units. */
  minNotional: number
  makerFeePpm: number
  takerFeePpm: number
}

export interface CreatePerpMarket extends MarketSpecCommon {
  type: 'CreatePerpMarket'
  pair: string
  brackets: Bracket[]
  /** Leverage new positions start with (Binance: 20, capped at maxLeverage). */
  defaultLeverage: number
  /** Quote ledger units the impact bid/ask fill; default 200 quote coins × max leverage. */
  impactNotional?: number
  /** Funding rate cap and floor, 1e-8 units; default ±0.75 × the first bracket's mmr. */
  fundingCapE8?: number
  fundingFloorE8?: number
  /** Funding interval, ms: a whole number of hours dividing 24 h; default 8 h. */
  fundingIntervalMs?: number
  /** priceProtect threshold of |mark − last| / mark, ppm; default 50_000 (Binance triggerProtect 0.05). */
  triggerProtectPpm?: number
  /** Liquidation clearance fee, ppm of a liquidation's filled notional; default 12_500 (1.25 %). */
  liquidationFeePpm?: number
  /** PERCENT_PRICE half-width around the mark, ppm, below 1_000_000; 0 turns it off; default 50_000 (1.05 / 0.95). */
  percentPricePpm?: number
  /** marketTakeBound around the mark, ppm, below 1_000_000; 0 turns it off; default 50_000 (0.05). */
  marketTakeBoundPpm?: number
}

/** Registers (or replaces) the key whose signed OraclePrice commands set a pair's index. */
export interface SetOracle {
  type: 'SetOracle'
  pair: string
  /** EVM address, 0x-prefixed hex. */
  oracle: string
}

/**
 * An index price for a pair, signed by its oracle (EIP-712, see replica/oracle-signature.ts).
 * The signature is verified before sequencing and kept in the log for the audit; the core
 * checks only the shape, that `oracle` is the registered key, and that `time` is newer.
 */
export interface OraclePrice {
  type: 'OraclePrice'
  pair: string
  /** Price in 1e-8 units of the quote asset. */
  priceE8: number
  /** The oracle's time of the price, ms. */
  time: number
  oracle: string
  signature: string
}

export interface CreateSpotMarket extends MarketSpecCommon {
  type: 'CreateSpotMarket'
  /** Binance spot's Price Range execution rule (core/price-range.ts); absent: none. */
  priceRange?: PriceRange
}

export interface SetMarketStatus {
  type: 'SetMarketStatus'
  marketId: number
  status: MarketStatus
}

/**
 * Declares the rules version the entries after it apply under (core/rules.ts). Written by the
 * sequencer only, as it starts on a log declaring older rules (or none).
 */
export interface SetRules {
  type: 'SetRules'
  version: number
  /**
   * The secret the state root's leaf salts derive from (core/root.ts), 0x and 64 lowercase hex
   * digits: carried by the declaration that first takes a log to rules 2 or later, and only by it.
   */
  leafSeed?: string
}

/**
 * Opens a leader's term (replica/leadership.ts): the first entry a sequencer elected through the
 * consensus service writes, so every entry after it, up to the next, was written by that
 * leader. Epochs only rise. A standby's vote names the epoch its log reached, and the log
 * that reached the newest term wins over a longer one of an older term.
 */
export interface Lead {
  type: 'Lead'
  /** The leader key's create revision in etcd. */
  epoch: number
  /** The leader's node id (--node-id). */
  node: string
}

/**
 * Declares the chain the log's money lives on (core/chain-declaration.ts): written once by the
 * sequencer as its chain services start, under rules 2 on.
 */
export interface DeclareChain {
  type: 'DeclareChain'
  chainId: number
  /** The Vault contract, 0x hex. */
  vault: string
  /** Each asset's ERC-20 token and its decimals. */
  tokens: { asset: string; address: string; decimals: number }[]
}

export interface Deposit extends Issuer {
  type: 'Deposit'
  asset: string
  amount: number
  wallet: WalletKind
  /** Idempotency key, e.g. `<txHash>:<logIndex>`; a repeated ref is rejected. */
  ref: string
}

/**
 * A deposit seen on chain but not yet at the confirmation depth: a note for the deposit
 * history (status pending, `confirmations`/`required`), changing no balance. Refused once the
 * ref was credited, so a late note never follows the credit. The ledger is credited only by
 * the Deposit with the same ref. A note of 0 confirmations says the deposit's block left the
 * chain (a reorganization): the pending row goes.
 */
export interface DepositPending extends Issuer {
  type: 'DepositPending'
  asset: string
  amount: number
  ref: string
  confirmations: number
  required: number
}

export interface Transfer extends Issuer {
  type: 'Transfer'
  direction: 'SPOT_TO_PERP' | 'PERP_TO_SPOT'
  amount: number
}

/**
 * Money from one sub-account's wallet to another sub-account's of the same account (rules 3). The
 * issuer (who signed) is the source sub-account itself or sub-account 0, the account's master,
 * which may move money between any two of its sub-accounts. The perp wallet holds the margin
 * asset only; what leaves it is bounded by what a withdrawal could take.
 */
export interface SubAccountTransfer extends Issuer {
  type: 'SubAccountTransfer'
  fromSub: number
  toSub: number
  fromWallet: WalletKind
  toWallet: WalletKind
  asset: string
  amount: number
  /** The client's own id for the transfer (Binance clientTranId), kept in the history; optional. */
  clientTranId?: string
}

/**
 * A new sub-account of the issuer's account (rules 4), asked by sub-account 0, the master: the
 * lowest number no sub-account of the account holds yet (one in use, funded or signed into, is
 * never given out again). Sub-accounts otherwise come into being on first use.
 */
export interface CreateSubAccount extends Issuer {
  type: 'CreateSubAccount'
}

export interface WithdrawalRequest extends Issuer {
  type: 'WithdrawalRequest'
  asset: string
  amount: number
  address: string
  /** Client's own id for the withdrawal (Binance withdrawOrderId), optional. */
  withdrawOrderId?: string
}

/**
 * The operator takes collected trading fees out of the Vault (core/wallet.ts): debited from the
 * fees at once and paid like a user's withdrawal, so the audit matches the payment (rules 2 on).
 */
export interface FeeWithdrawal {
  type: 'FeeWithdrawal'
  asset: string
  amount: number
  address: string
}

export interface WithdrawalComplete {
  type: 'WithdrawalComplete'
  withdrawalId: number
  txId: string
}

export interface WithdrawalFail {
  type: 'WithdrawalFail'
  withdrawalId: number
  reason: string
}

export interface PlaceOrder extends Issuer {
  type: 'PlaceOrder'
  marketId: number
  side: Side
  orderType: OrderType
  timeInForce?: TimeInForce
  /** Required for LIMIT and POST_ONLY; absent for MARKET. */
  priceTicks?: number
  /** 0 when quoteQty sizes the order. */
  qtyLots: number
  /**
   * Spot MARKET only (Binance's quoteOrderQty): quote ledger units to spend (BUY) or receive
   * (SELL) at most; the order takes the quantity the book gives for it (core/orders.ts).
   */
  quoteQty?: number
  clientOrderId?: string
  positionSide?: PositionSide
  reduceOnly?: boolean
  stp?: StpMode
  goodTillDate?: number
  // Conditional types only (core/conditional.ts).
  /** STOP, STOP_MARKET, TAKE_PROFIT, TAKE_PROFIT_MARKET: the trigger price. */
  stopPriceTicks?: number
  /** TRAILING_STOP_MARKET: the price that starts the trailing; default the price at placement. */
  activationPriceTicks?: number
  /** TRAILING_STOP_MARKET: the retrace that triggers, in 0.1 % steps (1 = 0.1 %, 100 = 10 %). */
  callbackPermille?: number
  /**
   * Spot stops only (Binance's trailingDelta): trail the last price by this many BIPS (0.01 %),
   * starting once the stop price is reached, or at once without one (core/spot-stops.ts).
   */
  trailingDeltaBips?: number
  /**
   * Spot GTC LIMIT and POST_ONLY orders, and the limit forms of spot stops (Binance's icebergQty):
   * the book shows this many lots of the order at a time; each slice used up shows the next one
   * at the back of its level (core/book.ts).
   */
  icebergLots?: number
  /**
   * Spot LIMIT, POST_ONLY and the limit forms of spot stops (Binance's pegPriceType): the price
   * is taken from the book as the order enters it (a stop's at its trigger); priceTicks, when
   * sent too, is checked by the filters and recorded, not traded at (core/peg.ts).
   */
  pegPriceType?: PegPriceType
  /** With pegPriceType (Binance's pegOffsetValue, pegOffsetType PRICE_LEVEL): that many levels deeper than the best, 0..100. */
  pegOffsetLevels?: number
  /**
   * Spot only, rules 7 (core/strategy.ts): Binance's strategyId, the client's tag of the order
   * within a strategy, 0..2^53 − 1, kept and shown on its records; ignored under older rules.
   */
  strategyId?: number
  /** Spot only, rules 7: Binance's strategyType, 1,000,000..2^31 − 1 (lower values are Binance's reserved ones). */
  strategyType?: number
  /** Default CONTRACT_PRICE. */
  workingType?: WorkingType
  /** Hold the trigger while mark and last price differ by more than the market's triggerProtect. */
  priceProtect?: boolean
  /** STOP_MARKET / TAKE_PROFIT_MARKET: close the whole position at trigger (no qtyLots). */
  closePosition?: boolean
  /** LIMIT only: take the price from the book instead of priceTicks (which must then be absent). */
  priceMatch?: PriceMatch
}

export interface CancelOrder extends Issuer {
  type: 'CancelOrder'
  marketId: number
  orderId?: number
  clientOrderId?: string
  restriction?: CancelRestriction
  /**
   * The cancel's own client id (Binance spot's newClientOrderId on a cancel): carried by the
   * CANCELED event, where the spot stream shows it as `c`. The order keeps its own id.
   */
  cancelClientOrderId?: string
}

/**
 * One order of a list. An OCO's (Binance spot's above and below orders): POST_ONLY
 * (LIMIT_MAKER), or a spot stop (STOP, STOP_MARKET, TAKE_PROFIT, TAKE_PROFIT_MARKET,
 * core/spot-stops.ts); an OTO's working order LIMIT or POST_ONLY, its pending order any of these
 * or LIMIT or MARKET.
 */
export interface ListLeg {
  orderType: OrderType
  /** LIMIT_MAKER, STOP and TAKE_PROFIT: the limit price. */
  priceTicks?: number
  /** The stop types: the trigger price. */
  stopPriceTicks?: number
  /** The stop types: a trailing stop's delta, BIPS (PlaceOrder's trailingDeltaBips). */
  trailingDeltaBips?: number
  /** LIMIT, POST_ONLY and the limit stop forms: an iceberg's slice (PlaceOrder's icebergLots). */
  icebergLots?: number
  /** LIMIT, and STOP and TAKE_PROFIT (the limit order's at trigger): GTC, IOC, FOK. */
  timeInForce?: TimeInForce
  /** LIMIT, POST_ONLY and the limit stop forms: a pegged price (PlaceOrder's pegPriceType and pegOffsetLevels). */
  pegPriceType?: PegPriceType
  pegOffsetLevels?: number
  /** The order's strategy tags (PlaceOrder's strategyId and strategyType; rules 7). */
  strategyId?: number
  strategyType?: number
  clientOrderId?: string
}

/**
 * Places an OCO order list on a spot market (core/order-lists.ts): two orders of one side and
 * quantity, one above the last price and one below; when either fills, triggers or is
 * canceled, the other is canceled with it.
 */
export interface PlaceOrderList extends Issuer {
  type: 'PlaceOrderList'
  marketId: number
  side: Side
  qtyLots: number
  /** Unique among the sub-account's executing lists; generated when absent. */
  listClientOrderId?: string
  stp?: StpMode
  above: ListLeg
  below: ListLeg
}

/**
 * Places an OTO or OTOCO list on a spot market (core/oto-lists.ts): the working order (LIMIT
 * or POST_ONLY) at once; the pending order (`pending`), or the OCO pair (`pendingAbove` and
 * `pendingBelow`, of one side and quantity), once the working order has filled in full.
 */
export interface PlaceOtoList extends Issuer {
  type: 'PlaceOtoList'
  marketId: number
  listClientOrderId?: string
  stp?: StpMode
  working: ListLeg & { side: Side; qtyLots: number }
  pendingSide: Side
  pendingQtyLots: number
  /**
   * OPO and OPOCO (Binance's one-pays-the-other): a BUY working order and SELL pending orders,
   * pendingQtyLots 0; the pending orders sell what the working order brings, net of its fee, to
   * the lot (core/oto-lists.ts).
   */
  opo?: boolean
  /** OTO: one pending order, LIMIT, MARKET, POST_ONLY or a spot stop type. */
  pending?: ListLeg
  /** OTOCO: an OCO pair, as PlaceOrderList's legs. */
  pendingAbove?: ListLeg
  pendingBelow?: ListLeg
}

/** Cancels an executing order list, both its orders, by its id or its client id. */
export interface CancelOrderList extends Issuer {
  type: 'CancelOrderList'
  marketId: number
  orderListId?: number
  listClientOrderId?: string
  /** The cancel's own client id (Binance's newClientOrderId), carried by the CANCELED events. */
  cancelClientOrderId?: string
}

/**
 * Amends a resting LIMIT order's price and quantity in place (Binance's modify order): it
 * keeps its orderId and client id, loses its time priority, and may trade at once.
 */
export interface ModifyOrder extends Issuer {
  type: 'ModifyOrder'
  marketId: number
  orderId?: number
  clientOrderId?: string
  /** Must be the order's own side. */
  side: Side
  /** The new price; absent when priceMatch names one. */
  priceTicks?: number
  /** The new total quantity, fills included. */
  qtyLots: number
  /** Take the new price from the book (core/price-match.ts); priceTicks must then be absent. */
  priceMatch?: PriceMatch
}

/**
 * Reduces a resting spot order's quantity in place (Binance spot's order amend keep
 * priority): the order keeps its orderId and its place in the queue, releases what the lots
 * taken off held, and may take a new client id.
 */
export interface AmendKeepPriority extends Issuer {
  type: 'AmendKeepPriority'
  marketId: number
  orderId?: number
  clientOrderId?: string
  /** The new total quantity, fills included: less than the order's, more than its fills. */
  qtyLots: number
  /** The order's client id from now on; absent: a generated one, as Binance generates one. */
  newClientOrderId?: string
}

export interface CancelAll extends Issuer {
  type: 'CancelAll'
  marketId: number
  /** Only the waiting conditional orders (Binance DELETE /fapi/v1/algoOpenOrders). */
  conditionalOnly?: boolean
}

/** Binance's countdownCancelAll: cancel the market's open orders `countdownMs` from now; 0 clears it. */
export interface CountdownCancelAll extends Issuer {
  type: 'CountdownCancelAll'
  marketId: number
  countdownMs: number
}

export interface ChangeLeverage extends Issuer {
  type: 'ChangeLeverage'
  marketId: number
  leverage: number
}

export interface ChangePositionMode extends Issuer {
  type: 'ChangePositionMode'
  dualSide: boolean
}

/** Cross ⇄ isolated margin for one market; refused with open orders or a position there. */
export interface ChangeMarginType extends Issuer {
  type: 'ChangeMarginType'
  marketId: number
  marginType: MarginType
}

/**
 * Moves quote between the cross wallet and one isolated position's wallet (Binance's modify
 * isolated position margin): ADD from cross available, REDUCE at most what keeps the position
 * at its initial margin.
 */
export interface AdjustPositionMargin extends Issuer {
  type: 'AdjustPositionMargin'
  marketId: number
  positionSide: PositionSide
  /** Quote ledger units, positive. */
  amount: number
  direction: 'ADD' | 'REDUCE'
}

export type Permission = 'TRADE' | 'USER_DATA' | 'WITHDRAW'

/**
 * A trading session created by a wallet signature. The gateway verified the signature before
 * sequencing; the log keeps it so auditors can verify it again. Secrets never enter the log:
 * gateways derive a session's HMAC secret from their master secret and the apiKey.
 */
export interface CreateSession extends Issuer {
  type: 'CreateSession'
  apiKey: string
  permissions: Permission[]
  expiresAt: number
  /** Milliseconds; strictly above every earlier nonce of the sub-account, so never reused. */
  nonce: number
  /**
   * EIP-712 signature by the account over {address, subAccount, permissions, expiresAt, nonce}
   * (type Session), or, with rsaPublicKey, over those and the key (type RsaSession).
   */
  signature: string
  /**
   * A session keyed by a public key (POST /fapi/v1/apiKey/rsa), RSA or Ed25519 (the name predates
   * Ed25519 keys; logs keep it): SPKI PEM, as RegisterRsaKey takes it.
   */
  rsaPublicKey?: string
}

export interface RevokeSession extends Issuer {
  type: 'RevokeSession'
  apiKey: string
}

/**
 * Attaches a public key, RSA or Ed25519, to the issuer's live session, so requests may be signed with the
 * matching private key instead of the HMAC secret. A public key is no secret: the log keeps it.
 * The gateway parsed it and checked its size; the core checks only its shape.
 */
export interface RegisterRsaKey extends Issuer {
  type: 'RegisterRsaKey'
  apiKey: string
  /** SPKI PEM ("-----BEGIN PUBLIC KEY-----"), lines of 64 base64 characters, ending in a newline. */
  publicKey: string
}

/**
 * The user data stream's listen key of a session (API.md "User data stream"), kept in the
 * log so that every gateway agrees whether it is live: OPEN makes it live for 60 minutes (or
 * extends a live one), KEEPALIVE extends a live one, CLOSE ends it. The key's name is derived
 * by gateways from the apiKey; the core keeps only until when it is live.
 */
export interface ListenKey extends Issuer {
  type: 'ListenKey'
  apiKey: string
  action: 'OPEN' | 'KEEPALIVE' | 'CLOSE'
  /** SPOT: the spot stream's key, a second key of the session; absent: the futures stream's. */
  stream?: 'SPOT'
}

export interface Tick {
  type: 'Tick'
}

export type Command =
  | CreateAsset
  | CreatePerpMarket
  | CreateSpotMarket
  | SetMarketStatus
  | SetRules
  | Lead
  | DeclareChain
  | Deposit
  | DepositPending
  | Transfer
  | SubAccountTransfer
  | CreateSubAccount
  | WithdrawalRequest
  | FeeWithdrawal
  | WithdrawalComplete
  | WithdrawalFail
  | PlaceOrder
  | CancelOrder
  | CancelAll
  | CountdownCancelAll
  | ModifyOrder
  | AmendKeepPriority
  | PlaceOrderList
  | PlaceOtoList
  | CancelOrderList
  | ChangeLeverage
  | ChangePositionMode
  | ChangeMarginType
  | AdjustPositionMargin
  | CreateSession
  | RevokeSession
  | RegisterRsaKey
  | ListenKey
  | SetOracle
  | OraclePrice
  | Tick

/**
 * The fixed strings commands hold: their types and the values of their enumerated fields. A
 * replica's tape reader hands the core these very strings (replica/body-tape.ts), which are
 * the core's own literals: V8 compares such strings by reference, and code optimized on
 * commands made in code is thrown away when the same text first comes as another string. A
 * word missing here costs only that.
 */
export const COMMAND_WORDS = [
  'CreateAsset', 'CreatePerpMarket', 'CreateSpotMarket', 'SetMarketStatus', 'Deposit', 'DepositPending', 'Transfer',
  'WithdrawalRequest', 'WithdrawalComplete', 'WithdrawalFail', 'PlaceOrder', 'CancelOrder', 'CancelAll', 'CountdownCancelAll', 'ModifyOrder',
  'ChangeLeverage', 'ChangePositionMode', 'ChangeMarginType', 'AdjustPositionMargin', 'CreateSession', 'RevokeSession',
  'RegisterRsaKey', 'ListenKey', 'SetOracle', 'OraclePrice', 'Tick',
  'BUY', 'SELL', 'LIMIT', 'MARKET', 'POST_ONLY', 'STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET',
  'TRAILING_STOP_MARKET', 'MARK_PRICE', 'CONTRACT_PRICE', 'GTC', 'IOC', 'FOK', 'GTX', 'GTD', 'BOTH', 'LONG', 'SHORT',
  'NONE', 'EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH', 'ONLY_NEW', 'ONLY_PARTIALLY_FILLED', 'TRADING', 'HALT', 'BREAK',
  'CROSSED', 'ISOLATED', 'OPPONENT', 'OPPONENT_5', 'OPPONENT_10', 'OPPONENT_20', 'QUEUE', 'QUEUE_5', 'QUEUE_10', 'QUEUE_20',
  'SPOT_TO_PERP', 'PERP_TO_SPOT', 'ADD', 'REDUCE', 'SPOT', 'AmendKeepPriority',
  'PlaceOrderList', 'PlaceOtoList', 'CancelOrderList', 'DECREMENT', 'TRANSFER', 'SetRules', 'DeclareChain', 'FeeWithdrawal', 'Lead',
  'SubAccountTransfer', 'PERP', 'CreateSubAccount',
] as const satisfies readonly (Command['type'] | Side | OrderType | WorkingType | TimeInForce | PositionSide | StpMode |
  CancelRestriction | MarketStatus | MarginType | PriceMatch | Transfer['direction'] | AdjustPositionMargin['direction'] |
  NonNullable<ListenKey['stream']> | WalletKind)[]

/** What the log hands the core: the command with its sequence number and time. */
export interface Entry {
  seq: number
  /** Sequencer time in ms, never decreasing. */
  time: number
  command: Command
}
