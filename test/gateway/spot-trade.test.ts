// Spot trading over REST: a resting sell, a market buy with its fills and fee in the asset
// received, balances with locks, open orders, cancel, and spot's own error forms.

import t from 'tap'
import { DEFAULT_GENESIS } from '../../core/genesis-spec.js'
import { stateRoot } from '../../core/root.js'
import { RULES_VERSION } from '../../core/rules.js'
import { gatewayRig, signedInject, spotRig, spotStreamOf, spotTraders } from '../helpers/gateway.js'

t.test('spot order flow', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, buyer, sellerWallet, buyerWallet } = await spotTraders(rig)

  const ask = await signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.1000', price: '50000.00', newOrderRespType: 'RESULT' })
  t.match(ask.json(), { symbol: 'BTCUSDT', orderId: 1, orderListId: -1, status: 'NEW', type: 'LIMIT', side: 'SELL',
    price: '50000.00', origQty: '0.1000', executedQty: '0.0000' })

  // The buyer takes 0.05 BTC for 2500 USDT and pays 0.1% in BTC: 0.00005.
  const buy = await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.0500' })
  t.match(buy.json(), { status: 'FILLED', executedQty: '0.0500', cummulativeQuoteQty: '2500.000000', type: 'MARKET',
    fills: [{ price: '50000.00', qty: '0.0500', commission: '0.00005000', commissionAsset: 'BTC', tradeId: 1 }] })

  const acct = (await signedInject(rig, buyer, 'GET', '/api/v3/account')).json()
  const bal = (asset: string) => acct.balances.find((b: { asset: string }) => b.asset === asset)
  t.same(bal('BTC'), { asset: 'BTC', free: '0.04995000', locked: '0.00000000' })
  t.same(bal('USDT'), { asset: 'USDT', free: '7500.00000000', locked: '0.00000000' })
  const sellerAcct = (await signedInject(rig, seller, 'GET', '/api/v3/account')).json()
  t.same(sellerAcct.balances.find((b: { asset: string }) => b.asset === 'BTC'), { asset: 'BTC', free: '0.90000000', locked: '0.05000000' })
  t.same(sellerAcct.balances.map((b: { asset: string }) => b.asset), ['USDT', 'BTC', 'ETH'], 'every asset')
  t.same(sellerAcct.commissionRates, { maker: '0.00100000', taker: '0.00100000', buyer: '0.00000000', seller: '0.00000000' })
  const held = (await signedInject(rig, seller, 'GET', '/api/v3/account', { omitZeroBalances: 'true' })).json()
  t.same(held.balances.map((b: { asset: string }) => b.asset), ['USDT', 'BTC'], 'omitZeroBalances: those with any')
  // Binance's uid: a number per account, stable, the last field.
  t.equal(Object.keys(sellerAcct).at(-1), 'uid')
  t.equal(sellerAcct.uid, Number.parseInt(sellerWallet.address.slice(2, 12), 16) * 1000)
  t.not(acct.uid, sellerAcct.uid, 'each account its own')
  t.equal(acct.uid, Number.parseInt(buyerWallet.address.slice(2, 12), 16) * 1000)

  const open = (await signedInject(rig, seller, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json()
  t.match(open, [{ orderId: 1, status: 'PARTIALLY_FILLED', executedQty: '0.0500' }])
  const canceled = await signedInject(rig, seller, 'DELETE', '/api/v3/order', { symbol: 'BTCUSDT', orderId: 1 })
  t.match(canceled.json(), { orderId: 1, status: 'CANCELED', origClientOrderId: String })
  // Nothing left open: Binance spot's cancel-all answers -2011, as for one unknown order.
  t.same((await signedInject(rig, seller, 'DELETE', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json(), { code: -2011, msg: 'Unknown order sent.' })
  // order/test weighs 20 with computeCommissionRates=true, 1 without (Binance's).
  const weight = async (p: Record<string, string>) => Number((await signedInject(rig, buyer, 'POST', '/api/v3/order/test', { symbol: 'BTCUSDT',
    side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '40000.00', ...p })).headers['x-mbx-used-weight-1m'])
  const before = await weight({})
  t.equal(await weight({ computeCommissionRates: 'true' }) - before, 20)
  t.equal(await weight({}) - before - 20, 1)
  const q = await signedInject(rig, seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: 1 })
  t.match(q.json(), { orderId: 1, status: 'CANCELED' })

  const poor = await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '1.0000', price: '50000.00' })
  t.equal(poor.json().code, -2010, 'insufficient balance, spot wording')
  const step = await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.00001', price: '50000.00' })
  t.equal(step.json().code, -1111, 'more quantity decimals than the market has')
  const perp = await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'MARKET', quantity: '1' })
  t.equal(perp.json().code, -1121, 'a perpetual symbol on the spot API')
})

