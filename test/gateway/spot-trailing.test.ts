// Spot trailing stops over REST (Binance's trailingDelta, BIPS): on the four stop types, with
// or without stopPrice; records and the stream show trailingDelta (d) and, once it trails,
// trailingTime (D); exchangeInfo shows the TRAILING_DELTA filter; OCO, OTO and the older OCO
// take trailing legs; refusals in spot's forms, changing nothing.

import t from 'tap'
import { stateRoot } from '../../core/root.js'
import { gatewayRig, signedInject, spotStreamOf, spotTraders } from '../helpers/gateway.js'

async function scene() {
  const rig = await gatewayRig()
  const traders = await spotTraders(rig)
  const { seller, buyer } = traders
  const post = (keys: typeof seller, p: Record<string, string>, route = '/api/v3/order') => signedInject(rig, keys, 'POST', route, { symbol: 'BTCUSDT', ...p })
  /** A trade of 0.001 at `price` (the buyer's bid meets the seller's ask), which sets the last price. */
  const tradeAt = async (price: string) => {
    await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price })
    await post(buyer, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price })
  }
  await tradeAt('30000.00')
  return { rig, ...traders, post, tradeAt }
}

t.test('exchangeInfo: trailing stops allowed, within the TRAILING_DELTA filter', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const info = (await rig.app.inject('/api/v3/exchangeInfo?symbol=BTCUSDT')).json().symbols[0]
  t.equal(info.allowTrailingStop, true)
  t.same(info.filters.find((f: { filterType: string }) => f.filterType === 'TRAILING_DELTA'),
    { filterType: 'TRAILING_DELTA', minTrailingAboveDelta: 10, maxTrailingAboveDelta: 2000, minTrailingBelowDelta: 10, maxTrailingBelowDelta: 2000 })
})

t.test('a trailing stop-loss sell without a stop price: trails at once, triggers 2 % under the high', async (t) => {
  const { rig, seller, buyer, sellerWallet, post, tradeAt } = await scene()
  t.teardown(() => rig.close())
  const seen = spotStreamOf(rig, (a) => a === sellerWallet.address)
  const placed = (await post(seller, { side: 'SELL', type: 'STOP_LOSS', quantity: '0.0100', trailingDelta: '200', newOrderRespType: 'RESULT' })).json()
  const since = rig.ex.time
  t.match(placed, { type: 'STOP_LOSS', status: 'NEW', stopPrice: '0.00', workingTime: -1, trailingDelta: 200, trailingTime: since })
  const query = async () => (await signedInject(rig, seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: placed.orderId })).json()
  t.match(await query(), { type: 'STOP_LOSS', isWorking: false, trailingDelta: 200, trailingTime: since })
  t.match(seen.filter((p) => p.e === 'executionReport' && p.i === placed.orderId), [{ x: 'NEW', o: 'STOP_LOSS', P: '0.00', d: 200, D: since }])

  await tradeAt('31000.00')
  // A bid for the stop's market sell, under 31,000 × 0.98 = 30,380.
  await post(buyer, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '30000.00' })
  await tradeAt('30390.00')
  t.match(await query(), { status: 'NEW', isWorking: false }, '30,390 is above 30,380: it waits')
  await tradeAt('30380.00')
  const done = await query()
  t.match(done, { type: 'STOP_LOSS', status: 'FILLED', executedQty: '0.0100', isWorking: true, trailingDelta: 200, trailingTime: since })
  t.equal(done.workingTime, rig.ex.time, 'working since the trigger')
  t.match(seen.filter((p) => p.e === 'executionReport' && p.i === placed.orderId).at(-1), { X: 'FILLED', d: 200, D: since })
})

