// Spot queries beyond the basics: the caller's trades and order history, the last price, the
// best bid and ask, and the 5-minute average price, with Binance spot's shapes.

import t from 'tap'
import { stateRoot } from '../../core/root.js'
import { gatewayRig, signedInject, spotStreamOf, spotTraders } from '../helpers/gateway.js'

t.test('myTrades, allOrders, ticker/price, bookTicker, avgPrice', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, buyer } = await spotTraders(rig)

  const get = (url: string) => rig.app.inject({ method: 'GET', url })
  t.same((await get('/api/v3/avgPrice?symbol=BTCUSDT')).json(), { mins: 5, price: '0.00', closeTime: 0 }, 'no trade yet: closeTime 0')

  await signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.1000', price: '50000.00' })
  await signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.1000', price: '50100.00' })
  // 0.1 at 50000 and 0.05 at 50100: 7505 USDT for 0.15, average 50033.33.
  await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.1500' })
  const traded = rig.ex.time
  await signedInject(rig, buyer, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.0100', price: '49000.00' })

  t.same((await get('/api/v3/ticker/price?symbol=BTCUSDT')).json(), { symbol: 'BTCUSDT', price: '50100.00' })
  t.same((await get('/api/v3/ticker/price')).json(), [{ symbol: 'BTCUSDT', price: '50100.00' }, { symbol: 'ETHUSDT', price: '0.00' }])
  t.same((await get('/api/v3/ticker/bookTicker?symbol=BTCUSDT')).json(),
    { symbol: 'BTCUSDT', bidPrice: '49000.00', bidQty: '0.0100', askPrice: '50100.00', askQty: '0.0500' })
  t.same((await get('/api/v3/avgPrice?symbol=BTCUSDT')).json(), { mins: 5, price: '50033.33', closeTime: traded },
    'closeTime: the last trade\'s time, as Binance\'s and as the avgPrice stream\'s T')
  t.ok(traded < rig.ex.time)
  t.same((await get('/api/v3/ticker/price?symbol=BTCUSDTPERP')).json(), { code: -1121, msg: 'Invalid symbol.' })
  // `symbols` (ccxt's spot fetchTickers sends it): a list of just those, in the order asked.
  const only = encodeURIComponent('["ETHUSDT","BTCUSDT"]')
  t.same((await get(`/api/v3/ticker/price?symbols=${only}`)).json(), [{ symbol: 'ETHUSDT', price: '0.00' }, { symbol: 'BTCUSDT', price: '50100.00' }])
  t.same((await get(`/api/v3/ticker/bookTicker?symbols=${encodeURIComponent('["BTCUSDT"]')}`)).json(),
    [{ symbol: 'BTCUSDT', bidPrice: '49000.00', bidQty: '0.0100', askPrice: '50100.00', askQty: '0.0500' }])
  t.same((await get(`/api/v3/ticker/24hr?symbols=${only}`)).json().map((x: { symbol: string; lastPrice: string }) => [x.symbol, x.lastPrice]),
    [['ETHUSDT', '0.00'], ['BTCUSDT', '50100.00']])
  t.same((await get(`/api/v3/ticker/price?symbols=${encodeURIComponent('["BTCUSDT","NOPE"]')}`)).json(), { code: -1121, msg: 'Invalid symbol.' })
  t.same((await get(`/api/v3/ticker/24hr?symbol=BTCUSDT&symbols=${only}`)).json(),
    { code: -1130, msg: "Data sent for parameter 'symbols' is not valid." })
  // type=MINI: the statistics without the change, the average, the previous close, the last quantity and the book.
  const full = (await get('/api/v3/ticker/24hr?symbol=BTCUSDT')).json()
  const mini = (await get('/api/v3/ticker/24hr?symbol=BTCUSDT&type=MINI')).json()
  t.same(Object.keys(mini).sort(), ['symbol', 'openPrice', 'highPrice', 'lowPrice', 'lastPrice', 'volume', 'quoteVolume', 'openTime', 'closeTime',
    'firstId', 'lastId', 'count'].sort())
  for (const k of Object.keys(mini)) t.equal(mini[k], full[k], `MINI ${k} as FULL's`)
  t.same((await get('/api/v3/ticker/24hr?symbol=BTCUSDT&type=SMALL')).json(), { code: -1130, msg: "Data sent for parameter 'type' is not valid." })
  const weight = async (url: string) => Number((await get(url)).headers['x-mbx-used-weight-1m'])
  const before = await weight('/api/v3/ping')
  t.equal(await weight(`/api/v3/ticker/24hr?symbols=${only}`) - before, 2, 'two symbols weigh 2')

  const trades = (await signedInject(rig, buyer, 'GET', '/api/v3/myTrades', { symbol: 'BTCUSDT' })).json()
  t.equal(trades.length, 2)
  t.same(trades[0], { symbol: 'BTCUSDT', id: 1, orderId: 3, orderListId: -1, price: '50000.00', qty: '0.1000',
    quoteQty: '5000.000000', commission: '0.00010000', commissionAsset: 'BTC', time: trades[0].time, isBuyer: true,
    isMaker: false, isBestMatch: true })
  t.match(trades[1], { id: 2, price: '50100.00', qty: '0.0500', commission: '0.00005000' })
  const sold = (await signedInject(rig, seller, 'GET', '/api/v3/myTrades', { symbol: 'BTCUSDT', orderId: 2 })).json()
  t.match(sold, [{ id: 2, orderId: 2, isBuyer: false, isMaker: true, commissionAsset: 'USDT', commission: '2.505000' }])

  const orders = (await signedInject(rig, buyer, 'GET', '/api/v3/allOrders', { symbol: 'BTCUSDT' })).json()
  t.match(orders, [
    { orderId: 3, status: 'FILLED', type: 'MARKET', executedQty: '0.1500', cummulativeQuoteQty: '7505.000000' },
    { orderId: 4, status: 'NEW', type: 'LIMIT', price: '49000.00', origQty: '0.0100' },
  ])
  t.same((await signedInject(rig, buyer, 'GET', '/api/v3/myTrades', { symbol: 'BTCUSDT', startTime: 0, endTime: 86_400_001 })).json(),
    { code: -1127, msg: 'More than 24 hours between startTime and endTime.' }, 'Binance\'s code for a lookup interval too big')
  // fromId with a time bound, and spot's orderId with one: not among Binance's supported combinations.
  for (const p of [{ fromId: 1, startTime: 0 }, { fromId: 1, endTime: 86_400_000 }, { orderId: 1, startTime: 0 }] as Record<string, number>[]) {
    t.same((await signedInject(rig, buyer, 'GET', '/api/v3/myTrades', { symbol: 'BTCUSDT', ...p })).json(),
      { code: -1128, msg: 'Combination of optional parameters invalid.' }, JSON.stringify(p))
  }
  t.equal((await signedInject(rig, buyer, 'GET', '/api/v3/myTrades', { symbol: 'BTCUSDT', orderId: 1, fromId: 1 })).statusCode, 200,
    'orderId with fromId is one')
})