t.test('the spot account\'s commissions are the spot markets\' rates, not fixed ones', async (t) => {
  // An operator's genesis with 0.075 % maker and 0.1 % taker on every spot market.
  const spec = { ...DEFAULT_GENESIS, spotMarkets: DEFAULT_GENESIS.spotMarkets.map((m) => ({ ...m, makerFee: '0.00075', takerFee: '0.001' })) }
  const rig = await gatewayRig(spec)
  t.teardown(() => rig.close())
  const { buyer } = await spotTraders(rig)
  const acct = (await signedInject(rig, buyer, 'GET', '/api/v3/account')).json()
  t.match(acct, { makerCommission: 8, takerCommission: 10, buyerCommission: 0, sellerCommission: 0,
    commissionRates: { maker: '0.00075000', taker: '0.00100000', buyer: '0.00000000', seller: '0.00000000' } })
  t.match((await signedInject(rig, buyer, 'GET', '/api/v3/account/commission', { symbol: 'BTCUSDT' })).json().standardCommission,
    { maker: '0.00075', taker: '0.001' }, 'as account/commission has them')
})

t.test('cancelReplace: both halves, one half, neither', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { buyer, buyerWallet } = await spotTraders(rig)
  const post = (params: Record<string, string>) => signedInject(rig, buyer, 'POST', '/api/v3/order/cancelReplace', params)
  const open = async () => (await signedInject(rig, buyer, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json()
    .map((o: { clientOrderId: string; price: string }) => [o.clientOrderId, o.price])
  const bid = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100' }
  await signedInject(rig, buyer, 'POST', '/api/v3/order', { ...bid, price: '30000.00', newClientOrderId: 'a' })

  const both = await post({ ...bid, price: '31000.00', newClientOrderId: 'b', cancelReplaceMode: 'STOP_ON_FAILURE',
    cancelOrigClientOrderId: 'a', newOrderRespType: 'RESULT' })
  t.equal(both.statusCode, 200)
  t.match(both.json(), { cancelResult: 'SUCCESS', newOrderResult: 'SUCCESS',
    cancelResponse: { clientOrderId: 'a', status: 'CANCELED', price: '30000.00' },
    newOrderResponse: { clientOrderId: 'b', status: 'NEW', price: '31000.00', orderId: 2 } })
  t.same(await open(), [['b', '31000.00']])

  const unknown = { code: -2011, msg: 'Unknown order sent.' }
  const stopped = await post({ ...bid, price: '32000.00', cancelReplaceMode: 'STOP_ON_FAILURE', cancelOrderId: '99' })
  t.same([stopped.statusCode, stopped.json()], [400, { code: -2022, msg: 'Order cancel-replace failed.',
    data: { cancelResult: 'FAILURE', newOrderResult: 'NOT_ATTEMPTED', cancelResponse: unknown, newOrderResponse: null } }])
  t.same(await open(), [['b', '31000.00']], 'the new order was not attempted')

  const allowed = await post({ ...bid, price: '32000.00', newClientOrderId: 'c', cancelReplaceMode: 'ALLOW_FAILURE', cancelOrderId: '99' })
  t.equal(allowed.statusCode, 409)
  t.match(allowed.json(), { code: -2021, msg: 'Order cancel-replace partially failed.',
    data: { cancelResult: 'FAILURE', newOrderResult: 'SUCCESS', cancelResponse: unknown, newOrderResponse: { clientOrderId: 'c' } } })
  t.same(await open(), [['b', '31000.00'], ['c', '32000.00']])

  const poor = await post({ ...bid, quantity: '1.0000', price: '32000.00', cancelReplaceMode: 'STOP_ON_FAILURE', cancelOrigClientOrderId: 'c' })
  t.equal(poor.statusCode, 409)
  t.match(poor.json(), { code: -2021, data: { cancelResult: 'SUCCESS', newOrderResult: 'FAILURE',
    cancelResponse: { origClientOrderId: 'c', status: 'CANCELED' }, newOrderResponse: { code: -2010 } } }, 'canceled, then too poor')
  t.same(await open(), [['b', '31000.00']])

  const neither = await post({ ...bid, quantity: '1.0000', price: '32000.00', cancelReplaceMode: 'ALLOW_FAILURE', cancelOrderId: '99' })
  t.match([neither.statusCode, neither.json()], [400, { code: -2022, data: { cancelResult: 'FAILURE', newOrderResult: 'FAILURE' } }])

  // Refused whole before either half: nothing canceled.
  t.same((await post({ ...bid, price: '32000.00', cancelReplaceMode: 'SOMETIMES', cancelOrderId: '2' })).json(),
    { code: -1130, msg: "Data sent for parameter 'cancelReplaceMode' is not valid." })
  t.same((await post({ ...bid, price: '32000.00', cancelReplaceMode: 'STOP_ON_FAILURE' })).json(),
    { code: -1102, msg: "Param 'cancelOrderId' or 'cancelOrigClientOrderId' must be sent, but both were empty/null!" })
  t.same((await post({ ...bid, price: '32000.001', cancelReplaceMode: 'STOP_ON_FAILURE', cancelOrderId: '2' })).json().code, -1111)
  t.same((await post({ ...bid, price: '32000.00', cancelReplaceMode: 'STOP_ON_FAILURE', cancelOrderId: '2', cancelRestrictions: 'ONLY_OLD' })).json(),
    { code: -1145, msg: 'Invalid cancelRestrictions' })
  t.same(await open(), [['b', '31000.00']])

  // The cancel half named: cancelNewClientOrderId is its answer's clientOrderId.
  const named = await post({ ...bid, price: '33000.00', newClientOrderId: 'd', cancelReplaceMode: 'STOP_ON_FAILURE',
    cancelOrigClientOrderId: 'b', cancelNewClientOrderId: 'undo-b' })
  t.match(named.json(), { cancelResult: 'SUCCESS', cancelResponse: { clientOrderId: 'undo-b', origClientOrderId: 'b', status: 'CANCELED' } })
  t.same(await open(), [['d', '33000.00']])

  // Past the new-order limits: DO_NOTHING (the default) refuses it all; CANCEL_ONLY still cancels.
  t.same((await post({ ...bid, price: '34000.00', cancelReplaceMode: 'STOP_ON_FAILURE', cancelOrderId: '5',
    orderRateLimitExceededMode: 'SOMETIMES' })).json(), { code: -1130, msg: "Data sent for parameter 'orderRateLimitExceededMode' is not valid." })
  for (let i = rig.app.spotOrders.usage(`${buyerWallet.address}/0`).n10s; i < 300; i++) rig.app.spotOrders.count(`${buyerWallet.address}/0`)
  const limited = await post({ ...bid, price: '34000.00', cancelReplaceMode: 'STOP_ON_FAILURE', cancelOrigClientOrderId: 'd' })
  t.match([limited.statusCode, limited.json()], [429, { code: -1015 }], 'DO_NOTHING: refused whole')
  t.same(await open(), [['d', '33000.00']], 'nothing canceled')
  const cancelOnly = await post({ ...bid, price: '34000.00', cancelReplaceMode: 'STOP_ON_FAILURE', cancelOrigClientOrderId: 'd',
    orderRateLimitExceededMode: 'CANCEL_ONLY' })
  t.equal(cancelOnly.statusCode, 409)
  t.match(cancelOnly.json(), { code: -2021, data: { cancelResult: 'SUCCESS', newOrderResult: 'FAILURE',
    cancelResponse: { origClientOrderId: 'd', status: 'CANCELED' }, newOrderResponse: { code: -1015 } } }, 'CANCEL_ONLY: canceled, the new order refused')
  t.same(await open(), [], 'the order is canceled, none placed')
})

t.test('cancel: the cancel\'s own newClientOrderId, cancelRestrictions', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { buyer } = await spotTraders(rig)
  const seen = spotStreamOf(rig)
  const bid = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '30000.00' }
  await signedInject(rig, buyer, 'POST', '/api/v3/order', { ...bid, newClientOrderId: 'a' })
  await signedInject(rig, buyer, 'POST', '/api/v3/order', { ...bid, newClientOrderId: 'b' })
  const del = (p: Record<string, string>) => signedInject(rig, buyer, 'DELETE', '/api/v3/order', { symbol: 'BTCUSDT', ...p }).then((r) => r.json())

  t.match(await del({ origClientOrderId: 'a', newClientOrderId: 'a b' }),
    { code: -1100, msg: /^Illegal characters found in parameter 'newClientOrderId'/ })
  t.same(await del({ origClientOrderId: 'a', cancelRestrictions: 'ONLY_PARTIALLY_FILLED' }),
    { code: -2011, msg: 'Order was not canceled due to cancel restrictions.' })
  t.match(await del({ origClientOrderId: 'a', newClientOrderId: 'undo-a', cancelRestrictions: 'ONLY_NEW' }),
    { orderId: 1, clientOrderId: 'undo-a', origClientOrderId: 'a', status: 'CANCELED' })
  t.match(await del({ orderId: '2' }), { orderId: 2, clientOrderId: 'x-3-2-cancel', origClientOrderId: 'b', status: 'CANCELED' },
    'without it, one made for the cancel, as Binance generates one')
  t.same(seen.filter((p) => p.e === 'executionReport' && p.x === 'CANCELED').map((p) => [p.i, p.c, p.C]), [[1, 'undo-a', 'a'], [2, 'x-3-2-cancel', 'b']],
    'the stream\'s reports name the cancel (c) and the order (C)')
  // The order's record keeps its own id.
  t.match((await signedInject(rig, buyer, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: 1 })).json(), { clientOrderId: 'a' })
})

