// Spot OCO order lists over REST: POST orderList/oco and the older order/oco, the list's body
// with its orderReports, what it holds (once), the stop firing and taking the limit maker with
// it, cancels (the list, one leg, cancel-all), the queries (one, all, open), the spot stream's
// listStatus and executionReport g, and refusals in Binance spot's codes; OTO and OTOCO lists
// (pending orders PENDING_NEW until the working order fills); a fuzz of the placements.

import t from 'tap'
import fc from 'fast-check'
import { stateRoot } from '../../core/root.js'
import { RULES_VERSION } from '../../core/rules.js'
import type { Payload } from '../../gateway/user-data/events.js'
import { gatewayRig, signedInject, spotStreamOf, spotTraders } from '../helpers/gateway.js'
import { runs } from '../helpers/property.js'

type Rig = Awaited<ReturnType<typeof gatewayRig>>
type Keys = Awaited<ReturnType<typeof spotTraders>>['seller']

async function setup(t: { teardown: (f: () => unknown) => void }): Promise<{ rig: Rig; seller: Keys; buyer: Keys; seen: Payload[]; tradeAt: (price: string) => Promise<void> }> {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, buyer } = await spotTraders(rig)
  const seen = spotStreamOf(rig)
  const tradeAt = async (price: string): Promise<void> => {
    await signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price })
    await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.0100' })
  }
  await tradeAt('30000.00')
  return { rig, seller, buyer, seen, tradeAt }
}

const SELL_OCO = { symbol: 'BTCUSDT', side: 'SELL', quantity: '0.1000', aboveType: 'LIMIT_MAKER', abovePrice: '31000.00',
  belowType: 'STOP_LOSS_LIMIT', belowStopPrice: '29000.00', belowPrice: '28900.00', belowTimeInForce: 'GTC' }

