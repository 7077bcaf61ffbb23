// Schemas of spot trading and account routes (/api/v1 and /api/v3), in Binance spot's
// field order.

import { anyObject, arrayOf, bool, int, object, oneOrAll as oneOrAllSchema, route, str, strings } from './common.js'

/**
 * Binance spot's order, every form in one: ACK (ids and transactTime), RESULT and FULL
 * (transactTime, no record fields; FULL adds fills), cancel (origClientOrderId), records
 * (query, open orders: stopPrice to origQuoteOrderQty). Absent fields are skipped.
 */
export const spotOrderSchema = object({
  symbol: str, origClientOrderId: str, orderId: int, orderListId: int, clientOrderId: str, transactTime: int,
  price: str, pegPriceType: str, pegOffsetType: str, pegOffsetValue: int, peggedPrice: str, origQty: str, executedQty: str, cummulativeQuoteQty: str, status: str, timeInForce: str, type: str,
  side: str, stopPrice: str, icebergQty: str, time: int, updateTime: int, isWorking: bool, origQuoteOrderQty: str,
  workingTime: int, strategyId: int, strategyType: int, selfTradePreventionMode: str, trailingDelta: int, trailingTime: int, expiryReason: str,
  preventedMatchId: int, preventedQuantity: str,
  fills: arrayOf(object({ price: str, qty: str, commission: str, commissionAsset: str, tradeId: int })),
  preventedMatches: arrayOf(object({ preventedMatchId: int, makerOrderId: int, price: str, takerPreventedQuantity: str, makerPreventedQuantity: str })),
})

const spotAccountSchema = object({
  makerCommission: int, takerCommission: int, buyerCommission: int, sellerCommission: int,
  commissionRates: object({ maker: str, taker: str, buyer: str, seller: str }), canTrade: bool,
  canWithdraw: bool, canDeposit: bool, brokered: bool, requireSelfTradePrevention: bool, preventSor: bool,
  updateTime: int, accountType: str, balances: arrayOf(object({ asset: str, free: str, locked: str })),
  permissions: strings, uid: int,
})

const byId = { params: ['symbol', 'orderId', 'origClientOrderId'], required: ['symbol'] } as const

/** What a new spot order reads: placement, its test, and cancelReplace's new half. */
const ORDER_PARAMS = ['side', 'type', 'timeInForce', 'quantity', 'quoteOrderQty', 'price', 'stopPrice', 'trailingDelta', 'icebergQty', 'newClientOrderId',
  'strategyId', 'strategyType', 'newOrderRespType', 'selfTradePreventionMode', 'pegPriceType', 'pegOffsetType', 'pegOffsetValue']

