// The gateway's one error catalogue: every core rejection code and every request-level failure
// becomes Binance's {code, msg} with the HTTP status API.md assigns it. Nothing else builds bodies.

import { LIMITS, type Code } from '../core/index.js'

export interface ErrorBody {
  code: number
  msg: string
}

export class ApiError extends Error {
  override name = 'ApiError'

  constructor(
    readonly status: number,
    readonly code: number,
    msg: string,
    /** Seconds for the Retry-After header (429 and 418 only). */
    readonly retryAfterSec?: number,
    /** Headers the refusal carries besides (a -1015's order counts, as an accepted order's answer has them). */
    readonly headers?: Record<string, string>,
  ) {
    super(msg)
  }

  get msg(): string {
    return this.message
  }

  toBody(): ErrorBody {
    return { code: this.code, msg: this.message }
  }
}

/** Which API answers: numbering and wording differ between Binance's futures and spot. */
export type Venue = 'futures' | 'spot'

/** The endpoint family a core code came back from; a few codes read differently per family. */
export type Operation =
  | 'place' | 'cancel' | 'cancelAll' | 'query' | 'modify'
  | 'leverage' | 'positionMode' | 'marginType' | 'positionMargin' | 'wallet' | 'subAccount' | 'admin'

export interface CoreErrorContext {
  venue: Venue
  op: Operation
  /** The parameter a generic -1130 names (COMMAND_INVALID, AMOUNT_INVALID, OVERFLOW, …). */
  param?: string
  /** MIN_NOTIONAL as exchangeInfo prints it (e.g. "100"), for the -4164 text. */
  minNotional?: string
  /** The PERCENT_PRICE cap and floor at the mark, as prices print, for the -4016 and -4024 texts. */
  priceCap?: string
  priceFloor?: string
  /** The leverage that was asked for, for the -4028 text. */
  leverage?: number | string
  /** Spot: a MARKET order, whose quantity filter is MARKET_LOT_SIZE rather than LOT_SIZE. */
  marketOrder?: boolean
}

const bad = (code: number, msg: string): ApiError => new ApiError(400, code, msg)

// ---------------------------------------------------------------------------------------------
// Request-level errors the gateway raises itself (before or around a command).

/** The legal range Binance quotes for a decimal parameter that does not parse. */
export const DECIMAL_LEGAL_RANGE = '^([0-9]{1,20})(\\.[0-9]{1,20})?$'
/** The legal range Binance quotes for newClientOrderId. */
export const CLIENT_ID_LEGAL_RANGE = '^[\\.A-Z\\:/a-z0-9_-]{1,36}$'

/** Binance's typo ("occured") is kept: clients match on these strings. */
export function unknownError(): ApiError {
  return new ApiError(500, -1000, 'An unknown error occured while processing the request.')
}

export interface RateWindow {
  interval: 'SECOND' | 'MINUTE' | 'HOUR' | 'DAY'
  intervalNum: number
}

function windowText(w: RateWindow): string {
  return `${w.intervalNum} ${w.interval}`
}

/** Request weight over the limit: 429 with Retry-After. */
export function tooManyRequests(limit: number, window: RateWindow, retryAfterSec: number, venue: Venue = 'futures'): ApiError {
  const msg = venue === 'futures'
    ? `Too many requests; current limit is ${limit} requests per ${window.intervalNum === 1 ? window.interval.toLowerCase() : windowText(window)}. Please use the websocket for live updates to avoid polling the API.`
    : `Too much request weight used; current limit is ${limit} request weight per ${windowText(window)}. Please use WebSocket Streams for live updates to avoid polling the API.`
  return new ApiError(429, -1003, msg, retryAfterSec)
}

/** An IP that kept going after 429: 418 until `untilMs`. */
export function ipBanned(untilMs: number, retryAfterSec: number, venue: Venue = 'futures'): ApiError {
  const msg = venue === 'futures'
    ? `Way too many requests; IP banned until ${untilMs}. Please use the websocket for live updates to avoid bans.`
    : `Way too much request weight used; IP banned until ${untilMs}. Please use WebSocket Streams for live updates to avoid bans.`
  return new ApiError(418, -1003, msg, retryAfterSec)
}

