// ccxt's spot client (`binance`), unmodified, pointed at a real exchange process by base URL
// only, with its markets limited to spot: an order placed, edited (editOrder sends
// /api/v3/order/cancelReplace), read back and canceled; the fee; a stop-limit by triggerPrice; a
// trailing stop by trailingPercent; an iceberg by icebergQty; a pegged order by pegPriceType. Then
// ccxt pro's spot user data: watchOrders and watchBalance, which subscribe on the spot
// WebSocket API (userDataStream.subscribe.signature on /ws-api/v3). And ccxt's `binance` with
// its default options, which loads spot, USD-M and COIN-M markets. One exchange serves the
// file (a start is most of a case's time); each case after the first trades as an account of
// its own, so none reads another's orders.

import t from 'tap'
import ccxt, { type Exchange } from 'ccxt'
import { startLiveExchange, type LiveAccount } from '../helpers/live-exchange.js'

const S = 'BTC/USDT'

/** Every ccxt base moved to our host (nested ones too): https→http, wss→ws. */
function rehost(tree: unknown, base: string): unknown {
  return typeof tree === 'string' ? tree.replace(/^https:\/\/[^/]+/, base).replace(/^wss:\/\/[^/]+/, base.replace(/^http/, 'ws'))
    : tree !== null && typeof tree === 'object' ? Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, rehost(v, base)])) : tree
}

const SPOT_OPTIONS = { defaultType: 'spot', fetchMarkets: { types: ['spot'] } }
const live = await startLiveExchange(t)
/** A new account: 10,000 USDT spot, 10,000 perp. */
const fresh = (): Promise<LiveAccount> => live.newAccount(['--fund', '20000'])

function spotClientFor(base: string, who: LiveAccount): Exchange {
  return new ccxt.binance({ apiKey: who.apiKey, secret: who.secretKey, urls: { api: rehost(new ccxt.binance().urls.api, base) },
    timeout: 10_000, options: SPOT_OPTIONS })
}

/** ccxt pro's spot client, its markets loaded, closed when the test ends. */
async function proClientFor(t: { teardown(fn: () => unknown): void }, base: string, who: LiveAccount): Promise<Exchange> {
  const ex = new ccxt.pro.binance({ apiKey: who.apiKey, secret: who.secretKey, timeout: 10_000,
    urls: { api: rehost(new ccxt.pro.binance().urls.api, base) }, options: SPOT_OPTIONS })
  t.teardown(() => ex.close())
  // ccxt refuses plain ws:// URLs until its node:http agent is loaded (its one-time setup).
  await ex.loadHttpProxyAgent()
  await ex.loadMarkets()
  return ex
}

