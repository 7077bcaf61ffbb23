// Schemas of futures order batches and amendments: place, amend and cancel several orders in
// one request (each element the order or its refusal), and amend one order.

import { arrayOf, errorSchema, int, object, route, str, type Schema } from './common.js'
import { orderAckSchema, orderSchema } from './trade.js'

/** One element of a batch answer: a refusal ({code, msg}), else the order (RESULT) or its ids (ACK). */
const elementSchema: Schema = {
  if: { type: 'object', required: ['code'] },
  then: errorSchema,
  else: { if: { type: 'object', required: ['status'] }, then: orderSchema, else: orderAckSchema },
}
const orderOrError: Schema = { if: { type: 'object', required: ['code'] }, then: errorSchema, else: orderSchema }

const amendParams = ['symbol', 'orderId', 'origClientOrderId', 'side', 'quantity', 'price', 'priceMatch'] as const

export const batchDocs = {
  place: route({
    family: 'trade', summary: 'Place up to 5 futures orders',
    description: 'batchOrders: a JSON list of 1 to 5 objects, each with the parameters of POST /fapi/v1/order '
      + '(newOrderRespType defaults to RESULT here). Orders are checked and placed one after the other, in the order '
      + 'sent; the answer lists each order, or its {code, msg} refusal, in its place. Each counts against the order limits.',
    security: 'TRADE', weight: '5 (and one per order against the order limits)', params: ['batchOrders'],
    required: ['batchOrders'], response: arrayOf(elementSchema),
  }),
  modify: route({
    family: 'trade', summary: "Amend a resting LIMIT order's price and quantity",
    description: 'orderId (or origClientOrderId) names the order; side must be its side; quantity is the new total '
      + 'quantity and price the new price, both required. The order keeps its ids, goes to the back of the queue at '
      + 'its price and trades at once if the price crosses. It is canceled instead when the new quantity is not above '
      + 'what already filled, or when a post-only order\'s new price would take. Unchanged: -5027. priceMatch instead '
      + 'of price takes the new price from the book. An order is amended at most 10,000 times (then -5026); '
      + 'GET /fapi/v1/orderAmendment lists its amendments.',
    security: 'TRADE', weight: '0 (1 against the order limits)', params: amendParams,
    required: ['symbol', 'side', 'quantity'], response: orderSchema,
  }),
  amendments: route({
    family: 'trade', summary: "One order's modify history, newest first (three months back)",
    description: 'orderId or origClientOrderId names the order (orderId prevails). Each row: the amendment\'s price and '
      + 'quantity before and after, and its count (1 for the order\'s first amendment). limit: default 50, max 100.',
    security: 'USER_DATA', weight: 1, params: ['symbol', 'orderId', 'origClientOrderId', 'startTime', 'endTime', 'limit'],
    required: ['symbol'],
    response: arrayOf(object({
      amendmentId: int, symbol: str, pair: str, orderId: int, clientOrderId: str, time: int,
      amendment: object({
        price: object({ before: str, after: str }), origQty: object({ before: str, after: str }), count: int,
      }),
    })),
  }),
  modifyBatch: route({
    family: 'trade', summary: 'Amend up to 5 futures orders',
    description: 'batchOrders: a JSON list of 1 to 5 objects, each with the parameters of PUT /fapi/v1/order; '
      + 'the answer lists each amended order, or its {code, msg} refusal, in its place.',
    security: 'TRADE', weight: '5 (and one per order against the order limits)', params: ['batchOrders'],
    required: ['batchOrders'], response: arrayOf(orderOrError),
  }),
  cancel: route({
    family: 'trade', summary: 'Cancel up to 10 futures orders of one market',
    description: 'orderIdList (a JSON list of ids) or origClientOrderIdList (a JSON list of client ids), at most 10; '
      + 'the answer lists each canceled order, or its {code, msg} refusal, in its place.',
    security: 'TRADE', weight: 1, params: ['symbol', 'orderIdList', 'origClientOrderIdList'], required: ['symbol'],
    response: arrayOf(orderOrError),
  }),
}
