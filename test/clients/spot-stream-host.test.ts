// The spot stream host (`/spot/ws…`, `/spot/stream…`: docs/WEBSOCKET.md) with three unmodified
// spot clients, each given it as its spot stream base URL: the all-market tickers there are the
// spot markets' (on the plain paths, USD-M's perpetuals'). ccxt pro's watchTickers with no
// symbols; binance-api-node's all-market tickers and its spot user data (on the WebSocket API);
// node-binance-api's mini tickers and kept order book, and its spot REST. One exchange serves
// the file, its market-making bot trading every market (no account here holds BTC to sell, so
// the spot markets trade only through it): what the streams carry is checked by kind and form.

import t from 'tap'
import ccxt, { type Ticker } from 'ccxt'
import { eventually, startLiveExchange } from '../helpers/live-exchange.js'
import { binanceApiNode, box, closeStreams, nodeBinanceApi } from '../helpers/node-clients.js'

const live = await startLiveExchange(t, ['--price-feed', 'random', '--bot', 'on', '--bot-ms', '200'])
const SPOT = new Set(['BTCUSDT', 'ETHUSDT'])
const PRICE = /^\d+\.\d{2}$/

/** ccxt's spot client on our host: REST and the WebSocket API where ccxt has them, the spot streams on `streams`. */
function ccxtSpot(streams: string) {
  const ws = live.base.replace(/^http/, 'ws')
  const api = new ccxt.pro.binance().urls.api as Record<string, unknown>
  const rehost = (tree: unknown): unknown => typeof tree === 'string' ? tree.replace(/^https:\/\/[^/]+/, live.base).replace(/^wss:\/\/[^/]+/, ws)
    : tree !== null && typeof tree === 'object' ? Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, rehost(v)])) : tree
  const urls = rehost(api) as { ws: Record<string, unknown> }
  urls.ws.spot = `${ws}${streams}`
  return new ccxt.pro.binance({ apiKey: live.maker.apiKey, secret: live.maker.secretKey, timeout: 10_000, urls: { api: urls },
    options: { defaultType: 'spot', fetchMarkets: { types: ['spot'] } } })
}

t.test('ccxt pro binance (spot): watchTickers with no symbols reads the spot host\'s all-market tickers', { timeout: 60_000 }, async (t) => {
  const ex = ccxtSpot('/spot/ws')
  t.teardown(() => ex.close())
  // ccxt refuses plain ws:// URLs until its node:http agent is loaded (its one-time setup).
  await ex.loadHttpProxyAgent()
  await ex.loadMarkets()
  // By default ccxt reads !miniTicker@arr; `name: 'ticker'` the full !ticker@arr, with the best levels.
  const mini = new Set<string>()
  for (let i = 0; i < 3; i++) for (const symbol of Object.keys(await ex.watchTickers())) mini.add(symbol)
  t.ok(mini.size > 0 && [...mini].every((s) => s === 'BTC/USDT' || s === 'ETH/USDT'), `the spot markets: ${[...mini]}`)
  // (Until the bot has quoted a book, a side of it may be empty: read until both are there.)
  const full = new Set<string>()
  let ticker: Ticker | undefined
  for (let i = 0; i < 20 && !(ticker?.bid! > 0 && ticker?.ask! > 0); i++) {
    const tickers = Object.values(await ex.watchTickers(undefined, { name: 'ticker' }))
    for (const x of tickers) full.add(String(x.symbol))
    ticker = tickers.find((x) => x.bid! > 0 && x.ask! > 0)
  }
  t.ok(full.size > 0 && [...full].every((s) => s === 'BTC/USDT' || s === 'ETH/USDT'), `!ticker@arr: ${[...full]}`)
  t.ok(ticker!.bid! > 0 && ticker!.ask! > ticker!.bid! && ticker!.last! > 0, `bid ${ticker?.bid}, ask ${ticker?.ask}, last ${ticker?.last}`)
  // The spot book ticker comes as Binance spot's, without an event type: ccxt reads it by its letters.
  let quote = (await ex.watchBidsAsks(['BTC/USDT']))['BTC/USDT']!
  for (let i = 0; i < 50 && !(quote.bid! > 0 && quote.ask! > 0); i++) quote = (await ex.watchBidsAsks(['BTC/USDT']))['BTC/USDT']!
  t.ok(quote.bid! > 0 && quote.ask! > quote.bid! && quote.bidVolume! > 0, `bid ${quote.bid}, ask ${quote.ask}`)

  // On the plain path (the USD-M host) the same call gets the perpetuals, which a spot client has no market for.
  const plain = ccxtSpot('/ws')
  t.teardown(() => plain.close())
  await plain.loadHttpProxyAgent()
  await plain.loadMarkets()
  t.ok(Object.keys(await plain.watchTickers()).every((s) => s.endsWith('PERP')), 'the perpetuals, as raw ids')
})