t.test('a sell OCO: placed, held once, listed; the stop fires and the limit maker expires with it', async (t) => {
  const { rig, seller, buyer, seen, tradeAt } = await setup(t)
  const res = await signedInject(rig, seller, 'POST', '/api/v3/orderList/oco', { ...SELL_OCO, listClientOrderId: 'bracket-1' })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['x-mbx-order-count-10s'], '3', 'two orders counted (after the setup\'s one)')
  const body = res.json()
  t.same(Object.keys(body), ['orderListId', 'contingencyType', 'listStatusType', 'listOrderStatus', 'listClientOrderId',
    'transactionTime', 'symbol', 'orders', 'orderReports'])
  t.match(body, { contingencyType: 'OCO', listStatusType: 'EXEC_STARTED', listOrderStatus: 'EXECUTING', listClientOrderId: 'bracket-1',
    symbol: 'BTCUSDT' })
  const [stop, maker] = body.orderReports
  t.match(stop, { orderListId: body.orderListId, type: 'STOP_LOSS_LIMIT', price: '28900.00', stopPrice: '29000.00', status: 'NEW', workingTime: -1 })
  t.match(maker, { orderListId: body.orderListId, type: 'LIMIT_MAKER', price: '31000.00', status: 'NEW' })
  t.same(body.orders, [{ symbol: 'BTCUSDT', orderId: stop.orderId, clientOrderId: stop.clientOrderId },
    { symbol: 'BTCUSDT', orderId: maker.orderId, clientOrderId: maker.clientOrderId }])
  const btc = async () => (await signedInject(rig, seller, 'GET', '/api/v3/account')).json().balances.find((b: { asset: string }) => b.asset === 'BTC')
  const lockedBefore = Number((await btc()).locked)
  t.equal(lockedBefore, 0.1, '0.1 BTC held for both orders')
  t.same((await rig.app.inject('/api/v3/depth?symbol=BTCUSDT')).json().asks, [['31000.00', '0.1000']], 'only the limit maker rests')

  // Queries: the order records name the list; the list by id, by client id, open, all.
  t.match((await signedInject(rig, seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: maker.orderId })).json(),
    { orderListId: body.orderListId, type: 'LIMIT_MAKER' })
  const listed = { orderListId: body.orderListId, contingencyType: 'OCO', listClientOrderId: 'bracket-1', symbol: 'BTCUSDT', orders: body.orders }
  t.match((await signedInject(rig, seller, 'GET', '/api/v3/orderList', { orderListId: body.orderListId })).json(),
    { ...listed, listStatusType: 'EXEC_STARTED', listOrderStatus: 'EXECUTING' })
  t.match((await signedInject(rig, seller, 'GET', '/api/v3/orderList', { origClientOrderId: 'bracket-1' })).json(), listed)
  t.match((await signedInject(rig, seller, 'GET', '/api/v3/orderList', { origClientOrderId: 'bracket-1', orderListId: '99' })).json(), listed,
    'with both, origClientOrderId names the list')
  t.match((await signedInject(rig, seller, 'GET', '/api/v3/openOrderList')).json(), [listed])
  t.match(seen.filter((p) => p.e === 'listStatus'), [{ s: 'BTCUSDT', g: body.orderListId, c: 'OCO', l: 'EXEC_STARTED', L: 'EXECUTING',
    r: 'NONE', C: 'bracket-1', O: [{ s: 'BTCUSDT', i: stop.orderId }, { s: 'BTCUSDT', i: maker.orderId }] }])
  t.match(seen.filter((p) => p.e === 'executionReport' && p.g === body.orderListId).map((p) => p.i), [stop.orderId, maker.orderId])

  await tradeAt('29000.00')
  t.same((await rig.app.inject('/api/v3/depth?symbol=BTCUSDT')).json().asks, [['28900.00', '0.1000']], 'the stop rests at its limit')
  t.match((await signedInject(rig, seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: maker.orderId })).json(),
    { status: 'EXPIRED', orderListId: body.orderListId })
  t.match((await signedInject(rig, seller, 'GET', '/api/v3/orderList', { orderListId: body.orderListId })).json(),
    { listStatusType: 'ALL_DONE', listOrderStatus: 'ALL_DONE' })
  t.same((await signedInject(rig, seller, 'GET', '/api/v3/openOrderList')).json(), [])
  t.match(seen.filter((p) => p.e === 'listStatus').at(-1), { l: 'ALL_DONE', L: 'ALL_DONE', g: body.orderListId })
  t.equal(Number((await btc()).locked), 0.1, 'still held once, by the working stop')
  t.match((await signedInject(rig, seller, 'GET', '/api/v3/allOrderList')).json(), [{ orderListId: body.orderListId, listStatusType: 'ALL_DONE' }])
  // The stop's fill names its list; the setup's sale was an order alone.
  await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.0500' })
  t.same((await signedInject(rig, seller, 'GET', '/api/v3/myTrades', { symbol: 'BTCUSDT' })).json().map((r: { orderId: number; orderListId: number }) =>
    [r.orderId, r.orderListId]).slice(-1), [[stop.orderId, body.orderListId]])
  t.equal((await signedInject(rig, seller, 'GET', '/api/v3/myTrades', { symbol: 'BTCUSDT' })).json()[0].orderListId, -1)
})

