// The `binance` npm package, unmodified, pointed at a real exchange process by its `baseUrl`
// option alone: USDMClient for futures market data, orders, account and positions, and
// MainClient (same package, same option) for the wallet calls, transfers, a withdrawal and
// the deposit and withdrawal history. Two accounts trade with each other; every answer is
// compared, as the exact strings Binance would print, with the state worked out by hand.

import t from 'tap'
import { MainClient, USDMClient, type UniversalTransferParams } from 'binance'
import { eventually, startLiveExchange, type LiveAccount } from '../helpers/live-exchange.js'

const S = 'BTCUSDTPERP'

/** A USDT amount as balances and commissions print it: 8 decimals. */
const usdt = (n: number): string => n.toFixed(8)

function clients(base: string, who: LiveAccount): { futures: USDMClient; wallet: MainClient } {
  const keys = { api_key: who.apiKey, api_secret: who.secretKey, baseUrl: base }
  return { futures: new USDMClient(keys), wallet: new MainClient(keys) }
}

interface Rejection { code: number; message: string }

t.test('binance USDMClient and MainClient: a full scenario against the gateway', { timeout: 120_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const maker = clients(live.base, live.maker)
  const taker = clients(live.base, live.taker)
  const m = maker.futures
  const k = taker.futures

  const info = await m.getExchangeInfo()
  t.same(info.symbols.map((s) => s.symbol), ['BTCUSDTPERP', 'ETHUSDTPERP'])
  const btc = info.symbols.find((s) => s.symbol === S)!
  t.match(btc, { pair: 'BTCUSDT', contractType: 'PERPETUAL', baseAsset: 'BTC', quoteAsset: 'USDT', marginAsset: 'USDT',
    pricePrecision: 1, quantityPrecision: 3 })
  t.match(btc.filters, [{ filterType: 'PRICE_FILTER', tickSize: '0.1' }, { filterType: 'LOT_SIZE', stepSize: '0.001', minQty: '0.001' }])
  t.match(btc.filters.find((f) => f.filterType === 'MIN_NOTIONAL'), { notional: '100' })
  const rates = await m.getAccountCommissionRate({ symbol: S })
  t.same(rates, { symbol: S, makerCommissionRate: '0.000200', takerCommissionRate: '0.000500' })
  const makerRate = Number(rates.makerCommissionRate)
  const takerRate = Number(rates.takerCommissionRate)

  t.same(await m.setLeverage({ symbol: S, leverage: 10 }), { leverage: 10, maxNotionalValue: '230000000', symbol: S })
  t.same(await m.getCurrentPositionMode(), { dualSidePosition: false })
  t.same(await m.getMultiAssetsMode(), { multiAssetsMargin: false })

  // Resting sells: GTC and post-only (GTX).
  const a = await m.submitNewOrder({ symbol: S, side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: 0.01, price: 60000,
    newOrderRespType: 'RESULT' })
  t.match(a, { symbol: S, status: 'NEW', price: '60000.0', origQty: '0.010', executedQty: '0.000', timeInForce: 'GTC',
    type: 'LIMIT', side: 'SELL', reduceOnly: false })
  const b = await m.submitNewOrder({ symbol: S, side: 'SELL', type: 'LIMIT', timeInForce: 'GTX', quantity: 0.01, price: 60300 })
  t.match(b, { symbol: S, orderId: a.orderId + 1 }, 'ACK by default: the ids')
  // A post-only buy at the ask would take: -5022, nothing changes.
  await t.rejects(k.submitNewOrder({ symbol: S, side: 'BUY', type: 'LIMIT', timeInForce: 'GTX', quantity: 0.01, price: 60000 }),
    { code: -5022 })
  const book = await k.getOrderBook({ symbol: S, limit: 5 })
  t.same([book.bids, book.asks], [[], [['60000.0', '0.010'], ['60300.0', '0.010']]])

  // The taker lifts both asks: 600 + 603 = 1203 for 0.020, average 60150.
  const take = await k.submitNewOrder({ symbol: S, side: 'BUY', type: 'MARKET', quantity: 0.02, newOrderRespType: 'RESULT' })
  t.match(take, { status: 'FILLED', executedQty: '0.020', cumQuote: '1203.0000', type: 'MARKET' })
  t.equal(Number(take.avgPrice), 60150)
  t.match(await m.getOrder({ symbol: S, orderId: a.orderId }), { status: 'FILLED', executedQty: '0.010', cumQuote: '600.0000' })
  t.match(await m.getOrder({ symbol: S, orderId: b.orderId }), { status: 'FILLED', timeInForce: 'GTX', cumQuote: '603.0000' })

  // Reduce-only: the taker offers half back at 60200; a reduce-only buy would grow the long.
  const ro = await k.submitNewOrder({ symbol: S, side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: 0.01, price: 60200,
    reduceOnly: 'true', newOrderRespType: 'RESULT' })
  t.match(ro, { status: 'NEW', reduceOnly: true })
  const refused = await k.submitNewOrder({ symbol: S, side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: 0.01, price: 59000,
    reduceOnly: 'true' }).then(() => undefined, (e: Rejection) => e)
  t.match(refused, { code: -2022, message: 'ReduceOnly Order is rejected.' })
  const close = await m.submitNewOrder({ symbol: S, side: 'BUY', type: 'MARKET', quantity: 0.01, newOrderRespType: 'RESULT' })
  t.match(close, { status: 'FILLED', executedQty: '0.010', cumQuote: '602.0000' })
  t.match(await k.getOrder({ symbol: S, orderId: ro.orderId }), { status: 'FILLED', reduceOnly: true })

  // Fills with their commissions (rate × notional) and realized PnL (0.01 × (60200 − 60150)).
  const makerFills = await m.getAccountTrades({ symbol: S })
  t.same(makerFills.map((f) => [f.id, f.orderId, f.side, f.price, f.qty, f.quoteQty, f.commission, f.realizedPnl, f.maker]), [
    [1, a.orderId, 'SELL', '60000.0', '0.010', '600.0000', usdt(600 * makerRate), usdt(0), true],
    [2, b.orderId, 'SELL', '60300.0', '0.010', '603.0000', usdt(603 * makerRate), usdt(0), true],
    [3, close.orderId, 'BUY', '60200.0', '0.010', '602.0000', usdt(602 * takerRate), usdt(-0.5), false],
  ])
  const takerFills = await k.getAccountTrades({ symbol: S })
  t.same(takerFills.map((f) => [f.id, f.orderId, f.side, f.commission, f.realizedPnl, f.maker]), [
    [1, take.orderId, 'BUY', usdt(600 * takerRate), usdt(0), false],
    [2, take.orderId, 'BUY', usdt(603 * takerRate), usdt(0), false],
    [3, ro.orderId, 'SELL', usdt(602 * makerRate), usdt(0.5), true],
  ])

  // Positions: 0.010 each way at 60150; mark = last trade 60200.
  t.match(await m.getPositionsV3({ symbol: S }), [{ symbol: S, positionSide: 'BOTH', positionAmt: '-0.010', entryPrice: '60150.0',
    markPrice: '60200.0', unRealizedProfit: usdt(-0.5), notional: usdt(-602) }])
  t.match(await k.getPositions({ symbol: S }), [{ symbol: S, positionAmt: '0.010', entryPrice: '60150.0', unRealizedProfit: usdt(0.5),
    leverage: '20', marginType: 'cross' }])

  // Wallet = funding − commissions + realized PnL; margin balance adds the unrealized PnL.
  const makerWallet = 50000 - (600 + 603) * makerRate - 602 * takerRate - 0.5
  const takerWallet = 10000 - 1203 * takerRate - 602 * makerRate + 0.5
  t.match(await m.getBalanceV3(), [{ asset: 'USDT', balance: usdt(makerWallet), crossUnPnl: usdt(-0.5) }])
  // Available: margin balance less the position's initial margin, 602 / 20.
  t.match(await k.getBalanceV3(), [{ asset: 'USDT', balance: usdt(takerWallet), crossUnPnl: usdt(0.5),
    availableBalance: usdt(takerWallet + 0.5 - 602 / 20) }])
  t.match(await k.getAccountInformationV3(), { totalWalletBalance: usdt(takerWallet), totalUnrealizedProfit: usdt(0.5),
    totalMarginBalance: usdt(takerWallet + 0.5), totalPositionInitialMargin: usdt(30.1),
    positions: [{ symbol: S, positionAmt: '0.010', unrealizedProfit: usdt(0.5) }] })

  // Open orders, cancel one, cancel all.
  const c = await m.submitNewOrder({ symbol: S, side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: 0.01, price: 59000 })
  const d = await m.submitNewOrder({ symbol: S, side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: 0.01, price: 58000 })
  t.same((await m.getAllOpenOrders({ symbol: S })).map((o) => [o.orderId, o.price, o.status]),
    [[c.orderId, '59000.0', 'NEW'], [d.orderId, '58000.0', 'NEW']])
  t.match(await m.getCurrentOpenOrder({ symbol: S, orderId: c.orderId }), { orderId: c.orderId, price: '59000.0', status: 'NEW' })
  t.match(await m.cancelOrder({ symbol: S, orderId: c.orderId }), { orderId: c.orderId, status: 'CANCELED' })
  await t.rejects(m.getCurrentOpenOrder({ symbol: S, orderId: c.orderId }), { code: -2013 }, 'not open any more')
  t.same((await m.getAllOpenOrders()).map((o) => o.orderId), [d.orderId])
  // The dead man's switch armed and cleared (its firing: gateway/trade.test.ts).
  t.same(await m.setCancelOrdersOnTimeout({ symbol: S, countdownTime: 60_000 }), { symbol: S, countdownTime: '60000' })
  t.same(await m.setCancelOrdersOnTimeout({ symbol: S, countdownTime: 0 }), { symbol: S, countdownTime: '0' })
  t.same(await m.cancelAllOpenOrders({ symbol: S }), { code: 200, msg: 'The operation of cancel all open order is done.' })
  t.same(await m.getAllOpenOrders({ symbol: S }), [])
  t.match(await m.getOrder({ symbol: S, orderId: d.orderId }), { status: 'CANCELED' })

  // Public data from the projections (one flush behind the state: read until it shows).
  const trades = await eventually(() => k.getRecentTrades({ symbol: S }), (x) => x.length === 3)
  t.same(trades.map((x) => [x.id, x.price, x.qty, x.quoteQty, x.isBuyerMaker]),
    [[1, '60000.0', '0.010', '600.0000', false], [2, '60300.0', '0.010', '603.0000', false], [3, '60200.0', '0.010', '602.0000', false]])
  const klines = await k.getKlines({ symbol: S, interval: '1m' })
  t.same(await k.getContinuousContractKlines({ pair: 'BTCUSDT', contractType: 'PERPETUAL', interval: '1m' }), klines, "continuous: the perpetual's")
  t.same([klines[0]![1], klines.reduce((hi, x) => Math.max(hi, Number(x[2])), 0), klines.reduce((lo, x) => Math.min(lo, Number(x[3])), Infinity),
    klines.at(-1)![4], klines.reduce((v, x) => v + Number(x[5]) * 1000, 0), klines.reduce((n, x) => n + Number(x[8]), 0)],
  ['60000.0', 60300, 60000, '60200.0', 30, 3], 'open, high, low, close, volume (lots), trade count')
  t.match(await k.get24hrChangeStatistics({ symbol: S }), { symbol: S, lastPrice: '60200.0', openPrice: '60000.0', highPrice: '60300.0',
    lowPrice: '60000.0', volume: '0.030', quoteVolume: '1805.0000', priceChange: '200.0', firstId: 1, lastId: 3, count: 3 })
  const all = await k.get24hrChangeStatistics()
  t.same(all.map((x) => [x.symbol, x.lastPrice]), [[S, '60200.0'], ['ETHUSDTPERP', '0.00']])
  t.match(await k.getSymbolPriceTicker({ symbol: S }), { symbol: S, price: '60200.0' })

  // Funding: mark is the last trade; no 8 h boundary has passed, so no history yet.
  const mark = await k.getMarkPrice({ symbol: S })
  t.match(mark, { symbol: S, lastFundingRate: '0.00000000', interestRate: '0.00010000' })
  t.equal(Number(mark.markPrice), 60200)
  t.equal(mark.nextFundingTime % (8 * 3600_000), 0, 'next funding on an 8 h boundary')
  t.same((await k.getMarkPrice()).map((x) => x.symbol), [S, 'ETHUSDTPERP'])
  t.same(await k.getFundingRateHistory({ symbol: S }), [])

  // Transfers spot ⇄ futures with the package's universal transfer: 100 in, 40 back.
  // (The package's type also demands fromSymbol and toSymbol, which only isolated margin reads.)
  const transfer = (type: 'MAIN_UMFUTURE' | 'UMFUTURE_MAIN', amount: number) =>
    taker.wallet.submitUniversalTransfer({ type, asset: 'USDT', amount } as UniversalTransferParams)
  const tin = await transfer('MAIN_UMFUTURE', 100)
  const tout = await transfer('UMFUTURE_MAIN', 40)
  t.ok(tin.tranId > 0 && tout.tranId > tin.tranId, 'transfer ids increase')
  t.match(await k.getBalanceV3(), [{ balance: usdt(takerWallet + 60) }])
  // The spot wallet through the package's getBalances (/sapi/v1/capital/config/getall).
  const spot = async (): Promise<unknown> => (await taker.wallet.getBalances()).find((x) => x.coin === 'USDT')?.free
  t.equal(await spot(), '9940')

  // A withdrawal to the account's own address, then both histories.
  const w = await taker.wallet.withdraw({ coin: 'USDT', address: live.taker.address, amount: 25 })
  t.equal(await spot(), '9915')
  const withdrawals = await taker.wallet.getWithdrawHistory({ coin: 'USDT' })
  t.same(withdrawals.map((x) => [x.id, x.amount, x.coin, x.status, x.address]), [[w.id, '25', 'USDT', 4, live.taker.address]])
  const deposits = await taker.wallet.getDepositHistory({ coin: 'USDT' })
  t.same(deposits.map((x) => [x.amount, x.coin, x.status, x.address]),
    [['20000', 'USDT', 1, live.taker.address]], 'one on-chain deposit funded the account')

  // Transfer history of one direction (newest first) and the deposit address (the account's own).
  const history = await taker.wallet.getUniversalTransferHistory({ type: 'UMFUTURE_MAIN' })
  t.same(history, { total: 1, rows: [{ asset: 'USDT', amount: '40', type: 'UMFUTURE_MAIN', status: 'CONFIRMED',
    tranId: tout.tranId, timestamp: history.rows[0].timestamp }] })
  t.same(await taker.wallet.getDepositAddress({ coin: 'USDT' }), { address: live.taker.address, coin: 'USDT', tag: '', url: '' })

  // A batch of two bids with a refusal in its place, an amendment, a batch cancel.
  const batch = await m.submitMultipleOrders([
    { symbol: S, side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: 0.01, price: 57000 },
    { symbol: S, side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: 0.01, price: 1 },
    { symbol: S, side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: 0.02, price: 56000, newClientOrderId: 'bin-batch-3' },
  ])
  t.match(batch, [{ symbol: S, status: 'NEW', price: '57000.0', origQty: '0.010' },
    { code: -4013, msg: 'Price less than min price.' },
    { status: 'NEW', price: '56000.0', origQty: '0.020', clientOrderId: 'bin-batch-3' }])
  const first = batch[0] as { orderId: number }
  const amended = await m.modifyOrder({ symbol: S, orderId: first.orderId, side: 'BUY', quantity: 0.015, price: 57500 })
  t.match(amended, { orderId: first.orderId, status: 'NEW', price: '57500.0', origQty: '0.015', executedQty: '0.000' })
  t.same((await m.getAllOpenOrders({ symbol: S })).map((o) => [o.orderId, o.price, o.origQty]).sort((x, y) => Number(x[0]) - Number(y[0])),
    [[first.orderId, '57500.0', '0.015'], [(batch[2] as { orderId: number }).orderId, '56000.0', '0.020']])
  const canceled = await m.cancelMultipleOrders({ symbol: S, origClientOrderIdList: ['bin-batch-3', 'nope'] })
  t.match(canceled, [{ clientOrderId: 'bin-batch-3', status: 'CANCELED' }, { code: -2011, msg: 'Unknown order sent.' }])
  t.match(await m.cancelMultipleOrders({ symbol: S, orderIdList: [first.orderId] }), [{ orderId: first.orderId, status: 'CANCELED' }])
  t.same(await m.getAllOpenOrders({ symbol: S }), [])

  t.same(live.offMachine, [], 'no request left this machine')
})
