// Conditional orders over REST and the user data stream: placement with Binance's parameter
// rules and errors, the order record's conditional fields (query, open, all orders), the algo
// routes (/fapi/v1/algoOrder, openAlgoOrders, allAlgoOrders, algoOpenOrders), a trigger that
// fills, and ORDER_TRADE_UPDATE / ALGO_UPDATE for each step. Exact values throughout.

import t from 'tap'
import type { AddressInfo } from 'node:net'
import type { PlaceOrder } from '../../core/commands.js'
import { RULES_VERSION } from '../../core/rules.js'
import { attachStreams } from '../../gateway/ws/attach.js'
import { DepthBook } from '../../gateway/ws/depth-book.js'
import { ALICE, BOB, CAROL, TestExchange } from '../helpers/exchange.js'
import { Wallet } from 'ethers'
import { fundedTrader, gatewayRig, openSession, signedInject, type GatewayRig, type Keys } from '../helpers/gateway.js'
import { connect, sleep, type Client } from '../ws/client.js'

const SYM = { symbol: 'BTCUSDTPERP' }
type Trader = { address: string; keys: Keys }

async function setup(t: { teardown(fn: () => unknown): void }, streams = false) {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  // Streams hook into the app, which must happen before its first request.
  if (streams) attachStreams(rig.app, rig.ctx, { listenKeySweepMs: 50 })
  const [alice, bob, carol, dave] = [await fundedTrader(rig), await fundedTrader(rig), await fundedTrader(rig), await fundedTrader(rig)]
  return { rig, alice: alice!, bob: bob!, carol: carol!, dave: dave! }
}

const post = (rig: GatewayRig, who: Trader, params: Record<string, string | number>) =>
  signedInject(rig, who.keys, 'POST', '/fapi/v1/order', { ...SYM, ...params })

/** A trade of 0.010 between `seller` and `buyer` at `price`: the new last price. */
async function print(rig: GatewayRig, seller: Trader, buyer: Trader, price: string): Promise<void> {
  await post(rig, seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price })
  await post(rig, buyer, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price })
}