t.test('cancels: the list by id, one leg (the whole list), cancel-all; the older order/oco form', async (t) => {
  const { rig, seller, buyer } = await setup(t)
  const first = (await signedInject(rig, seller, 'POST', '/api/v3/orderList/oco', { ...SELL_OCO, newOrderRespType: 'ACK' })).json()
  t.same(Object.keys(first), ['orderListId', 'contingencyType', 'listStatusType', 'listOrderStatus', 'listClientOrderId',
    'transactionTime', 'symbol', 'orders'], 'ACK: no orderReports')
  // With both, orderListId names the list.
  const canceled = (await signedInject(rig, seller, 'DELETE', '/api/v3/orderList', { symbol: 'BTCUSDT', orderListId: first.orderListId,
    listClientOrderId: 'not-this-one', newClientOrderId: 'undo-1' })).json()
  t.match(canceled, { orderListId: first.orderListId, listStatusType: 'ALL_DONE', listOrderStatus: 'ALL_DONE' })
  t.match(canceled.orderReports, [
    { origClientOrderId: first.orders[0].clientOrderId, clientOrderId: 'undo-1', status: 'CANCELED', type: 'STOP_LOSS_LIMIT' },
    { origClientOrderId: first.orders[1].clientOrderId, clientOrderId: 'undo-1', status: 'CANCELED', type: 'LIMIT_MAKER' }])
  const again = await signedInject(rig, seller, 'DELETE', '/api/v3/orderList', { symbol: 'BTCUSDT', orderListId: first.orderListId })
  t.same([again.statusCode, again.json()], [400, { code: -2011, msg: 'Unknown order list sent.' }])

  // A BUY with the older endpoint: LIMIT_MAKER below at price, STOP_LOSS above at stopPrice.
  const legacy = (await signedInject(rig, buyer, 'POST', '/api/v3/order/oco', { symbol: 'BTCUSDT', side: 'BUY', quantity: '0.0100',
    price: '29000.00', stopPrice: '31000.00', limitClientOrderId: 'lm', stopClientOrderId: 'sl' })).json()
  t.match(legacy.orderReports, [{ type: 'LIMIT_MAKER', clientOrderId: 'lm', price: '29000.00' }, { type: 'STOP_LOSS', clientOrderId: 'sl', stopPrice: '31000.00' }])
  const usdt = async () => (await signedInject(rig, buyer, 'GET', '/api/v3/account')).json().balances.find((b: { asset: string }) => b.asset === 'USDT')
  t.match(await usdt(), { locked: '310.00000000' }, 'the larger need: the stop\'s cost at 31,000')
  const leg = (await signedInject(rig, buyer, 'DELETE', '/api/v3/order', { symbol: 'BTCUSDT', origClientOrderId: 'lm' })).json()
  t.match(leg, { orderListId: legacy.orderListId, status: 'CANCELED', type: 'LIMIT_MAKER' })
  t.match((await signedInject(rig, buyer, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', origClientOrderId: 'sl' })).json(), { status: 'CANCELED' },
    'its partner canceled with it')
  t.match(await usdt(), { locked: '0.00000000' })

  // Cancel-all: a plain order and a list, the list as one body.
  const plain = (await signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC',
    quantity: '0.0100', price: '32000.00', newClientOrderId: 'plain' })).json()
  const list = (await signedInject(rig, seller, 'POST', '/api/v3/orderList/oco', SELL_OCO)).json()
  const all = (await signedInject(rig, seller, 'DELETE', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json()
  t.equal(all.length, 2)
  // The cancel's own id, made for it as for a cancel alone, beside the order's.
  t.match(all[0], { status: 'CANCELED', price: '32000.00', orderListId: -1, origClientOrderId: 'plain',
    clientOrderId: `x-3-${plain.orderId}-cancel` })
  t.match(all[1], { orderListId: list.orderListId, contingencyType: 'OCO', listStatusType: 'ALL_DONE',
    orderReports: [{ status: 'CANCELED' }, { status: 'CANCELED' }] })
  t.equal((await signedInject(rig, seller, 'GET', '/api/v3/allOrderList', { fromId: String(first.orderListId) })).json().length, 2, 'the seller\'s two')
})

t.test('refusals: Binance spot\'s codes, and nothing changes', async (t) => {
  const { rig, seller } = await setup(t)
  const root = stateRoot(rig.ex.state)
  const cases: [string, Record<string, string>, number, number, string][] = [
    ['a plain LIMIT leg', { aboveType: 'LIMIT', abovePrice: '31000.00' }, 400, -1158, 'Order type not supported in OCO.'],
    ['two limit makers', { belowType: 'LIMIT_MAKER', belowPrice: '29000.00', belowStopPrice: '', belowTimeInForce: '' }, 400, -1168,
      'At least one OCO order must be contingent.'],
    ['the stop above a sell', { aboveType: 'STOP_LOSS', abovePrice: '', aboveStopPrice: '31000.00', belowType: 'TAKE_PROFIT', belowPrice: '',
      belowTimeInForce: '' }, 400, -1197, 'A stop loss order in a sell OCO must be below.'],
    ['the prices the wrong way round', { abovePrice: '30500.00', belowStopPrice: '30100.00' }, 400, -2010,
      'The relationship of the prices for the orders is not correct.'],
    ['a limit maker that would take', { abovePrice: '29500.00', belowStopPrice: '29000.00' }, 400, -2010,
      'The relationship of the prices for the orders is not correct.'],
    ['no belowStopPrice (nor a trailing delta)', { belowStopPrice: '' }, 400, -1102,
      "Param 'belowStopPrice' or 'belowTrailingDelta' must be sent, but both were empty/null!"],
    ['a stop limit without its time in force', { belowTimeInForce: '' }, 400, -1102,
      "Mandatory parameter 'belowTimeInForce' was not sent, was empty/null, or malformed."],
    ['a stop price on the limit maker', { aboveStopPrice: '31000.00' }, 400, -1106, "Parameter 'aboveStopPrice' sent when not required."],
    ['an iceberg leg not GTC', { belowTimeInForce: 'IOC', belowIcebergQty: '0.0100' }, 400, -2010,
      'Iceberg orders must be GTC LIMIT, LIMIT_MAKER, STOP_LOSS_LIMIT or TAKE_PROFIT_LIMIT orders.'],
    ['an iceberg leg in 20 slices', { aboveIcebergQty: '0.0050' }, 400, -1013, 'Filter failure: ICEBERG_PARTS'],
    ['more than the balance', { quantity: '2.0000' }, 400, -2010, 'Account has insufficient balance for requested action.'],
    ['off the tick', { abovePrice: '31000.005' }, 400, -1111, 'Precision is over the maximum defined for this asset.'],
    // A leg's own client id, named (it was -1100 naming listClientOrderId, and only after the balance check: -2010 here).
    ['a leg client id too long, beside too little balance', { aboveClientOrderId: 'a'.repeat(37), quantity: '2.0000' }, 400, -1100,
      "Illegal characters found in parameter 'aboveClientOrderId'; legal range is '^[\\.A-Z\\:/a-z0-9_-]{1,36}$'."],
  ]
  for (const [name, change, status, code, msg] of cases) {
    const res = await signedInject(rig, seller, 'POST', '/api/v3/orderList/oco', { ...SELL_OCO, ...change })
    t.same([res.statusCode, res.json()], [status, { code, msg }], name)
  }
  const noRef = await signedInject(rig, seller, 'DELETE', '/api/v3/orderList', { symbol: 'BTCUSDT' })
  t.same(noRef.json(), { code: -1102, msg: "Param 'orderListId' or 'listClientOrderId' must be sent, but both were empty/null!" })
  const unknown = await signedInject(rig, seller, 'GET', '/api/v3/orderList', { orderListId: '99' })
  t.same([unknown.statusCode, unknown.json()], [400, { code: -2013, msg: 'Order list does not exist.' }])
  const both = await signedInject(rig, seller, 'GET', '/api/v3/allOrderList', { fromId: '1', startTime: '1' })
  t.equal(both.json().code, -1128)
  t.equal(stateRoot(rig.ex.state), root, 'no refusal changed anything')
})

t.test('exchangeInfo: OCO allowed, with the list filter', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const info = (await rig.app.inject('/api/v3/exchangeInfo?symbol=BTCUSDT')).json().symbols[0]
  t.equal(info.ocoAllowed, true)
  t.match(info.filters.find((f: { filterType: string }) => f.filterType === 'MAX_NUM_ORDER_LISTS'), { maxNumOrderLists: 20 })
})

t.test('OTOCO: the pair waits PENDING_NEW, then is placed as an OCO once the working buy fills', async (t) => {
  const { rig, seller, buyer, seen } = await setup(t)
  const res = await signedInject(rig, buyer, 'POST', '/api/v3/orderList/otoco', { symbol: 'BTCUSDT', listClientOrderId: 'bracket',
    workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '29900.00', workingQuantity: '0.0100', workingTimeInForce: 'GTC',
    pendingSide: 'SELL', pendingQuantity: '0.0090', pendingAboveType: 'LIMIT_MAKER', pendingAbovePrice: '31000.00',
    pendingBelowType: 'STOP_LOSS', pendingBelowStopPrice: '29000.00' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.match(body, { contingencyType: 'OTO', listStatusType: 'EXEC_STARTED', listClientOrderId: 'bracket' })
  t.equal(body.orders.length, 3)
  t.same(body.orderReports.map((r: { type: string; status: string; side: string }) => [r.type, r.side, r.status]),
    [['LIMIT', 'BUY', 'NEW'], ['STOP_LOSS', 'SELL', 'PENDING_NEW'], ['LIMIT_MAKER', 'SELL', 'PENDING_NEW']])
  const open = (await signedInject(rig, buyer, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json()
  t.match(open.filter((o: { status: string }) => o.status === 'PENDING_NEW'), [{ isWorking: false, workingTime: -1 }, { isWorking: false, workingTime: -1 }])
  t.same((await rig.app.inject('/api/v3/depth?symbol=BTCUSDT')).json().asks, [], 'the pending sell is on no book')
  t.match(seen.filter((p) => p.e === 'executionReport' && p.g === body.orderListId).map((p) => [p.x, p.X, p.w, p.W]),
    [['NEW', 'NEW', true], ['NEW', 'PENDING_NEW', false, -1], ['NEW', 'PENDING_NEW', false, -1]])
  t.match(seen.filter((p) => p.e === 'listStatus'), [{ c: 'OTO', l: 'EXEC_STARTED', C: 'bracket' }])

  await signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: '0.0100' })
  t.same((await rig.app.inject('/api/v3/depth?symbol=BTCUSDT')).json().asks, [['31000.00', '0.0090']], 'the pair is working')
  const list = (await signedInject(rig, buyer, 'GET', '/api/v3/orderList', { origClientOrderId: 'bracket' })).json()
  t.match(list, { contingencyType: 'OTO', listStatusType: 'EXEC_STARTED', listOrderStatus: 'EXECUTING' })
  t.match((await signedInject(rig, buyer, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: body.orders[2].orderId })).json(),
    { status: 'NEW', type: 'LIMIT_MAKER', isWorking: true, orderListId: body.orderListId })
  const canceled = (await signedInject(rig, buyer, 'DELETE', '/api/v3/orderList', { symbol: 'BTCUSDT', listClientOrderId: 'bracket' })).json()
  t.match(canceled, { contingencyType: 'OTO', listStatusType: 'ALL_DONE' })
  t.same(canceled.orderReports.map((r: { status: string }) => r.status), ['CANCELED', 'CANCELED'], 'the pair; the working order filled before')
})

t.test('OPO and OPOCO: the pending sells are for what the working buy brings, held as it comes in', async (t) => {
  const { rig, seller, buyer, seen } = await setup(t)
  t.match((await rig.app.inject('/api/v3/exchangeInfo?symbol=BTCUSDT')).json().symbols[0], { otoAllowed: true, opoAllowed: true })
  const base = { symbol: 'BTCUSDT', workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '29900.00', workingQuantity: '0.0100',
    workingTimeInForce: 'GTC', pendingSide: 'SELL' }
  const res = await signedInject(rig, buyer, 'POST', '/api/v3/orderList/opo', { ...base, pendingType: 'LIMIT_MAKER', pendingPrice: '31000.00' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.match(body, { contingencyType: 'OTO', listStatusType: 'EXEC_STARTED' })
  t.match(body.orderReports, [{ type: 'LIMIT', side: 'BUY', status: 'NEW', origQty: '0.0100' }, { type: 'LIMIT_MAKER', side: 'SELL', status: 'PENDING_NEW' }])
  t.notOk('origQty' in body.orderReports[1], 'the pending sell has no quantity yet')
  const btc = async () => (await signedInject(rig, buyer, 'GET', '/api/v3/account')).json().balances.find((b: { asset: string }) => b.asset === 'BTC')

  // 0.004 bought brings 0.004 less 0.000004 of fee: held for the sell, not free (0.00999 was, from the setup's buy).
  t.match(await btc(), { free: '0.00999000', locked: '0.00000000' })
  await signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: '0.0040' })
  t.match(await btc(), { free: '0.00999000', locked: '0.00399600' })
  await signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: '0.0060' })
  // 0.00999 in all: the sell is for 0.0099, the last 0.00009 freed.
  t.match((await signedInject(rig, buyer, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: body.orders[1].orderId })).json(),
    { status: 'NEW', type: 'LIMIT_MAKER', origQty: '0.0099', isWorking: true })
  t.match(await btc(), { free: '0.01008000', locked: '0.00990000' })
  t.match(seen.filter((p) => p.e === 'executionReport' && p.i === body.orders[1].orderId).map((p) => [p.X, p.q]),
    [['PENDING_NEW', '0.0000'], ['NEW', '0.0099']])

  // OPOCO: the pair, placed as an OCO for what the buy brought.
  const pair = (await signedInject(rig, buyer, 'POST', '/api/v3/orderList/opoco', { ...base, pendingAboveType: 'LIMIT_MAKER',
    pendingAbovePrice: '32000.00', pendingBelowType: 'STOP_LOSS', pendingBelowStopPrice: '29000.00' })).json()
  t.same(pair.orderReports.map((r: { status: string }) => r.status), ['NEW', 'PENDING_NEW', 'PENDING_NEW'])
  await signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: '0.0100' })
  t.same((await signedInject(rig, buyer, 'GET', '/api/v3/openOrderList')).json().map((l: { orderListId: number }) => l.orderListId), [pair.orderListId])
  t.same((await rig.app.inject('/api/v3/depth?symbol=BTCUSDT')).json().asks, [['31000.00', '0.0099'], ['32000.00', '0.0099']])

  const before = stateRoot(rig.ex.state)
  const refusals: [Record<string, string>, number, string][] = [
    [{ pendingQuantity: '0.0100' }, -1106, "Parameter 'pendingQuantity' sent when not required."],
    [{ workingSide: 'SELL' }, -1130, "Data sent for parameter 'workingSide' is not valid."],
    [{ pendingSide: 'BUY' }, -1130, "Data sent for parameter 'pendingSide' is not valid."],
  ]
  for (const [p, code, msg] of refusals) {
    t.same((await signedInject(rig, buyer, 'POST', '/api/v3/orderList/opo', { ...base, pendingType: 'LIMIT_MAKER', pendingPrice: '31000.00', ...p })).json(),
      { code, msg })
  }
  t.equal(stateRoot(rig.ex.state), before, 'nothing changed')
})

