// The `binance-api-node` npm package, unmodified, pointed at a real exchange process by its
// base URL options alone (test/helpers/node-clients.ts): futures REST, and the futures streams
// on the hosts Binance now splits them across (/public, /market, /private). Two accounts trade;
// the REST answers, the market streams and the user data stream the client turns into its own
// objects are compared with figures worked out by hand. (Its spot streams: spot-stream-host.test.ts.)

import t from 'tap'
import { startLiveExchange } from '../helpers/live-exchange.js'
import { binanceApiNode, box } from '../helpers/node-clients.js'

const S = 'BTCUSDTPERP'

/**
 * futuresOrder with plain strings (the package types them as its own enums), and its answer
 * (typed as an order's or an algo order's) as the order it is.
 */
const place = (c: ReturnType<typeof binanceApiNode>, p: Record<string, string>): Promise<{ orderId: number } & Record<string, unknown>> =>
  c.futuresOrder(p as never) as Promise<never>

t.test('binance-api-node: futures REST, the split stream hosts and the user data stream', { timeout: 120_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const maker = binanceApiNode(live.base, live.maker)
  const taker = binanceApiNode(live.base, live.taker)

  t.same((await taker.futuresExchangeInfo()).symbols.map((s: { symbol: string }) => s.symbol), ['BTCUSDTPERP', 'ETHUSDTPERP'])
  t.same(await taker.futuresCommissionRate({ symbol: S }), { symbol: S, makerCommissionRate: '0.000200', takerCommissionRate: '0.000500' })
  t.same(await taker.futuresLeverage({ symbol: S, leverage: 10 }), { leverage: 10, maxNotionalValue: '230000000', symbol: S })

  // The streams, each on the host Binance routes it to.
  const books = box<{ symbol: string; bestAsk: string; bestAskQnt: string }>()
  const aggs = box<{ symbol: string; price: string; quantity: string; isBuyerMaker: boolean }>()
  const user = box<Record<string, unknown>>()
  const closers = [
    taker.ws.futuresBookTicker(S, books.push as never),
    taker.ws.futuresAggTrades(S, aggs.push as never),
    await taker.ws.futuresUser(user.push as never),
  ]

  // The maker rests two asks; the taker's market buy lifts both: 600 + 603 = 1203 for 0.020.
  const a = await place(maker, { symbol: S, side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.01', price: '60000' })
  await place(maker, { symbol: S, side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.01', price: '60300' })
  t.match(await books.until((b) => b.bestAsk === '60000.0'), { symbol: S, bestAsk: '60000.0', bestAskQnt: '0.010' }, '/public: the book ticker')
  const book = await taker.futuresBook({ symbol: S, limit: 5 })
  t.same([book.bids, book.asks], [[], [{ price: '60000.0', quantity: '0.010' }, { price: '60300.0', quantity: '0.010' }]])

  const take = await place(taker, { symbol: S, side: 'BUY', type: 'MARKET', quantity: '0.02', newOrderRespType: 'RESULT' })
  t.match(take, { status: 'FILLED', executedQty: '0.020', cumQuote: '1203.0000', avgPrice: '60150.0' })
  t.match(await maker.futuresGetOrder({ symbol: S, orderId: a.orderId }), { status: 'FILLED', executedQty: '0.010', cumQuote: '600.0000' })

  // /market: one aggregate trade per price the taker's order reached.
  await aggs.until((x) => x.price === '60300.0')
  t.same(aggs.items.map((x) => [x.symbol, x.price, x.quantity, x.isBuyerMaker]),
    [[S, '60000.0', '0.010', false], [S, '60300.0', '0.010', false]])
  t.match(await books.until((b) => b.bestAsk === '0.0'), { bestAskQnt: '0.000' }, 'the asks are gone')

  // /private: the fill as the client reads it, and the balance and position it left.
  const filled = await user.until((e) => e.eventType === 'ORDER_TRADE_UPDATE' && e.orderStatus === 'FILLED')
  t.match(filled, { symbol: S, side: 'BUY', orderType: 'MARKET', orderId: take.orderId, totalTradeQuantity: '0.020', averagePrice: '60150.0',
    priceLastTrade: '60300.0', lastTradeQuantity: '0.010', commission: '0.30150000', commissionAsset: 'USDT', isMaker: false })
  const account = await user.until((e) => e.eventType === 'ACCOUNT_UPDATE'
    && (e.positions as { positionAmount: string }[]).some((p) => p.positionAmount === '0.020'))
  t.match(account, { eventReasonType: 'ORDER', balances: [{ asset: 'USDT', walletBalance: '9999.39850000' }],
    positions: [{ symbol: S, positionAmount: '0.020', entryPrice: '60150.0', positionSide: 'BOTH' }] })

  // REST agrees: commissions are rate × notional (0.3 + 0.3015).
  t.same((await taker.futuresUserTrades({ symbol: S })).map((f) => [f.price, f.qty, f.commission, f.maker]),
    [['60000.0', '0.010', '0.30000000', false], ['60300.0', '0.010', '0.30150000', false]])
  t.match(await taker.futuresAccountBalance(), [{ asset: 'USDT', balance: '9999.39850000' }])
  t.match(await taker.futuresPositionRisk({ symbol: S }), [{ symbol: S, positionAmt: '0.020', entryPrice: '60150.0', leverage: '10' }])

  // A resting bid amended and cancelled; a protective stop through the algo order API.
  const bid = await place(taker, { symbol: S, side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.01', price: '59000' })
  t.match(await taker.futuresUpdateOrder({ symbol: S, orderId: bid.orderId, side: 'BUY', quantity: '0.01', price: '59100' } as never),
    { orderId: bid.orderId, price: '59100.0', status: 'NEW' })
  t.same((await taker.futuresOpenOrders({ symbol: S })).map((o) => [o.orderId, o.price]), [[bid.orderId, '59100.0']])
  t.match(await taker.futuresCancelOrder({ symbol: S, orderId: bid.orderId }), { status: 'CANCELED' })
  const stop = await taker.futuresCreateAlgoOrder({ symbol: S, side: 'SELL', type: 'STOP_MARKET', algoType: 'CONDITIONAL',
    triggerPrice: '58000', quantity: '0.02', reduceOnly: 'true' } as never)
  t.match(stop, { algoType: 'CONDITIONAL', orderType: 'STOP_MARKET', algoStatus: 'NEW', triggerPrice: '58000.0', quantity: '0.020', reduceOnly: true })
  t.same((await taker.futuresGetOpenAlgoOrders({ symbol: S })).map((o: { algoId: number }) => o.algoId), [(stop as { algoId: number }).algoId])
  t.match(await taker.futuresCancelAllAlgoOpenOrders({ symbol: S }), { code: 200 })
  t.same(await taker.futuresGetOpenAlgoOrders({ symbol: S }), [])

  // Refusals reach the caller as Binance's codes, and change nothing.
  await t.rejects(place(taker, { symbol: 'NOPEUSDT', side: 'BUY', type: 'MARKET', quantity: '0.01' }), { code: -1121 })
  await t.rejects(place(taker, { symbol: S, side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0001', price: '59000' }),
    { code: -1111 })
  t.same(await taker.futuresOpenOrders({ symbol: S }), [])
  // Closing the user stream deletes its listen key (DELETE /fapi/v1/listenKey): before the exchange stops.
  await Promise.all(closers.map((close) => close({ delay: 0, fastClose: true, keepClosed: true })))
  t.same(live.offMachine, [], 'no connection left this machine')
})
