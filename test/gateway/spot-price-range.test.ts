// Binance spot's Price Range execution rule over REST: executionRules, referencePrice and its
// calculation, and a taker the rule stops: EXPIRED with expiryReason (the stream's eR). The
// default spot markets allow 5× and a fifth of the reference price.

import t from 'tap'
import { stateRoot } from '../../core/root.js'
import { gatewayRig, signedInject, spotStreamOf, spotTraders } from '../helpers/gateway.js'

const RULE = { ruleType: 'PRICE_RANGE', bidLimitMultUp: '5.0000', bidLimitMultDown: '0.2000', askLimitMultUp: '5.0000', askLimitMultDown: '0.2000' }

t.test('executionRules: every spot market\'s, one\'s, a list\'s or a status\'s; never two of those', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const get = async (q: string) => (await rig.app.inject(`/api/v3/executionRules${q}`)).json()
  t.same(await get(''), { symbolRules: [{ symbol: 'BTCUSDT', rules: [RULE] }, { symbol: 'ETHUSDT', rules: [RULE] }] })
  t.same(await get('?symbol=ETHUSDT'), { symbolRules: [{ symbol: 'ETHUSDT', rules: [RULE] }] })
  t.same(await get(`?symbols=${encodeURIComponent('["BTCUSDT"]')}`), { symbolRules: [{ symbol: 'BTCUSDT', rules: [RULE] }] })
  t.same(await get('?symbolStatus=HALT'), { symbolRules: [] })
  t.same(await get('?symbol=BTCUSDT&symbolStatus=TRADING'), { code: -1128, msg: 'Combination of optional parameters invalid.' })
  t.same(await get('?symbol=BTCUSDTPERP'), { code: -1121, msg: 'Invalid symbol.' })
})

t.test('referencePrice: none before a trade (-2043), then the mean of the last five minutes\' trades', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, buyer } = await spotTraders(rig)
  const get = async (q: string) => (await rig.app.inject(`/api/v3/referencePrice${q}`)).json()
  t.match(await get('?symbol=BTCUSDT'), { code: -2043 })
  t.same(await get(''), { code: -1102, msg: "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed." })
  for (const price of ['30000.00', '30001.00', '30001.00']) {
    await signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price })
    await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price })
  }
  t.same(await get('?symbol=BTCUSDT'), { symbol: 'BTCUSDT', referencePrice: '30000.666666', timestamp: rig.ex.time },
    '(30,000 + 2 × 30,001) / 3, truncated to USDT\'s six decimals')
  t.same((await rig.app.inject('/api/v3/referencePrice/calculation?symbol=BTCUSDT')).json(),
    { symbol: 'BTCUSDT', calculationType: 'ARITHMETIC_MEAN', bucketCount: 80, bucketWidthMs: 3750 })
})

t.test('a buy reaching past 5× the reference expires with its reason; the record and the stream say why', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, buyer, buyerWallet } = await spotTraders(rig)
  const post = (keys: typeof seller, p: Record<string, string>) => signedInject(rig, keys, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', ...p })
  await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price: '30000.00' })
  await post(buyer, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price: '30000.00' })
  await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price: '140000.00' })
  await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price: '160000.00' })
  const seen = spotStreamOf(rig, (a) => a === buyerWallet.address)
  const placed = (await post(buyer, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0020', price: '200000.00',
    newOrderRespType: 'FULL' })).json()
  t.match(placed, { status: 'EXPIRED', executedQty: '0.0010', expiryReason: 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED' },
    '140,000.00 is within 150,000.00, 160,000.00 is not: the rest expires instead of resting')
  t.same(placed.fills.map((f: { price: string }) => f.price), ['140000.00'])
  const record = (await signedInject(rig, buyer, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: placed.orderId })).json()
  t.match(record, { status: 'EXPIRED', expiryReason: 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED' })
  t.match(seen.filter((p) => p.e === 'executionReport' && p.i === placed.orderId).at(-1), { X: 'EXPIRED', eR: 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED' })
  const depth = (await rig.app.inject('/api/v3/depth?symbol=BTCUSDT')).json()
  t.same(depth.asks, [['160000.00', '0.0010']], 'the ask beyond the range stays')
  const plain = (await signedInject(rig, buyer, 'GET', '/api/v3/allOrders', { symbol: 'BTCUSDT' })).json()
  t.notOk('expiryReason' in plain[0], 'orders the rule did not stop have no expiryReason')
  // The trade at 140,000.00 moved the mean to 85,000.00: 160,000.00 is within 5× now, 500,000.00 is not.
  await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price: '500000.00' })
  // A fill-or-kill needing the price beyond is refused whole, changing nothing.
  const before = stateRoot(rig.ex.state)
  const fok = await post(buyer, { side: 'BUY', type: 'LIMIT', timeInForce: 'FOK', quantity: '0.0020', price: '600000.00' })
  t.match(fok.json(), { code: -2010 })
  t.equal(stateRoot(rig.ex.state), before)
})