t.test('placement: fields, Binance errors, open and queried records', async (t) => {
  const { rig, alice, bob, carol, dave } = await setup(t)
  await print(rig, carol, dave, '50000.0') // orders 1, 2: last price 50,000

  const stop = await post(rig, alice, { side: 'SELL', type: 'STOP_MARKET', stopPrice: '49000.0', quantity: '0.010',
    reduceOnly: 'true', newClientOrderId: 'sl-1', newOrderRespType: 'RESULT' })
  t.equal(stop.statusCode, 200)
  t.same(stop.json(), {
    orderId: 3, symbol: 'BTCUSDTPERP', status: 'NEW', clientOrderId: 'sl-1', price: '0.0', avgPrice: '0.0',
    origQty: '0.010', executedQty: '0.000', cumQty: '0.000', cumQuote: '0.0000', timeInForce: 'GTC', type: 'STOP_MARKET',
    origType: 'STOP_MARKET', side: 'SELL', positionSide: 'BOTH', reduceOnly: true, closePosition: false,
    stopPrice: '49000.0', workingType: 'CONTRACT_PRICE', priceProtect: false, selfTradePreventionMode: 'EXPIRE_MAKER',
    goodTillDate: 0, priceMatch: 'NONE', updateTime: rig.ex.time,
  })

  const trailing = await post(rig, alice, { side: 'BUY', type: 'TRAILING_STOP_MARKET', quantity: '0.010', callbackRate: '1.5',
    activationPrice: '49500.0', workingType: 'MARK_PRICE', priceProtect: 'TRUE', newOrderRespType: 'RESULT' })
  t.match(trailing.json(), { orderId: 4, type: 'TRAILING_STOP_MARKET', origType: 'TRAILING_STOP_MARKET', stopPrice: '0.0',
    activatePrice: '49500.0', priceRate: '1.5', workingType: 'MARK_PRICE', priceProtect: true, timeInForce: 'GTC' })

  const errors: [Record<string, string>, number, string][] = [
    [{ side: 'SELL', type: 'STOP_MARKET', quantity: '0.010' }, -1102,
      "Mandatory parameter 'stopPrice' was not sent, was empty/null, or malformed."],
    [{ side: 'SELL', type: 'STOP_MARKET', stopPrice: '49000.0', quantity: '0.010', closePosition: 'true' }, -4137,
      'Quantity must be zero with closePosition equals true.'],
    [{ side: 'SELL', type: 'STOP', stopPrice: '49000.0', price: '49000.0', closePosition: 'true' }, -4136,
      'Target strategy invalid for orderType and closePosition.'],
    [{ side: 'SELL', type: 'STOP_MARKET', stopPrice: '50000.0', quantity: '0.010' }, -2021, 'Order would immediately trigger.'],
    [{ side: 'BUY', type: 'TAKE_PROFIT_MARKET', stopPrice: '50100.0', quantity: '0.010' }, -2021, 'Order would immediately trigger.'],
    [{ side: 'SELL', type: 'TRAILING_STOP_MARKET', quantity: '0.010', callbackRate: '11' }, -1102,
      "Mandatory parameter 'callbackRate' was not sent, was empty/null, or malformed."],
    [{ side: 'SELL', type: 'TRAILING_STOP_MARKET', quantity: '0.010', callbackRate: '0.05' }, -1102,
      "Mandatory parameter 'callbackRate' was not sent, was empty/null, or malformed."],
    [{ side: 'SELL', type: 'TRAILING_STOP_MARKET', quantity: '0.010' }, -1102,
      "Mandatory parameter 'callbackRate' was not sent, was empty/null, or malformed."],
    [{ side: 'SELL', type: 'STOP_MARKET', stopPrice: '49000.0', quantity: '0.010', workingType: 'INDEX_PRICE' }, -1130,
      "Data sent for parameter 'workingType' is not valid."],
    [{ side: 'SELL', type: 'STOP_MARKET', stopPrice: '49000.05', quantity: '0.010' }, -1111,
      'Precision is over the maximum defined for this asset.'],
    [{ side: 'SELL', type: 'STOP', stopPrice: '49000.0', quantity: '0.010' }, -1102,
      "Mandatory parameter 'price' was not sent, was empty/null, or malformed."],
  ]
  for (const [params, code, msg] of errors) {
    const r = await post(rig, bob, params)
    t.same([r.statusCode, r.json()], [400, { code, msg }], `${params.type} ${code}`)
  }
  t.equal(rig.ex.state.markets[1]!.nextOrderId, 5, 'no refused order took an id')

  const open = (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openOrders', SYM)).json()
  t.same(open.map((o: { orderId: number; type: string }) => [o.orderId, o.type]), [[3, 'STOP_MARKET'], [4, 'TRAILING_STOP_MARKET']])
  const q = (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/order', { ...SYM, origClientOrderId: 'sl-1' })).json()
  t.match(q, { orderId: 3, type: 'STOP_MARKET', stopPrice: '49000.0', status: 'NEW', time: stop.json().updateTime })

  const canceled = await signedInject(rig, alice.keys, 'DELETE', '/fapi/v1/order', { ...SYM, orderId: 4 })
  t.match(canceled.json(), { orderId: 4, status: 'CANCELED', type: 'TRAILING_STOP_MARKET', priceRate: '1.5' })

  // A batch: each conditional order or its refusal in place.
  const batch = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/batchOrders', { batchOrders: JSON.stringify([
    { ...SYM, side: 'SELL', type: 'TAKE_PROFIT_MARKET', stopPrice: '52000.0', quantity: '0.010' },
    { ...SYM, side: 'SELL', type: 'TAKE_PROFIT_MARKET', quantity: '0.010' },
  ]) })
  const [ok, refused] = batch.json()
  t.match(ok, { orderId: 5, type: 'TAKE_PROFIT_MARKET', stopPrice: '52000.0', status: 'NEW' })
  t.same(refused, { code: -1102, msg: "Mandatory parameter 'stopPrice' was not sent, was empty/null, or malformed." })
})

