// The error catalogue: every core code maps, in every venue and operation, to a Binance
// {code, msg} with a 4xx status; the important ones word for word; the request-level
// constructors with their statuses; and real core rejections read through fromCore.

import t from 'tap'
import { CODES, type Code } from '../../core/index.js'
import {
  ApiError, badApiKeyFormat, badPrecision, duplicateParameter, eitherParam, fromCore, illegalChars,
  illegalDecimal, invalidCancelRestrictions, invalidListenKey, invalidOrderType, invalidParam,
  invalidPositionSide, invalidSide, invalidSignature, invalidSymbol, invalidTimeInForce, ipBanned,
  mandatoryParam, notFound, paramNotRequired, permissionDenied, rejectedApiKey, timeout, timestampAhead,
  timestampOutsideRecvWindow, tooManyOrders, tooManyParameters, tooManyRequests, unknownError,
  type CoreErrorContext, type Operation, type Venue,
} from '../../gateway/errors.js'
import { cancel, limit, postOnly } from '../helpers/commands.js'
import { ALICE, BOB, BTCSPOT, TestExchange } from '../helpers/exchange.js'

const VENUES: Venue[] = ['futures', 'spot']
const OPS: Operation[] = ['place', 'cancel', 'cancelAll', 'query', 'leverage', 'positionMode', 'wallet', 'admin']

type Shape = [status: number, code: number, msg: string]
const shape = (e: ApiError): Shape => [e.status, e.code, e.msg]

t.test('every core code maps in every venue and operation', async (t) => {
  for (const code of CODES) {
    for (const venue of VENUES) {
      for (const op of OPS) {
        const e = fromCore(code, { venue, op })
        const where = `${code} ${venue}/${op}`
        t.ok(e instanceof ApiError, `${where} is an ApiError`)
        t.ok(Number.isInteger(e.code) && e.code < 0, `${where} has a negative code (${e.code})`)
        t.ok(e.msg.length > 0, `${where} has a message`)
        t.ok(e.status >= 400 && e.status < 500, `${where} is 4xx (${e.status})`)
        t.same(e.toBody(), { code: e.code, msg: e.msg }, `${where} body`)
        t.equal(e.retryAfterSec, undefined, `${where} carries no Retry-After`)
      }
    }
  }
})

const FUT_PLACE: CoreErrorContext = { venue: 'futures', op: 'place' }
const SPOT_PLACE: CoreErrorContext = { venue: 'spot', op: 'place' }