/** A web page whose origin `--cors-origins` leaves out (a preflight, a WebSocket handshake): 403. */
export function originNotAllowed(origin: string): ApiError {
  return new ApiError(403, -1002, `Origin ${origin.slice(0, 100)} is not allowed to call this API.`)
}

/**
 * An HTTP/1.1 request without Host (RFC 9112 §3.2: 400). The connection stays open, unlike
 * Node's own refusal: the request's framing is sound, and requests pipelined after it are
 * answered in order rather than run with their answers dropped at the close.
 */
export function missingHost(): ApiError {
  return new ApiError(400, -1100, 'Malformed HTTP request: no Host header.')
}

/** An Expect header with something other than 100-continue: 417, as RFC 9110 §10.1.1 has it. */
export function expectationFailed(): ApiError {
  return new ApiError(417, -1100, 'Expectation not supported: only 100-continue is.')
}

/** The 10 s processing limit passed; the command may still apply, so the status is unknown. */
export function timeout(): ApiError {
  return new ApiError(408, -1007, 'Timeout waiting for response from backend server. Send status unknown; execution status unknown.')
}

/** Sessions for wallets never seen here, past the IP's hourly budget (each makes an account in the state). */
export function tooManyNewAccounts(limit: number, retryAfterSec: number): ApiError {
  return new ApiError(429, -1003, `Too many new accounts from this IP; current limit is ${limit} per hour. Retry after ${retryAfterSec} s, or open sessions for accounts that exist.`, retryAfterSec)
}

/** Order-count limit (per 10 s or per minute) broken: 429 like a weight limit. */
export function tooManyOrders(limit: number, window: RateWindow, retryAfterSec: number, headers?: Record<string, string>): ApiError {
  return new ApiError(429, -1015, `Too many new orders; current limit is ${limit} orders per ${windowText(window)}.`, retryAfterSec, headers)
}

export function timestampOutsideRecvWindow(): ApiError {
  return bad(-1021, 'Timestamp for this request is outside of the recvWindow.')
}

export function timestampAhead(): ApiError {
  return bad(-1021, "Timestamp for this request was 1000ms ahead of the server's time.")
}

export function invalidSignature(): ApiError {
  return bad(-1022, 'Signature for this request is not valid.')
}

/** -1100. With a parameter, Binance names it and the range it accepts. */
export function illegalChars(param?: string, legalRange?: string): ApiError {
  if (param === undefined) return bad(-1100, 'Illegal characters found in a parameter.')
  if (legalRange === undefined) return bad(-1100, `Illegal characters found in parameter '${param}'.`)
  return bad(-1100, `Illegal characters found in parameter '${param}'; legal range is '${legalRange}'.`)
}

/** A decimal parameter that is not plain digits (exponents, '+', spaces, letters, > 20 digits). */
export function illegalDecimal(param: string): ApiError {
  return illegalChars(param, DECIMAL_LEGAL_RANGE)
}

/** X-MBX-TIME-UNIT other than MICROSECOND or MILLISECOND (Binance's INVALID_TIME_UNIT). */
export function invalidTimeUnit(): ApiError {
  return bad(-1194, 'Invalid value for time unit; expected either MICROSECOND or MILLISECOND.')
}

export function tooManyParameters(): ApiError {
  return bad(-1101, 'Too many parameters sent for this endpoint.')
}

export function duplicateParameter(): ApiError {
  return bad(-1101, 'Duplicate values for a parameter detected.')
}

/** -1102 naming the parameter: missing, empty or malformed. */
export function mandatoryParam(param: string): ApiError {
  return bad(-1102, `Mandatory parameter '${param}' was not sent, was empty/null, or malformed.`)
}

/** -1102 for a pair of which one must be sent (orderId / origClientOrderId). */
export function eitherParam(a: string, b: string): ApiError {
  return bad(-1102, `Param '${a}' or '${b}' must be sent, but both were empty/null!`)
}

export function paramNotRequired(param: string): ApiError {
  return bad(-1106, `Parameter '${param}' sent when not required.`)
}

export function badPrecision(): ApiError {
  return bad(-1111, 'Precision is over the maximum defined for this asset.')
}

export function invalidTimeInForce(): ApiError {
  return bad(-1115, 'Invalid timeInForce.')
}

export function invalidOrderType(): ApiError {
  return bad(-1116, 'Invalid orderType.')
}

