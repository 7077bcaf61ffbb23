// Spot pegged orders over REST (Binance's pegPriceType, pegOffsetType and pegOffsetValue;
// core/peg.ts): the price comes from the book as the order enters it; answers and records show
// the price sent as price and the book's as peggedPrice, the stream's executionReport gP, gOT,
// gOV and gp; exchangeInfo allows them; list legs take them; refusals in spot's forms, changing
// nothing.

import t from 'tap'
import { stateRoot } from '../../core/root.js'
import { gatewayRig, signedInject, spotRig, spotStreamOf } from '../helpers/gateway.js'

/** Bids at 29,900.00 and 29,800.00, asks at 30,100.00 and 30,200.00, 0.0010 each. */
async function scene() {
  const s = await spotRig()
  const limit = (side: string, price: string) => ({ side, type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price })
  for (const price of ['29900.00', '29800.00']) await s.post(s.buyer, limit('BUY', price))
  for (const price of ['30100.00', '30200.00']) await s.post(s.seller, limit('SELL', price))
  return s
}

t.test('exchangeInfo: pegged orders allowed', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const info = (await rig.app.inject('/api/v3/exchangeInfo?symbol=BTCUSDT')).json().symbols[0]
  t.equal(info.pegInstructionsAllowed, true)
})

t.test('a PRIMARY_PEG buy joins the best bid: price as sent, peggedPrice from the book, in answers, records and the stream', async (t) => {
  const { rig, buyer, buyerWallet, post, depth } = await scene()
  t.teardown(() => rig.close())
  const seen = spotStreamOf(rig, (a) => a === buyerWallet.address)
  const r = await post(buyer, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0020', pegPriceType: 'PRIMARY_PEG',
    newOrderRespType: 'RESULT' })
  t.equal(r.statusCode, 200, JSON.stringify(r.json()))
  const placed = r.json()
  t.match(placed, { type: 'LIMIT', status: 'NEW', price: '0.00', pegPriceType: 'PRIMARY_PEG', peggedPrice: '29900.00' })
  t.notOk('pegOffsetType' in placed, 'no offset, no offset fields')
  t.same((await depth()).bids, [['29900.00', '0.0030'], ['29800.00', '0.0010']])
  t.match(seen.filter((p) => p.e === 'executionReport' && p.i === placed.orderId), [{ x: 'NEW', p: '0.00', gP: 'PRIMARY_PEG', gp: '29900.00' }])
  const record = (await signedInject(rig, buyer, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: placed.orderId })).json()
  t.match(record, { price: '0.00', pegPriceType: 'PRIMARY_PEG', peggedPrice: '29900.00', isWorking: true })
  const open = (await signedInject(rig, buyer, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json()
  t.match(open.find((o: { orderId: number }) => o.orderId === placed.orderId), { peggedPrice: '29900.00' })
  const plain = open.find((o: { orderId: number }) => o.orderId !== placed.orderId)
  t.notOk('pegPriceType' in plain, 'other orders have no peg fields')
})

t.test('MARKET_PEG with an offset: takes the levels up to the one named, rests the rest there', async (t) => {
  const { rig, buyer, buyerWallet, post, depth } = await scene()
  t.teardown(() => rig.close())
  const seen = spotStreamOf(rig, (a) => a === buyerWallet.address)
  const r = (await post(buyer, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0030', price: '30500.00',
    pegPriceType: 'MARKET_PEG', pegOffsetType: 'PRICE_LEVEL', pegOffsetValue: '1', newOrderRespType: 'FULL' })).json()
  t.match(r, { price: '30500.00', pegPriceType: 'MARKET_PEG', pegOffsetType: 'PRICE_LEVEL', pegOffsetValue: 1, peggedPrice: '30200.00',
    status: 'PARTIALLY_FILLED', executedQty: '0.0020' })
  t.same(r.fills.map((f: { price: string }) => f.price), ['30100.00', '30200.00'])
  t.same((await depth()).bids[0], ['30200.00', '0.0010'])
  t.match(seen.filter((p) => p.e === 'executionReport' && p.i === r.orderId)[0], { gP: 'MARKET_PEG', gOT: 'PRICE_LEVEL', gOV: 1, gp: '30200.00', p: '30500.00' })
})