t.test('a MARKET order by quoteOrderQty: the quote to spend or receive, the quantity from the book', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, buyer } = await spotTraders(rig)
  const post = (keys: typeof seller, p: Record<string, string>) => signedInject(rig, keys, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', ...p })
  await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '50000.00' })
  await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0200', price: '50010.00' })

  // 700 USDT: 0.0100 at 50000.00 (500) and floor(200 / 50.01 per 0.001) = 0.0039 at 50010.00 (195.039).
  const bought = await post(buyer, { side: 'BUY', type: 'MARKET', quoteOrderQty: '700' })
  t.match(bought.json(), { status: 'FILLED', type: 'MARKET', origQty: '0.0139', executedQty: '0.0139', origQuoteOrderQty: '700.00000000',
    cummulativeQuoteQty: '695.039000',
    fills: [{ price: '50000.00', qty: '0.0100' }, { price: '50010.00', qty: '0.0039' }] })
  const rec = (await signedInject(rig, buyer, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: bought.json().orderId })).json()
  t.match(rec, { origQuoteOrderQty: '700.00000000', cummulativeQuoteQty: '695.039000' }, 'the record shows what was asked')
  const usdt = (await signedInject(rig, buyer, 'GET', '/api/v3/account')).json().balances.find((b: { asset: string }) => b.asset === 'USDT')
  t.same(usdt, { asset: 'USDT', free: '9304.96100000', locked: '0.00000000' }, '695.039 spent of 10,000')

  // Refusals that change nothing.
  const root = stateRoot(rig.ex.state)
  const refused = async (p: Record<string, string>) => (await post(buyer, { side: 'BUY', ...p })).json()
  t.same(await refused({ type: 'LIMIT', timeInForce: 'GTC', price: '50000.00', quoteOrderQty: '10' }),
    { code: -1106, msg: "Parameter 'quoteOrderQty' sent when not required." }, 'MARKET only')
  t.same(await refused({ type: 'MARKET', quantity: '0.0010', quoteOrderQty: '10' }),
    { code: -1106, msg: "Parameter 'quoteOrderQty' sent when not required." }, 'not with a quantity')
  t.same(await refused({ type: 'MARKET' }),
    { code: -1102, msg: "Param 'quantity' or 'quoteOrderQty' must be sent, but both were empty/null!" })
  t.equal((await refused({ type: 'MARKET', quoteOrderQty: '10.0000001' })).code, -1111, 'more decimals than USDT has')
  t.equal((await refused({ type: 'MARKET', quoteOrderQty: '0' })).code, -1130)
  t.same(await refused({ type: 'MARKET', quoteOrderQty: '0.01' }), { code: -1013, msg: 'Filter failure: MARKET_LOT_SIZE' },
    'less than one step of the book')
  t.equal(stateRoot(rig.ex.state), root)

  // Rules 5 (what a started exchange declares): the book ran short, so EXPIRED; more than is free, refused.
  t.ok((await rig.run({ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '6c'.repeat(32) })).ok)
  const rest = (await post(buyer, { side: 'BUY', type: 'MARKET', quoteOrderQty: '5000' })).json()
  t.match(rest, { status: 'EXPIRED', origQty: '0.0161', executedQty: '0.0161', origQuoteOrderQty: '5000.00000000',
    cummulativeQuoteQty: '805.161000', fills: [{ price: '50010.00', qty: '0.0161' }] }, 'the 0.0161 left of the asks, and no more')
  t.same(await refused({ type: 'MARKET', quoteOrderQty: '9000' }), { code: -2010, msg: 'Account has insufficient balance for requested action.' },
    'more than the 8,499.80 free')
})

