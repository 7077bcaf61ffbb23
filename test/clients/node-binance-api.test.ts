// The `node-binance-api` npm package, unmodified, pointed at a real exchange process by its
// `urls` option alone: futures REST (`fapi`) with figures worked out by hand; spot REST (`base`)
// and the spot market streams (`stream`: the spot stream host, /spot/ws/), its all-market
// mini tickers and its locally kept order book among them. (Its futures streams take no base
// URL: the package builds Binance's own host into them, so they are not driven here.)

import t from 'tap'
import Binance from 'node-binance-api'
import { eventually, startLiveExchange, type LiveAccount } from '../helpers/live-exchange.js'

const S = 'BTCUSDTPERP'

function clientFor(base: string, who: LiveAccount): Binance {
  const ws = base.replace(/^http/, 'ws')
  // `log`: its notes of streams closing at the end stay out of the test's output.
  return new Binance({ APIKEY: who.apiKey, APISECRET: who.secretKey, reconnect: false, log: () => undefined,
    urls: { base: `${base}/api/`, sapi: `${base}/sapi/`, fapi: `${base}/fapi/`, stream: `${ws}/spot/ws/`, combineStream: `${ws}/spot/stream?streams=` } })
}

/** Ends every stream the client opened (it would otherwise reconnect to an exchange that stopped). */
function closeStreams(c: Binance): void {
  for (const endpoint of Object.keys(c.websockets.subscriptions())) c.websockets.terminate(endpoint)
}

t.test('node-binance-api: futures REST', { timeout: 120_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const maker = clientFor(live.base, live.maker)
  const taker = clientFor(live.base, live.taker)

  t.same(await taker.futuresLeverage(S, 10), { leverage: 10, maxNotionalValue: '230000000', symbol: S })
  t.same(await taker.futuresPositionSideDual(), { dualSidePosition: false })
  // Its limit orders are post-only (GTX) unless told otherwise.
  const a = await maker.futuresSell(S, 0.01, 60000)
  const b = await maker.futuresSell(S, 0.01, 60300, { timeInForce: 'GTC' })
  t.match(await maker.futuresOrderStatus(S, { orderId: a.orderId }), { status: 'NEW', timeInForce: 'GTX', price: '60000.0' })
  t.match(await maker.futuresOrderStatus(S, { orderId: b.orderId }), { status: 'NEW', timeInForce: 'GTC', price: '60300.0' })
  const depth = await taker.futuresDepth(S)
  t.same([depth.bids, depth.asks], [[], [{ price: '60000.0', quantity: '0.010' }, { price: '60300.0', quantity: '0.010' }]])
  t.match(await taker.futuresQuote(S), { [S]: { askPrice: '60000.0', askQty: '0.010' } })

  // A market buy lifts both asks: 1203 for 0.020, commission 0.6015 at 0.05%.
  const take = await taker.futuresMarketBuy(S, 0.02, { newOrderRespType: 'RESULT' })
  t.match(take, { status: 'FILLED', executedQty: '0.020', cumQuote: '1203.0000', avgPrice: '60150.0' })
  t.match(await taker.futuresPositionRisk({ symbol: S }), [{ symbol: S, positionAmt: '0.020', entryPrice: '60150.0', leverage: '10' }])
  t.match(await taker.futuresBalance(), [{ asset: 'USDT', balance: '9999.39850000' }])
  // Typed as numbers by the package; Binance, and so the package's answer, has strings.
  const prices = await eventually(async () => (await taker.futuresPrices()) as unknown as Record<string, string>, (p) => p[S] === '60300.0')
  t.equal(prices[S], '60300.0', 'the last price')
  t.same((await taker.futuresUserTrades(S)).map((f) => [f.price, f.qty, f.commission, f.maker]),
    [['60000.0', '0.010', '0.30000000', false], ['60300.0', '0.010', '0.30150000', false]])
  const income = await eventually(() => taker.futuresIncome({ symbol: S }), (r) => r.length === 2)
  t.same(income.map((r: { incomeType: string; income: string }) => [r.incomeType, r.income]), [['COMMISSION', '-0.30000000'], ['COMMISSION', '-0.30150000']])

  // A stop order goes to the algo order API (POST /fapi/v1/algoOrder), as Binance now routes them.
  const stop = await taker.futuresOrder('STOP_MARKET', 'SELL', S, 0.02, undefined, { stopPrice: 58000, reduceOnly: 'true' })
  t.match(stop, { algoType: 'CONDITIONAL', orderType: 'STOP_MARKET', triggerPrice: '58000.0', algoStatus: 'NEW', reduceOnly: true })
  t.same((await taker.futuresOpenAlgoOrders(S)).map((o) => o.algoId), [(stop as unknown as { algoId: number }).algoId])
  t.match(await taker.futuresCancelAllAlgo(S), { code: 200 })

  // A resting bid, cancelled; the close-out at market, reduce-only: realized (60200 − 60150) × 0.02 = 1 less fees.
  const bid = await taker.futuresBuy(S, 0.01, 59000, { timeInForce: 'GTC' })
  t.same((await taker.futuresOpenOrders(S)).map((o) => o.orderId), [bid.orderId])
  t.match(await taker.futuresCancel(S, bid.orderId), { orderId: bid.orderId, status: 'CANCELED' })
  await maker.futuresBuy(S, 0.02, 60200, { timeInForce: 'GTC' })
  const out = await taker.futuresMarketSell(S, 0.02, { reduceOnly: 'true', newOrderRespType: 'RESULT' })
  t.match(out, { status: 'FILLED', cumQuote: '1204.0000', reduceOnly: true })
  t.same(await taker.futuresOpenOrders(S), [])
  t.match(await taker.futuresPositionRisk({ symbol: S }), [{ positionAmt: '0.000' }])
  // 10000 − 0.6015 + 1 − 0.602 (0.05% of 1204).
  t.match(await taker.futuresBalance(), [{ asset: 'USDT', balance: '9999.79650000' }])

  // A refusal is Binance's error, in the error the package throws.
  await t.rejects(taker.futuresBuy('NOPEUSDT', 0.01, 100), /-1121/)
  t.same(live.offMachine, [], 'no connection left this machine')
})

