// Random request parameters for the fuzz tests of REST and of the WebSocket API: names the
// routes read, with values that are valid somewhere, malformed, huge, or arbitrary text.

import fc from 'fast-check'

export const PARAM_NAMES = ['symbol', 'side', 'type', 'timeInForce', 'quantity', 'price', 'orderId', 'origClientOrderId', 'newClientOrderId',
  'limit', 'interval', 'startTime', 'endTime', 'fromId', 'leverage', 'reduceOnly', 'positionSide', 'amount', 'coin',
  'dualSidePosition', 'cancelRestrictions', 'goodTillDate', 'newOrderRespType', 'selfTradePreventionMode', 'incomeType',
  'batchOrders', 'orderIdList', 'origClientOrderIdList', 'listenKey', 'asset', 'marginType', 'multiAssetsMargin', 'feeBurn', 'network',
  'address', 'recvWindow', 'pair', 'contractType', 'period', 'publicKey', 'permissions', 'quoteOrderQty', 'stopPrice',
  'cancelReplaceMode', 'cancelOrderId', 'cancelOrigClientOrderId', 'computeCommissionRates', 'symbols', 'subscriptionId',
  'newQty', 'fromExecutionId', 'downloadId', 'link', 'cancelNewClientOrderId', 'omitZeroBalances', 'trailingDelta', 'quoteAsset',
  'needBtcValuation', 'icebergQty', 'pegPriceType', 'pegOffsetType', 'pegOffsetValue', 'seq']

export const PARAM_VALUES = fc.oneof(
  fc.constantFrom('BTCUSDTPERP', 'BTCUSDT', 'ETHUSDTPERP', 'BUY', 'SELL', 'LIMIT', 'MARKET', 'POST_ONLY', 'GTC', 'IOC', 'FOK',
    'GTX', 'GTD', '1m', '1M', 'true', 'false', 'LONG', 'USDT', 'RESULT', 'ISOLATED', 'CROSSED', 'MAIN_UMFUTURE', '0', '-1',
    '1e3', '0.001', '50000.0', '99999999999999999999', '[]', '[1,2]', '[{"symbol":"BTCUSDTPERP","side":"BUY"}]', '["a"]',
    'LIMIT_MAKER', 'STOP_ON_FAILURE', 'ALLOW_FAILURE', '50000.00', '0.0100', '["BTCUSDT"]', '0.0050',
    '116999999000131700000001013407332539933', 'STOP_LOSS', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT', '29000.00', 'PRIMARY_PEG',
    'MARKET_PEG', 'PRICE_LEVEL', '100', '500', '501', '1000', '1001', '1500', '5000'),
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -5, max: 2 ** 53 }).map(String),
  fc.double({ noNaN: false }).map(String),
)

/** Up to six named parameters, as strings. */
export const PARAMS = fc.dictionary(fc.constantFrom(...PARAM_NAMES), PARAM_VALUES, { maxKeys: 6 })