t.test('strategy tags on a list\'s orders: above…, below…, working…, pending…, the older form\'s limit… and stop…', async (t) => {
  const { rig, seller, buyer, seen } = await setup(t)
  await rig.run({ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '75'.repeat(32) })
  const tagsOf = (o: Record<string, unknown>) => [o.type, o.strategyId, o.strategyType]
  const oco = (await signedInject(rig, seller, 'POST', '/api/v3/orderList/oco', { ...SELL_OCO, aboveStrategyId: '1', aboveStrategyType: '1000001',
    belowStrategyId: '2', newOrderRespType: 'RESULT' })).json()
  t.same(oco.orderReports.map(tagsOf), [['STOP_LOSS_LIMIT', 2, undefined], ['LIMIT_MAKER', 1, 1000001]], 'each leg its own')
  t.same(seen.filter((p) => p.e === 'executionReport' && p.g === oco.orderListId).map((p) => [p.o, p.j, p.J]),
    [['STOP_LOSS_LIMIT', 2, undefined], ['LIMIT_MAKER', 1, 1000001]])
  const canceled = (await signedInject(rig, seller, 'DELETE', '/api/v3/orderList', { symbol: 'BTCUSDT', orderListId: oco.orderListId })).json()
  t.same(canceled.orderReports.map(tagsOf), [['STOP_LOSS_LIMIT', 2, undefined], ['LIMIT_MAKER', 1, 1000001]], 'in the cancel\'s reports')

  const otoco = (await signedInject(rig, buyer, 'POST', '/api/v3/orderList/otoco', { symbol: 'BTCUSDT', workingType: 'LIMIT', workingSide: 'BUY',
    workingPrice: '29900.00', workingQuantity: '0.0100', workingTimeInForce: 'GTC', workingStrategyId: '10', workingStrategyType: '1000010',
    pendingSide: 'SELL', pendingQuantity: '0.0090', pendingAboveType: 'LIMIT_MAKER', pendingAbovePrice: '31000.00', pendingAboveStrategyId: '11',
    pendingBelowType: 'STOP_LOSS', pendingBelowStopPrice: '29000.00', pendingBelowStrategyType: '1000012' })).json()
  t.same(otoco.orderReports.map(tagsOf), [['LIMIT', 10, 1000010], ['STOP_LOSS', undefined, 1000012], ['LIMIT_MAKER', 11, undefined]])
  // The working buy fills: the pair is placed, each keeping its tags.
  await signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: '0.0100' })
  const open = (await signedInject(rig, buyer, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json()
  t.same(open.map((o: Record<string, unknown>) => [o.status, ...tagsOf(o)]),
    [['NEW', 'STOP_LOSS', undefined, 1000012], ['NEW', 'LIMIT_MAKER', 11, undefined]])

  const oto = (await signedInject(rig, buyer, 'POST', '/api/v3/orderList/oto', { symbol: 'BTCUSDT', workingType: 'LIMIT_MAKER', workingSide: 'BUY',
    workingPrice: '29000.00', workingQuantity: '0.0100', pendingType: 'LIMIT_MAKER', pendingSide: 'SELL', pendingPrice: '32000.00',
    pendingQuantity: '0.0100', pendingStrategyId: '20', pendingStrategyType: '1000020', newOrderRespType: 'RESULT' })).json()
  t.same(oto.orderReports.map(tagsOf), [['LIMIT_MAKER', undefined, undefined], ['LIMIT_MAKER', 20, 1000020]])

  const legacy = (await signedInject(rig, buyer, 'POST', '/api/v3/order/oco', { symbol: 'BTCUSDT', side: 'BUY', quantity: '0.0010',
    price: '28000.00', stopPrice: '31500.00', limitStrategyId: '30', stopStrategyId: '31', stopStrategyType: '1000031' })).json()
  t.same(legacy.orderReports.map(tagsOf), [['LIMIT_MAKER', 30, undefined], ['STOP_LOSS', 31, 1000031]])

  // A reserved or malformed tag refuses the whole list, before anything is sequenced.
  const seq = rig.ex.state.seq
  t.same((await signedInject(rig, seller, 'POST', '/api/v3/orderList/oco', { ...SELL_OCO, belowStrategyType: '5' })).json(),
    { code: -1134, msg: 'strategyType was less than 1000000.' })
  t.same((await signedInject(rig, buyer, 'POST', '/api/v3/orderList/oto', { symbol: 'BTCUSDT', workingType: 'LIMIT_MAKER', workingSide: 'BUY',
    workingPrice: '29000.00', workingQuantity: '0.0100', workingStrategyId: 'x', pendingType: 'LIMIT_MAKER', pendingSide: 'SELL',
    pendingPrice: '32000.00', pendingQuantity: '0.0100' })).json(),
  { code: -1100, msg: "Illegal characters found in parameter 'workingStrategyId'; legal range is '^[0-9]{1,20}$'." })
  t.equal(rig.ex.state.seq, seq)
})

