// Schemas of Binance's algo order routes for conditional orders (routes/algo-orders.ts).

import { arrayOf, bool, int, object, route, str, type Schema } from './common.js'

/** Binance's algo order record, in its field order. */
export const algoOrderSchema: Schema = object({
  algoId: int, clientAlgoId: str, algoType: str, orderType: str, symbol: str, side: str, positionSide: str,
  timeInForce: str, quantity: str, algoStatus: str, actualOrderId: str, actualPrice: str, triggerPrice: str, price: str,
  selfTradePreventionMode: str, workingType: str, priceMatch: str, closePosition: bool, priceProtect: bool,
  reduceOnly: bool, activatePrice: str, callbackRate: str, createTime: int, updateTime: int, triggerTime: int,
  goodTillDate: int,
})

const placeParams = [
  'algoType', 'symbol', 'side', 'positionSide', 'type', 'timeInForce', 'quantity', 'price', 'triggerPrice',
  'workingType', 'priceMatch', 'closePosition', 'priceProtect', 'reduceOnly', 'activatePrice', 'callbackRate',
  'clientAlgoId', 'selfTradePreventionMode', 'goodTillDate', 'newOrderRespType',
] as const

export const algoDocs = {
  place: route({
    family: 'trade', summary: 'New algo order (CONDITIONAL: STOP, STOP_MARKET, TAKE_PROFIT, TAKE_PROFIT_MARKET, TRAILING_STOP_MARKET)',
    description: 'The same conditional order POST /fapi/v1/order places; algoId = orderId × 256 + the market id.',
    security: 'TRADE', weight: '0 (counts against the order limits)', params: placeParams,
    required: ['algoType', 'symbol', 'side', 'type'], response: algoOrderSchema,
  }),
  query: route({
    family: 'trade', summary: 'Query an algo order (waiting or historical)', security: 'USER_DATA', weight: 1,
    params: ['algoId', 'clientAlgoId'], response: algoOrderSchema,
  }),
  cancel: route({
    family: 'trade', summary: 'Cancel a waiting algo order', security: 'TRADE', weight: 1,
    params: ['algoId', 'clientAlgoId'], response: object({ algoId: int, clientAlgoId: str, code: str, msg: str }),
  }),
  open: route({
    family: 'trade', summary: 'Waiting algo orders, of one market or all', security: 'USER_DATA',
    weight: '1 with symbol, 40 without', params: ['symbol'], response: arrayOf(algoOrderSchema),
  }),
  all: route({
    family: 'trade', summary: "A market's algo orders, waiting and past", security: 'USER_DATA', weight: 5,
    params: ['symbol', 'algoId', 'startTime', 'endTime', 'limit'], required: ['symbol'], response: arrayOf(algoOrderSchema),
  }),
  cancelAll: route({
    family: 'trade', summary: "Cancel all of a market's waiting algo orders", security: 'TRADE', weight: 1,
    params: ['symbol'], required: ['symbol'], response: object({ code: int, msg: str }),
  }),
}