t.test('node-binance-api: spot REST and the spot stream host', { timeout: 120_000 }, async (t) => {
  // The market-making bot trades every market, spot ones too (no account here holds BTC to sell).
  const live = await startLiveExchange(t, ['--price-feed', 'random', '--bot', 'on', '--bot-ms', '200'])
  const c = clientFor(live.base, live.maker)
  t.teardown(() => closeStreams(c))

  const minis: Record<string, { close: string }>[] = []
  c.websockets.miniTicker((markets: Record<string, { close: string }>) => { minis.push(markets) })
  let book: { bids: [string, number][]; asks: [string, number][] } | undefined
  c.websockets.depthCache(['BTCUSDT'], (_symbol: string, depth: { bids: Record<string, number>; asks: Record<string, number> }) => {
    book = { bids: Object.entries(c.sortBids(depth.bids as never)), asks: Object.entries(c.sortAsks(depth.asks as never)) }
  })

  // REST: a bid far below the market rests, is read back and cancelled; its USDT is held meanwhile.
  const usdt = async () => ((await c.balance()) as Record<string, { available: string; onOrder: string }>).USDT!
  const before = await usdt()
  const placed = await c.buy('BTCUSDT', 0.01, 20000)
  t.match(placed, { symbol: 'BTCUSDT', status: 'NEW', price: '20000.00', origQty: '0.0100' })
  t.match(await c.orderStatus('BTCUSDT', placed.orderId), { status: 'NEW', type: 'LIMIT', side: 'BUY' })
  t.match(await usdt(), { available: (Number(before.available) - 200).toFixed(8), onOrder: '200.00000000' })
  t.same((await c.openOrders('BTCUSDT')).map((o: { orderId: number }) => o.orderId), [placed.orderId])
  t.match(await c.cancel('BTCUSDT', placed.orderId), { orderId: placed.orderId, status: 'CANCELED' })
  t.match(await usdt(), { available: before.available, onOrder: '0.00000000' })

  // The spot host's !miniTicker@arr: spot markets only.
  await eventually(async () => minis.length, (n) => n >= 2)
  const symbols = [...new Set(minis.flatMap((m) => Object.keys(m)))].sort()
  t.ok(symbols.length > 0 && symbols.every((s) => s === 'BTCUSDT' || s === 'ETHUSDT'), `mini tickers of ${symbols}`)
  // The kept book: diffs applied on the REST snapshot, in spot's precision, never crossed.
  await eventually(async () => book, (b) => b !== undefined && b.bids.length > 0 && b.asks.length > 0)
  const [[bidPrice], [askPrice]] = [book!.bids[0]!, book!.asks[0]!]
  t.match([bidPrice, askPrice], [/^\d+\.\d{2}$/, /^\d+\.\d{2}$/])
  t.ok(Number(bidPrice) < Number(askPrice), `best bid ${bidPrice} below best ask ${askPrice}`)
  closeStreams(c)
  t.same(live.offMachine, [], 'no connection left this machine')
})