t.test('tradeFee: the spot markets\' commission rates, of one or all (ccxt\'s spot fetchTradingFee)', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { buyer } = await spotTraders(rig)
  const rates = { makerCommission: '0.001', takerCommission: '0.001' }
  t.same((await signedInject(rig, buyer, 'GET', '/sapi/v1/asset/tradeFee')).json(),
    [{ symbol: 'BTCUSDT', ...rates }, { symbol: 'ETHUSDT', ...rates }], 'the spot markets only')
  t.same((await signedInject(rig, buyer, 'GET', '/sapi/v1/asset/tradeFee', { symbol: 'ETHUSDT' })).json(), [{ symbol: 'ETHUSDT', ...rates }])
  t.same((await signedInject(rig, buyer, 'GET', '/sapi/v1/asset/tradeFee', { symbol: 'BTCUSDTPERP' })).json(),
    { code: -1121, msg: 'Invalid symbol.' }, 'a perpetual has /fapi/v1/commissionRate')
  t.equal((await rig.app.inject({ method: 'GET', url: '/sapi/v1/asset/tradeFee' })).statusCode, 401, 'signed')
})

t.test('myPreventedMatches: the matches self-trade prevention stopped', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, sellerWallet } = await spotTraders(rig)
  // The seller holds USDT too, and her bid meets her own ask: EXPIRE_MAKER expires the ask, the bid rests.
  await rig.run({ type: 'Deposit', account: sellerWallet.address, sub: 0, asset: 'USDT', amount: 10_000_000_000, wallet: 'SPOT', ref: 'q' })
  const post = (p: Record<string, string>) => signedInject(rig, seller, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', ...p }).then((r) => r.json())
  const ask = await post({ side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0200', price: '50000.00' })
  const bid = await post({ side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '50000.00',
    selfTradePreventionMode: 'EXPIRE_MAKER', newOrderRespType: 'RESULT' })
  t.match(bid, { status: 'NEW', executedQty: '0.0000' }, 'the bid rests, nothing traded')
  const get = (p: Record<string, string | number>) => signedInject(rig, seller, 'GET', '/api/v3/myPreventedMatches', { symbol: 'BTCUSDT', ...p })
    .then((r) => r.json())
  const rows = await get({ orderId: ask.orderId })
  t.same(rows, [{ symbol: 'BTCUSDT', preventedMatchId: rows[0]?.preventedMatchId, takerOrderId: bid.orderId, makerSymbol: 'BTCUSDT',
    makerOrderId: ask.orderId, tradeGroupId: -1, selfTradePreventionMode: 'EXPIRE_MAKER', price: '50000.00',
    makerPreventedQuantity: '0.0200', transactTime: bid.transactTime }])
  t.same(await get({ orderId: bid.orderId }), rows, 'the taker\'s too')
  t.same(await get({ preventedMatchId: rows[0].preventedMatchId }), rows, 'by its id')
  t.same(await get({ orderId: ask.orderId, fromPreventedMatchId: rows[0].preventedMatchId + 1 }), [], 'from a later id')
  t.same(await get({}), { code: -1102, msg: "Param 'preventedMatchId' or 'orderId' must be sent, but both were empty/null!" })
  t.equal(rows[0].preventedMatchId, 0, 'numbered per symbol from 0')
  // The taker's answer lists the matches it prevented; the expired maker's record names its match and what it kept from trading.
  t.same(bid.preventedMatches, [{ preventedMatchId: 0, makerOrderId: ask.orderId, price: '50000.00', makerPreventedQuantity: '0.0200' }])
  const askRecord = (await signedInject(rig, seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: ask.orderId })).json()
  t.match(askRecord, { status: 'EXPIRED_IN_MATCH', preventedMatchId: 0, preventedQuantity: '0.0200' })

  // EXPIRE_TAKER: the bid expires (its record and the stream say so), the ask stays; the row gives the taker's quantity.
  const seen = spotStreamOf(rig, (a) => a === sellerWallet.address)
  const ask2 = await post({ side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0050', price: '51000.00' })
  const taker = await post({ side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0030', price: '51000.00',
    selfTradePreventionMode: 'EXPIRE_TAKER', newOrderRespType: 'RESULT' })
  t.match(taker, { status: 'EXPIRED_IN_MATCH', preventedMatchId: 1, preventedQuantity: '0.0030',
    preventedMatches: [{ preventedMatchId: 1, makerOrderId: ask2.orderId, price: '51000.00' }] })
  t.notOk('makerPreventedQuantity' in taker.preventedMatches[0], 'the maker kept its lots')
  const [row] = await get({ preventedMatchId: 1 })
  t.match(row, { takerOrderId: taker.orderId, makerOrderId: ask2.orderId, selfTradePreventionMode: 'EXPIRE_TAKER', takerPreventedQuantity: '0.0030' })
  t.notOk('makerPreventedQuantity' in row)
  t.match(seen.filter((p) => p.e === 'executionReport' && p.i === taker.orderId).at(-1), { x: 'TRADE_PREVENTION', X: 'EXPIRED_IN_MATCH',
    v: 1, A: '0.0030', B: '0.0030', U: ask2.orderId, Cs: 'BTCUSDT', pl: '0.0030', pL: '51000.00', pY: '153.000000', l: '0.0000' })

  // An unknown mode is invalid data, on a spot order as on a list; USD-M has no DECREMENT.
  const before = stateRoot(rig.ex.state)
  const bidding = { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '40000.00' }
  const invalid = { code: -1130, msg: "Data sent for parameter 'selfTradePreventionMode' is not valid." }
  t.same(await post({ ...bidding, selfTradePreventionMode: 'EXPIRE_ALL' }), invalid)
  const oco = await signedInject(rig, seller, 'POST', '/api/v3/orderList/oco', { symbol: 'BTCUSDT', side: 'SELL', quantity: '0.0100',
    aboveType: 'LIMIT_MAKER', abovePrice: '60000.00', belowType: 'STOP_LOSS', belowStopPrice: '40000.00', selfTradePreventionMode: 'DECREMENTS' })
  t.same(oco.json(), invalid, 'order lists alike')
  const perp = await signedInject(rig, seller, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
    quantity: '0.010', price: '40000.0', selfTradePreventionMode: 'DECREMENT' })
  t.equal(perp.statusCode, 400)
  t.equal(perp.json().code, -1130)
  t.equal(stateRoot(rig.ex.state), before)
  const info = (await rig.app.inject('/api/v3/exchangeInfo?symbol=BTCUSDT')).json().symbols[0]
  t.same(info.allowedSelfTradePreventionModes, ['NONE', 'EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH', 'DECREMENT', 'TRANSFER'])
})

t.test('DECREMENT: both orders lose what the smaller has left; the other keeps its place and shows its quantity as sent', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, sellerWallet, buyer } = await spotTraders(rig)
  await rig.run({ type: 'Deposit', account: sellerWallet.address, sub: 0, asset: 'USDT', amount: 10_000_000_000, wallet: 'SPOT', ref: 'q' })
  const post = (keys: typeof seller, p: Record<string, string>) =>
    signedInject(rig, keys, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', ...p }).then((r) => r.json())
  const seen = spotStreamOf(rig, (a) => a === sellerWallet.address)
  const ask = await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0600', price: '50000.00' })
  const taker = await post(seller, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0200', price: '50000.00',
    selfTradePreventionMode: 'DECREMENT', newOrderRespType: 'FULL' })
  t.match(taker, { status: 'EXPIRED_IN_MATCH', origQty: '0.0200', executedQty: '0.0000', fills: [], selfTradePreventionMode: 'DECREMENT',
    preventedMatchId: 0, preventedQuantity: '0.0200' })
  t.same(taker.preventedMatches, [{ preventedMatchId: 0, makerOrderId: ask.orderId, price: '50000.00', takerPreventedQuantity: '0.0200',
    makerPreventedQuantity: '0.0200' }])
  const record = (await signedInject(rig, seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: ask.orderId })).json()
  t.match(record, { status: 'NEW', origQty: '0.0600', executedQty: '0.0000', preventedMatchId: 0, preventedQuantity: '0.0200' })
  t.match((await signedInject(rig, seller, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json(),
    [{ orderId: ask.orderId, origQty: '0.0600', preventedQuantity: '0.0200' }])
  t.match((await rig.app.inject('/api/v3/ticker/bookTicker?symbol=BTCUSDT')).json(), { askPrice: '50000.00', askQty: '0.0400' })
  const reports = seen.filter((p) => p.e === 'executionReport' && p.x === 'TRADE_PREVENTION')
  t.match(reports, [
    { i: ask.orderId, X: 'NEW', q: '0.0600', z: '0.0000', v: 0, A: '0.0200', B: '0.0200', U: taker.orderId, pl: '0.0200', pL: '50000.00' },
    { i: taker.orderId, X: 'EXPIRED_IN_MATCH', q: '0.0200', v: 0, A: '0.0200', B: '0.0200', U: ask.orderId },
  ])
  const [row] = await signedInject(rig, seller, 'GET', '/api/v3/myPreventedMatches', { symbol: 'BTCUSDT', preventedMatchId: 0 }).then((r) => r.json())
  t.match(row, { selfTradePreventionMode: 'DECREMENT', takerPreventedQuantity: '0.0200', makerPreventedQuantity: '0.0200' })
  const balances = async () => Object.fromEntries(((await signedInject(rig, seller, 'GET', '/api/v3/account')).json().balances as
    { asset: string; locked: string }[]).map((b) => [b.asset, b.locked]))
  t.match(await balances(), { BTC: '0.04000000', USDT: '0.00000000' }, 'the ask holds only what it has left')

  // An amendment names the quantity as sent: the prevented lots stay taken.
  const amended = (await signedInject(rig, seller, 'PUT', '/api/v3/order/amend/keepPriority', { symbol: 'BTCUSDT', orderId: ask.orderId,
    newQty: '0.0500' })).json()
  t.match(amended.amendedOrder, { qty: '0.0500', executedQty: '0.0000', preventedQty: '0.0200' })
  t.match(await balances(), { BTC: '0.03000000' })
  // Another trader takes it all: 0.0300 traded, the order filled with 0.0200 prevented.
  const bought = await post(buyer, { side: 'BUY', type: 'MARKET', quantity: '0.0500', newOrderRespType: 'FULL' })
  t.match(bought, { executedQty: '0.0300', fills: [{ qty: '0.0300' }] })
  t.match((await signedInject(rig, seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId: ask.orderId })).json(),
    { status: 'FILLED', origQty: '0.0500', executedQty: '0.0300', preventedQuantity: '0.0200' })
  // TRANSFER acts as DECREMENT (every self-trade here is within one account); order lists take both.
  const oco = await signedInject(rig, seller, 'POST', '/api/v3/orderList/oco', { symbol: 'BTCUSDT', side: 'SELL', quantity: '0.0100',
    aboveType: 'LIMIT_MAKER', abovePrice: '60000.00', belowType: 'STOP_LOSS', belowStopPrice: '40000.00', selfTradePreventionMode: 'TRANSFER' })
  t.equal(oco.statusCode, 200)
  const cut = await post(seller, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0040', price: '60000.00',
    selfTradePreventionMode: 'TRANSFER', newOrderRespType: 'RESULT' })
  t.match(cut, { status: 'EXPIRED_IN_MATCH', preventedQuantity: '0.0040' })
  const legs = (await signedInject(rig, seller, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json()
  t.same(legs.map((o: { origQty: string; preventedQuantity: string }) => [o.origQty, o.preventedQuantity]), [['0.0100', '0.0040'], ['0.0100', '0.0040']],
    'both orders of the pair lost the lots')
})