export const spotDocs = {
  placeOrder: route({
    family: 'spot', summary: 'New spot order (LIMIT, MARKET, LIMIT_MAKER, STOP_LOSS, STOP_LOSS_LIMIT, TAKE_PROFIT, TAKE_PROFIT_LIMIT)',
    description: 'newOrderRespType ACK, RESULT or FULL (the default for LIMIT and MARKET; the others: ACK). '
      + 'A MARKET order takes quantity, or quoteOrderQty: the quote to spend (BUY) or receive (SELL). The stop types take '
      + 'stopPrice, trailingDelta (BIPS, within the TRAILING_DELTA filter: a trailing stop, which starts trailing once the '
      + 'last price reaches stopPrice, or at once without one), or both. icebergQty makes a GTC LIMIT, LIMIT_MAKER, '
      + 'STOP_LOSS_LIMIT or TAKE_PROFIT_LIMIT an iceberg: the book shows that much of it at a time, and each slice used up '
      + 'shows the next at the back of its price level (ICEBERG_PARTS: at most 10 slices). pegPriceType (PRIMARY_PEG: the '
      + 'best price of the order\'s own side; MARKET_PEG: the best of the other side), with pegOffsetType PRICE_LEVEL and '
      + 'pegOffsetValue (0..100 levels deeper) if wanted, prices a LIMIT (PRIMARY_PEG: GTC only), LIMIT_MAKER (PRIMARY_PEG '
      + 'only) or a *_LIMIT stop from the book as it enters it (a stop as it triggers); price is then optional, checked '
      + 'and recorded, and peggedPrice is the price it works at. strategyId (0..2^53 − 1) and strategyType (1000000..2^31 − 1; '
      + 'less is -1134) tag the order: its answers (but ACK), records and executionReport (j, J) show them, only when sent.',
    security: 'TRADE', weight: 1,
    params: ['symbol', ...ORDER_PARAMS],
    required: ['symbol', 'side', 'type'], response: spotOrderSchema,
  }),
  testOrder: route({
    family: 'spot', summary: 'Test a new spot order: every check placement makes, balances included; nothing is placed',
    description: '{} as Binance answers; computeCommissionRates=true adds the market\'s commission rates.',
    security: 'TRADE', weight: 1,
    params: ['symbol', ...ORDER_PARAMS, 'computeCommissionRates'],
    required: ['symbol', 'side', 'type'], response: anyObject,
  }),
  orderRateLimit: route({
    family: 'spot', summary: "The order limits and the caller's counts in them", security: 'USER_DATA', weight: 40,
    response: arrayOf(object({ rateLimitType: str, interval: str, intervalNum: int, limit: int, count: int })),
  }),
  cancelReplace: cancelReplaceRoute(),
  queryOrder: route({
    family: 'spot', summary: 'Query a spot order (open or historical)', security: 'USER_DATA', weight: 4, ...byId,
    response: spotOrderSchema,
  }),
  cancelOrder: route({
    family: 'spot', summary: 'Cancel a spot order',
    description: 'cancelRestrictions: ONLY_NEW or ONLY_PARTIALLY_FILLED (-2011 when the order is not). newClientOrderId: '
      + "the cancel's own id, the answer's clientOrderId and the stream's executionReport c (origClientOrderId and C stay "
      + "the order's); without it both are the order's.",
    security: 'TRADE', weight: 1, params: [...byId.params, 'cancelRestrictions', 'newClientOrderId'], required: byId.required,
    response: spotOrderSchema,
  }),
  openOrders: route({
    family: 'spot', summary: 'Open spot orders, of one market or all', security: 'USER_DATA',
    weight: '6 with symbol, 80 without', params: ['symbol'], response: arrayOf(spotOrderSchema),
  }),
  cancelAll: route({
    family: 'spot', summary: "Cancel all of a spot market's open orders", security: 'TRADE', weight: 1,
    description: "Orders canceled alone in the cancel form; an OCO list's orders as one list body (orderListId, contingencyType, "
      + 'listStatusType ALL_DONE, orders, orderReports), as Binance answers.',
    params: ['symbol'], required: ['symbol'], response: arrayOf(anyObject),
  }),
  account: route({
    family: 'spot', summary: 'Spot account: commissions and balances', security: 'USER_DATA', weight: 20,
    description: 'omitZeroBalances=true leaves out the assets with nothing free or locked.', params: ['omitZeroBalances'],
    response: spotAccountSchema,
  }),
}

const symbolAndRange = ['symbol', 'orderId', 'startTime', 'endTime', 'limit'] as const

/** Spot queries beyond the basics (routes/spot-queries.ts). */
export const spotQueryDocs = {
  priceSchema: oneOrAllSchema(object({ symbol: str, price: str })),
  bookTickerSchema: oneOrAllSchema(object({ symbol: str, bidPrice: str, bidQty: str, askPrice: str, askQty: str })),
  avgPriceSchema: object({ mins: int, price: str, closeTime: int }),
  executionRulesSchema: object({ symbolRules: arrayOf(object({ symbol: str, rules: arrayOf(object({ ruleType: str, bidLimitMultUp: str,
    bidLimitMultDown: str, askLimitMultUp: str, askLimitMultDown: str })) })) }),
  referencePriceSchema: object({ symbol: str, referencePrice: str, timestamp: int }),
  referenceCalculationSchema: object({ symbol: str, calculationType: str, bucketCount: int, bucketWidthMs: int }),
  myTrades: route({
    family: 'spot', summary: "The caller's spot trades of one market", security: 'USER_DATA',
    weight: '20, 5 with orderId', params: [...symbolAndRange, 'fromId'], required: ['symbol'],
    response: arrayOf(object({
      symbol: str, id: int, orderId: int, orderListId: int, price: str, qty: str, quoteQty: str, commission: str,
      commissionAsset: str, time: int, isBuyer: bool, isMaker: bool, isBestMatch: bool,
    })),
  }),
  preventedMatches: route({
    family: 'spot', summary: "The caller's matches self-trade prevention stopped in one market",
    description: 'preventedMatchId (one match), or orderId (the matches that order took part in, as taker or maker; from '
      + 'fromPreventedMatchId). limit: default 500, max 1000. Kept three months.',
    security: 'USER_DATA', weight: '2 with preventedMatchId, 20 with orderId',
    params: ['symbol', 'preventedMatchId', 'orderId', 'fromPreventedMatchId', 'limit'], required: ['symbol'],
    response: arrayOf(object({
      symbol: str, preventedMatchId: int, takerOrderId: int, makerSymbol: str, makerOrderId: int, tradeGroupId: int,
      selfTradePreventionMode: str, price: str, takerPreventedQuantity: str, makerPreventedQuantity: str, transactTime: int,
    })),
  }),
  allOrders: route({
    family: 'spot', summary: "The caller's spot orders of one market, open and closed", security: 'USER_DATA',
    weight: 20, params: symbolAndRange, required: ['symbol'], response: arrayOf(spotOrderSchema),
  }),
}