t.test('a closePosition stop triggers on a print, sells the whole position, and history shows it', async (t) => {
  const { rig, alice, bob, carol, dave } = await setup(t)
  await post(rig, bob, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.030', price: '50000.0' }) // 1
  await post(rig, alice, { side: 'BUY', type: 'MARKET', quantity: '0.030' }) // 2: Alice long 0.030 at 50,000
  const stop = await post(rig, alice, { side: 'SELL', type: 'STOP_MARKET', stopPrice: '49000.0', closePosition: 'true',
    newOrderRespType: 'RESULT' }) // 3
  t.match(stop.json(), { orderId: 3, origQty: '0.000', closePosition: true, reduceOnly: true, stopPrice: '49000.0' })
  await post(rig, bob, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.100', price: '48900.0' }) // 4
  await print(rig, carol, dave, '49000.0') // 5, 6: the stop fires and sells 0.030 to Bob at 48,900

  const q = (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/order', { ...SYM, orderId: 3 })).json()
  t.match(q, { orderId: 3, status: 'FILLED', type: 'MARKET', origType: 'STOP_MARKET', origQty: '0.030', executedQty: '0.030',
    avgPrice: '48900.0', cumQuote: '1467.0000', closePosition: true, stopPrice: '49000.0', timeInForce: 'GTC' })
  const positions = (await signedInject(rig, alice.keys, 'GET', '/fapi/v2/positionRisk', SYM)).json()
  t.equal(positions[0].positionAmt, '0.000')
  const all = (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/allOrders', SYM)).json()
  t.same(all.map((o: { orderId: number; type: string; origType: string; status: string }) => [o.orderId, o.type, o.origType, o.status]),
    [[2, 'MARKET', 'MARKET', 'FILLED'], [3, 'MARKET', 'STOP_MARKET', 'FILLED']])
  t.same((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openOrders', SYM)).json(), [])
})

t.test('algo routes: place, query, open, cancel, all, cancel all', async (t) => {
  const { rig, alice, carol, dave } = await setup(t)
  await print(rig, carol, dave, '50000.0') // orders 1, 2
  const placed = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/algoOrder', { ...SYM, algoType: 'CONDITIONAL',
    side: 'SELL', type: 'TAKE_PROFIT', quantity: '0.010', price: '52100.0', triggerPrice: '52000.0', clientAlgoId: 'tp-1' })
  t.equal(placed.statusCode, 200)
  const time = rig.ex.time
  // orderId 3 in market 1: algoId 3 × 256 + 1.
  t.same(placed.json(), {
    algoId: 769, clientAlgoId: 'tp-1', algoType: 'CONDITIONAL', orderType: 'TAKE_PROFIT', symbol: 'BTCUSDTPERP', side: 'SELL',
    positionSide: 'BOTH', timeInForce: 'GTC', quantity: '0.010', algoStatus: 'NEW', actualOrderId: '', actualPrice: '',
    triggerPrice: '52000.0', price: '52100.0', selfTradePreventionMode: 'EXPIRE_MAKER', workingType: 'CONTRACT_PRICE',
    priceMatch: 'NONE', closePosition: false, priceProtect: false, reduceOnly: false, activatePrice: '', callbackRate: '',
    createTime: time, updateTime: time, triggerTime: 0, goodTillDate: 0,
  })
  const trailing = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/algoOrder', { ...SYM, algoType: 'CONDITIONAL',
    side: 'BUY', type: 'TRAILING_STOP_MARKET', quantity: '0.010', callbackRate: '2', activatePrice: '49000.0' })
  t.match(trailing.json(), { algoId: 4 * 256 + 1, activatePrice: '49000.0', callbackRate: '2.0', algoStatus: 'NEW' })
  const bad = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/algoOrder', { ...SYM, algoType: 'VP', side: 'BUY',
    type: 'STOP_MARKET', quantity: '0.010', triggerPrice: '51000.0' })
  t.same(bad.json(), { code: -1130, msg: "Data sent for parameter 'algoType' is not valid." })
  const notConditional = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/algoOrder', { ...SYM, algoType: 'CONDITIONAL',
    side: 'BUY', type: 'LIMIT', quantity: '0.010', price: '40000.0' })
  t.same(notConditional.json(), { code: -1116, msg: 'Invalid orderType.' })
  // A refusal names the parameter the algo request sends (triggerPrice), not /fapi/v1/order's (stopPrice).
  const noTrigger = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/algoOrder', { ...SYM, algoType: 'CONDITIONAL',
    side: 'SELL', type: 'TAKE_PROFIT', quantity: '0.010', price: '52100.0' })
  t.same(noTrigger.json(), { code: -1102, msg: "Mandatory parameter 'triggerPrice' was not sent, was empty/null, or malformed." })
  const badTrigger = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/algoOrder', { ...SYM, algoType: 'CONDITIONAL',
    side: 'SELL', type: 'STOP_MARKET', quantity: '0.010', triggerPrice: '49000.05' })
  t.match(badTrigger.json(), { code: -1111, msg: /triggerPrice|Precision/ })
  t.notMatch(badTrigger.json().msg, /stopPrice/)

  const byClient = await signedInject(rig, alice.keys, 'GET', '/fapi/v1/algoOrder', { clientAlgoId: 'tp-1' })
  t.same(byClient.json(), placed.json())
  const open = (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openAlgoOrders', {})).json()
  t.same(open.map((o: { algoId: number }) => o.algoId), [769, 1025])
  const canceled = await signedInject(rig, alice.keys, 'DELETE', '/fapi/v1/algoOrder', { algoId: 769 })
  t.same(canceled.json(), { algoId: 769, clientAlgoId: 'tp-1', code: '200', msg: 'success' })
  const again = await signedInject(rig, alice.keys, 'DELETE', '/fapi/v1/algoOrder', { algoId: 769 })
  t.same(again.json(), { code: -2011, msg: 'Unknown order sent.' })
  const queried = (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/algoOrder', { algoId: 769 })).json()
  t.equal(queried.algoStatus, 'CANCELED')

  // A plain order stays when the algo orders go.
  await post(rig, alice, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '40000.0' })
  const all = await signedInject(rig, alice.keys, 'DELETE', '/fapi/v1/algoOpenOrders', SYM)
  t.same(all.json(), { code: 200, msg: 'The operation of cancel all open order is done.' })
  t.same((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openAlgoOrders', SYM)).json(), [])
  t.same((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openOrders', SYM)).json().map((o: { type: string }) => o.type), ['LIMIT'])
  const history = (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/allAlgoOrders', SYM)).json()
  t.same(history.map((o: { algoId: number; algoStatus: string }) => [o.algoId, o.algoStatus]), [[769, 'CANCELED'], [1025, 'CANCELED']])
})

t.test('GTD on a market form (rules 7): the stop waits until its goodTillDate, then expires; by either route', async (t) => {
  const { rig, alice, carol, dave } = await setup(t)
  t.ok((await rig.run({ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '6d'.repeat(32) })).ok)
  await print(rig, carol, dave, '50000.0')
  const gtd = rig.ex.time + 700_000
  const placed = await post(rig, alice, { side: 'SELL', type: 'STOP_MARKET', quantity: '0.010', stopPrice: '49000.0', timeInForce: 'GTD',
    goodTillDate: gtd })
  t.match((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/order', { ...SYM, orderId: placed.json().orderId })).json(),
    { type: 'STOP_MARKET', timeInForce: 'GTD', goodTillDate: gtd, status: 'NEW' })
  const algo = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/algoOrder', { ...SYM, algoType: 'CONDITIONAL', side: 'SELL',
    type: 'TAKE_PROFIT_MARKET', quantity: '0.010', triggerPrice: '52000.0', timeInForce: 'GTD', goodTillDate: gtd })
  t.match(algo.json(), { orderType: 'TAKE_PROFIT_MARKET', timeInForce: 'GTD', goodTillDate: gtd, algoStatus: 'NEW' })
  const gtdInvalid = { code: -5040,
    msg: 'The goodTillDate timestamp must be greater than the current time plus 600 seconds and smaller than 253402300799000 (UTC 9999-12-31 23:59:59)' }
  t.same((await post(rig, alice, { side: 'SELL', type: 'STOP_MARKET', quantity: '0.010', stopPrice: '49000.0', timeInForce: 'GTD' })).json(),
    gtdInvalid, 'GTD without a goodTillDate')
  t.same((await post(rig, alice, { side: 'SELL', type: 'TRAILING_STOP_MARKET', quantity: '0.010', callbackRate: '1', timeInForce: 'GTD',
    goodTillDate: rig.ex.time + 60_000 })).json(), gtdInvalid, 'a goodTillDate too soon')
  // Untriggered past it: both expire at the Tick that passes it.
  await rig.run({ type: 'Tick' }, 701_000)
  t.equal((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/order', { ...SYM, orderId: placed.json().orderId })).json().status, 'EXPIRED')
  t.equal((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/algoOrder', { algoId: algo.json().algoId })).json().algoStatus, 'EXPIRED')
  t.same((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openAlgoOrders', SYM)).json(), [])
})

t.test('a triggered algo order is no longer the algo API\'s to cancel: -2011, and the order it became stays', async (t) => {
  const { rig, alice, carol, dave } = await setup(t)
  await print(rig, carol, dave, '50000.0')
  // A STOP SELL at 49,500.0 whose limit, 51,000.0, rests once triggered.
  const algo = (await signedInject(rig, alice.keys, 'POST', '/fapi/v1/algoOrder', { ...SYM, algoType: 'CONDITIONAL', side: 'SELL',
    type: 'STOP', quantity: '0.010', price: '51000.0', triggerPrice: '49500.0', timeInForce: 'GTC' })).json()
  t.match(algo, { algoStatus: 'NEW' })
  await print(rig, carol, dave, '49500.0')
  t.match((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/algoOrder', { algoId: algo.algoId })).json(), { algoStatus: 'TRIGGERED' })
  t.same((await signedInject(rig, alice.keys, 'DELETE', '/fapi/v1/algoOrder', { algoId: algo.algoId })).json(),
    { code: -2011, msg: 'Unknown order sent.' })
  t.match((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/openOrders', SYM)).json(), [{ type: 'LIMIT', origType: 'STOP', price: '51000.0', status: 'NEW' }],
    'the LIMIT it became rests on')
})

t.test('allAlgoOrders: the conditional orders however many plain ones came after, the last seven days by default', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const DAY = 86_400_000
  // A trader of its own, whose wallet opens a new session once the first has expired.
  const wallet = Wallet.createRandom()
  let keys = (await openSession(rig, wallet)).json() as Keys
  await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 100_000_000_000, wallet: 'PERP', ref: 'a' })
  const alice = { address: wallet.address }
  const all = async (params: Record<string, string | number> = {}) => {
    const r = await signedInject(rig, keys, 'GET', '/fapi/v1/allAlgoOrders', { ...SYM, ...params })
    return r.statusCode === 200 ? r.json().map((o: { algoId: number }) => o.algoId) : r.json()
  }
  const algo = (price: string) => signedInject(rig, keys, 'POST', '/fapi/v1/algoOrder', { ...SYM, algoType: 'CONDITIONAL',
    side: 'BUY', type: 'STOP_MARKET', quantity: '0.010', triggerPrice: price }).then((r) => r.json().algoId as number)
  const first = await algo('70000.0')
  const placedAt = rig.ex.time
  // 1,100 plain orders after it (each canceled: the market's open orders are capped at 200).
  for (let i = 0; i < 1_100; i++) {
    const r = await rig.run({ type: 'PlaceOrder', account: alice.address, sub: 0, marketId: 1, side: 'BUY', orderType: 'LIMIT',
      timeInForce: 'GTC', priceTicks: 400_000, qtyLots: 3 })
    await rig.run({ type: 'CancelOrder', account: alice.address, sub: 0, marketId: 1, orderId: r.ok ? r.orderId! : 0 })
  }
  const second = await algo('71000.0')
  t.same(await all(), [first, second], 'both, past 1,100 plain orders between them')
  t.same(await all({ limit: 1 }), [second], 'the newest first')
  t.same(await all({ algoId: first, limit: 1 }), [first], 'from an algoId on')
  t.same(await all({ startTime: placedAt, endTime: placedAt }), [first], 'a time range')

  // Eight days on, the default window holds neither; a range still reaches them.
  await rig.run({ type: 'Tick' }, 8 * DAY)
  keys = (await openSession(rig, wallet)).json() as Keys
  t.same(await all(), [], 'by default, the last seven days')
  t.same(await all({ endTime: placedAt + DAY }), [first, second], 'up to an endTime: the seven days before it')
  t.same(await all({ startTime: placedAt, endTime: placedAt + 7 * DAY }), [first, second])
  t.same(await all({ startTime: placedAt, endTime: placedAt + 7 * DAY + 1 }),
    { code: -1127, msg: 'More than 168 hours between startTime and endTime.' }, 'more than seven days apart')
})

t.test('refused at trigger: the order EXPIRED, the algo order REJECTED', async (t) => {
  const { rig, alice, carol, dave } = await setup(t)
  await print(rig, carol, dave, '50000.0') // orders 1, 2
  // Reduce-only with no position: accepted waiting, refused when it triggers.
  const placed = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/algoOrder', { ...SYM, algoType: 'CONDITIONAL',
    side: 'SELL', type: 'STOP_MARKET', quantity: '0.010', triggerPrice: '49000.0', reduceOnly: 'true' })
  t.equal(placed.json().algoStatus, 'NEW')
  await print(rig, carol, dave, '49000.0')
  const algo = (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/algoOrder', { algoId: 3 * 256 + 1 })).json()
  t.match(algo, { algoStatus: 'REJECTED', actualOrderId: '', triggerTime: rig.ex.time })
  const order = (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/order', { ...SYM, orderId: 3 })).json()
  t.match(order, { status: 'EXPIRED', type: 'MARKET', origType: 'STOP_MARKET', executedQty: '0.000' })
})

t.test('exchangeInfo lists the conditional types, MAX_NUM_ALGO_ORDERS and triggerProtect', async (t) => {
  const { rig, alice, carol, dave } = await setup(t)
  const info = (await rig.app.inject({ url: '/fapi/v1/exchangeInfo' })).json()
  const btc = info.symbols.find((s: { symbol: string }) => s.symbol === 'BTCUSDTPERP')
  t.same(btc.orderTypes, ['LIMIT', 'MARKET', 'POST_ONLY', 'STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET', 'TRAILING_STOP_MARKET'])
  t.same(btc.filters.find((f: { filterType: string }) => f.filterType === 'MAX_NUM_ALGO_ORDERS'), { filterType: 'MAX_NUM_ALGO_ORDERS', limit: 10 })
  t.equal(btc.triggerProtect, '0.0500')
  await print(rig, carol, dave, '50000.0')
  for (let i = 0; i < 10; i++) {
    t.equal((await post(rig, alice, { side: 'SELL', type: 'STOP_MARKET', stopPrice: `${49000 + i}.0`, quantity: '0.010' })).statusCode, 200)
  }
  const over = await post(rig, alice, { side: 'SELL', type: 'STOP_MARKET', stopPrice: '48000.0', quantity: '0.010' })
  t.same(over.json(), { code: -4045, msg: 'Reach max stop order limit.' })
})

t.test('user data stream: ORDER_TRADE_UPDATE and ALGO_UPDATE from placement to fill', async (t) => {
  const { rig, alice, bob, carol, dave } = await setup(t, true)
  await rig.app.listen({ port: 0, host: '127.0.0.1' })
  const base = `ws://127.0.0.1:${(rig.app.server.address() as AddressInfo).port}`
  const key = (await rig.app.inject({ method: 'POST', url: '/fapi/v1/listenKey', headers: { 'x-mbx-apikey': alice.keys.apiKey } })).json().listenKey
  const c: Client = await connect(`${base}/ws/${key}`)
  t.teardown(() => c.close())
  const seen: any[] = []
  c.ws.on('message', (d) => seen.push(JSON.parse(d.toString())))
  await sleep(20)

  await post(rig, bob, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '50000.0' }) // 1
  await post(rig, alice, { side: 'BUY', type: 'MARKET', quantity: '0.010' }) // 2
  await post(rig, alice, { side: 'SELL', type: 'STOP_MARKET', stopPrice: '49000.0', quantity: '0.010', reduceOnly: 'true',
    workingType: 'CONTRACT_PRICE', priceProtect: 'true', newClientOrderId: 'sl' }) // 3
  const placed = await c.next((m) => m.e === 'ORDER_TRADE_UPDATE' && m.o.c === 'sl')
  t.match(placed.o, { x: 'NEW', X: 'NEW', o: 'STOP_MARKET', ot: 'STOP_MARKET', sp: '49000.0', wt: 'CONTRACT_PRICE', pP: true,
    cp: false, R: true, q: '0.010', p: '0.0', i: 3, f: 'GTC' })
  const algoNew = await c.next((m) => m.e === 'ALGO_UPDATE')
  t.match(algoNew.o, { caid: 'sl', aid: 3 * 256 + 1, at: 'CONDITIONAL', o: 'STOP_MARKET', X: 'NEW', tp: '49000.0', ai: '', R: true })

  await post(rig, bob, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '48900.0' }) // 4
  await print(rig, carol, dave, '49000.0') // 5, 6: triggers
  const triggered = await c.next((m) => m.e === 'ORDER_TRADE_UPDATE' && m.o.c === 'sl' && m.o.o === 'MARKET')
  // A MARKET order shows GTC, as Binance's stream example of a triggered stop does.
  t.match(triggered.o, { x: 'NEW', X: 'NEW', o: 'MARKET', ot: 'STOP_MARKET', sp: '49000.0', f: 'GTC', i: 3 })
  const fill = await c.next((m) => m.e === 'ORDER_TRADE_UPDATE' && m.o.c === 'sl' && m.o.x === 'TRADE')
  t.match(fill.o, { X: 'FILLED', o: 'MARKET', ot: 'STOP_MARKET', l: '0.010', L: '48900.0' })
  await sleep(50)
  const algo = seen.filter((m) => m.e === 'ALGO_UPDATE').map((m) => [m.o.X, m.o.ai, m.o.act])
  t.same(algo, [['NEW', '', ''], ['TRIGGERED', '3', 'MARKET'], ['FINISHED', '3', 'MARKET']])
  const sequence = seen.filter((m) => (m.e === 'ORDER_TRADE_UPDATE' && m.o.c === 'sl') || m.e === 'ALGO_UPDATE')
    .map((m) => m.e === 'ALGO_UPDATE' ? `ALGO ${m.o.X}` : `${m.o.o} ${m.o.x}`)
  t.same(sequence, ['STOP_MARKET NEW', 'ALGO NEW', 'MARKET NEW', 'ALGO TRIGGERED', 'MARKET TRADE', 'ALGO FINISHED'])
})

t.test('the depth streams\' book model leaves waiting conditional orders out, and takes them in once triggered', async (t) => {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB, CAROL]) ex.fund(a, 1_000_000)
  const depth = new DepthBook(ex.state, 1)
  const levels = depth.market(1)
  const step = (c: PlaceOrder): void => depth.applyEntry(ex.ok(c).events, new Set())
  const order = (account: string, side: 'BUY' | 'SELL', extra: Partial<PlaceOrder>): PlaceOrder =>
    ({ type: 'PlaceOrder', account, sub: 0, marketId: 1, side, orderType: 'LIMIT', qtyLots: 10, ...extra } as PlaceOrder)
  step(order(BOB, 'SELL', { priceTicks: 500_000 }))
  step(order(CAROL, 'BUY', { priceTicks: 500_000 })) // last 50,000
  step(order(ALICE, 'BUY', { orderType: 'STOP', stopPriceTicks: 510_000, priceTicks: 505_000 }))
  t.equal(levels.qty(true, 505_000), 0, 'a waiting STOP is no bid')
  t.ok(levels.matches(ex.state.markets[1]!))
  step(order(BOB, 'SELL', { priceTicks: 510_000 }))
  step(order(CAROL, 'BUY', { priceTicks: 510_000 })) // last 51,000: the STOP becomes a LIMIT bid at 50,500
  t.equal(levels.qty(true, 505_000), 10)
  t.ok(levels.matches(ex.state.markets[1]!))
})