t.test('OTO refusals: working and pending types, and their parameters', async (t) => {
  const { rig, buyer } = await setup(t)
  const base = { symbol: 'BTCUSDT', workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '29900.00', workingQuantity: '0.0100',
    workingTimeInForce: 'GTC', pendingType: 'LIMIT_MAKER', pendingSide: 'SELL', pendingPrice: '31000.00', pendingQuantity: '0.0090' }
  const cases: [string, Record<string, string>, number, string][] = [
    ['a MARKET working order', { workingType: 'MARKET' }, -1116, 'Invalid orderType.'],
    ['a LIMIT without its time in force', { workingTimeInForce: '' }, -1102, "Mandatory parameter 'workingTimeInForce' was not sent, was empty/null, or malformed."],
    ['a stop price on a LIMIT_MAKER', { pendingStopPrice: '29000.00' }, -1106, "Parameter 'pendingStopPrice' sent when not required."],
    ['a bad pending type', { pendingType: 'TRAILING' }, -1116, 'Invalid orderType.'],
    ['a bad side', { pendingSide: 'HOLD' }, -1117, 'Invalid side.'],
  ]
  for (const [name, change, code, msg] of cases) {
    const res = await signedInject(rig, buyer, 'POST', '/api/v3/orderList/oto', { ...base, ...change })
    t.same([res.statusCode, res.json()], [400, { code, msg }], name)
  }
  const ok = (await signedInject(rig, buyer, 'POST', '/api/v3/orderList/oto', { ...base, newOrderRespType: 'RESULT' })).json()
  t.same(ok.orderReports.map((r: { status: string }) => r.status), ['NEW', 'PENDING_NEW'])
  t.match((await signedInject(rig, buyer, 'GET', '/api/v3/openOrderList')).json(), [{ orderListId: ok.orderListId, contingencyType: 'OTO' }])
})

