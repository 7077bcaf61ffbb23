// Spot iceberg orders over REST (Binance's icebergQty): the depth shows one slice at a time,
// records show icebergQty (a placement's answer only on icebergs), the stream's executionReport
// F; exchangeInfo allows them within ICEBERG_PARTS; list legs take them; refusals in spot's
// forms, changing nothing.

import t from 'tap'
import { stateRoot } from '../../core/root.js'
import { gatewayRig, signedInject, spotRig, spotStreamOf } from '../helpers/gateway.js'

const scene = spotRig

t.test('exchangeInfo: icebergs allowed, in at most 10 slices', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const info = (await rig.app.inject('/api/v3/exchangeInfo?symbol=BTCUSDT')).json().symbols[0]
  t.equal(info.icebergAllowed, true)
  t.same(info.filters.find((f: { filterType: string }) => f.filterType === 'ICEBERG_PARTS'), { filterType: 'ICEBERG_PARTS', limit: 10 })
  t.same(info.filters.find((f: { filterType: string }) => f.filterType === 'MAX_NUM_ICEBERG_ORDERS'),
    { filterType: 'MAX_NUM_ICEBERG_ORDERS', maxNumIcebergOrders: 5 })
})

t.test('an iceberg sell: the book shows its slice; a buy meets the slice, then the next one at the back', async (t) => {
  const { rig, seller, buyer, sellerWallet, post, depth } = await scene()
  t.teardown(() => rig.close())
  const seen = spotStreamOf(rig, (a) => a === sellerWallet.address)
  const placed = (await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0030', price: '31000.00',
    icebergQty: '0.0010', newOrderRespType: 'RESULT' })).json()
  t.match(placed, { type: 'LIMIT', status: 'NEW', origQty: '0.0030', icebergQty: '0.0010' }, 'the answer names the slice')
  t.same((await depth()).asks, [['31000.00', '0.0010']], 'the depth shows 0.0010 of the 0.0030')
  t.match(seen.filter((p) => p.e === 'executionReport' && p.i === placed.orderId), [{ x: 'NEW', q: '0.0030', F: '0.0010' }])

  const plain = (await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0020', price: '31000.00',
    newOrderRespType: 'RESULT' })).json()
  t.notOk('icebergQty' in plain, 'a plain order\'s answer has no icebergQty')
  t.same((await depth()).asks, [['31000.00', '0.0030']])
  const bought = (await post(buyer, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0025', price: '31000.00',
    newOrderRespType: 'FULL' })).json()
  t.same(bought.fills.map((f: { qty: string }) => f.qty), ['0.0010', '0.0015'], 'the slice, then the plain order: the next slice waits behind it')
  t.same((await depth()).asks, [['31000.00', '0.0015']], 'the plain order\'s 0.0005 and the next slice')
  const again = (await post(buyer, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0020', price: '31000.00',
    newOrderRespType: 'FULL' })).json()
  t.same(again.fills.map((f: { qty: string }) => f.qty), ['0.0005', '0.0010', '0.0005'], 'alone behind, the next slice is met again in the same order')

  const record = (await signedInject(rig, seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: placed.orderId })).json()
  t.match(record, { status: 'PARTIALLY_FILLED', executedQty: '0.0025', icebergQty: '0.0010' })
  const plainRecord = (await signedInject(rig, seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: plain.orderId })).json()
  t.equal(plainRecord.icebergQty, '0.0000', 'records of other orders show zero')
  t.same((await depth()).asks, [['31000.00', '0.0005']])
  t.match(seen.filter((p) => p.e === 'executionReport' && p.i === placed.orderId).at(-1), { x: 'TRADE', X: 'PARTIALLY_FILLED', F: '0.0010' })
  const open = (await signedInject(rig, seller, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json()
  t.match(open, [{ orderId: placed.orderId, icebergQty: '0.0010' }])
})

t.test('LIMIT_MAKER and stop-limit icebergs; order/test checks one as placement would', async (t) => {
  const { rig, seller, post, depth } = await scene()
  t.teardown(() => rig.close())
  const maker = (await post(seller, { side: 'SELL', type: 'LIMIT_MAKER', quantity: '0.0030', price: '32000.00', icebergQty: '0.0010',
    newOrderRespType: 'RESULT' })).json()
  t.match(maker, { type: 'LIMIT_MAKER', icebergQty: '0.0010' })
  t.same((await depth()).asks, [['32000.00', '0.0010']])
  const stop = (await post(seller, { side: 'SELL', type: 'STOP_LOSS_LIMIT', timeInForce: 'GTC', quantity: '0.0030', price: '29000.00',
    stopPrice: '29500.00', icebergQty: '0.0010', newOrderRespType: 'RESULT' })).json()
  t.match(stop, { type: 'STOP_LOSS_LIMIT', status: 'NEW', icebergQty: '0.0010' })
  const before = stateRoot(rig.ex.state)
  t.same((await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0030', price: '32000.00', icebergQty: '0.0010' },
    '/api/v3/order/test')).json(), {})
  t.same((await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0110', price: '32000.00', icebergQty: '0.0010' },
    '/api/v3/order/test')).json(), { code: -1013, msg: 'Filter failure: ICEBERG_PARTS' })
  t.equal(stateRoot(rig.ex.state), before, 'a test places nothing')
})