export function invalidSide(): ApiError {
  return bad(-1117, 'Invalid side.')
}

/** A kline interval outside the spec's list (1m … 1M). */
export function invalidInterval(): ApiError {
  return bad(-1120, 'Invalid interval.')
}

export function invalidSymbol(): ApiError {
  return bad(-1121, 'Invalid symbol.')
}

/** A spot symbol whose trading status is not the `symbolStatus` asked for (Binance spot's -1220). */
export function symbolStatusMismatch(): ApiError {
  return bad(-1220, 'The symbol\'s status does not match the requested symbolStatus.')
}

export function invalidListenKey(): ApiError {
  return bad(-1125, 'This listenKey does not exist.')
}

/** A time range wider than the route takes (Binance's LOOKUP_INTERVAL_TOO_BIG), its span in hours. */
export function lookupIntervalTooBig(maxSpanMs: number): ApiError {
  return bad(-1127, `More than ${Math.floor(maxSpanMs / 3_600_000)} hours between startTime and endTime.`)
}

/** -1130 naming the parameter; without one, Binance's generic form. */
export function invalidParam(param?: string): ApiError {
  return bad(-1130, param === undefined ? 'Invalid data sent for a parameter.' : `Data sent for parameter '${param}' is not valid.`)
}

/** Optional parameters Binance takes one at a time, sent together (-1128). */
export function combinationInvalid(): ApiError {
  return bad(-1128, 'Combination of optional parameters invalid.')
}

/** The text Binance's cancel endpoints document for a value other than ONLY_NEW / ONLY_PARTIALLY_FILLED. */
export function invalidCancelRestrictions(): ApiError {
  return bad(-1145, 'Invalid cancelRestrictions')
}

/** positionSide that is none of BOTH, LONG, SHORT (a valid one that mismatches the mode is -4061). */
export function invalidPositionSide(): ApiError {
  return bad(-4060, 'Invalid position side.')
}

export function badApiKeyFormat(): ApiError {
  return new ApiError(401, -2014, 'API-key format invalid.')
}

export function rejectedApiKey(): ApiError {
  return new ApiError(401, -2015, 'Invalid API-key, IP, or permissions for action.')
}

/** A valid key without the permission the endpoint needs (TRADE, USER_DATA, WITHDRAW). */
export function permissionDenied(): ApiError {
  return new ApiError(403, -2015, 'Invalid API-key, IP, or permissions for action.')
}

/** Unknown path. Binance answers HTML; we keep JSON and use its NOT_FOUND code. */
export function notFound(): ApiError {
  return new ApiError(404, -1099, 'Not found, unauthenticated, or unauthorized.')
}

// ---------------------------------------------------------------------------------------------
// Core rejection codes.

type Mapper = (ctx: CoreErrorContext) => ApiError

const spotFilter = (filter: string): ApiError => bad(-1013, `Filter failure: ${filter}`)
const spotRejected = (msg: string): ApiError => bad(-2010, msg)
const spotQtyFilter: Mapper = (ctx) => spotFilter(ctx.marketOrder ? 'MARKET_LOT_SIZE' : 'LOT_SIZE')

