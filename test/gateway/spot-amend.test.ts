// Spot order amend keep priority over REST: PUT /api/v3/order/amend/keepPriority cuts an open
// order's quantity in place (Binance's answer with amendedOrder), the book and balances follow,
// GET /api/v3/order/amendments lists the amendments, refusals come in spot's forms; the depth
// streams' book model follows the cut.

import t from 'tap'
import type { Command } from '../../core/commands.js'
import { stateRoot } from '../../core/root.js'
import { DepthBook } from '../../gateway/ws/depth-book.js'
import { ALICE, BOB, BTCSPOT, TestExchange } from '../helpers/exchange.js'
import { gatewayRig, signedInject, spotStreamOf, spotTraders } from '../helpers/gateway.js'

t.test('amend keep priority: the answer, the book, the balance, the history', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { buyer, seller } = await spotTraders(rig)
  const bid = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', price: '30000.00' }
  await signedInject(rig, buyer, 'POST', '/api/v3/order', { ...bid, quantity: '0.0100', newClientOrderId: 'a' })
  await signedInject(rig, buyer, 'POST', '/api/v3/order', { ...bid, quantity: '0.0050', newClientOrderId: 'behind' })
  const amend = (params: Record<string, string>) => signedInject(rig, buyer, 'PUT', '/api/v3/order/amend/keepPriority',
    { symbol: 'BTCUSDT', ...params })

  const first = await amend({ origClientOrderId: 'a', newQty: '0.0040', newClientOrderId: 'a2' })
  t.equal(first.statusCode, 200)
  const body = first.json()
  t.same(body, {
    transactTime: rig.ex.time, executionId: rig.ex.state.seq,
    amendedOrder: {
      symbol: 'BTCUSDT', orderId: 1, orderListId: -1, origClientOrderId: 'a', clientOrderId: 'a2', price: '30000.00',
      qty: '0.0040', executedQty: '0.0000', preventedQty: '0.0000', quoteOrderQty: '0.00000000', cumulativeQuoteQty: '0.000000',
      status: 'NEW', timeInForce: 'GTC', type: 'LIMIT', side: 'BUY', workingTime: body.amendedOrder.workingTime,
      selfTradePreventionMode: 'EXPIRE_MAKER',
    },
  })
  // 0.004 + 0.005 at 30000: 270 USDT held, where 450 were.
  const usdt = (await signedInject(rig, buyer, 'GET', '/api/v3/account')).json().balances.find((b: { asset: string }) => b.asset === 'USDT')
  t.same(usdt, { asset: 'USDT', free: '9730.00000000', locked: '270.00000000' })
  const depth = (await rig.app.inject({ url: '/api/v3/depth?symbol=BTCUSDT' })).json()
  t.same(depth.bids, [['30000.00', '0.0090']])

  // A seller takes 0.0045: the amended order fills first, all 0.0040 of it.
  const sell = await signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: '0.0045' })
  t.match(sell.json(), { status: 'FILLED', fills: [{ qty: '0.0040' }, { qty: '0.0005' }] })
  const q = (await signedInject(rig, buyer, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', origClientOrderId: 'a2' })).json()
  t.match(q, { orderId: 1, clientOrderId: 'a2', origQty: '0.0040', executedQty: '0.0040', status: 'FILLED' })

  // The order behind: amended twice (the second time its client id generated).
  const second = (await amend({ orderId: '2', newQty: '0.0030' })).json()
  t.match(second.amendedOrder, { orderId: 2, origClientOrderId: 'behind', clientOrderId: 'x-3-2', qty: '0.0030',
    executedQty: '0.0005', status: 'PARTIALLY_FILLED' })
  const third = (await amend({ origClientOrderId: 'x-3-2', newQty: '0.0010', newClientOrderId: 'x-3-2' })).json()
  t.match(third.amendedOrder, { origClientOrderId: 'x-3-2', clientOrderId: 'x-3-2', qty: '0.0010' })

  const history = (params: Record<string, string>) => signedInject(rig, buyer, 'GET', '/api/v3/order/amendments',
    { symbol: 'BTCUSDT', ...params })
  const rows = (await history({ orderId: '2' })).json()
  t.same(rows, [
    { symbol: 'BTCUSDT', orderId: 2, executionId: second.executionId, origClientOrderId: 'behind', newClientOrderId: 'x-3-2',
      origQty: '0.0050', newQty: '0.0030', time: second.transactTime },
    { symbol: 'BTCUSDT', orderId: 2, executionId: third.executionId, origClientOrderId: 'x-3-2', newClientOrderId: 'x-3-2',
      origQty: '0.0030', newQty: '0.0010', time: third.transactTime },
  ])
  t.same((await history({ orderId: '2', fromExecutionId: String(third.executionId) })).json(), [rows[1]], 'from an execution on')
  t.same((await history({ orderId: '2', limit: '1' })).json(), [rows[0]], 'limit: the oldest first')
  t.same((await history({ origClientOrderId: 'a2' })).json().map((r: { newQty: string }) => r.newQty), ['0.0040'],
    'a filled order by its client id')
  t.same((await history({ orderId: '2', limit: '1001' })).json().code, -1130, 'limit beyond 1000')
  t.same((await history({ orderId: '99' })).json(), { code: -2013, msg: 'Order does not exist.' })
})