const exact: [Code, CoreErrorContext, Shape][] = [
  // futures order placement
  ['MARKET_UNKNOWN', FUT_PLACE, [400, -1121, 'Invalid symbol.']],
  ['MARKET_NOT_TRADING', FUT_PLACE, [400, -1122, 'Invalid symbol status.']],
  ['SIDE_INVALID', FUT_PLACE, [400, -1117, 'Invalid side.']],
  ['ORDER_TYPE_INVALID', FUT_PLACE, [400, -1116, 'Invalid orderType.']],
  ['TIF_INVALID', FUT_PLACE, [400, -1115, 'Invalid timeInForce.']],
  ['PRICE_REQUIRED', FUT_PLACE, [400, -1102, "Mandatory parameter 'price' was not sent, was empty/null, or malformed."]],
  ['PRICE_NOT_ALLOWED', FUT_PLACE, [400, -1106, "Parameter 'price' sent when not required."]],
  ['PRICE_BELOW_ZERO', FUT_PLACE, [400, -4001, 'Price less than 0.']],
  ['PRICE_ABOVE_MAX', FUT_PLACE, [400, -4002, 'Price greater than max price.']],
  ['QTY_BELOW_ZERO', FUT_PLACE, [400, -4003, 'Quantity less than or equal to zero.']],
  ['QTY_BELOW_MIN', FUT_PLACE, [400, -4004, 'Quantity less than min quantity.']],
  ['QTY_ABOVE_MAX', FUT_PLACE, [400, -4005, 'Quantity greater than max quantity.']],
  ['PRICE_BELOW_MIN', FUT_PLACE, [400, -4013, 'Price less than min price.']],
  ['PRICE_TICK', FUT_PLACE, [400, -4014, 'Price not increased by tick size.']],
  ['QTY_STEP', FUT_PLACE, [400, -4023, 'Qty not increased by step size.']],
  ['NOTIONAL_TOO_SMALL', { ...FUT_PLACE, minNotional: '100' },
    [400, -4164, "Order's notional must be no smaller than 100 (unless you choose reduce only)."]],
  ['CLIENT_ID_INVALID', FUT_PLACE, [400, -4015, 'Client order id is not valid.']],
  ['CLIENT_ID_DUPLICATE', FUT_PLACE, [400, -4116, 'clientOrderId is duplicated']],
  ['STP_INVALID', FUT_PLACE, [400, -5039, 'Invalid self trade prevention mode']],
  ['GTD_INVALID', FUT_PLACE, [400, -5040,
    'The goodTillDate timestamp must be greater than the current time plus 600 seconds and smaller than 253402300799000 (UTC 9999-12-31 23:59:59)']],
  ['TOO_MANY_ORDERS', FUT_PLACE, [400, -2025, 'Reach max open order limit.']],
  ['MARGIN_INSUFFICIENT', FUT_PLACE, [400, -2019, 'Margin is insufficient.']],
  ['BALANCE_INSUFFICIENT', FUT_PLACE, [400, -2018, 'Balance is insufficient.']],
  ['POSITION_LIMIT', FUT_PLACE, [400, -2027, 'Exceeded the maximum allowable position at current leverage.']],
  ['REDUCE_ONLY_REJECTED', FUT_PLACE, [400, -2022, 'ReduceOnly Order is rejected.']],
  ['REDUCE_ONLY_IMPROPER', FUT_PLACE, [400, -1106, "Parameter 'reduceOnly' sent when not required."]],
  ['POSITION_SIDE_INVALID', FUT_PLACE, [400, -4061, "Order's position side does not match user's setting."]],
  ['FOK_UNFILLED', FUT_PLACE, [400, -5021, 'Due to the order could not be filled immediately, the FOK order has been rejected.']],
  ['POST_ONLY_WOULD_TAKE', FUT_PLACE, [400, -5022, 'Due to the order could not be executed as maker, the Post Only order will be rejected.']],
  // conditional orders
  ['STOP_PRICE_REQUIRED', FUT_PLACE, [400, -1102, "Mandatory parameter 'stopPrice' was not sent, was empty/null, or malformed."]],
  ['CALLBACK_RATE_INVALID', FUT_PLACE, [400, -1102, "Mandatory parameter 'callbackRate' was not sent, was empty/null, or malformed."]],
  ['ACTIVATION_PRICE_INVALID', FUT_PLACE, [400, -4135, 'Invalid activation price.']],
  ['WORKING_TYPE_INVALID', FUT_PLACE, [400, -1130, "Data sent for parameter 'workingType' is not valid."]],
  ['CLOSE_POSITION_INVALID', FUT_PLACE, [400, -4136, 'Target strategy invalid for orderType and closePosition.']],
  ['CLOSE_POSITION_WITH_QTY', FUT_PLACE, [400, -4137, 'Quantity must be zero with closePosition equals true.']],
  ['CLOSE_POSITION_WITH_REDUCE_ONLY', FUT_PLACE, [400, -1106, "Parameter 'reduceOnly' sent when not required."]],
  ['WOULD_TRIGGER', FUT_PLACE, [400, -2021, 'Order would immediately trigger.']],
  ['TOO_MANY_CONDITIONAL', FUT_PLACE, [400, -4045, 'Reach max stop order limit.']],
  ['CLOSE_POSITION_NOTHING', FUT_PLACE, [400, -2022, 'ReduceOnly Order is rejected.']],
  // cancel and query
  ['ORDER_UNKNOWN', { venue: 'futures', op: 'cancel' }, [400, -2011, 'Unknown order sent.']],
  ['ORDER_UNKNOWN', { venue: 'futures', op: 'query' }, [400, -2013, 'Order does not exist.']],
  ['ORDER_UNKNOWN', { venue: 'spot', op: 'query' }, [400, -2013, 'Order does not exist.']],
  ['CANCEL_RESTRICTED', { venue: 'futures', op: 'cancel' }, [400, -2011, 'Order was not canceled due to cancel restrictions.']],
  ['CANCEL_RESTRICTION_INVALID', { venue: 'futures', op: 'cancel' }, [400, -1145, 'Invalid cancelRestrictions']],
  ['ORDER_ID_REQUIRED', { venue: 'futures', op: 'query' },
    [400, -1102, "Param 'orderId' or 'origClientOrderId' must be sent, but both were empty/null!"]],
  // leverage and position mode
  ['LEVERAGE_INVALID', { venue: 'futures', op: 'leverage', leverage: 126 }, [400, -4028, 'Leverage 126 is not valid']],
  ['LEVERAGE_INVALID', { venue: 'futures', op: 'leverage' }, [400, -4028, 'Invalid leverage']],
  ['MARGIN_INSUFFICIENT', { venue: 'futures', op: 'leverage' },
    [400, -2028, 'Leverage is smaller than permitted: insufficient margin balance.']],
  ['POSITION_LIMIT', { venue: 'futures', op: 'leverage' }, [400, -2027, 'Exceeded the maximum allowable position at current leverage.']],
  ['POSITION_MODE_UNCHANGED', { venue: 'futures', op: 'positionMode' }, [400, -4059, 'No need to change position side.']],
  ['POSITION_MODE_OPEN_ORDERS', { venue: 'futures', op: 'positionMode' },
    [400, -4067, 'Position side cannot be changed if there exists open orders.']],
  ['POSITION_MODE_OPEN_POSITION', { venue: 'futures', op: 'positionMode' },
    [400, -4068, 'Position side cannot be changed if there exists position.']],
  // wallet
  ['AMOUNT_INVALID', { venue: 'spot', op: 'wallet' }, [400, -1130, "Data sent for parameter 'amount' is not valid."]],
  ['OVERFLOW', { venue: 'spot', op: 'wallet' }, [400, -1130, "Data sent for parameter 'amount' is not valid."]],
  ['BALANCE_INSUFFICIENT', { venue: 'spot', op: 'wallet' }, [400, -2018, 'Balance is insufficient.']],
  ['ASSET_UNKNOWN', { venue: 'spot', op: 'wallet' }, [400, -1108, 'Invalid asset.']],
  ['LIMIT_REACHED', { venue: 'spot', op: 'wallet' }, [400, -3007, 'You have pending transaction, please try again later.']],
  ['ACCOUNT_INVALID', { venue: 'spot', op: 'wallet' }, [400, -1109, 'Invalid account.']],
  // the rest
  ['COMMAND_INVALID', { venue: 'futures', op: 'positionMode', param: 'dualSidePosition' },
    [400, -1130, "Data sent for parameter 'dualSidePosition' is not valid."]],
  ['COMMAND_INVALID', { venue: 'futures', op: 'admin' }, [400, -1130, 'Invalid data sent for a parameter.']],
  ['COMMAND_UNKNOWN', { venue: 'futures', op: 'admin' }, [400, -1020, 'This operation is not supported.']],
  // spot forms
  ['PRICE_TICK', SPOT_PLACE, [400, -1013, 'Filter failure: PRICE_FILTER']],
  ['PRICE_BELOW_ZERO', SPOT_PLACE, [400, -1013, 'Filter failure: PRICE_FILTER']],
  ['PRICE_BELOW_MIN', SPOT_PLACE, [400, -1013, 'Filter failure: PRICE_FILTER']],
  ['PRICE_ABOVE_MAX', SPOT_PLACE, [400, -1013, 'Filter failure: PRICE_FILTER']],
  ['QTY_STEP', SPOT_PLACE, [400, -1013, 'Filter failure: LOT_SIZE']],
  ['QTY_BELOW_MIN', SPOT_PLACE, [400, -1013, 'Filter failure: LOT_SIZE']],
  ['QTY_ABOVE_MAX', SPOT_PLACE, [400, -1013, 'Filter failure: LOT_SIZE']],
  ['QTY_ABOVE_MAX', { ...SPOT_PLACE, marketOrder: true }, [400, -1013, 'Filter failure: MARKET_LOT_SIZE']],
  ['NOTIONAL_TOO_SMALL', SPOT_PLACE, [400, -1013, 'Filter failure: NOTIONAL']],
  ['TOO_MANY_ORDERS', SPOT_PLACE, [400, -1013, 'Filter failure: MAX_NUM_ORDERS']],
  ['BALANCE_INSUFFICIENT', SPOT_PLACE, [400, -2010, 'Account has insufficient balance for requested action.']],
  ['MARKET_NOT_TRADING', SPOT_PLACE, [400, -2010, 'Market is closed.']],
  ['CLIENT_ID_DUPLICATE', SPOT_PLACE, [400, -2010, 'Duplicate order sent.']],
  ['POST_ONLY_WOULD_TAKE', SPOT_PLACE, [400, -2010, 'Order would immediately match and take.']],
  ['CLIENT_ID_INVALID', SPOT_PLACE,
    [400, -1100, "Illegal characters found in parameter 'newClientOrderId'; legal range is '^[\\.A-Z\\:/a-z0-9_-]{1,36}$'."]],
  ['ORDER_UNKNOWN', { venue: 'spot', op: 'cancel' }, [400, -2011, 'Unknown order sent.']],
  ['MARKET_UNKNOWN', SPOT_PLACE, [400, -1121, 'Invalid symbol.']],
  ['STRATEGY_TYPE_INVALID', SPOT_PLACE, [400, -1134, 'strategyType was less than 1000000.']],
]