t.test('symbolStatus: one symbol in another status is -1220, a list or all leaves such symbols out', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const ETHSPOT = rig.ex.state.marketsBySymbol.get('ETHUSDT')!.marketId
  await rig.run({ type: 'SetMarketStatus', marketId: ETHSPOT, status: 'HALT' })
  const get = async (url: string) => (await rig.app.inject({ method: 'GET', url })).json()
  const symbolsOf = (body: { symbol: string }[]) => body.map((x) => x.symbol)
  const both = encodeURIComponent('["ETHUSDT","BTCUSDT"]')
  const mismatch = { code: -1220, msg: 'The symbol\'s status does not match the requested symbolStatus.' }

  t.match(await get('/api/v3/depth?symbol=BTCUSDT&symbolStatus=TRADING'), { bids: [], asks: [] })
  t.same(await get('/api/v3/depth?symbol=ETHUSDT&symbolStatus=TRADING'), mismatch)
  t.match(await get('/api/v3/depth?symbol=ETHUSDT&symbolStatus=HALT'), { bids: [] })
  for (const path of ['/api/v3/ticker/price', '/api/v3/ticker/bookTicker', '/api/v3/ticker/24hr']) {
    t.same(symbolsOf(await get(`${path}?symbolStatus=TRADING`)), ['BTCUSDT'], `${path}: all markets, the trading ones`)
    t.same(symbolsOf(await get(`${path}?symbols=${both}&symbolStatus=HALT`)), ['ETHUSDT'], `${path}: the list, the halted ones`)
    t.same(await get(`${path}?symbols=${both}&symbolStatus=BREAK`), [], `${path}: none in BREAK`)
    t.same(await get(`${path}?symbol=ETHUSDT&symbolStatus=TRADING`), mismatch, `${path}: one symbol in another status`)
    t.same(await get(`${path}?symbolStatus=OPEN`), { code: -1130, msg: "Data sent for parameter 'symbolStatus' is not valid." })
  }
  t.same(symbolsOf(await get(`/api/v3/ticker?symbols=${both}&symbolStatus=TRADING`)), ['BTCUSDT'], 'the rolling window ticker')
  t.same(await get('/api/v3/ticker/tradingDay?symbol=ETHUSDT&symbolStatus=TRADING'), mismatch)
  const info = await get('/api/v3/exchangeInfo?symbolStatus=HALT')
  t.same(info.symbols.map((s: { symbol: string; status: string }) => [s.symbol, s.status]), [['ETHUSDT', 'HALT']])
  t.same(await get('/api/v3/exchangeInfo?symbol=BTCUSDT&symbolStatus=TRADING'), { code: -1128, msg: 'Combination of optional parameters invalid.' })
  // A market in BREAK shows it, and is found by it.
  await rig.run({ type: 'SetMarketStatus', marketId: ETHSPOT, status: 'BREAK' })
  t.same((await get('/api/v3/exchangeInfo?symbolStatus=BREAK')).symbols.map((s: { symbol: string; status: string }) => [s.symbol, s.status]),
    [['ETHUSDT', 'BREAK']])
  t.same(symbolsOf(await get(`/api/v3/ticker/price?symbols=${both}&symbolStatus=BREAK`)), ['ETHUSDT'])
})