/** The spot rig under the rules a started exchange declares (its orders keep their strategy tags from rules 7). */
async function declaredSpotRig(seed: string) {
  const s = await spotRig()
  await s.rig.run({ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + seed.repeat(32) })
  return s
}

t.test('strategyId and strategyType: in every answer and record of the orders sent with them, before selfTradePreventionMode', async (t) => {
  const { rig, seller, buyer, post } = await declaredSpotRig('71')
  t.teardown(() => rig.close())
  const tags = { strategyId: '37463720', strategyType: '1000000' }
  const limit = { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100' }
  const ask = (await post(seller, { ...limit, price: '50000.00', ...tags, newOrderRespType: 'RESULT' })).json()
  t.match(ask, { status: 'NEW', strategyId: 37463720, strategyType: 1000000 })
  const keys = Object.keys(ask)
  t.same(keys.slice(keys.indexOf('workingTime'), keys.indexOf('selfTradePreventionMode') + 1),
    ['workingTime', 'strategyId', 'strategyType', 'selfTradePreventionMode'], "Binance's place for them")
  // ACK is Binance's five fields, tags or not.
  const acked = (await post(seller, { ...limit, price: '50100.00', strategyId: '0', newOrderRespType: 'ACK' })).json()
  t.same(Object.keys(acked), ['symbol', 'orderId', 'orderListId', 'clientOrderId', 'transactTime'])
  const plain = (await post(seller, { ...limit, price: '50200.00', newOrderRespType: 'RESULT' })).json()
  t.notOk('strategyId' in plain || 'strategyType' in plain, 'an order sent without them shows neither')
  // A FULL answer, a strategyType alone.
  const buy = (await post(buyer, { side: 'BUY', type: 'MARKET', quantity: '0.0050', strategyType: '2147483647' })).json()
  t.match(buy, { status: 'FILLED', strategyType: 2147483647, fills: [{ price: '50000.00' }] })
  t.notOk('strategyId' in buy)

  const tagsOf = (o: Record<string, unknown>) => [o.orderId, o.strategyId, o.strategyType]
  const expected = [[ask.orderId, 37463720, 1000000], [acked.orderId, 0, undefined], [plain.orderId, undefined, undefined]]
  t.same((await signedInject(rig, seller, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json().map(tagsOf), expected, 'openOrders')
  t.same((await signedInject(rig, seller, 'GET', '/api/v3/allOrders', { symbol: 'BTCUSDT' })).json().map(tagsOf), expected, 'allOrders')
  const one = (await signedInject(rig, seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: ask.orderId })).json()
  t.match(one, { status: 'PARTIALLY_FILLED', strategyId: 37463720, strategyType: 1000000 })
  const recordKeys = Object.keys(one)
  t.same(recordKeys.slice(recordKeys.indexOf('strategyId'), recordKeys.indexOf('strategyId') + 3),
    ['strategyId', 'strategyType', 'selfTradePreventionMode'])
  const canceled = (await signedInject(rig, seller, 'DELETE', '/api/v3/order', { symbol: 'BTCUSDT', orderId: ask.orderId })).json()
  t.match(canceled, { status: 'CANCELED', strategyId: 37463720, strategyType: 1000000 })
  const all = (await signedInject(rig, seller, 'DELETE', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json()
  t.same(all.map(tagsOf), expected.slice(1), 'cancel-all answers')

  // Under the rules before 7 (a log that never declared 7): the tags are read, not kept.
  const old = await spotRig()
  t.teardown(() => old.rig.close())
  const untagged = (await old.post(old.seller, { ...limit, price: '50000.00', ...tags, newOrderRespType: 'RESULT' })).json()
  t.match(untagged, { status: 'NEW' })
  t.notOk('strategyId' in untagged || 'strategyType' in untagged)
})

t.test('strategyId and strategyType refused as Binance refuses them, order/test too; nothing sequenced', async (t) => {
  const { rig, seller, post } = await declaredSpotRig('72')
  t.teardown(() => rig.close())
  const order = { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '50000.00' }
  const seq = rig.ex.state.seq
  for (const path of ['/api/v3/order', '/api/v3/order/test']) {
    const refused = async (p: Record<string, string>) => (await post(seller, { ...order, ...p }, path)).json()
    t.same(await refused({ strategyType: '999999' }), { code: -1134, msg: 'strategyType was less than 1000000.' }, `${path}: reserved`)
    t.same(await refused({ strategyType: '0' }), { code: -1134, msg: 'strategyType was less than 1000000.' })
    for (const [name, value] of [['strategyId', '-5'], ['strategyId', '1.5'], ['strategyId', 'abc'], ['strategyType', '1e6']]) {
      t.same(await refused({ [name!]: value! }),
        { code: -1100, msg: `Illegal characters found in parameter '${name}'; legal range is '^[0-9]{1,20}$'.` }, `${path}: ${name}=${value}`)
    }
    t.same(await refused({ strategyId: '9007199254740992' }), { code: -1130, msg: "Data sent for parameter 'strategyId' is not valid." },
      'past 2^53 - 1')
    t.same(await refused({ strategyType: '2147483648' }), { code: -1130, msg: "Data sent for parameter 'strategyType' is not valid." },
      'past an INT')
  }
  t.equal(rig.ex.state.seq, seq, 'nothing sequenced')
  t.same((await post(seller, { ...order, strategyId: '9007199254740991', strategyType: '1000000' }, '/api/v3/order/test')).json(), {},
    'order/test: the largest strategyId')
})

t.test('cancelReplace: the new order takes the request\'s tags; an amendment keeping priority keeps them', async (t) => {
  const { rig, buyer, post } = await declaredSpotRig('73')
  t.teardown(() => rig.close())
  const bid = { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100' }
  const first = (await post(buyer, { ...bid, price: '30000.00', strategyId: '1', strategyType: '1000001', newOrderRespType: 'RESULT' })).json()
  const replaced = (await post(buyer, { ...bid, price: '30100.00', strategyId: '2', cancelReplaceMode: 'STOP_ON_FAILURE',
    cancelOrderId: String(first.orderId), newOrderRespType: 'RESULT' }, '/api/v3/order/cancelReplace')).json()
  t.match(replaced, { cancelResult: 'SUCCESS', newOrderResult: 'SUCCESS',
    cancelResponse: { orderId: first.orderId, status: 'CANCELED', strategyId: 1, strategyType: 1000001 },
    newOrderResponse: { status: 'NEW', price: '30100.00', strategyId: 2 } })
  t.notOk('strategyType' in replaced.newOrderResponse, 'none sent for the new order: none shown')
  const amended = (await signedInject(rig, buyer, 'PUT', '/api/v3/order/amend/keepPriority',
    { symbol: 'BTCUSDT', orderId: replaced.newOrderResponse.orderId, newQty: '0.0050' })).json()
  t.match(amended.amendedOrder, { qty: '0.0050', strategyId: 2 })
  const keys = Object.keys(amended.amendedOrder)
  t.same(keys.slice(-3), ['workingTime', 'strategyId', 'selfTradePreventionMode'])
})
