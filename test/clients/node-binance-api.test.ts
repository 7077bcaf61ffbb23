// The `node-binance-api` npm package, unmodified, pointed at a real exchange process by its
// `urls` option alone (test/helpers/node-clients.ts): futures REST with figures worked out by
// hand. (Its futures streams take no base URL: the package builds Binance's own host into
// them, so they are not driven here. Its spot REST and streams: spot-stream-host.test.ts.)

import t from 'tap'
import { eventually, startLiveExchange } from '../helpers/live-exchange.js'
import { nodeBinanceApi } from '../helpers/node-clients.js'

const S = 'BTCUSDTPERP'

t.test('node-binance-api: futures REST', { timeout: 120_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const maker = nodeBinanceApi(live.base, live.maker)
  const taker = nodeBinanceApi(live.base, live.taker)

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
  // It reads v3, which lists only symbols with a position or open orders (as Binance's v3): none now.
  t.same(await taker.futuresPositionRisk({ symbol: S }), [])
  // 10000 − 0.6015 + 1 − 0.602 (0.05% of 1204).
  t.match(await taker.futuresBalance(), [{ asset: 'USDT', balance: '9999.79650000' }])

  // A refusal is Binance's error, in the error the package throws.
  await t.rejects(taker.futuresBuy('NOPEUSDT', 0.01, 100), /-1121/)
  t.same(live.offMachine, [], 'no connection left this machine')
})