/**
 * Cancel an order and place another: the new order's parameters as placeOrder's. Its refusal
 * bodies carry `data` (each half's result), so the 4xx schema keeps it.
 */
function cancelReplaceRoute(): ReturnType<typeof route> {
  const options = route({
    family: 'spot', summary: 'Cancel a spot order and place a new one (cancelReplaceMode STOP_ON_FAILURE or ALLOW_FAILURE)',
    description: 'cancelOrderId or cancelOrigClientOrderId names the order; cancelRestrictions ONLY_NEW or ONLY_PARTIALLY_FILLED. '
      + 'The two halves are sequenced one after the other, not as one command.',
    security: 'TRADE', weight: 1,
    params: ['symbol', 'cancelReplaceMode', 'cancelOrderId', 'cancelOrigClientOrderId', 'cancelRestrictions', 'cancelNewClientOrderId',
      ...ORDER_PARAMS],
    required: ['symbol', 'side', 'type', 'cancelReplaceMode'],
    response: object({ cancelResult: str, newOrderResult: str, cancelResponse: anyObject, newOrderResponse: anyObject }),
  })
  const response = options.schema.response as Record<string, unknown>
  response['4xx'] = object({ code: int, msg: str, data: object({ cancelResult: str, newOrderResult: str, cancelResponse: anyObject,
    newOrderResponse: { ...anyObject, nullable: true } }) })
  return options
}

/** Order amend keep priority and the amendment history (routes/spot-amend.ts). */
export const spotAmendDocs = {
  amend: route({
    family: 'spot', summary: "Reduce an open spot order's quantity, keeping its place in the queue",
    description: 'orderId or origClientOrderId names the order (orderId prevails). newQty is the new total quantity: less '
      + "than the order's (-2038 otherwise) and more than what has filled (-2038). newClientOrderId: the order's client id "
      + 'from now on; without it one is generated (send the current one to keep it). The user data stream reports '
      + 'executionReport x=REPLACED. executionId is the log entry that made the amendment. An order of an executing list: '
      + "an OCO pair's two orders share one quantity, so amending either amends both (the other keeps its client id); "
      + "an OTO list's working and pending orders are amended alone; the answer adds the list (listStatus), and a new "
      + 'client id sends listStatus UPDATED on the stream. newQty is the quantity as sent, prevented quantity included.',
    security: 'TRADE', weight: 4, params: ['symbol', 'orderId', 'origClientOrderId', 'newClientOrderId', 'newQty'],
    required: ['symbol', 'newQty'],
    response: object({
      transactTime: int, executionId: int,
      amendedOrder: object({
        symbol: str, orderId: int, orderListId: int, origClientOrderId: str, clientOrderId: str, price: str, qty: str,
        executedQty: str, preventedQty: str, quoteOrderQty: str, cumulativeQuoteQty: str, status: str, timeInForce: str,
        type: str, side: str, workingTime: int, strategyId: int, strategyType: int, selfTradePreventionMode: str,
      }),
      listStatus: object({
        orderListId: int, contingencyType: str, listOrderStatus: str, listClientOrderId: str, symbol: str,
        orders: arrayOf(object({ symbol: str, orderId: int, clientOrderId: str })),
      }),
    }),
  }),
  amendments: route({
    family: 'spot', summary: "One spot order's quantity amendments, oldest first",
    description: 'orderId or origClientOrderId names the order. fromExecutionId: from that amendment on. limit: default 500, max 1000.',
    security: 'USER_DATA', weight: 4, params: ['symbol', 'orderId', 'origClientOrderId', 'fromExecutionId', 'limit'],
    required: ['symbol'],
    response: arrayOf(object({
      symbol: str, orderId: int, executionId: int, origClientOrderId: str, newClientOrderId: str, origQty: str, newQty: str,
      time: int,
    })),
  }),
}

