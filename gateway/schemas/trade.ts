// Schemas of futures trading and position settings: orders (place, cancel, countdown cancel-all, query, one open, open),
// cancel all, leverage, position mode, margin type, leverage brackets.

import { arrayOf, bool, int, num, object, route, str, type Schema } from './common.js'

/**
 * Binance USD-M's order, in its field order: responses (place RESULT, cancel) carry cumQty,
 * records (query, open orders, history) carry time; fields absent from a form are skipped.
 */
export const orderSchema: Schema = object({
  orderId: int, symbol: str, status: str, clientOrderId: str, price: str, avgPrice: str, origQty: str,
  executedQty: str, cumQty: str, cumQuote: str, timeInForce: str, type: str, origType: str, side: str,
  positionSide: str, reduceOnly: bool, closePosition: bool, stopPrice: str, workingType: str, priceProtect: bool,
  activatePrice: str, priceRate: str, selfTradePreventionMode: str, goodTillDate: int, priceMatch: str, time: int, updateTime: int,
})

/** newOrderRespType=ACK. */
export const orderAckSchema = object({ symbol: str, product_id: int, orderId: int, clientOrderId: str, transactTime: int })

/** Binance's bare success body. */
export const successSchema = object({ code: int, msg: str })

const bracketsSchema = arrayOf(object({
  symbol: str, notionalCoef: num,
  brackets: arrayOf(object({
    bracket: int, initialLeverage: int, notionalCap: num, notionalFloor: num, maintMarginRatio: num, cum: num,
  })),
}))

const placeParams = [
  'symbol', 'side', 'positionSide', 'type', 'timeInForce', 'quantity', 'reduceOnly', 'price', 'newClientOrderId',
  'closePosition', 'newOrderRespType', 'selfTradePreventionMode', 'goodTillDate', 'stopPrice', 'activationPrice',
  'callbackRate', 'workingType', 'priceProtect', 'priceMatch',
] as const

const byId = { params: ['symbol', 'orderId', 'origClientOrderId'], required: ['symbol'] } as const

export const tradeDocs = {
  testOrder: route({
    family: 'trade', summary: 'Test a new futures order: every check placement makes, margin included; nothing is placed',
    description: 'The answer is the order as it would be placed, before any fill (status NEW, orderId 0).',
    security: 'TRADE', weight: 1, params: placeParams, required: ['symbol', 'side', 'type'], response: orderSchema,
  }),
  placeOrder: route({
    family: 'trade', summary: 'New futures order (LIMIT, MARKET, POST_ONLY and the conditional types)',
    description: 'newOrderRespType ACK (default) answers with the ids; RESULT with the order after matching.',
    security: 'TRADE', weight: '0 (counts against the order limits)', params: placeParams,
    required: ['symbol', 'side', 'type'],
    // RESULT alone has `status`. if/then/else rather than anyOf with `required`: the serializer
    // would write required fields first; the document shows it as anyOf (openapi.ts).
    response: { if: { type: 'object', required: ['status'] }, then: orderSchema, else: orderAckSchema },
  }),
  cancelOrder: route({
    family: 'trade', summary: 'Cancel a futures order', security: 'TRADE', weight: 1,
    params: [...byId.params, 'cancelRestrictions'], required: byId.required, response: orderSchema,
  }),
  cancelAll: route({
    family: 'trade', summary: "Cancel all of a market's open futures orders", security: 'TRADE', weight: 1,
    params: ['symbol'], required: ['symbol'], response: successSchema,
  }),
  countdownCancelAll: route({
    family: 'trade', summary: "Cancel the market's open orders countdownTime ms from now unless called again (0 clears it)",
    description: 'Fires at the first tick at or after the deadline (every second by default, --tick-ms); at most 86400000 ms.',
    security: 'TRADE', weight: 10, params: ['symbol', 'countdownTime'], required: ['symbol', 'countdownTime'],
    response: object({ symbol: str, countdownTime: str }),
  }),
  queryOrder: route({
    family: 'trade', summary: 'Query a futures order (open or historical)', security: 'USER_DATA', weight: 4,
    ...byId, response: orderSchema,
  }),
  openOrder: route({
    family: 'trade', summary: 'One open futures order (-2013 once filled or canceled)', security: 'USER_DATA', weight: 1,
    ...byId, response: orderSchema,
  }),
  openOrders: route({
    family: 'trade', summary: 'Open futures orders, of one market or all', security: 'USER_DATA',
    weight: '1 with symbol, 40 without', params: ['symbol'], response: arrayOf(orderSchema),
  }),
  leverage: route({
    family: 'trade', summary: "Change a market's initial leverage", security: 'TRADE', weight: 1,
    params: ['symbol', 'leverage'], required: ['symbol', 'leverage'],
    response: object({ leverage: int, maxNotionalValue: str, symbol: str }),
  }),
  positionModeGet: route({
    family: 'trade', summary: 'Position mode: hedge (true) or one-way (false)', security: 'USER_DATA', weight: 30,
    response: object({ dualSidePosition: bool }),
  }),
  positionModeSet: route({
    family: 'trade', summary: 'Change position mode', security: 'TRADE', weight: 1,
    params: ['dualSidePosition'], required: ['dualSidePosition'], response: successSchema,
  }),
  marginType: route({
    family: 'trade', summary: 'Change margin type: ISOLATED or CROSSED (refused with open orders or a position)',
    security: 'TRADE', weight: 1, params: ['symbol', 'marginType'], required: ['symbol', 'marginType'], response: successSchema,
  }),
  positionMargin: route({
    family: 'trade', summary: 'Add (type 1) or reduce (type 2) the margin of an isolated position',
    security: 'TRADE', weight: 1, params: ['symbol', 'positionSide', 'amount', 'type'], required: ['symbol', 'amount', 'type'],
    response: object({ amount: num, code: int, msg: str, type: int }),
  }),
  positionMarginHistory: route({
    family: 'trade', summary: 'Isolated position margin changes, 30 days back at most', security: 'USER_DATA', weight: 1,
    params: ['symbol', 'type', 'startTime', 'endTime', 'limit'], required: ['symbol'],
    response: arrayOf(object({ symbol: str, type: int, deltaType: str, amount: str, asset: str, time: int, positionSide: str })),
  }),
  leverageBracket: route({
    family: 'trade', summary: 'Notional brackets: leverage and maintenance margin ratio per bracket',
    security: 'USER_DATA', weight: 1, params: ['symbol'], response: bracketsSchema,
  }),
}