t.test('exact mappings', async (t) => {
  for (const [code, ctx, want] of exact) {
    t.same(shape(fromCore(code, ctx)), want, `${code} ${JSON.stringify(ctx)}`)
  }
})

t.test('request-level constructors', async (t) => {
  const rows: [string, ApiError, Shape][] = [
    ['unknown', unknownError(), [500, -1000, 'An unknown error occured while processing the request.']],
    ['timeout', timeout(), [408, -1007, 'Timeout waiting for response from backend server. Send status unknown; execution status unknown.']],
    ['recvWindow', timestampOutsideRecvWindow(), [400, -1021, 'Timestamp for this request is outside of the recvWindow.']],
    ['ahead', timestampAhead(), [400, -1021, "Timestamp for this request was 1000ms ahead of the server's time."]],
    ['signature', invalidSignature(), [400, -1022, 'Signature for this request is not valid.']],
    ['illegal', illegalChars(), [400, -1100, 'Illegal characters found in a parameter.']],
    ['illegal named', illegalChars('symbol'), [400, -1100, "Illegal characters found in parameter 'symbol'."]],
    ['illegal decimal', illegalDecimal('quantity'),
      [400, -1100, "Illegal characters found in parameter 'quantity'; legal range is '^([0-9]{1,20})(\\.[0-9]{1,20})?$'."]],
    ['too many', tooManyParameters(), [400, -1101, 'Too many parameters sent for this endpoint.']],
    ['duplicate', duplicateParameter(), [400, -1101, 'Duplicate values for a parameter detected.']],
    ['mandatory', mandatoryParam('symbol'), [400, -1102, "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed."]],
    ['either', eitherParam('orderId', 'origClientOrderId'),
      [400, -1102, "Param 'orderId' or 'origClientOrderId' must be sent, but both were empty/null!"]],
    ['not required', paramNotRequired('price'), [400, -1106, "Parameter 'price' sent when not required."]],
    ['precision', badPrecision(), [400, -1111, 'Precision is over the maximum defined for this asset.']],
    ['tif', invalidTimeInForce(), [400, -1115, 'Invalid timeInForce.']],
    ['type', invalidOrderType(), [400, -1116, 'Invalid orderType.']],
    ['side', invalidSide(), [400, -1117, 'Invalid side.']],
    ['symbol', invalidSymbol(), [400, -1121, 'Invalid symbol.']],
    ['listenKey', invalidListenKey(), [400, -1125, 'This listenKey does not exist.']],
    ['invalid param', invalidParam('limit'), [400, -1130, "Data sent for parameter 'limit' is not valid."]],
    ['invalid param generic', invalidParam(), [400, -1130, 'Invalid data sent for a parameter.']],
    ['cancelRestrictions', invalidCancelRestrictions(), [400, -1145, 'Invalid cancelRestrictions']],
    ['positionSide', invalidPositionSide(), [400, -4060, 'Invalid position side.']],
    ['key format', badApiKeyFormat(), [401, -2014, 'API-key format invalid.']],
    ['key rejected', rejectedApiKey(), [401, -2015, 'Invalid API-key, IP, or permissions for action.']],
    ['permission', permissionDenied(), [403, -2015, 'Invalid API-key, IP, or permissions for action.']],
    ['not found', notFound(), [404, -1099, 'Not found, unauthenticated, or unauthorized.']],
  ]
  for (const [name, e, want] of rows) {
    t.same(shape(e), want, name)
    t.same(e.toBody(), { code: want[1], msg: want[2] }, `${name} body`)
    t.equal(e.retryAfterSec, undefined, `${name} has no Retry-After`)
  }
})

