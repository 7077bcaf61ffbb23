// Spot trading over the spot WebSocket API (/ws-api/v3) on real loopback: every method answers
// what its spot REST route answers (the same code), refusals in Binance's spot shape change
// nothing, spot orders count against the spot ORDERS limits (shared with spot REST, apart
// from futures), cancelReplace's refusals carry each half's result, and the order-list methods
// answer as their REST routes.

import t from 'tap'
import { stateRoot } from '../../core/root.js'
import { RULES_VERSION } from '../../core/rules.js'
import { signedInject, spotTraders } from '../helpers/gateway.js'
import { connect, type Client } from './client.js'
import { listeningRig, signed, type WsParams } from './ws-api-rig.js'

let nextId = 1
async function call(c: Client, method: string, params?: WsParams): Promise<any> {
  const id = nextId++
  c.send({ id, method, ...(params !== undefined ? { params } : {}) })
  return c.next((m) => m.id === id)
}

const ORDERS = (n10: number, n60: number) => [
  { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 300, count: n10 },
  { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: 1200, count: n60 },
]

t.test('spot trading over /ws-api/v3 answers what spot REST answers', async (t) => {
  const { rig, open } = await listeningRig(t)
  const ws = await open('/ws-api/v3')
  const { seller, buyer, sellerWallet } = await spotTraders(rig)
  const rest = (keys: typeof seller, method: 'GET' | 'POST' | 'DELETE', path: string, p: Record<string, string | number> = {}) =>
    signedInject(rig, keys, method, path, p).then((r) => r.json())

  const placed = await call(ws, 'order.place', signed(rig, seller, { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.1000', price: '50000.00', newClientOrderId: 'ask-1', newOrderRespType: 'RESULT' }))
  t.equal(placed.status, 200)
  t.match(placed.result, { symbol: 'BTCUSDT', orderId: 1, clientOrderId: 'ask-1', status: 'NEW', price: '50000.00', origQty: '0.1000' })
  t.same(placed.rateLimits.slice(1), ORDERS(1, 1), 'a spot order counts against the spot ORDERS limits')
  t.same((await call(ws, 'account.rateLimits.orders', signed(rig, seller, {}))).result, ORDERS(1, 1))
  t.same(await rest(seller, 'GET', '/api/v3/rateLimit/order'), ORDERS(1, 1), 'the same counter as spot REST')
  t.match(rig.app.orders.usage(`${sellerWallet.address}/0`), { n10s: 0, n1m: 0 }, 'apart from the futures one')

  const status = await call(ws, 'order.status', signed(rig, seller, { symbol: 'BTCUSDT', orderId: 1 }))
  t.same(status.result, await rest(seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: 1 }), 'order.status is GET /api/v3/order')
  t.same((await call(ws, 'openOrders.status', signed(rig, seller, { symbol: 'BTCUSDT' }))).result,
    await rest(seller, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' }))
  t.same((await call(ws, 'account.status', signed(rig, seller, {}))).result, await rest(seller, 'GET', '/api/v3/account'))
  t.same((await call(ws, 'account.commission', signed(rig, seller, { symbol: 'BTCUSDT' }))).result,
    await rest(seller, 'GET', '/api/v3/account/commission', { symbol: 'BTCUSDT' }))
  t.same((await call(ws, 'myFilters', signed(rig, seller, { symbol: 'BTCUSDT' }))).result, await rest(seller, 'GET', '/api/v3/myFilters', { symbol: 'BTCUSDT' }),
    'myFilters is GET /api/v3/myFilters')
  t.same((await call(ws, 'myAllocations', signed(rig, seller, { symbol: 'BTCUSDT' }))).result, [], 'myAllocations: none')
  t.same((await call(ws, 'order.test', signed(rig, buyer, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.0100' }))).result, {})

  // The buyer takes 0.05 (FULL: with its fills), then both see the trade.
  const bought = await call(ws, 'order.place', signed(rig, buyer, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.0500' }))
  t.match(bought.result, { status: 'FILLED', executedQty: '0.0500', fills: [{ price: '50000.00', qty: '0.0500', commission: '0.00005000', commissionAsset: 'BTC' }] })
  t.same((await call(ws, 'myTrades', signed(rig, buyer, { symbol: 'BTCUSDT' }))).result, await rest(buyer, 'GET', '/api/v3/myTrades', { symbol: 'BTCUSDT' }))
  t.same((await call(ws, 'allOrders', signed(rig, buyer, { symbol: 'BTCUSDT' }))).result, await rest(buyer, 'GET', '/api/v3/allOrders', { symbol: 'BTCUSDT' }))
  // startTime and endTime in µs, told from ms by their size, as Binance spot's WebSocket API takes them.
  const [fill] = (await call(ws, 'myTrades', signed(rig, buyer, { symbol: 'BTCUSDT' }))).result
  const fillUs = fill.time * 1000
  t.same((await call(ws, 'myTrades', signed(rig, buyer, { symbol: 'BTCUSDT', startTime: fillUs, endTime: fillUs + 999 }))).result, [fill],
    'myTrades over the fill\'s µs')
  t.same((await call(ws, 'myTrades', signed(rig, buyer, { symbol: 'BTCUSDT', startTime: fillUs + 1 }))).result, [], 'myTrades from a µs after it')
  t.equal((await call(ws, 'trades.aggregate', { symbol: 'BTCUSDT', startTime: fillUs })).result.length, 1, 'trades.aggregate from the fill\'s µs')
  t.same((await call(ws, 'trades.aggregate', { symbol: 'BTCUSDT', endTime: fillUs - 1 })).result, [], 'to a µs before it')

  // Public: the book, prices, the average price.
  t.same((await call(ws, 'depth', { symbol: 'BTCUSDT', limit: 5 })).result, (await rig.app.inject('/api/v3/depth?symbol=BTCUSDT&limit=5')).json())
  t.same((await call(ws, 'ticker.price', { symbol: 'BTCUSDT' })).result, { symbol: 'BTCUSDT', price: '50000.00' })
  t.same((await call(ws, 'ticker.book', { symbol: 'BTCUSDT' })).result, (await rig.app.inject('/api/v3/ticker/bookTicker?symbol=BTCUSDT')).json())
  t.match((await call(ws, 'avgPrice', { symbol: 'BTCUSDT' })).result, { mins: 5, price: '50000.00' })
  for (const [method, path, p] of [['trades.recent', '/api/v3/trades', {}], ['trades.historical', '/api/v3/historicalTrades', {}],
    ['trades.aggregate', '/api/v3/aggTrades', {}], ['klines', '/api/v3/klines', { interval: '1m' }],
    ['uiKlines', '/api/v3/uiKlines', { interval: '1m' }], ['klines', '/api/v3/klines', { interval: '1d', timeZone: '-5:30' }], ['ticker.24hr', '/api/v3/ticker/24hr', {}],
    ['ticker', '/api/v3/ticker', { windowSize: '1h' }], ['ticker.tradingDay', '/api/v3/ticker/tradingDay', { timeZone: '8' }]] as const) {
    const q = new URLSearchParams({ symbol: 'BTCUSDT', ...p }).toString()
    const got = (await call(ws, method, { symbol: 'BTCUSDT', ...p })).result
    t.same(got, (await rig.app.inject(`${path}?${q}`)).json(), `${method} is ${path}`)
    t.ok(Array.isArray(got) ? got.length === 1 : got.count === 1, `${method}: the one trade`)
  }

  // symbols as Binance documents it, a JSON array (found by exploratory testing: it was -1135), or its text.
  const both = await call(ws, 'ticker.price', { symbols: ['ETHUSDT', 'BTCUSDT'] } as unknown as WsParams)
  t.same(both.result, (await rig.app.inject(`/api/v3/ticker/price?symbols=${encodeURIComponent('["ETHUSDT","BTCUSDT"]')}`)).json())
  t.equal(both.result.length, 2)
  t.match(await call(ws, 'ticker.price', { symbols: [1, 2] } as unknown as WsParams), { status: 400, error: { code: -1135 } },
    'a list of anything but strings is not a parameter')
  t.same((await call(ws, 'exchangeInfo', { symbols: '["BTCUSDT"]' })).result.symbols,
    (await rig.app.inject('/api/v3/exchangeInfo?symbol=BTCUSDT')).json().symbols, 'exchangeInfo is GET /api/v3/exchangeInfo')
  t.match(await call(ws, 'exchangeInfo', { symbol: 'BTCUSDTPERP' }), { status: 400, error: { code: -1121 } }, 'spot markets only')
  t.match(await call(ws, 'exchangeInfo', { symbols: ['BTCUSDT', 'NOPE'] } as unknown as WsParams), { status: 400, error: { code: -1121 } },
    'one unknown name refuses the request')
  t.same((await call(ws, 'exchangeInfo', { permissions: ['MARGIN', 'LEVERAGED'] } as unknown as WsParams)).result.symbols, [],
    'permissions as a JSON array')
  t.same((await call(ws, 'exchangeInfo', { permissions: 'SPOT', showPermissionSets: false } as unknown as WsParams)).result.symbols
    .map((s: { symbol: string; permissionSets: unknown }) => [s.symbol, s.permissionSets]), [['BTCUSDT', []], ['ETHUSDT', []]],
    'a single permission; showPermissionSets as a JSON boolean')

  // cancelReplace: the new order replaces the rest of the ask; then one whose cancel fails.
  const replaced = await call(ws, 'order.cancelReplace', signed(rig, seller, { symbol: 'BTCUSDT', cancelReplaceMode: 'STOP_ON_FAILURE',
    cancelOrderId: 1, side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0500', price: '51000.00' }))
  t.match(replaced.result, { cancelResult: 'SUCCESS', newOrderResult: 'SUCCESS', cancelResponse: { orderId: 1, status: 'CANCELED' },
    newOrderResponse: { status: 'NEW', price: '51000.00' } })
  // Amend keep priority: the new ask (order 3) cut from 0.05 to 0.03, then its amendments as REST lists them.
  const amended = await call(ws, 'order.amend.keepPriority', signed(rig, seller, { symbol: 'BTCUSDT', orderId: 3, newQty: '0.0300',
    newClientOrderId: 'ask-3' }))
  t.match(amended, { status: 200, result: { executionId: rig.ex.state.seq,
    amendedOrder: { orderId: 3, clientOrderId: 'ask-3', qty: '0.0300', status: 'NEW', price: '51000.00' } } })
  t.same((await call(ws, 'order.amendments', signed(rig, seller, { symbol: 'BTCUSDT', orderId: 3 }))).result,
    await rest(seller, 'GET', '/api/v3/order/amendments', { symbol: 'BTCUSDT', orderId: 3 }), 'order.amendments is GET /api/v3/order/amendments')
  t.match(await call(ws, 'order.amend.keepPriority', signed(rig, seller, { symbol: 'BTCUSDT', orderId: 3, newQty: '0.0400' })),
    { status: 400, error: { code: -2038, msg: 'Order amend (quantity increase) is not supported.' } })

  const before = stateRoot(rig.ex.state)
  const failed = await call(ws, 'order.cancelReplace', signed(rig, seller, { symbol: 'BTCUSDT', cancelReplaceMode: 'STOP_ON_FAILURE',
    cancelOrderId: 1, side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0500', price: '52000.00' }))
  t.match(failed, { status: 400, error: { code: -2022, msg: 'Order cancel-replace failed.', data: { cancelResult: 'FAILURE',
    newOrderResult: 'NOT_ATTEMPTED', cancelResponse: { code: -2011 }, newOrderResponse: null } } })
  t.equal(stateRoot(rig.ex.state), before, 'nothing changed')

  // Refusals in spot's shape, changing nothing.
  const poor = await call(ws, 'order.place', signed(rig, buyer, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
    quantity: '1.0000', price: '50000.00' }))
  t.match(poor, { status: 400, error: { code: -2010 } })
  t.match(await call(ws, 'order.place', signed(rig, buyer, { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'MARKET', quantity: '0.010' })),
    { status: 400, error: { code: -1121 } }, 'a perpetual is not a spot symbol')
  t.match(await call(ws, 'order.modify', signed(rig, buyer, { symbol: 'BTCUSDT' })), { status: 400, error: { code: -1020 } },
    'futures-only methods are unknown here')
  t.equal(stateRoot(rig.ex.state), before)

  const all = await call(ws, 'openOrders.cancelAll', signed(rig, seller, { symbol: 'BTCUSDT' }))
  t.match(all.result, [{ symbol: 'BTCUSDT', status: 'CANCELED', price: '51000.00', origQty: '0.0300' }])
  t.match((await call(ws, 'order.cancel', signed(rig, seller, { symbol: 'BTCUSDT', orderId: 1 }))), { status: 400, error: { code: -2011 } })

  // A trailing stop (trailingDelta, no stop price): it trails from the last price at once.
  const trailing = await call(ws, 'order.place', signed(rig, seller, { symbol: 'BTCUSDT', side: 'SELL', type: 'STOP_LOSS',
    quantity: '0.0100', trailingDelta: '150', newOrderRespType: 'RESULT' }))
  t.match(trailing.result, { type: 'STOP_LOSS', stopPrice: '0.00', trailingDelta: 150, trailingTime: rig.ex.time })
  t.same((await call(ws, 'order.status', signed(rig, seller, { symbol: 'BTCUSDT', orderId: trailing.result.orderId }))).result,
    await rest(seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: trailing.result.orderId }))
  t.match(await call(ws, 'order.place', signed(rig, seller, { symbol: 'BTCUSDT', side: 'SELL', type: 'STOP_LOSS', quantity: '0.0100',
    trailingDelta: '5000' })), { status: 400, error: { code: -1013, msg: 'Filter failure: TRAILING_DELTA' } })
  t.match(await call(ws, 'order.cancel', signed(rig, seller, { symbol: 'BTCUSDT', orderId: trailing.result.orderId })),
    { status: 200, result: { status: 'CANCELED', trailingDelta: 150 } })

  // An iceberg (icebergQty): the answer names its slice, the book shows it, the status is the REST record.
  const iceberg = await call(ws, 'order.place', signed(rig, seller, { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC',
    quantity: '0.0300', price: '52000.00', icebergQty: '0.0100', newOrderRespType: 'RESULT' }))
  t.match(iceberg.result, { type: 'LIMIT', origQty: '0.0300', icebergQty: '0.0100' })
  t.match((await call(ws, 'depth', { symbol: 'BTCUSDT' })).result, { asks: [['52000.00', '0.0100']] })
  t.match(await call(ws, 'depth', { symbol: 'BTCUSDT', symbolStatus: 'HALT' }), { status: 400, error: { code: -1220 } }, 'symbolStatus as REST')
  // The Price Range execution rule's methods answer as their REST routes.
  for (const [method, path, params] of [['executionRules', '/api/v3/executionRules', { symbol: 'BTCUSDT' }],
    ['referencePrice', '/api/v3/referencePrice', { symbol: 'BTCUSDT' }],
    ['referencePrice.calculation', '/api/v3/referencePrice/calculation', { symbol: 'BTCUSDT' }]] as const) {
    const q = new URLSearchParams(params).toString()
    t.same((await call(ws, method, { ...params })).result, (await rig.app.inject(`${path}?${q}`)).json(), method)
  }
  t.same((await call(ws, 'order.status', signed(rig, seller, { symbol: 'BTCUSDT', orderId: iceberg.result.orderId }))).result,
    await rest(seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: iceberg.result.orderId }))
  t.match(await call(ws, 'order.place', signed(rig, seller, { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', timeInForce: 'IOC',
    quantity: '0.0300', price: '52000.00', icebergQty: '0.0100' })), { status: 400, error: { code: -2010 } })

  // A pegged order (pegPriceType): it joins the best ask the iceberg shows, and its status is the REST record.
  const pegged = await call(ws, 'order.place', signed(rig, seller, { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT_MAKER',
    quantity: '0.0100', pegPriceType: 'PRIMARY_PEG', newOrderRespType: 'RESULT' }))
  t.match(pegged.result, { type: 'LIMIT_MAKER', price: '0.00', pegPriceType: 'PRIMARY_PEG', peggedPrice: '52000.00' })
  t.match((await call(ws, 'depth', { symbol: 'BTCUSDT' })).result, { asks: [['52000.00', '0.0200']] })
  t.same((await call(ws, 'order.status', signed(rig, seller, { symbol: 'BTCUSDT', orderId: pegged.result.orderId }))).result,
    await rest(seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: pegged.result.orderId }))
  t.match(await call(ws, 'order.place', signed(rig, seller, { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT_MAKER', quantity: '0.0100',
    pegPriceType: 'MARKET_PEG' })), { status: 400, error: { code: -2010, msg: 'This price peg cannot be used with this order type.' } })

  // cancelReplace past the new-order limits: CANCEL_ONLY still cancels (the new order -1015, its counts reported).
  for (let i = rig.app.spotOrders.usage(`${sellerWallet.address}/0`).n10s; i < 300; i++) rig.app.spotOrders.count(`${sellerWallet.address}/0`)
  const cancelOnly = await call(ws, 'order.cancelReplace', signed(rig, seller, { symbol: 'BTCUSDT', cancelReplaceMode: 'STOP_ON_FAILURE',
    cancelOrderId: iceberg.result.orderId, side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '53000.00',
    orderRateLimitExceededMode: 'CANCEL_ONLY' }))
  t.match(cancelOnly, { status: 409, error: { code: -2021, data: { cancelResult: 'SUCCESS', newOrderResult: 'FAILURE',
    cancelResponse: { orderId: iceberg.result.orderId, status: 'CANCELED' }, newOrderResponse: { code: -1015 } } } })
  t.match(cancelOnly.rateLimits.slice(1), [{ interval: 'SECOND', count: 301 }, { interval: 'MINUTE' }], 'with the counts that refused it')
})

t.test('order lists over /ws-api/v3 answer what their spot REST routes answer', async (t) => {
  const { rig, open } = await listeningRig(t)
  const ws = await open('/ws-api/v3')
  const { seller, buyer } = await spotTraders(rig)
  const rest = (keys: typeof seller, path: string, p: Record<string, string | number> = {}) =>
    signedInject(rig, keys, 'GET', path, p).then((r) => r.json())
  const oco = await call(ws, 'orderList.place.oco', signed(rig, seller, { symbol: 'BTCUSDT', side: 'SELL', quantity: '0.0100',
    aboveType: 'LIMIT_MAKER', abovePrice: '55000.00', belowType: 'STOP_LOSS', belowStopPrice: '45000.00', listClientOrderId: 'o-1' }))
  t.match(oco, { status: 200, result: { contingencyType: 'OCO', listClientOrderId: 'o-1', orderReports: [{ type: 'STOP_LOSS' }, { type: 'LIMIT_MAKER' }] } })
  t.same(oco.rateLimits.slice(1), ORDERS(2, 2), 'its two orders counted')
  const oto = await call(ws, 'orderList.place.oto', signed(rig, buyer, { symbol: 'BTCUSDT', workingType: 'LIMIT_MAKER', workingSide: 'BUY',
    workingPrice: '40000.00', workingQuantity: '0.0100', pendingType: 'LIMIT', pendingSide: 'SELL', pendingPrice: '60000.00',
    pendingTimeInForce: 'GTC', pendingQuantity: '0.0090' }))
  t.match(oto, { status: 200, result: { contingencyType: 'OTO', orderReports: [{ status: 'NEW' }, { status: 'PENDING_NEW', type: 'LIMIT' }] } })
  // Amending either order of the pair amends both; the answer names the list.
  const [below, above] = oco.result.orders as { orderId: number; clientOrderId: string }[]
  const amended = await call(ws, 'order.amend.keepPriority', signed(rig, seller, { symbol: 'BTCUSDT', orderId: below!.orderId, newQty: '0.0080',
    newClientOrderId: 'sl-1' }))
  t.match(amended, { status: 200, result: { amendedOrder: { orderId: below!.orderId, qty: '0.0080', clientOrderId: 'sl-1' },
    listStatus: { orderListId: oco.result.orderListId, listClientOrderId: 'o-1', orders: [{ orderId: below!.orderId, clientOrderId: 'sl-1' },
      { orderId: above!.orderId, clientOrderId: above!.clientOrderId }] } } })
  t.same((await rest(seller, '/api/v3/openOrders', { symbol: 'BTCUSDT' })).map((o: { origQty: string }) => o.origQty), ['0.0080', '0.0080'])
  t.same((await call(ws, 'orderList.status', signed(rig, seller, { orderListId: oco.result.orderListId }))).result,
    await rest(seller, '/api/v3/orderList', { orderListId: oco.result.orderListId }), 'orderList.status is GET /api/v3/orderList')
  t.same((await call(ws, 'openOrderLists.status', signed(rig, buyer, {}))).result, await rest(buyer, '/api/v3/openOrderList'),
    'openOrderLists.status is GET /api/v3/openOrderList')
  t.same((await call(ws, 'allOrderLists', signed(rig, seller, {}))).result, await rest(seller, '/api/v3/allOrderList'),
    'allOrderLists is GET /api/v3/allOrderList')
  const canceled = await call(ws, 'orderList.cancel', signed(rig, buyer, { symbol: 'BTCUSDT', orderListId: oto.result.orderListId }))
  t.match(canceled, { status: 200, result: { listStatusType: 'ALL_DONE', orderReports: [{ status: 'CANCELED' }, { status: 'CANCELED' }] } })
  t.match(await call(ws, 'orderList.cancel', signed(rig, buyer, { symbol: 'BTCUSDT', orderListId: oto.result.orderListId })),
    { status: 400, error: { code: -2011, msg: 'Unknown order list sent.' } })
  // OPO and OPOCO: no pending quantity; the pending orders sell what the working buy brings.
  const working = { symbol: 'BTCUSDT', workingType: 'LIMIT_MAKER', workingSide: 'BUY', workingPrice: '40000.00', workingQuantity: '0.0100',
    pendingSide: 'SELL' }
  const opo = await call(ws, 'orderList.place.opo', signed(rig, buyer, { ...working, pendingType: 'LIMIT_MAKER', pendingPrice: '60000.00' }))
  t.match(opo, { status: 200, result: { contingencyType: 'OTO', orderReports: [{ status: 'NEW' }, { status: 'PENDING_NEW', type: 'LIMIT_MAKER' }] } })
  t.notOk('origQty' in opo.result.orderReports[1])
  const opoco = await call(ws, 'orderList.place.opoco', signed(rig, buyer, { ...working, pendingAboveType: 'LIMIT_MAKER', pendingAbovePrice: '60000.00',
    pendingBelowType: 'STOP_LOSS', pendingBelowStopPrice: '30000.00' }))
  t.match(opoco, { status: 200, result: { orderReports: [{ status: 'NEW' }, { status: 'PENDING_NEW' }, { status: 'PENDING_NEW' }] } })
  t.same(opoco.rateLimits.slice(1), ORDERS(7, 7), 'three orders counted (after the buyer\'s OTO and OPO, two each)')
  t.match(await call(ws, 'orderList.place.opo', signed(rig, buyer, { ...working, pendingType: 'LIMIT_MAKER', pendingPrice: '60000.00',
    pendingQuantity: '0.0100' })), { status: 400, error: { code: -1106 } })
})

t.test('strategy tags over /ws-api/v3: JSON numbers in, every order answer and the subscribed stream out', async (t) => {
  const { rig, open } = await listeningRig(t)
  await rig.run({ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '76'.repeat(32) })
  const ws = await open('/ws-api/v3')
  const { seller, buyer } = await spotTraders(rig)
  t.same((await call(ws, 'userDataStream.subscribe.signature', signed(rig, seller, {}))).result, { subscriptionId: 0 })
  const ask = { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100' }

  const placed = await call(ws, 'order.place', signed(rig, seller, { ...ask, price: '50000.00', strategyId: 12, strategyType: 1000012,
    newOrderRespType: 'RESULT' }))
  t.match(placed.result, { status: 'NEW', strategyId: 12, strategyType: 1000012 })
  const keys = Object.keys(placed.result)
  t.same(keys.slice(keys.indexOf('strategyId'), keys.indexOf('strategyId') + 3), ['strategyId', 'strategyType', 'selfTradePreventionMode'])
  t.match(await ws.next((m) => m.event?.e === 'executionReport' && m.event.x === 'NEW'), { subscriptionId: 0, event: { j: 12, J: 1000012 } })
  const id = placed.result.orderId
  t.match((await call(ws, 'order.status', signed(rig, seller, { symbol: 'BTCUSDT', orderId: id }))).result, { strategyId: 12, strategyType: 1000012 })
  t.match((await call(ws, 'openOrders.status', signed(rig, seller, { symbol: 'BTCUSDT' }))).result, [{ orderId: id, strategyId: 12 }])
  t.match((await call(ws, 'order.amend.keepPriority', signed(rig, seller, { symbol: 'BTCUSDT', orderId: id, newQty: '0.0050' }))).result,
    { amendedOrder: { qty: '0.0050', strategyId: 12, strategyType: 1000012 } })
  const replaced = await call(ws, 'order.cancelReplace', signed(rig, seller, { ...ask, price: '50100.00', strategyId: 13,
    cancelReplaceMode: 'STOP_ON_FAILURE', cancelOrderId: id, newOrderRespType: 'RESULT' }))
  t.match(replaced.result, { cancelResponse: { status: 'CANCELED', strategyId: 12, strategyType: 1000012 },
    newOrderResponse: { status: 'NEW', strategyId: 13 } })
  t.notOk('strategyType' in replaced.result.newOrderResponse)
  const canceled = await call(ws, 'order.cancel', signed(rig, seller, { symbol: 'BTCUSDT', orderId: replaced.result.newOrderResponse.orderId }))
  t.match(canceled.result, { status: 'CANCELED', strategyId: 13 })

  const oco = await call(ws, 'orderList.place.oco', signed(rig, seller, { symbol: 'BTCUSDT', side: 'SELL', quantity: '0.0100',
    aboveType: 'LIMIT_MAKER', abovePrice: '51000.00', aboveStrategyType: 1000020, belowType: 'STOP_LOSS', belowStopPrice: '40000.00',
    belowStrategyId: 21 }))
  t.same(oco.result.orderReports.map((r: Record<string, unknown>) => [r.type, r.strategyId, r.strategyType]),
    [['STOP_LOSS', 21, undefined], ['LIMIT_MAKER', undefined, 1000020]])

  // Refused as over REST: order.test and order.place alike, nothing placed.
  const root = stateRoot(rig.ex.state)
  for (const method of ['order.test', 'order.place']) {
    t.match(await call(ws, method, signed(rig, buyer, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.0010', strategyType: 10 })),
      { status: 400, error: { code: -1134, msg: 'strategyType was less than 1000000.' } }, method)
    t.match(await call(ws, method, signed(rig, buyer, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.0010', strategyId: -1 })),
      { status: 400, error: { code: -1100 } })
  }
  t.equal(stateRoot(rig.ex.state), root)
})

t.test('timeUnit=MICROSECOND on the /ws-api/v3 URL: every time of the answers in µs, pages too; another value refuses the connection', async (t) => {
  const { rig, open, port } = await listeningRig(t)
  const { seller, buyer } = await spotTraders(rig)
  const us = await open('/ws-api/v3?timeUnit=MICROSECOND')
  const ms = await open('/ws-api/v3')
  t.equal((await call(us, 'time')).result.serverTime, rig.ex.time * 1000)
  t.equal((await call(ms, 'time')).result.serverTime, rig.ex.time)
  const placed = await call(us, 'order.place', signed(rig, seller, { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC',
    quantity: '0.1000', price: '50000.00', newOrderRespType: 'RESULT' }))
  t.match(placed.result, { transactTime: rig.ex.time * 1000, workingTime: rig.ex.time * 1000 })
  await call(ms, 'order.place', signed(rig, buyer, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.0100' }))
  const [trade] = (await call(us, 'myTrades', signed(rig, seller, { symbol: 'BTCUSDT' }))).result
  t.equal(trade.time, rig.ex.time * 1000, 'a page (myTrades) in µs too')
  const [kline] = (await call(us, 'klines', { symbol: 'BTCUSDT', interval: '1m' })).result
  const [msKline] = (await call(ms, 'klines', { symbol: 'BTCUSDT', interval: '1m' })).result
  t.same([kline[0], kline[6]], [msKline[0] * 1000, msKline[6] * 1000])
  t.match((await call(us, 'order.status', signed(rig, seller, { symbol: 'BTCUSDT', orderId: 1 }))).result,
    { time: placed.result.transactTime, updateTime: rig.ex.time * 1000 })
  const refused = await connect(`ws://127.0.0.1:${port}/ws-api/v3?timeUnit=SECOND`).catch((e: { status: number; body: string }) => e)
  t.same([(refused as { status: number }).status, JSON.parse((refused as { body: string }).body)],
    [400, { code: -1194, msg: 'Invalid value for time unit; expected either MICROSECOND or MILLISECOND.' }])
})