t.test('a trailing stop-limit buy with a stop price waits to trail; the answer and stream show it (trailingTime -1)', async (t) => {
  const { rig, buyer, buyerWallet, post, tradeAt } = await scene()
  t.teardown(() => rig.close())
  const seen = spotStreamOf(rig, (a) => a === buyerWallet.address)
  const placed = (await post(buyer, { side: 'BUY', type: 'STOP_LOSS_LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '32500.00',
    stopPrice: '31000.00', trailingDelta: '500', newOrderRespType: 'FULL' })).json()
  t.match(placed, { type: 'STOP_LOSS_LIMIT', stopPrice: '31000.00', trailingDelta: 500, trailingTime: -1, fills: [] })
  const report = seen.find((p) => p.e === 'executionReport' && p.i === placed.orderId)!
  t.match(report, { d: 500 })
  t.notOk('D' in report, 'no trailing time until it trails')
  await tradeAt('31000.00')
  const trailing = (await signedInject(rig, buyer, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json()
    .find((o: { orderId: number }) => o.orderId === placed.orderId)
  t.match(trailing, { trailingDelta: 500, trailingTime: rig.ex.time, isWorking: false }, 'reaching the stop price started the trailing')
})

t.test('order/test checks a trailing stop as placement would; cancelReplace makes a plain stop trail', async (t) => {
  const { rig, seller, post } = await scene()
  t.teardown(() => rig.close())
  const before = stateRoot(rig.ex.state)
  t.same((await post(seller, { side: 'SELL', type: 'STOP_LOSS', quantity: '0.0100', trailingDelta: '300' }, '/api/v3/order/test')).json(), {})
  t.same((await post(seller, { side: 'SELL', type: 'STOP_LOSS', quantity: '0.0100', trailingDelta: '3000' }, '/api/v3/order/test')).json(),
    { code: -1013, msg: 'Filter failure: TRAILING_DELTA' })
  t.equal(stateRoot(rig.ex.state), before, 'a test places nothing')

  const plain = (await post(seller, { side: 'SELL', type: 'STOP_LOSS', quantity: '0.0100', stopPrice: '29000.00' })).json()
  const replaced = (await post(seller, { cancelReplaceMode: 'STOP_ON_FAILURE', cancelOrderId: String(plain.orderId), side: 'SELL',
    type: 'STOP_LOSS', quantity: '0.0100', stopPrice: '29000.00', trailingDelta: '250', newOrderRespType: 'RESULT' },
  '/api/v3/order/cancelReplace')).json()
  t.match(replaced, { cancelResult: 'SUCCESS', newOrderResult: 'SUCCESS', cancelResponse: { orderId: plain.orderId, status: 'CANCELED' },
    newOrderResponse: { type: 'STOP_LOSS', stopPrice: '29000.00', trailingDelta: 250, trailingTime: -1 } })
})

t.test('order lists take trailing stop legs: OCO, the older OCO, OTO', async (t) => {
  const { rig, seller, post } = await scene()
  t.teardown(() => rig.close())
  const oco = (await post(seller, { side: 'SELL', quantity: '0.0100', aboveType: 'LIMIT_MAKER', abovePrice: '32000.00',
    belowType: 'STOP_LOSS', belowTrailingDelta: '300' }, '/api/v3/orderList/oco')).json()
  t.match(oco.orderReports, [{ type: 'STOP_LOSS', stopPrice: '0.00', trailingDelta: 300, trailingTime: rig.ex.time },
    { type: 'LIMIT_MAKER', price: '32000.00' }])
  t.notOk('trailingDelta' in oco.orderReports[1], 'only the trailing order shows the trailing fields')
  const legacy = (await post(seller, { side: 'SELL', quantity: '0.0100', price: '33000.00', stopPrice: '29000.00', trailingDelta: '150' },
    '/api/v3/order/oco')).json()
  t.match(legacy.orderReports, [{ type: 'STOP_LOSS', stopPrice: '29000.00', trailingDelta: 150, trailingTime: -1 }, { type: 'LIMIT_MAKER' }])
  const oto = (await post(seller, { workingType: 'LIMIT_MAKER', workingSide: 'SELL', workingPrice: '34000.00', workingQuantity: '0.0100',
    pendingType: 'TAKE_PROFIT', pendingSide: 'BUY', pendingQuantity: '0.0100', pendingTrailingDelta: '100' }, '/api/v3/orderList/oto')).json()
  t.match(oto.orderReports, [{ type: 'LIMIT_MAKER' }, { type: 'TAKE_PROFIT', status: 'PENDING_NEW', trailingDelta: 100, trailingTime: -1 }])
})

t.test('refusals: the filter, a delta where none belongs, neither stop price nor delta; nothing changes', async (t) => {
  const { rig, seller, post } = await scene()
  t.teardown(() => rig.close())
  const before = stateRoot(rig.ex.state)
  const sl = { side: 'SELL', type: 'STOP_LOSS', quantity: '0.0100' }
  const cases: [string, Record<string, string>, { code: number; msg: string | RegExp }, string?][] = [
    ['under the filter', { ...sl, trailingDelta: '9' }, { code: -1013, msg: 'Filter failure: TRAILING_DELTA' }],
    ['over the filter', { ...sl, trailingDelta: '2001' }, { code: -1013, msg: 'Filter failure: TRAILING_DELTA' }],
    ['not a whole number', { ...sl, trailingDelta: '1.5' }, { code: -1100, msg: /trailingDelta/ }],
    ['on a LIMIT', { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '31000.00', trailingDelta: '100' },
      { code: -1106, msg: "Parameter 'trailingDelta' sent when not required." }],
    ['neither stopPrice nor trailingDelta', sl, { code: -1102, msg: "Param 'stopPrice' or 'trailingDelta' must be sent, but both were empty/null!" }],
    ['a trailing LIMIT_MAKER leg', { side: 'SELL', quantity: '0.0100', aboveType: 'LIMIT_MAKER', abovePrice: '32000.00', aboveTrailingDelta: '100',
      belowType: 'STOP_LOSS', belowStopPrice: '29000.00' }, { code: -1106, msg: "Parameter 'aboveTrailingDelta' sent when not required." },
    '/api/v3/orderList/oco'],
    ['a stop leg with neither', { side: 'SELL', quantity: '0.0100', aboveType: 'LIMIT_MAKER', abovePrice: '32000.00', belowType: 'STOP_LOSS' },
      { code: -1102, msg: "Param 'belowStopPrice' or 'belowTrailingDelta' must be sent, but both were empty/null!" }, '/api/v3/orderList/oco'],
    ['the older OCO without its stopPrice', { side: 'SELL', quantity: '0.0100', price: '33000.00', trailingDelta: '100' },
      { code: -1102, msg: /'stopPrice'/ }, '/api/v3/order/oco'],
  ]
  for (const [what, p, error, route] of cases) {
    const res = await post(seller, p, route)
    t.equal(res.statusCode, 400, what)
    t.match(res.json(), error, what)
  }
  t.equal(stateRoot(rig.ex.state), before, 'nothing changed')
})