t.test('ccxt binance (spot): place, edit, read back, cancel', { timeout: 60_000 }, async (t) => {
  const ex = spotClientFor(live.base, live.maker)
  t.same(Object.keys(await ex.loadMarkets()).sort(), ['BTC/USDT', 'ETH/USDT'])

  const placed = await ex.createOrder(S, 'limit', 'buy', 0.01, 20000)
  t.match(placed, { symbol: S, type: 'limit', side: 'buy', price: 20000, amount: 0.01, status: 'open' })
  const edited = await ex.editOrder(placed.id!, S, 'limit', 'buy', 0.02, 21000)
  t.match(edited, { symbol: S, type: 'limit', side: 'buy', price: 21000, amount: 0.02, status: 'open' })
  t.not(edited.id, placed.id, 'a new order replaces the old')
  t.match(await ex.fetchOrder(placed.id!, S), { status: 'canceled' })
  const open = await ex.fetchOpenOrders(S)
  t.same(open.map((o) => [o.id, o.price, o.amount]), [[edited.id, 21000, 0.02]])
  // Editing an order that is gone: the cancel half fails, nothing new is placed.
  await t.rejects(ex.editOrder(placed.id!, S, 'limit', 'buy', 0.02, 22000), ccxt.ExchangeError)
  t.equal((await ex.fetchOpenOrders(S)).length, 1)
  t.match(await ex.cancelOrder(edited.id!, S), { id: edited.id, status: 'canceled' })

  t.match(await ex.fetchTradingFee(S), { symbol: S, maker: 0.001, taker: 0.001 })

  // A stop-limit by triggerPrice (ccxt sends STOP_LOSS_LIMIT with stopPrice): open, not working, holding its cost.
  const stop = await ex.createOrder(S, 'limit', 'buy', 0.01, 21000, { triggerPrice: 21000 })
  t.match(stop, { type: 'limit', side: 'buy', status: 'open', info: { type: 'STOP_LOSS_LIMIT' } })
  t.match(await ex.fetchOrder(stop.id!, S), { triggerPrice: 21000, price: 21000, status: 'open', info: { isWorking: false, stopPrice: '21000.00' } })
  t.match((await ex.fetchBalance()).USDT, { used: 210 }, 'its 210 USDT held')
  t.match(await ex.cancelOrder(stop.id!, S), { status: 'canceled' })
  t.match((await ex.fetchBalance()).USDT, { used: 0 })

  // A trailing stop by trailingPercent (ccxt sends trailingDelta in BIPS), trailing once the price reaches 60,000.
  const trail = await ex.createOrder(S, 'market', 'buy', 0.001, undefined,
    { trailingPercent: 1.5, trailingTriggerPrice: 60000, stopLossOrTakeProfit: 'stopLoss' })
  t.match(trail, { side: 'buy', status: 'open', info: { type: 'STOP_LOSS', trailingDelta: 150 } })
  t.match(await ex.fetchOrder(trail.id!, S), { triggerPrice: 60000, status: 'open',
    info: { type: 'STOP_LOSS', stopPrice: '60000.00', trailingDelta: 150, trailingTime: -1, isWorking: false } })
  t.match((await ex.fetchBalance()).USDT, { used: 60 }, 'its cost at the stop price held')
  t.match(await ex.cancelOrder(trail.id!, S), { status: 'canceled' })

  // An iceberg by Binance's own icebergQty, which ccxt passes on: the book shows one slice of it.
  const iceberg = await ex.createOrder(S, 'limit', 'buy', 0.003, 20000, { icebergQty: 0.001 })
  t.match(await ex.fetchOrder(iceberg.id!, S), { amount: 0.003, status: 'open', info: { icebergQty: '0.0010' } })
  t.same((await ex.fetchOrderBook(S)).bids, [[20000, 0.001]], 'the book shows 0.001 of the 0.003')
  t.match((await ex.fetchBalance()).USDT, { used: 60 }, 'all of it held')
  t.match(await ex.cancelOrder(iceberg.id!, S), { status: 'canceled' })

  // A pegged order by Binance's own pegPriceType, which ccxt passes on: it joins the best bid
  // (the iceberg's 20,000.00 is gone, so a fresh bid at 19,000.00); the price sent is recorded.
  const bid = await ex.createOrder(S, 'limit', 'buy', 0.001, 19000)
  const pegged = await ex.createOrder(S, 'limit', 'buy', 0.002, 18000, { pegPriceType: 'PRIMARY_PEG' })
  t.match(await ex.fetchOrder(pegged.id!, S), { price: 18000, status: 'open', info: { pegPriceType: 'PRIMARY_PEG', peggedPrice: '19000.00' } })
  t.same((await ex.fetchOrderBook(S)).bids, [[19000, 0.003]], 'it rests at the best bid, behind it')
  for (const o of [bid, pegged]) t.match(await ex.cancelOrder(o.id!, S), { status: 'canceled' })
})