t.test('a pegged stop-limit is priced as it triggers; LIMIT_MAKER in an OCO and an OTO\'s pending order take pegs', async (t) => {
  const { rig, seller, buyer, post, depth } = await scene()
  t.teardown(() => rig.close())
  // A trade at 30,100.00 sets the last price.
  await post(buyer, { side: 'BUY', type: 'LIMIT', timeInForce: 'IOC', quantity: '0.0010', price: '30100.00' })
  const stop = (await post(seller, { side: 'SELL', type: 'STOP_LOSS_LIMIT', timeInForce: 'GTC', quantity: '0.0010', stopPrice: '29950.00',
    pegPriceType: 'MARKET_PEG', newOrderRespType: 'RESULT' })).json()
  t.match(stop, { type: 'STOP_LOSS_LIMIT', status: 'NEW', price: '0.00', peggedPrice: '0.00' }, 'no price until it triggers')
  // The seller hits the 29,900.00 bid: the stop fires and sells at the best bid left, 29,800.00.
  await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'IOC', quantity: '0.0010', price: '29900.00' })
  const fired = (await signedInject(rig, seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: stop.orderId })).json()
  t.match(fired, { status: 'FILLED', peggedPrice: '29800.00', executedQty: '0.0010', cummulativeQuoteQty: '29.800000' })
  t.same((await depth()).bids, [])

  // The last price is 29,800.00; the only ask 30,200.00, which a SELL OCO's pegged LIMIT_MAKER joins.
  const oco = await post(seller, { side: 'SELL', quantity: '0.0010', aboveType: 'LIMIT_MAKER', abovePegPriceType: 'PRIMARY_PEG',
    belowType: 'STOP_LOSS', belowStopPrice: '29000.00', newOrderRespType: 'RESULT' }, '/api/v3/orderList/oco')
  t.equal(oco.statusCode, 200, JSON.stringify(oco.json()))
  t.match(oco.json().orderReports, [{ type: 'STOP_LOSS' }, { type: 'LIMIT_MAKER', pegPriceType: 'PRIMARY_PEG', peggedPrice: '30200.00' }])
  t.same((await depth()).asks, [['30200.00', '0.0020']])

  const oto = await post(buyer, { workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '29000.00', workingQuantity: '0.0010',
    workingTimeInForce: 'GTC', pendingType: 'LIMIT_MAKER', pendingSide: 'SELL', pendingQuantity: '0.0010',
    pendingPegPriceType: 'PRIMARY_PEG', newOrderRespType: 'RESULT' }, '/api/v3/orderList/oto')
  t.equal(oto.statusCode, 200, JSON.stringify(oto.json()))
  t.match(oto.json().orderReports, [{ side: 'BUY', price: '29000.00' }, { side: 'SELL', status: 'PENDING_NEW', pegPriceType: 'PRIMARY_PEG', peggedPrice: '0.00' }])
})

t.test('cancelReplace puts a pegged order in the replaced one\'s place', async (t) => {
  const { rig, buyer, post, depth } = await scene()
  t.teardown(() => rig.close())
  const bid = (await post(buyer, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price: '29000.00' })).json()
  const r = await post(buyer, { cancelReplaceMode: 'STOP_ON_FAILURE', cancelOrderId: String(bid.orderId), side: 'BUY', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.0010', pegPriceType: 'PRIMARY_PEG', pegOffsetType: 'PRICE_LEVEL', pegOffsetValue: '1',
    newOrderRespType: 'RESULT' }, '/api/v3/order/cancelReplace')
  t.equal(r.statusCode, 200, JSON.stringify(r.json()))
  t.match(r.json(), { cancelResult: 'SUCCESS', newOrderResult: 'SUCCESS', cancelResponse: { status: 'CANCELED', price: '29000.00' },
    newOrderResponse: { status: 'NEW', price: '0.00', pegPriceType: 'PRIMARY_PEG', pegOffsetValue: 1, peggedPrice: '29800.00' } })
  t.same((await depth()).bids, [['29900.00', '0.0010'], ['29800.00', '0.0020']], 'one level below the best bid, once the replaced bid left')
})