t.test('fuzz: list placements from valid parameters with keys dropped or values swapped never answer 5xx, and refusals change nothing', async (t) => {
  const { rig, seller, buyer } = await setup(t)
  const base: Record<string, Record<string, string>> = {
    '/api/v3/orderList/oco': SELL_OCO,
    '/api/v3/order/oco': { symbol: 'BTCUSDT', side: 'SELL', quantity: '0.0100', price: '31000.00', stopPrice: '29000.00',
      stopLimitPrice: '28900.00', stopLimitTimeInForce: 'GTC' },
    '/api/v3/orderList/oto': { symbol: 'BTCUSDT', workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '29900.00',
      workingQuantity: '0.0100', workingTimeInForce: 'GTC', pendingType: 'LIMIT_MAKER', pendingSide: 'SELL', pendingPrice: '31000.00',
      pendingQuantity: '0.0090' },
    '/api/v3/orderList/otoco': { symbol: 'BTCUSDT', workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '29900.00',
      workingQuantity: '0.0100', workingTimeInForce: 'GTC', pendingSide: 'SELL', pendingQuantity: '0.0090', pendingAboveType: 'LIMIT_MAKER',
      pendingAbovePrice: '31000.00', pendingBelowType: 'STOP_LOSS_LIMIT', pendingBelowStopPrice: '29000.00', pendingBelowPrice: '28900.00',
      pendingBelowTimeInForce: 'IOC' },
    '/api/v3/orderList/opo': { symbol: 'BTCUSDT', workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '29900.00',
      workingQuantity: '0.0100', workingTimeInForce: 'GTC', pendingType: 'STOP_LOSS', pendingSide: 'SELL', pendingTrailingDelta: '100' },
    '/api/v3/orderList/opoco': { symbol: 'BTCUSDT', workingType: 'LIMIT_MAKER', workingSide: 'BUY', workingPrice: '29900.00',
      workingQuantity: '0.0100', pendingSide: 'SELL', pendingAboveType: 'LIMIT_MAKER', pendingAbovePrice: '31000.00',
      pendingBelowType: 'STOP_LOSS', pendingBelowStopPrice: '29000.00', pendingBelowTrailingDelta: '150' },
  }
  const value = fc.oneof(fc.constantFrom('LIMIT', 'MARKET', 'LIMIT_MAKER', 'STOP_LOSS', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT',
    'TAKE_PROFIT_LIMIT', 'BUY', 'SELL', 'GTC', 'IOC', 'FOK', 'GTX', '0', '-1', '0.0001', '31000.00', '29000.00', '1e9', 'ACK', 'RESULT',
    '100', '5000', '0.0050', '0.0010', 'PRIMARY_PEG', 'MARKET_PEG', 'PRICE_LEVEL', '1', '101'),
  fc.string({ maxLength: 8 }))
  const edit = fc.record({ path: fc.constantFrom(...Object.keys(base)), drop: fc.nat({ max: 20 }), swap: fc.nat({ max: 20 }), value,
    extra: fc.option(fc.tuple(fc.constantFrom('abovePrice', 'belowStopPrice', 'aboveTimeInForce', 'pendingStopPrice', 'workingIcebergQty',
      'listClientOrderId', 'newOrderRespType', 'selfTradePreventionMode', 'stopClientOrderId', 'belowTrailingDelta', 'aboveTrailingDelta',
      'pendingTrailingDelta', 'pendingBelowTrailingDelta', 'trailingDelta', 'aboveIcebergQty', 'pendingIcebergQty', 'pendingAboveIcebergQty',
      'limitIcebergQty', 'stopIcebergQty', 'abovePegPriceType', 'belowPegPriceType', 'workingPegPriceType', 'pendingPegPriceType',
      'pendingAbovePegPriceType', 'pendingBelowPegOffsetValue', 'abovePegOffsetType', 'abovePegOffsetValue', 'aboveStrategyType',
      'belowStrategyId', 'workingStrategyId', 'pendingStrategyType', 'pendingBelowStrategyType', 'limitStrategyId', 'stopStrategyType'), value)) })
  const edits = fc.sample(fc.array(edit, { minLength: 1, maxLength: 3 }), runs(60))
  const counts = { ok: 0, refused: 0 }
  for (const [i, list] of edits.entries()) {
    for (const e of list) {
      const p = { ...base[e.path]! }
      const keys = Object.keys(p)
      if (e.drop < keys.length) delete p[keys[e.drop]!]
      if (e.swap < keys.length) p[keys[e.swap]!] = e.value
      if (e.extra !== null) p[e.extra[0]] = e.extra[1]
      const who = i % 2 === 0 ? buyer : seller
      const before = stateRoot(rig.ex.state)
      const r = await signedInject(rig, who, 'POST', e.path, p)
      if (r.statusCode >= 500) throw new Error(`${e.path} ${JSON.stringify(p)} → ${r.statusCode} ${r.body}`)
      if (r.statusCode === 200) counts.ok++
      else {
        counts.refused++
        if (stateRoot(rig.ex.state) !== before) throw new Error(`${e.path} ${JSON.stringify(p)} was refused (${r.body}) but changed state`)
      }
    }
    // Now and then the lists go, so that room and balances come back.
    if (i % 10 === 9) for (const k of [buyer, seller]) await signedInject(rig, k, 'DELETE', '/api/v3/openOrders', { symbol: 'BTCUSDT' })
  }
  t.comment(`${counts.ok} placed, ${counts.refused} refused`)
  t.ok(counts.ok > 5 && counts.refused > 20, 'both placements and refusals')
})