t.test('binance-api-node: all-market tickers on the spot host, and the spot user data stream', { timeout: 60_000 }, async (t) => {
  const client = binanceApiNode(live.base, live.maker)
  const spotMini = box<{ symbol: string }[]>()
  const spotFull = box<{ symbol: string }[]>()
  const futures = box<{ symbol: string }[]>()
  const user = box<Record<string, unknown>>()
  // !miniTicker@arr and !ticker@arr on the spot host; !miniTicker@arr on USD-M's /market.
  const closers = [client.ws.allTickers(spotMini.push as never), client.ws.allTickersDeprecated(spotFull.push as never),
    client.ws.futuresAllTickers(futures.push as never), await client.ws.user(user.push as never)]
  for (const b of [spotMini, spotFull, futures]) await b.until((arr) => arr.length > 0)
  const symbols = (b: { items: { symbol: string }[][] }) => [...new Set(b.items.flat().map((x) => x.symbol))].sort()
  for (const [name, b] of [['!miniTicker@arr', spotMini], ['!ticker@arr', spotFull]] as const) {
    t.ok(symbols(b).every((s) => SPOT.has(s)), `spot host ${name}: ${symbols(b)}`)
  }
  t.ok(symbols(futures).every((s) => s.endsWith('PERP')), `futures host: ${symbols(futures)}`)
  t.match(spotFull.items[0]![0], { eventType: '24hrTicker', curDayClose: PRICE, prevDayClose: PRICE, bestBid: PRICE, bestAsk: PRICE },
    'the client reads the spot ticker\'s previous close and best levels')

  // The spot user data (subscribed on the WebSocket API, as Binance spot now has it): a bid placed and
  // cancelled, its 200 USDT held and freed.
  const bid = await client.order({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: '0.01', price: '20000' } as never)
  await client.cancelOrder({ symbol: 'BTCUSDT', orderId: bid.orderId })
  await user.until((e) => e.eventType === 'executionReport' && e.orderStatus === 'CANCELED')
  t.same(user.items.filter((e) => e.eventType === 'executionReport').map((e) => [e.orderId, e.executionType, e.price, e.quantity]),
    [[bid.orderId, 'NEW', '20000.00', '0.0100'], [bid.orderId, 'CANCELED', '20000.00', '0.0100']])
  const locked = user.items.filter((e) => e.eventType === 'outboundAccountPosition')
    .map((e) => (e.balances as { asset: string; locked: string }[]).find((b) => b.asset === 'USDT')?.locked)
  t.same(locked, ['200.00000000', '0.00000000'])
  t.match(await client.prices(), { BTCUSDT: PRICE, ETHUSDT: PRICE }, 'REST: the spot prices')
  await Promise.all(closers.map((close) => close({ delay: 0, fastClose: true, keepClosed: true })))
})

t.test('node-binance-api: spot REST, mini tickers and the kept order book on the spot host', { timeout: 60_000 }, async (t) => {
  const who = await live.newAccount(['--fund', '20000'])
  const c = nodeBinanceApi(live.base, who)
  t.teardown(() => closeStreams(c))
  const minis: Record<string, { close: string }>[] = []
  c.websockets.miniTicker((markets: Record<string, { close: string }>) => { minis.push(markets) })
  let book: { bids: [string, number][]; asks: [string, number][] } | undefined
  c.websockets.depthCache(['BTCUSDT'], (_symbol: string, depth: { bids: Record<string, number>; asks: Record<string, number> }) => {
    book = { bids: Object.entries(c.sortBids(depth.bids as never)), asks: Object.entries(c.sortAsks(depth.asks as never)) }
  })

  // REST: a bid far below the market rests, is read back and cancelled; its USDT is held meanwhile.
  const usdt = async () => ((await c.balance()) as Record<string, { available: string; onOrder: string }>).USDT!
  t.same(await usdt(), { available: '10000.00000000', onOrder: '0.00000000' })
  const placed = await c.buy('BTCUSDT', 0.01, 20000)
  t.match(placed, { symbol: 'BTCUSDT', status: 'NEW', price: '20000.00', origQty: '0.0100' })
  t.match(await c.orderStatus('BTCUSDT', placed.orderId), { status: 'NEW', type: 'LIMIT', side: 'BUY' })
  t.same(await usdt(), { available: '9800.00000000', onOrder: '200.00000000' })
  t.same((await c.openOrders('BTCUSDT')).map((o: { orderId: number }) => o.orderId), [placed.orderId])
  t.match(await c.cancel('BTCUSDT', placed.orderId), { orderId: placed.orderId, status: 'CANCELED' })
  t.same(await usdt(), { available: '10000.00000000', onOrder: '0.00000000' })

  // The spot host's !miniTicker@arr: spot markets only.
  await eventually(async () => minis.length, (n) => n >= 2)
  const symbols = [...new Set(minis.flatMap((m) => Object.keys(m)))].sort()
  t.ok(symbols.length > 0 && symbols.every((s) => SPOT.has(s)), `mini tickers of ${symbols}`)
  // The kept book: diffs applied on the REST snapshot, in spot's precision, never crossed.
  await eventually(async () => book, (b) => b !== undefined && b.bids.length > 0 && b.asks.length > 0)
  const [[bidPrice], [askPrice]] = [book!.bids[0]!, book!.asks[0]!]
  t.match([bidPrice, askPrice], [PRICE, PRICE])
  t.ok(Number(bidPrice) < Number(askPrice), `best bid ${bidPrice} below best ask ${askPrice}`)
  closeStreams(c)
  t.same(live.offMachine, [], 'no connection left this machine')
})