t.test('amending an OCO order amends the pair; the answer adds the list, the stream listStatus UPDATED', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, sellerWallet } = await spotTraders(rig)
  const seen = spotStreamOf(rig, (a) => a === sellerWallet.address)
  const placed = (await signedInject(rig, seller, 'POST', '/api/v3/orderList/oco', { symbol: 'BTCUSDT', side: 'SELL', quantity: '0.0100',
    aboveType: 'LIMIT_MAKER', abovePrice: '60000.00', belowType: 'STOP_LOSS', belowStopPrice: '40000.00', listClientOrderId: 'pair' })).json()
  const [below, above] = placed.orders as { orderId: number; clientOrderId: string }[]
  const r = await signedInject(rig, seller, 'PUT', '/api/v3/order/amend/keepPriority', { symbol: 'BTCUSDT', orderId: String(above!.orderId),
    newQty: '0.0060', newClientOrderId: 'tp' })
  t.equal(r.statusCode, 200)
  const body = r.json()
  t.match(body.amendedOrder, { orderId: above!.orderId, orderListId: placed.orderListId, origClientOrderId: above!.clientOrderId,
    clientOrderId: 'tp', qty: '0.0060', type: 'LIMIT_MAKER', timeInForce: 'GTC' })
  t.same(body.listStatus, { orderListId: placed.orderListId, contingencyType: 'OCO', listOrderStatus: 'EXECUTING', listClientOrderId: 'pair',
    symbol: 'BTCUSDT', orders: [{ symbol: 'BTCUSDT', orderId: below!.orderId, clientOrderId: below!.clientOrderId },
      { symbol: 'BTCUSDT', orderId: above!.orderId, clientOrderId: 'tp' }] })
  const open = (await signedInject(rig, seller, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json()
  t.same(open.map((o: { orderId: number; origQty: string }) => [o.orderId, o.origQty]), [[below!.orderId, '0.0060'], [above!.orderId, '0.0060']])
  t.same(open.map((o: { type: string; timeInForce: string }) => [o.type, o.timeInForce]), [['STOP_LOSS', 'GTC'], ['LIMIT_MAKER', 'GTC']],
    'a LIMIT_MAKER shows GTC, as Binance spot\'s do')
  const btc = (await signedInject(rig, seller, 'GET', '/api/v3/account')).json().balances.find((b: { asset: string }) => b.asset === 'BTC')
  t.same(btc, { asset: 'BTC', free: '0.99400000', locked: '0.00600000' })
  t.match(seen.filter((p) => p.e === 'executionReport' && p.x === 'REPLACED').map((p) => [p.i, p.q, p.c]),
    [[above!.orderId, '0.0060', 'tp'], [below!.orderId, '0.0060', below!.clientOrderId]])
  t.match(seen.filter((p) => p.e === 'listStatus').at(-1), { l: 'UPDATED', L: 'EXECUTING', C: 'pair', O: [{ i: below!.orderId }, { i: above!.orderId, c: 'tp' }] })
  // Queried, the list is still executing, under the new client id, alike from the projections and from the state.
  const queried = (await signedInject(rig, seller, 'GET', '/api/v3/orderList', { orderListId: placed.orderListId })).json()
  t.match(queried, { listStatusType: 'EXEC_STARTED', listOrderStatus: 'EXECUTING', orders: [{ orderId: below!.orderId }, { orderId: above!.orderId, clientOrderId: 'tp' }] })
  t.same((await signedInject(rig, seller, 'GET', '/api/v3/openOrderList')).json(), [queried])
  const history = (await signedInject(rig, seller, 'GET', '/api/v3/order/amendments', { symbol: 'BTCUSDT', orderId: below!.orderId })).json()
  t.match(history, [{ orderId: below!.orderId, origQty: '0.0100', newQty: '0.0060' }], 'the other order\'s history has the amendment too')
})