t.test('refusals in Binance spot\'s words; nothing changes', async (t) => {
  const { rig, seller, buyer, post } = await scene()
  t.teardown(() => rig.close())
  const before = stateRoot(rig.ex.state)
  const limit = { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010' }
  const cases: [string, Record<string, string>, object][] = [
    ['MARKET', { side: 'BUY', type: 'MARKET', quantity: '0.0010', pegPriceType: 'MARKET_PEG' },
      { code: -2010, msg: 'This order type may not use pegged price.' }],
    ['STOP_LOSS', { side: 'SELL', type: 'STOP_LOSS', quantity: '0.0010', stopPrice: '29000.00', pegPriceType: 'MARKET_PEG' },
      { code: -2010, msg: 'This order type may not use pegged price.' }],
    ['LIMIT_MAKER at the other side', { side: 'BUY', type: 'LIMIT_MAKER', quantity: '0.0010', pegPriceType: 'MARKET_PEG' },
      { code: -2010, msg: 'This price peg cannot be used with this order type.' }],
    ['PRIMARY_PEG IOC', { ...limit, timeInForce: 'IOC', pegPriceType: 'PRIMARY_PEG' },
      { code: -2010, msg: 'This price peg cannot be used with this order type.' }],
    ['past the book', { ...limit, pegPriceType: 'PRIMARY_PEG', pegOffsetType: 'PRICE_LEVEL', pegOffsetValue: '2' },
      { code: -2010, msg: 'Order book liquidity is too low for this pegged order.' }],
    ['unknown peg', { ...limit, pegPriceType: 'MID_PEG' }, { code: -1130, msg: "Data sent for parameter 'pegPriceType' is not valid." }],
    ['unknown offset type', { ...limit, pegPriceType: 'PRIMARY_PEG', pegOffsetType: 'TICKS', pegOffsetValue: '1' },
      { code: -1130, msg: "Data sent for parameter 'pegOffsetType' is not valid." }],
    ['offset over 100', { ...limit, pegPriceType: 'PRIMARY_PEG', pegOffsetType: 'PRICE_LEVEL', pegOffsetValue: '101' },
      { code: -1130, msg: "Data sent for parameter 'pegOffsetValue' is not valid." }],
    ['offset value alone', { ...limit, pegPriceType: 'PRIMARY_PEG', pegOffsetValue: '1' }, { code: -1102 }],
    ['offset without a peg', { ...limit, price: '29000.00', pegOffsetType: 'PRICE_LEVEL', pegOffsetValue: '1' }, { code: -1102 }],
    ['a sent price off the tick', { ...limit, pegPriceType: 'PRIMARY_PEG', price: '29000.001' }, { code: -1111 }],
    ['no price, no peg', limit, { code: -1102 }],
  ]
  for (const [what, params, error] of cases) {
    const r = await post(what === 'STOP_LOSS' ? seller : buyer, params)
    t.equal(r.statusCode, 400, what)
    t.match(r.json(), error, what)
  }
  t.equal(stateRoot(rig.ex.state), before)
  // order/test resolves the peg as placement would, placing nothing.
  t.same((await post(buyer, { ...limit, pegPriceType: 'PRIMARY_PEG' }, '/api/v3/order/test')).json(), {})
  t.same((await post(buyer, { ...limit, pegPriceType: 'PRIMARY_PEG', pegOffsetType: 'PRICE_LEVEL', pegOffsetValue: '5' }, '/api/v3/order/test')).json(),
    { code: -2010, msg: 'Order book liquidity is too low for this pegged order.' })
  t.equal(stateRoot(rig.ex.state), before)
})