t.test('rate limits carry Retry-After', async (t) => {
  const minute = { interval: 'MINUTE', intervalNum: 1 } as const
  const weight = tooManyRequests(2400, minute, 17)
  t.same(shape(weight), [429, -1003,
    'Too many requests; current limit is 2400 requests per minute. Please use the websocket for live updates to avoid polling the API.'])
  t.equal(weight.retryAfterSec, 17)

  const spotWeight = tooManyRequests(6000, minute, 3, 'spot')
  t.same(shape(spotWeight), [429, -1003,
    'Too much request weight used; current limit is 6000 request weight per 1 MINUTE. Please use WebSocket Streams for live updates to avoid polling the API.'])

  const ban = ipBanned(1_700_000_120_000, 120)
  t.same(shape(ban), [418, -1003,
    'Way too many requests; IP banned until 1700000120000. Please use the websocket for live updates to avoid bans.'])
  t.equal(ban.retryAfterSec, 120)

  const orders = tooManyOrders(300, { interval: 'SECOND', intervalNum: 10 }, 4)
  t.same(shape(orders), [429, -1015, 'Too many new orders; current limit is 300 orders per 10 SECOND.'])
  t.equal(orders.retryAfterSec, 4)
})

t.test('ApiError is an Error with the message as msg', async (t) => {
  const e = fromCore('MARGIN_INSUFFICIENT', FUT_PLACE)
  t.ok(e instanceof Error)
  t.equal(e.name, 'ApiError')
  t.equal(e.message, 'Margin is insufficient.')
  t.equal(JSON.stringify(e.toBody()), '{"code":-2019,"msg":"Margin is insufficient."}')
})