t.test('amend keep priority refusals change nothing', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { buyer } = await spotTraders(rig)
  await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
    price: '30000.00', quantity: '0.0100', newClientOrderId: 'a' })
  await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
    price: '29000.00', quantity: '0.0100', newClientOrderId: 'b' })
  const cases: [string, Record<string, string>, number, { code: number; msg: string | RegExp }][] = [
    ['more than the order', { orderId: '1', newQty: '0.0200' }, 400, { code: -2038, msg: 'Order amend (quantity increase) is not supported.' }],
    ['the same', { orderId: '1', newQty: '0.0100' }, 400, { code: -2038, msg: 'The requested action would change no state; rejecting' }],
    ['zero', { orderId: '1', newQty: '0' }, 400, { code: -1013, msg: 'Filter failure: LOT_SIZE' }],
    ['below min notional', { orderId: '1', newQty: '0.0001' }, 400, { code: -1013, msg: 'Filter failure: NOTIONAL' }],
    ['too many decimals', { orderId: '1', newQty: '0.00005' }, 400, { code: -1111, msg: 'Precision is over the maximum defined for this asset.' }],
    ['no newQty', { orderId: '1' }, 400, { code: -1102, msg: /newQty/ }],
    ['no order named', { newQty: '0.0050' }, 400, { code: -1102, msg: /orderId/ }],
    ['an unknown order', { orderId: '9', newQty: '0.0050' }, 400, { code: -2013, msg: 'Order does not exist.' }],
    ['another order\'s client id', { orderId: '1', newQty: '0.0050', newClientOrderId: 'b' }, 400,
      { code: -2010, msg: 'Duplicate order sent.' }],
    ['an illegal client id', { orderId: '1', newQty: '0.0050', newClientOrderId: 'a b' }, 400, { code: -1100, msg: /newClientOrderId/ }],
  ]
  const before = stateRoot(rig.ex.state)
  for (const [what, params, status, error] of cases) {
    const r = await signedInject(rig, buyer, 'PUT', '/api/v3/order/amend/keepPriority', { symbol: 'BTCUSDT', ...params })
    t.equal(r.statusCode, status, what)
    t.match(r.json(), error, what)
  }
  const perp = await signedInject(rig, buyer, 'PUT', '/api/v3/order/amend/keepPriority', { symbol: 'BTCUSDTPERP', orderId: '1', newQty: '1' })
  t.equal(perp.json().code, -1121, 'a perpetual symbol on the spot API')
  t.equal(stateRoot(rig.ex.state), before, 'the state is unchanged')
})

t.test('the depth streams\' book model takes an amended order\'s lots off its level', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 10_000, 0, 'SPOT')
  ex.fund(BOB, 10_000, 0, 'SPOT')
  const depth = new DepthBook(ex.state, 1)
  const levels = depth.market(BTCSPOT)
  const step = (c: Command): void => depth.applyEntry(ex.ok(c).events, new Set())
  const bid = (account: string, qtyLots: number): Command =>
    ({ type: 'PlaceOrder', account, sub: 0, marketId: BTCSPOT, side: 'BUY', orderType: 'LIMIT', priceTicks: 3_000_000, qtyLots })
  step(bid(ALICE, 1_000))
  step(bid(BOB, 500))
  step({ type: 'AmendKeepPriority', account: ALICE, sub: 0, marketId: BTCSPOT, orderId: 1, qtyLots: 300 })
  t.equal(levels.qty(true, 3_000_000), 800, '300 + 500 lots at 30000')
  t.ok(levels.matches(ex.state.markets[BTCSPOT]!), 'as the replica\'s book')
})