t.test('refusals: not GTC, a market order, too many slices, off the step; nothing changes', async (t) => {
  const { rig, seller, post } = await scene()
  t.teardown(() => rig.close())
  const before = stateRoot(rig.ex.state)
  const limit = { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0030', price: '31000.00' }
  const notAllowed = { code: -2010, msg: 'Iceberg orders must be GTC LIMIT, LIMIT_MAKER, STOP_LOSS_LIMIT or TAKE_PROFIT_LIMIT orders.' }
  const cases: [string, Record<string, string>, object][] = [
    ['IOC', { ...limit, timeInForce: 'IOC', icebergQty: '0.0010' }, notAllowed],
    ['MARKET', { side: 'SELL', type: 'MARKET', quantity: '0.0030', icebergQty: '0.0010' }, notAllowed],
    ['STOP_LOSS', { side: 'SELL', type: 'STOP_LOSS', quantity: '0.0030', stopPrice: '29000.00', icebergQty: '0.0010' }, notAllowed],
    ['11 slices', { ...limit, quantity: '0.0101', icebergQty: '0.0010' }, { code: -1013, msg: 'Filter failure: ICEBERG_PARTS' }],
    ['off the step', { ...limit, icebergQty: '0.00105' }, { code: -1111, msg: 'Precision is over the maximum defined for this asset.' }],
    ['zero', { ...limit, icebergQty: '0' }, { code: -1013, msg: 'Filter failure: LOT_SIZE' }],
    ['not a number', { ...limit, icebergQty: 'abc' }, { code: -1100 }],
  ]
  for (const [what, params, error] of cases) {
    const r = await post(seller, params)
    t.equal(r.statusCode, 400, what)
    t.match(r.json(), error, what)
  }
  t.equal(stateRoot(rig.ex.state), before)
  // Five open icebergs at most: the sixth is the MAX_NUM_ICEBERG_ORDERS filter's.
  for (let i = 0; i < 5; i++) t.equal((await post(seller, { ...limit, price: `3100${i}.00`, icebergQty: '0.0010' })).statusCode, 200)
  t.same((await post(seller, { ...limit, price: '31009.00', icebergQty: '0.0010' })).json(),
    { code: -1013, msg: 'Filter failure: MAX_NUM_ICEBERG_ORDERS' })
})

t.test('list legs take icebergs: OCO\'s LIMIT_MAKER, OTO\'s working order, the older OCO\'s limit leg', async (t) => {
  const { rig, seller, buyer, post, depth } = await scene()
  t.teardown(() => rig.close())
  // A trade at 30,000.00 sets the last price the OCO must straddle.
  await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price: '30000.00' })
  await post(buyer, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price: '30000.00' })
  const oco = await post(seller, { side: 'SELL', quantity: '0.0030', aboveType: 'LIMIT_MAKER', abovePrice: '31000.00', aboveIcebergQty: '0.0010',
    belowType: 'STOP_LOSS', belowStopPrice: '29000.00', newOrderRespType: 'RESULT' }, '/api/v3/orderList/oco')
  t.equal(oco.statusCode, 200, JSON.stringify(oco.json()))
  t.match(oco.json().orderReports, [{ type: 'STOP_LOSS' }, { type: 'LIMIT_MAKER', icebergQty: '0.0010' }])
  t.same((await depth()).asks, [['31000.00', '0.0010']])
  const belowIceberg = await post(seller, { side: 'SELL', quantity: '0.0030', aboveType: 'LIMIT_MAKER', abovePrice: '31000.00',
    belowType: 'STOP_LOSS', belowStopPrice: '29000.00', belowIcebergQty: '0.0010' }, '/api/v3/orderList/oco')
  t.match(belowIceberg.json(), { code: -1106, msg: 'Parameter \'belowIcebergQty\' sent when not required.' }, 'a market stop leg takes none')

  const oto = await post(buyer, { workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '29000.00', workingQuantity: '0.0030',
    workingTimeInForce: 'GTC', workingIcebergQty: '0.0010', pendingType: 'LIMIT_MAKER', pendingSide: 'SELL', pendingPrice: '33000.00',
    pendingQuantity: '0.0030', pendingIcebergQty: '0.0010', newOrderRespType: 'RESULT' }, '/api/v3/orderList/oto')
  t.equal(oto.statusCode, 200, JSON.stringify(oto.json()))
  t.match(oto.json().orderReports, [{ side: 'BUY', icebergQty: '0.0010' }, { side: 'SELL', status: 'PENDING_NEW', icebergQty: '0.0010' }])
  t.same((await depth()).bids, [['29000.00', '0.0010']])

  const legacy = await post(seller, { side: 'SELL', quantity: '0.0030', price: '32000.00', limitIcebergQty: '0.0010', stopPrice: '28000.00',
    stopLimitPrice: '27900.00', stopLimitTimeInForce: 'GTC', stopIcebergQty: '0.0010', newOrderRespType: 'RESULT' }, '/api/v3/order/oco')
  t.equal(legacy.statusCode, 200, JSON.stringify(legacy.json()))
  t.match(legacy.json().orderReports, [{ type: 'STOP_LOSS_LIMIT', icebergQty: '0.0010' }, { type: 'LIMIT_MAKER', icebergQty: '0.0010' }])
})