t.test('real core rejections read through the catalogue', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 1_000_000)
  ex.fund(BOB, 1_000_000)
  const code = (r: ReturnType<TestExchange['run']>): Code => {
    if (r.ok) throw new Error('expected a rejection')
    return r.code
  }
  t.equal(fromCore(code(ex.run(limit(ALICE, 'BUY', 500_000.5, 10))), FUT_PLACE).code, -4014, 'half a tick')
  t.equal(fromCore(code(ex.run(limit(ALICE, 'BUY', 500_000, 10.5))), FUT_PLACE).code, -4023, 'half a step')
  t.equal(fromCore(code(ex.run(cancel(ALICE, { orderId: 999 }))), { venue: 'futures', op: 'cancel' }).code, -2011)
  ex.ok(limit(BOB, 'SELL', 500_000, 10))
  t.equal(fromCore(code(ex.run(postOnly(ALICE, 'BUY', 500_000, 10))), FUT_PLACE).code, -5022)
  t.equal(fromCore(code(ex.run(limit(ALICE, 'BUY', 100_000_001, 1, { marketId: BTCSPOT }))), SPOT_PLACE).msg,
    'Filter failure: PRICE_FILTER', 'spot price above max')
  t.equal(fromCore(code(ex.run(limit(ALICE, 'BUY', 5_000_000, 10, { marketId: BTCSPOT }))), SPOT_PLACE).code,
    -2010, 'spot balance')
})