/** Futures forms: every code has one, which is also the answer when spot has no form of its own. */
const FUTURES: { readonly [C in Code]: Mapper } = {
  // Genesis and admin commands never come from a client; if the admin surface ever answers
  // with them, the input was bad, hence 400.
  GENESIS_INVALID: (ctx) => invalidParam(ctx.param),
  ALREADY_EXISTS: (ctx) => invalidParam(ctx.param),
  RULES_INVALID: (ctx) => invalidParam(ctx.param),
  EPOCH_INVALID: (ctx) => invalidParam(ctx.param),
  // Reached from a client by withdrawals (pending withdrawals per account), whose Binance wallet
  // wording fits, and by a master with every sub-account number taken (decided: Binance
  // documents no code for it); the asset bound is genesis-only.
  LIMIT_REACHED: (ctx) => ctx.op === 'subAccount'
    ? bad(-1130, `The account has every sub-account it may have (${LIMITS.subAccountsMax - 1}).`)
    : bad(-3007, 'You have pending transaction, please try again later.'),

  ACCOUNT_INVALID: () => bad(-1109, 'Invalid account.'),
  ASSET_UNKNOWN: () => bad(-1108, 'Invalid asset.'),
  // Not positive, or beyond the ledger's bound: the amount itself is the problem.
  AMOUNT_INVALID: (ctx) => invalidParam(ctx.param ?? 'amount'),
  BALANCE_INSUFFICIENT: () => bad(-2018, 'Balance is insufficient.'),
  DEPOSIT_DUPLICATE: (ctx) => invalidParam(ctx.param ?? 'txId'),
  WITHDRAWAL_UNKNOWN: (ctx) => invalidParam(ctx.param ?? 'id'),
  // The balance after the move would leave the ledger's exact range: refuse the amount.
  OVERFLOW: (ctx) => invalidParam(ctx.param ?? 'amount'),

  MARKET_UNKNOWN: () => invalidSymbol(),
  MARKET_NOT_TRADING: () => bad(-1122, 'Invalid symbol status.'),
  SIDE_INVALID: () => invalidSide(),
  ORDER_TYPE_INVALID: () => invalidOrderType(),
  TIF_INVALID: () => invalidTimeInForce(),
  PRICE_REQUIRED: () => mandatoryParam('price'),
  PRICE_NOT_ALLOWED: () => paramNotRequired('price'),
  PRICE_BELOW_ZERO: () => bad(-4001, 'Price less than 0.'),
  PRICE_BELOW_MIN: () => bad(-4013, 'Price less than min price.'),
  PRICE_ABOVE_MAX: () => bad(-4002, 'Price greater than max price.'),
  PRICE_TICK: () => bad(-4014, 'Price not increased by tick size.'),
  PRICE_ABOVE_BAND: (ctx) => bad(-4016, `Limit price can't be higher than ${ctx.priceCap ?? 'the PERCENT_PRICE cap'}.`),
  PRICE_BELOW_BAND: (ctx) => bad(-4024, `Limit price can't be lower than ${ctx.priceFloor ?? 'the PERCENT_PRICE floor'}.`),
  MARKET_BEYOND_BAND: () => bad(-4131, 'The counterparty\'s best price does not meet the PERCENT_PRICE filter limit.'),
  // The live API's wording (the docs say "less than zero"); the core refuses zero too.
  QTY_BELOW_ZERO: () => bad(-4003, 'Quantity less than or equal to zero.'),
  QTY_BELOW_MIN: () => bad(-4004, 'Quantity less than min quantity.'),
  QTY_ABOVE_MAX: () => bad(-4005, 'Quantity greater than max quantity.'),
  QTY_STEP: () => bad(-4023, 'Qty not increased by step size.'),
  NOTIONAL_TOO_SMALL: (ctx) => bad(-4164, ctx.minNotional === undefined
    ? "Order's notional is below the market's minimum notional (unless you choose reduce only)."
    : `Order's notional must be no smaller than ${ctx.minNotional} (unless you choose reduce only).`),
  STP_INVALID: () => bad(-5039, 'Invalid self trade prevention mode'),
  GTD_INVALID: () => bad(-5040, 'The goodTillDate timestamp must be greater than the current time plus 600 seconds and smaller than 253402300799000 (UTC 9999-12-31 23:59:59)'),
  CLIENT_ID_INVALID: () => bad(-4015, 'Client order id is not valid.'),
  CLIENT_ID_DUPLICATE: () => bad(-4116, 'clientOrderId is duplicated'),
  TOO_MANY_ORDERS: () => bad(-2025, 'Reach max open order limit.'),

  // Lowering leverage is refused for want of margin with Binance's MIN_LEVERAGE_RATIO.
  MARGIN_INSUFFICIENT: (ctx) => ctx.op === 'leverage'
    ? bad(-2028, 'Leverage is smaller than permitted: insufficient margin balance.')
    : bad(-2019, 'Margin is insufficient.'),
  POSITION_LIMIT: () => bad(-2027, 'Exceeded the maximum allowable position at current leverage.'),
  REDUCE_ONLY_REJECTED: () => bad(-2022, 'ReduceOnly Order is rejected.'),
  // reduceOnly in hedge mode (positionSide says what closes): what Binance answers there.
  REDUCE_ONLY_IMPROPER: () => paramNotRequired('reduceOnly'),
  // The core returns it for a well-formed side that does not fit the account's mode.
  POSITION_SIDE_INVALID: () => bad(-4061, "Order's position side does not match user's setting."),
  LEVERAGE_INVALID: (ctx) => bad(-4028, ctx.leverage === undefined ? 'Invalid leverage' : `Leverage ${ctx.leverage} is not valid`),
  POSITION_MODE_UNCHANGED: () => bad(-4059, 'No need to change position side.'),
  POSITION_MODE_OPEN_ORDERS: () => bad(-4067, 'Position side cannot be changed if there exists open orders.'),
  POSITION_MODE_OPEN_POSITION: () => bad(-4068, 'Position side cannot be changed if there exists position.'),
  MARGIN_TYPE_UNCHANGED: () => bad(-4046, 'No need to change margin type.'),
  MARGIN_TYPE_OPEN_ORDERS: () => bad(-4047, 'Margin type cannot be changed if there exists open orders.'),
  MARGIN_TYPE_OPEN_POSITION: () => bad(-4048, 'Margin type cannot be changed if there exists position.'),
  MARGIN_NOT_ISOLATED: () => bad(-4049, 'Add margin only support for isolated position.'),
  MARGIN_NO_POSITION: () => bad(-4054, 'Cannot add position margin: position is 0.'),
  CROSS_BALANCE_INSUFFICIENT: () => bad(-4050, 'Cross balance insufficient.'),
  ISOLATED_BALANCE_INSUFFICIENT: () => bad(-4051, 'Isolated balance insufficient.'),

  STOP_PRICE_REQUIRED: () => mandatoryParam('stopPrice'),
  CALLBACK_RATE_INVALID: () => mandatoryParam('callbackRate'),
  ACTIVATION_PRICE_INVALID: () => bad(-4135, 'Invalid activation price.'),
  WORKING_TYPE_INVALID: () => invalidParam('workingType'),
  CLOSE_POSITION_INVALID: () => bad(-4136, 'Target strategy invalid for orderType and closePosition.'),
  CLOSE_POSITION_WITH_QTY: () => bad(-4137, 'Quantity must be zero with closePosition equals true.'),
  CLOSE_POSITION_WITH_REDUCE_ONLY: () => paramNotRequired('reduceOnly'),
  WOULD_TRIGGER: () => bad(-2021, 'Order would immediately trigger.'),
  TOO_MANY_CONDITIONAL: () => bad(-4045, 'Reach max stop order limit.'),
  // Spot trailing stops only (their spot forms below).
  TRAILING_DELTA_INVALID: () => invalidParam('trailingDelta'),
  TRAILING_NO_PRICE: () => mandatoryParam('stopPrice'),
  // Spot icebergs only (their spot forms below); USD-M takes no icebergQty.
  ICEBERG_NOT_ALLOWED: (ctx) => paramNotRequired(ctx.param ?? 'icebergQty'),
  ICEBERG_QTY_INVALID: (ctx) => invalidParam(ctx.param ?? 'icebergQty'),
  ICEBERG_PARTS: (ctx) => invalidParam(ctx.param ?? 'icebergQty'),
  TOO_MANY_ICEBERGS: () => bad(-1013, 'Filter failure: MAX_NUM_ICEBERG_ORDERS'),
  // Spot pegged orders only (their spot forms below); USD-M takes no pegPriceType.
  PEG_INVALID: (ctx) => invalidParam(ctx.param ?? 'pegPriceType'),
  PEG_ORDER_TYPE: (ctx) => paramNotRequired(ctx.param ?? 'pegPriceType'),
  PEG_TYPE_MISMATCH: (ctx) => invalidParam(ctx.param ?? 'pegPriceType'),
  PEG_NO_DEPTH: () => bad(-2010, 'Order book liquidity is too low for this pegged order.'),
  // Spot order strategies (core/strategy.ts): Binance spot's BAD_STRATEGY_TYPE; USD-M takes no strategyType.
  STRATEGY_TYPE_INVALID: () => bad(-1134, 'strategyType was less than 1000000.'),
  // Only ever a reason at trigger (closePosition with no position), never a placement answer.
  CLOSE_POSITION_NOTHING: () => bad(-2022, 'ReduceOnly Order is rejected.'),
  FOK_UNFILLED: () => bad(-5021, 'Due to the order could not be filled immediately, the FOK order has been rejected.'),
  POST_ONLY_WOULD_TAKE: () => bad(-5022, 'Due to the order could not be executed as maker, the Post Only order will be rejected.'),

  // A query or an amendment reports a missing order as -2013; a cancel as -2011 (Binance's own split).
  ORDER_UNKNOWN: (ctx) => ctx.op === 'query' || ctx.op === 'modify' ? bad(-2013, 'Order does not exist.') : bad(-2011, 'Unknown order sent.'),
  CANCEL_RESTRICTED: () => bad(-2011, 'Order was not canceled due to cancel restrictions.'),
  CANCEL_RESTRICTION_INVALID: () => invalidCancelRestrictions(),
  ORDER_ID_REQUIRED: () => eitherParam('orderId', 'origClientOrderId'),
  MODIFY_LIMIT_ONLY: () => bad(-5025, 'Only limit order is supported.'),
  MODIFY_UNCHANGED: () => bad(-5027, 'No need to modify the order.'),
  MODIFY_NOTIONAL_TOO_SMALL: (ctx) => bad(-5029, `Order's notional must be no smaller than ${ctx.minNotional ?? '0'}`),
  MODIFY_NOT_TRADING: () => bad(-5024, 'Symbol is not in trading status. Order amendment is not permitted.'),
  MODIFY_LIMIT_REACHED: () => bad(-5026, 'Exceed maximum modify order limit.'),
  // Spot only (core/amend-quantity.ts); the futures forms are never answered.
  AMEND_QTY_INCREASE: () => bad(-2038, 'Order amend (quantity increase) is not supported.'),
  AMEND_QTY_FILLED: () => bad(-2038, 'newQty must be greater than the order\'s executed quantity.'),
  // OCO order lists (core/order-lists.ts) are spot's; these are Binance spot's codes.
  LIST_LEG_TYPE: () => bad(-1158, 'Order type not supported in OCO.'),
  LIST_BOTH_LIMIT: () => bad(-1168, 'At least one OCO order must be contingent.'),
  LIST_LIMIT_BELOW: () => bad(-1165, 'A limit order in a buy OCO must be below.'),
  LIST_LIMIT_ABOVE: () => bad(-1166, 'A limit order in a sell OCO must be above.'),
  LIST_STOP_ABOVE: () => bad(-1196, 'A stop loss order in a buy OCO must be above.'),
  LIST_STOP_BELOW: () => bad(-1197, 'A stop loss order in a sell OCO must be below.'),
  LIST_TAKE_PROFIT_BELOW: () => bad(-1198, 'A take profit order in a buy OCO must be below.'),
  LIST_TAKE_PROFIT_ABOVE: () => bad(-1199, 'A take profit order in a sell OCO must be above.'),
  LIST_PRICES: () => spotRejected('The relationship of the prices for the orders is not correct.'),
  LIST_UNKNOWN: (ctx) => ctx.op === 'query' ? bad(-2013, 'Order list does not exist.') : bad(-2011, 'Unknown order list sent.'),
  LIST_ID_REQUIRED: () => eitherParam('orderListId', 'listClientOrderId'),
  TOO_MANY_LISTS: () => spotFilter('MAX_NUM_ORDER_LISTS'),
  PRICE_MATCH_INVALID: () => bad(-5037, 'Invalid price match'),
  PRICE_MATCH_TYPE: () => bad(-5038, 'Price match only supports order type: LIMIT, STOP AND TAKE_PROFIT'),
  PRICE_MATCH_NO_DEPTH: () => bad(-5041, 'No depth matches this BBO order'),

  // Oracle prices come from the price feed, never a client; the codes are mapped for completeness.
  ORACLE_UNKNOWN: () => bad(-1020, 'This operation is not supported.'),
  ORACLE_STALE: () => bad(-1021, 'The oracle price is outside the accepted time window.'),

  // The gateway built a command the core does not know: no client input can cause that.
  COMMAND_UNKNOWN: () => bad(-1020, 'This operation is not supported.'),
  COMMAND_INVALID: (ctx) => invalidParam(ctx.param),
  // Sessions: a malformed request names its parameter; a reused nonce is the signed request
  // replayed; revoking a key that is not the caller's live session is an unknown key.
  SESSION_INVALID: (ctx) => invalidParam(ctx.param ?? 'signature'),
  SESSION_NONCE_USED: (ctx) => invalidParam(ctx.param ?? 'nonce'),
  SESSION_UNKNOWN: () => rejectedApiKey(),
  LISTEN_KEY_UNKNOWN: () => invalidListenKey(),
}