/** An OCO list's body; orderReports (placement RESULT and FULL, cancels) are the orders in the order forms. */
const orderListSchema = object({
  orderListId: int, contingencyType: str, listStatusType: str, listOrderStatus: str, listClientOrderId: str,
  transactionTime: int, symbol: str, orders: arrayOf(object({ symbol: str, orderId: int, clientOrderId: str })),
  orderReports: arrayOf(spotOrderSchema),
})

const PEG = ['PegPriceType', 'PegOffsetType', 'PegOffsetValue']
const STRATEGY = ['StrategyId', 'StrategyType']
const OCO_LEG = ['Type', 'ClientOrderId', 'Price', 'StopPrice', 'TrailingDelta', 'TimeInForce', 'IcebergQty', ...STRATEGY, ...PEG]
const OTO_LEG = ['Type', 'ClientOrderId', 'Price', 'TimeInForce', 'IcebergQty', ...STRATEGY, ...PEG]

/**
 * An OTO-family placement's docs: the working order's parameters, then one pending order's
 * (or, `pair`, an OCO pair's), with pendingQuantity unless `opo` (the quantity is what the
 * working order brings).
 */
function otoRoute(summary: string, description: string, pair: boolean, opo: boolean): ReturnType<typeof route> {
  const quantity = opo ? [] : ['pendingQuantity']
  const pending = pair ? ['pendingSide', ...quantity, ...OCO_LEG.map((n) => 'pendingAbove' + n), ...OCO_LEG.map((n) => 'pendingBelow' + n)]
    : [...OTO_LEG.map((n) => 'pending' + n), 'pendingStopPrice', 'pendingTrailingDelta', 'pendingSide', ...quantity]
  return route({
    family: 'spot', summary, description, security: 'TRADE', weight: 1,
    params: ['symbol', 'listClientOrderId', ...OTO_LEG.map((n) => 'working' + n), 'workingSide', 'workingQuantity', ...pending,
      'newOrderRespType', 'selfTradePreventionMode'],
    required: ['symbol', 'workingType', 'workingSide', 'workingQuantity', 'pendingSide', ...quantity,
      ...(pair ? ['pendingAboveType', 'pendingBelowType'] : ['pendingType'])],
    response: orderListSchema,
  })
}