t.test('ccxt binance with its default options: spot and USD-M markets (COIN-M has none)', { timeout: 60_000 }, async (t) => {
  const who = await fresh()
  // ccxt loads spot, linear and inverse markets by default; /dapi/v1/exchangeInfo lists none.
  const ex = new ccxt.binance({ apiKey: who.apiKey, secret: who.secretKey, timeout: 10_000,
    urls: { api: rehost(new ccxt.binance().urls.api, live.base) } })
  t.same(Object.keys(await ex.loadMarkets()).sort(), ['BTC/USDT', 'BTC/USDT:USDT', 'ETH/USDT', 'ETH/USDT:USDT'])
  t.match(ex.market('BTC/USDT:USDT'), { id: 'BTCUSDTPERP', linear: true, swap: true, settle: 'USDT' })
  t.match((await ex.fetchBalance()).USDT, { free: 10_000 }, 'the spot wallet')
  t.match((await ex.fetchBalance({ type: 'future' })).USDT, { free: 10_000 }, 'the perp wallet')
})

t.test('ccxt pro binance (spot): watchOrders and watchBalance on the WebSocket API subscription', { timeout: 60_000 }, async (t) => {
  const ex = await proClientFor(t, live.base, await fresh())
  const before = await ex.fetchBalance()
  // The subscription is confirmed before anything is placed, so no event can come before it.
  await ex.authenticate({ type: 'spot' })

  const orders = ex.watchOrders(S)
  const balance = ex.watchBalance()
  const placed = await ex.createOrder(S, 'limit', 'buy', 0.01, 20000)
  const seen = await orders
  t.match(seen.at(-1), { id: placed.id, symbol: S, type: 'limit', side: 'buy', price: 20000, amount: 0.01, filled: 0, status: 'open' })
  // 200 USDT locked: moved from free to used.
  const b = await balance
  t.equal(b.USDT?.used, 200)
  t.equal(b.USDT?.free, before.USDT!.free! - 200)
  // The spot book over the market streams (ccxt's spot connections are /ws/<n>, then SUBSCRIBE).
  const book = await ex.watchOrderBook(S)
  t.ok(book.bids.some(([p, q]) => p === 20000 && q === 0.01), 'the bid is in the spot book')

  const canceled = ex.watchOrders(S)
  const unlocked = ex.watchBalance()
  await ex.cancelOrder(placed.id!, S)
  t.match((await canceled).find((o) => o.id === placed.id), { status: 'canceled' })
  const released = await unlocked
  t.same([released.USDT?.free, released.USDT?.used], [before.USDT!.free, 0])
})

t.test('ccxt pro binance (spot): trading and reading over the WebSocket API (the *Ws methods)', { timeout: 60_000 }, async (t) => {
  const ex = await proClientFor(t, live.base, await fresh())

  // (ccxt parses this answer as a futures balance, so only its raw form is compared.)
  const balance = await ex.fetchBalanceWs()
  t.same((balance.info as { balances: unknown }).balances, (await ex.fetchBalance()).info.balances, 'account.status reads what REST reads')
  const placed = await ex.createOrderWs(S, 'limit', 'buy', 0.01, 20000)
  t.match(placed, { symbol: S, type: 'limit', side: 'buy', price: 20000, amount: 0.01, status: 'open' })
  t.match(await ex.fetchOrderWs(placed.id!, S), { id: placed.id, status: 'open' })
  const edited = await ex.editOrderWs(placed.id!, S, 'limit', 'buy', 0.02, 21000)
  t.match(edited, { symbol: S, price: 21000, amount: 0.02, status: 'open' })
  t.same((await ex.fetchOpenOrdersWs(S)).map((o) => o.id), [edited.id], 'order.cancelReplace replaced it')
  t.match(await ex.cancelOrderWs(edited.id!, S), { id: edited.id, status: 'canceled' })
  t.same((await ex.fetchOrdersWs(S)).map((o) => [o.id, o.status]), [[placed.id, 'canceled'], [edited.id, 'canceled']])
  t.same(await ex.fetchMyTradesWs(S), [], 'no fills')
  t.same(await ex.fetchOHLCVWs(S, '1m'), await ex.fetchOHLCV(S, '1m'), 'klines over the WebSocket API and REST alike')
  t.same(live.offMachine, [], 'no connection left this machine')
})