/** Spot forms: filter failures as -1013 "Filter failure: <FILTER>", engine rejects as -2010. */
const SPOT: { readonly [C in Code]?: Mapper } = {
  BALANCE_INSUFFICIENT: (ctx) => ctx.op === 'place'
    ? spotRejected('Account has insufficient balance for requested action.')
    : bad(-2018, 'Balance is insufficient.'),
  MARKET_NOT_TRADING: () => spotRejected('Market is closed.'),
  PRICE_BELOW_ZERO: () => spotFilter('PRICE_FILTER'),
  PRICE_BELOW_MIN: () => spotFilter('PRICE_FILTER'),
  PRICE_ABOVE_MAX: () => spotFilter('PRICE_FILTER'),
  PRICE_TICK: () => spotFilter('PRICE_FILTER'),
  QTY_BELOW_ZERO: spotQtyFilter,
  QTY_BELOW_MIN: spotQtyFilter,
  QTY_ABOVE_MAX: spotQtyFilter,
  QTY_STEP: spotQtyFilter,
  // Spot's exchangeInfo lists the NOTIONAL filter (MIN_NOTIONAL is the futures one), and Binance spot names it so.
  NOTIONAL_TOO_SMALL: () => spotFilter('NOTIONAL'),
  TOO_MANY_ORDERS: () => spotFilter('MAX_NUM_ORDERS'),
  STP_INVALID: () => invalidParam('selfTradePreventionMode'),
  CLIENT_ID_INVALID: (ctx) => illegalChars(ctx.param ?? 'newClientOrderId', CLIENT_ID_LEGAL_RANGE),
  CLIENT_ID_DUPLICATE: () => spotRejected('Duplicate order sent.'),
  POST_ONLY_WOULD_TAKE: () => spotRejected('Order would immediately match and take.'),
  // Binance spot expires an unfilled FOK; ours is refused whole, so it says so under -2010.
  FOK_UNFILLED: () => spotRejected('Due to the order could not be filled immediately, the FOK order has been rejected.'),
  // Stops (core/spot-stops.ts).
  WOULD_TRIGGER: () => spotRejected('Order would trigger immediately.'),
  TOO_MANY_CONDITIONAL: () => spotFilter('MAX_NUM_ALGO_ORDERS'),
  TRAILING_DELTA_INVALID: () => spotFilter('TRAILING_DELTA'),
  TRAILING_NO_PRICE: () => spotRejected('No trade price to trail from yet: send a stopPrice.'),
  // Icebergs (core/book.ts).
  ICEBERG_NOT_ALLOWED: () => spotRejected('Iceberg orders must be GTC LIMIT, LIMIT_MAKER, STOP_LOSS_LIMIT or TAKE_PROFIT_LIMIT orders.'),
  ICEBERG_QTY_INVALID: () => spotFilter('LOT_SIZE'),
  ICEBERG_PARTS: () => spotFilter('ICEBERG_PARTS'),
  TOO_MANY_ICEBERGS: () => spotFilter('MAX_NUM_ICEBERG_ORDERS'),
  // Pegged orders (core/peg.ts), in Binance spot's words.
  PEG_ORDER_TYPE: () => spotRejected('This order type may not use pegged price.'),
  PEG_TYPE_MISMATCH: () => spotRejected('This price peg cannot be used with this order type.'),
  PEG_NO_DEPTH: () => spotRejected('Order book liquidity is too low for this pegged order.'),
  // Order amend keep priority (its refusals are -2038, Binance's code for an amendment rejected).
  MODIFY_UNCHANGED: () => bad(-2038, 'The requested action would change no state; rejecting'),
  MODIFY_LIMIT_REACHED: () => bad(-2038, 'Filter failure: MAX_NUM_ORDER_AMENDS'),
}

/** The Binance error for a core rejection, read in the venue and operation it came back from. */
export function fromCore(code: Code, ctx: CoreErrorContext): ApiError {
  const spot = ctx.venue === 'spot' ? SPOT[code] : undefined
  return (spot ?? FUTURES[code])(ctx)
}