/** Order lists: OCO, OTO, OTOCO, OPO, OPOCO (routes/spot-order-lists.ts). */
export const spotListDocs = {
  placeOco: route({
    family: 'spot', summary: 'New OCO order list: an above and a below order; when one fills or triggers, the other is canceled',
    description: 'aboveType and belowType: LIMIT_MAKER, STOP_LOSS, STOP_LOSS_LIMIT, TAKE_PROFIT, TAKE_PROFIT_LIMIT (-1158 otherwise). '
      + 'SELL: LIMIT_MAKER or take profit above, stop loss below; BUY the other way round (-1165, -1166, -1196..-1199); at '
      + 'least one must be contingent (-1168), and the last price must lie between them (-2010). The two hold what the '
      + 'larger needs, once. *Price for LIMIT_MAKER and the *_LIMIT types, *StopPrice, *TrailingDelta (a trailing stop, in '
      + 'BIPS) or both for the stop types, *TimeInForce (GTC, IOC, FOK) for the *_LIMIT types, *IcebergQty (an iceberg, '
      + 'GTC) for LIMIT_MAKER and the *_LIMIT types, *PegPriceType, *PegOffsetType and *PegOffsetValue (a pegged price, as '
      + 'order\'s pegPriceType; the price is then optional) for LIMIT_MAKER and the *_LIMIT types, *StrategyId and '
      + '*StrategyType (as order\'s strategyId and strategyType) for any. A trailing leg without a stop '
      + 'price stands at no price, so only the other is held to the last price. newOrderRespType ACK (no orderReports), RESULT '
      + 'or FULL (the default). '
      + 'Counts two orders.',
    security: 'TRADE', weight: 1,
    params: ['symbol', 'listClientOrderId', 'side', 'quantity', ...OCO_LEG.map((n) => 'above' + n), ...OCO_LEG.map((n) => 'below' + n),
      'newOrderRespType', 'selfTradePreventionMode'],
    required: ['symbol', 'side', 'quantity', 'aboveType', 'belowType'], response: orderListSchema,
  }),
  placeOto: otoRoute('New OTO order list: a working order, and a pending order placed once it fills in full',
    'workingType LIMIT or LIMIT_MAKER (workingPrice; workingTimeInForce GTC, IOC or FOK for LIMIT), workingSide, '
      + 'workingQuantity; pendingType LIMIT, MARKET, LIMIT_MAKER or a stop type, pendingSide, pendingQuantity, and the '
      + 'price, stop price, trailing delta and time in force its type reads. The pending order is PENDING_NEW and holds nothing until the '
      + 'working order fills in full; it is then checked as any placement and placed, or expires. Canceling either '
      + 'cancels the list. Counts two orders.', false, false),
  placeOtoco: otoRoute('New OTOCO order list: a working order, and a pending OCO pair placed once it fills in full',
    'The working order as orderList/oto; pendingAbove… and pendingBelow… as orderList/oco\'s above… and below…, '
      + 'of pendingSide and pendingQuantity. Once the working order fills in full the pair is checked as an OCO (the last '
      + 'price between its orders) and placed under the same orderListId, or both expire. Counts three orders.', true, false),
  placeOpo: otoRoute('New OPO order list: a working buy, and a pending sell of what it brings, placed once it fills in full',
    'As orderList/oto, with workingSide BUY and pendingSide SELL (-1130 otherwise) and no pendingQuantity (-1106): '
      + 'each fill of the working order brings base less its fee, held for the pending order as it comes in; once the '
      + 'working order has filled, the pending order is placed for all of it in whole lots (the rest freed), or expires. '
      + 'Canceled before then, the list frees what it held. Pending orders show no origQty. Counts two orders.', false, true),
  placeOpoco: otoRoute('New OPOCO order list: a working buy, and a pending OCO pair selling what it brings',
    'As orderList/otoco, with workingSide BUY, pendingSide SELL and no pendingQuantity: the pair is placed as an '
      + 'OCO for what the working order brought, as orderList/opo. Counts three orders.', true, true),
  placeLegacyOco: route({
    family: 'spot', summary: 'New OCO (the older form): a LIMIT_MAKER at price and a stop at stopPrice',
    description: 'stopLimitPrice (with stopLimitTimeInForce) makes the stop a STOP_LOSS_LIMIT, else STOP_LOSS; trailingDelta '
      + 'makes it trail. A SELL puts the LIMIT_MAKER above, a BUY below. Answers as orderList/oco.',
    security: 'TRADE', weight: 1,
    params: ['symbol', 'listClientOrderId', 'side', 'quantity', 'limitClientOrderId', 'price', 'limitIcebergQty', 'limitStrategyId',
      'limitStrategyType', 'stopClientOrderId', 'stopPrice', 'trailingDelta', 'stopLimitPrice', 'stopLimitTimeInForce', 'stopIcebergQty',
      'stopStrategyId', 'stopStrategyType', 'newOrderRespType', 'selfTradePreventionMode'],
    required: ['symbol', 'side', 'quantity', 'price', 'stopPrice'], response: orderListSchema,
  }),
  cancel: route({
    family: 'spot', summary: 'Cancel an executing OCO order list (both its orders)',
    description: 'orderListId or listClientOrderId names it; newClientOrderId is the cancel\'s own id (each report\'s '
      + 'clientOrderId). Canceling either order alone (DELETE order) cancels the whole list too.',
    security: 'TRADE', weight: 1, params: ['symbol', 'orderListId', 'listClientOrderId', 'newClientOrderId'], required: ['symbol'],
    response: orderListSchema,
  }),
  query: route({
    family: 'spot', summary: 'One OCO order list, executing or done', security: 'USER_DATA', weight: 4,
    description: 'orderListId, or origClientOrderId (the listClientOrderId; the newest list placed with it).',
    params: ['orderListId', 'origClientOrderId'], response: orderListSchema,
  }),
  all: route({
    family: 'spot', summary: "The caller's OCO order lists", security: 'USER_DATA', weight: 20,
    description: 'fromId (ascending from that list; not with a time range), or startTime and endTime on placement time. '
      + 'limit: default 500, max 1000.',
    params: ['fromId', 'startTime', 'endTime', 'limit'], response: arrayOf(orderListSchema),
  }),
  open: route({
    family: 'spot', summary: "The caller's executing OCO order lists", security: 'USER_DATA', weight: 6,
    response: arrayOf(orderListSchema),
  }),
}
