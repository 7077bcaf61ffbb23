// Rejection codes of the core. A rejected command changes nothing and returns one of these;
// gateway/errors.ts maps each to Binance's {code, msg} and HTTP status.

export const CODES = [
  // genesis and admin
  'GENESIS_INVALID',
  'ALREADY_EXISTS',
  'LIMIT_REACHED',
  // accounts and wallet
  'ACCOUNT_INVALID',
  'ASSET_UNKNOWN',
  'AMOUNT_INVALID',
  'BALANCE_INSUFFICIENT',
  'DEPOSIT_DUPLICATE',
  'WITHDRAWAL_UNKNOWN',
  'OVERFLOW',
  // markets and filters
  'MARKET_UNKNOWN',
  'MARKET_NOT_TRADING',
  'SIDE_INVALID',
  'ORDER_TYPE_INVALID',
  'TIF_INVALID',
  'PRICE_REQUIRED',
  'PRICE_NOT_ALLOWED',
  'PRICE_BELOW_ZERO',
  'PRICE_BELOW_MIN',
  'PRICE_ABOVE_MAX',
  'PRICE_TICK',
  'QTY_BELOW_ZERO',
  'QTY_BELOW_MIN',
  'QTY_ABOVE_MAX',
  'QTY_STEP',
  'NOTIONAL_TOO_SMALL',
  'STP_INVALID',
  'GTD_INVALID',
  'CLIENT_ID_INVALID',
  'CLIENT_ID_DUPLICATE',
  'TOO_MANY_ORDERS',
  // margin and positions
  'MARGIN_INSUFFICIENT',
  'POSITION_LIMIT',
  'REDUCE_ONLY_REJECTED',
  'REDUCE_ONLY_IMPROPER',
  'POSITION_SIDE_INVALID',
  'LEVERAGE_INVALID',
  'POSITION_MODE_UNCHANGED',
  'POSITION_MODE_OPEN_ORDERS',
  'POSITION_MODE_OPEN_POSITION',
  // matching outcomes that reject the whole order
  'FOK_UNFILLED',
  'POST_ONLY_WOULD_TAKE',
  // sessions
  'SESSION_INVALID',
  'SESSION_NONCE_USED',
  'SESSION_UNKNOWN',
  // cancels
  'ORDER_UNKNOWN',
  'CANCEL_RESTRICTED',
  'CANCEL_RESTRICTION_INVALID',
  'ORDER_ID_REQUIRED',
  // amendments
  'MODIFY_LIMIT_ONLY',
  'MODIFY_UNCHANGED',
  'MODIFY_NOTIONAL_TOO_SMALL',
  'MODIFY_NOT_TRADING',
  // oracle prices
  'ORACLE_UNKNOWN',
  'ORACLE_STALE',
  // anything else
  'COMMAND_UNKNOWN',
  'COMMAND_INVALID',
] as const

export type Code = (typeof CODES)[number]
