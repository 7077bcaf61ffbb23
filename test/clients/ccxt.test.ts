// ccxt's `binanceusdm`, unmodified, pointed at a real exchange process by base URL only (its
// `urls.api` entries), runs a trader's whole day between two accounts: markets, book, trades,
// klines, tickers, funding, balances, every order kind, queries, cancels, positions, fills,
// leverage, transfers, a withdrawal and the deposit and withdrawal history. Every parsed value
// is checked against what the state must be, fees worked out by hand from the commission rates.

import t from 'tap'
import ccxt, { type Exchange } from 'ccxt'
import { eventually, startLiveExchange, type LiveAccount } from '../helpers/live-exchange.js'

const S = 'BTC/USDT:USDT'

/** Every ccxt REST base (fapi*, sapi*, public/private spot, papi…) moved to our host. */
function clientFor(base: string, who: LiveAccount): Exchange {
  const defaults = new ccxt.binanceusdm().urls.api as Record<string, string>
  const api = Object.fromEntries(Object.entries(defaults).map(([k, url]) => [k, url.replace(/^https:\/\/[^/]+/, base)]))
  return new ccxt.binanceusdm({ apiKey: who.apiKey, secret: who.secretKey, urls: { api }, timeout: 10_000 })
}

/** Rounds away binary noise in ccxt's float sums, to 10 decimals. */
const r10 = (n: number | undefined): number => Math.round((n ?? NaN) * 1e10) / 1e10

t.test('ccxt binanceusdm: a full scenario against the gateway', { timeout: 120_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const maker = clientFor(live.base, live.maker)
  const taker = clientFor(live.base, live.taker)

  // Markets: exchangeInfo parsed into ccxt's unified market, precision and limits from the filters.
  const markets = await maker.loadMarkets()
  await taker.loadMarkets()
  t.same(Object.keys(markets).sort(), ['BTC/USDT:USDT', 'ETH/USDT:USDT'])
  t.match(markets[S], {
    id: 'BTCUSDTPERP', base: 'BTC', quote: 'USDT', settle: 'USDT', type: 'swap', linear: true, contract: true,
    active: true, precision: { price: 0.1, amount: 0.001 }, limits: { amount: { min: 0.001, max: 1000 }, cost: { min: 100 } },
  })
  t.ok(maker.currencies.USDT, 'currencies loaded from /sapi/v1/capital/config/getall')
  // The commission rates (commissionRate); every fee below is rate × notional.
  const fee = await maker.fetchTradingFee(S)
  t.match(fee, { maker: 0.0002, taker: 0.0005 })
  const makerFee = (notional: number): number => r10(notional * fee.maker!)
  const takerFee = (notional: number): number => r10(notional * fee.taker!)

  const lev = await maker.setLeverage(10, S) as { leverage: number; maxNotionalValue: string; symbol: string }
  t.same(lev, { leverage: 10, maxNotionalValue: '230000000', symbol: 'BTCUSDTPERP' })
  t.match(await maker.fetchLeverage(S), { symbol: S, marginMode: 'cross', longLeverage: 10, shortLeverage: 10 })
  t.match(await taker.fetchMarginMode(S), { symbol: S, marginMode: 'cross' })
  t.match(await taker.fetchPositionMode(S), { hedged: false })
  t.match(await taker.fetchStatus(), { status: 'ok' })
  // The BNB fee discount, through ccxt's implicit API: off, and it stays off (no BNB here).
  t.same(await maker.fapiPrivateGetFeeBurn(), { feeBurn: false })
  t.same(await maker.fapiPrivatePostFeeBurn({ feeBurn: 'false' }), { code: 200, msg: 'success' })
  await t.rejects(maker.fapiPrivatePostFeeBurn({ feeBurn: 'true' }), ccxt.BadRequest)

  // Resting sells: a GTC limit and a post-only one.
  const a = await maker.createOrder(S, 'limit', 'sell', 0.01, 60000)
  t.match(a, { symbol: S, type: 'limit', side: 'sell', price: 60000, amount: 0.01, filled: 0, remaining: 0.01, status: 'open',
    timeInForce: 'GTC', postOnly: false, reduceOnly: false })
  const b = await maker.createOrder(S, 'limit', 'sell', 0.01, 60300, { postOnly: true })
  t.match(b, { price: 60300, amount: 0.01, status: 'open', timeInForce: 'PO', postOnly: true })
  t.not(a.id, b.id)
  // A post-only buy at the ask would take: refused (-5022), and the book keeps both asks.
  await t.rejects(taker.createOrder(S, 'limit', 'buy', 0.01, 60000, { postOnly: true }), ccxt.InvalidOrder)

  const book = await taker.fetchOrderBook(S)
  t.same([book.bids, book.asks], [[], [[60000, 0.01], [60300, 0.01]]])
  t.equal(book.symbol, S)

  // The taker lifts both asks with a market buy: 600 + 603 = 1203 USDT for 0.02, average 60150.
  const m = await taker.createOrder(S, 'market', 'buy', 0.02)
  t.match(m, { type: 'market', side: 'buy', status: 'closed', amount: 0.02, filled: 0.02, remaining: 0, average: 60150, cost: 1203 })
  t.match(await maker.fetchOrder(a.id!, S), { status: 'closed', filled: 0.01, average: 60000, cost: 600 })
  t.match(await maker.fetchOrder(b.id!, S), { status: 'closed', filled: 0.01, average: 60300, cost: 603 })

  // Reduce-only: the taker offers half its long back; a reduce-only buy would grow it: refused.
  const ro = await taker.createOrder(S, 'limit', 'sell', 0.01, 60200, { reduceOnly: true })
  t.match(ro, { status: 'open', reduceOnly: true, price: 60200, amount: 0.01 })
  // (ccxt picks its per-market error classes by Binance's host names, so on another host
  // -2022 arrives as a plain ExchangeError carrying Binance's code and text.)
  await t.rejects(taker.createOrder(S, 'limit', 'buy', 0.01, 59000, { reduceOnly: true }),
    { message: /"code":-2022,"msg":"ReduceOnly Order is rejected."/ })
  const close = await maker.createOrder(S, 'market', 'buy', 0.01)
  t.match(close, { status: 'closed', filled: 0.01, average: 60200, cost: 602 })
  t.match(await taker.fetchOrder(ro.id!, S), { status: 'closed', filled: 0.01, reduceOnly: true })

  // Fills with their fees; realized PnL on the 0.01 closed at 60200 against the 60150 entry:
  // +0.5 for the long, −0.5 for the short.
  const makerTrades = await maker.fetchMyTrades(S)
  t.same(makerTrades.map((x) => [x.id, x.order, x.side, x.price, x.amount, x.cost, x.takerOrMaker, r10(x.fee?.cost), x.fee?.currency]), [
    ['1', a.id, 'sell', 60000, 0.01, 600, 'maker', makerFee(600), 'USDT'],
    ['2', b.id, 'sell', 60300, 0.01, 603, 'maker', makerFee(603), 'USDT'],
    ['3', close.id, 'buy', 60200, 0.01, 602, 'taker', takerFee(602), 'USDT'],
  ])
  t.same(makerTrades.map((x) => (x.info as { realizedPnl: string }).realizedPnl), ['0.00000000', '0.00000000', '-0.50000000'])
  const takerTrades = await taker.fetchMyTrades(S)
  t.same(takerTrades.map((x) => [x.id, x.order, x.side, x.price, x.takerOrMaker, r10(x.fee?.cost)]), [
    ['1', m.id, 'buy', 60000, 'taker', takerFee(600)],
    ['2', m.id, 'buy', 60300, 'taker', takerFee(603)],
    ['3', ro.id, 'sell', 60200, 'maker', makerFee(602)],
  ])

  // Positions: 0.01 left each way at the 60150 entry; mark is the last trade, 60200.
  const [long] = await taker.fetchPositions([S])
  t.match(long, { symbol: S, side: 'long', contracts: 0.01, entryPrice: 60150, markPrice: 60200, unrealizedPnl: 0.5,
    notional: 602, leverage: 20, marginMode: 'cross' })
  const [short] = await maker.fetchPositions([S])
  t.match(short, { symbol: S, side: 'short', contracts: 0.01, entryPrice: 60150, unrealizedPnl: -0.5, leverage: 10 })

  // Balances: wallet = funding − fees + realized PnL; total = wallet + unrealized PnL (±0.5).
  const makerWallet = 50000 - makerFee(600) - makerFee(603) - takerFee(602) - 0.5
  const takerWallet = 10000 - takerFee(1203) - makerFee(602) + 0.5
  const makerBal = await maker.fetchBalance()
  t.equal(r10(makerBal.USDT!.total), r10(makerWallet - 0.5), 'maker margin balance')
  t.equal(r10(Number((makerBal.info as { totalWalletBalance: string }).totalWalletBalance)), r10(makerWallet))
  const takerBal = await taker.fetchBalance()
  t.equal(r10(takerBal.USDT!.total), r10(takerWallet + 0.5), 'taker margin balance')
  t.equal(r10(takerBal.USDT!.free), r10(takerWallet + 0.5 - 602 / 20), 'less the position margin at 20×')

  // Open orders, cancel one, cancel all.
  const c = await maker.createOrder(S, 'limit', 'buy', 0.01, 59000)
  const d = await maker.createOrder(S, 'limit', 'buy', 0.01, 58000)
  t.same((await maker.fetchOpenOrders(S)).map((o) => [o.id, o.price, o.status]), [[c.id, 59000, 'open'], [d.id, 58000, 'open']])
  t.match(await maker.cancelOrder(c.id!, S), { id: c.id, status: 'canceled', filled: 0 })
  t.same((await maker.fetchOpenOrders(S)).map((o) => o.id), [d.id])
  await maker.cancelAllOrders(S)
  t.same(await maker.fetchOpenOrders(S), [])
  t.match(await maker.fetchOrder(d.id!, S), { status: 'canceled' })

  // Public data from the projections (one flush behind the state: read until it shows).
  const trades = await eventually(() => taker.fetchTrades(S), (x) => x.length === 3)
  t.same(trades.map((x) => [x.id, x.price, x.amount, x.side]), [['1', 60000, 0.01, 'buy'], ['2', 60300, 0.01, 'buy'], ['3', 60200, 0.01, 'buy']])
  const candles = await taker.fetchOHLCV(S, '1m')
  t.same([candles[0]![1], Math.max(...candles.map((k) => k[2]!)), Math.min(...candles.map((k) => k[3]!)), candles.at(-1)![4],
    r10(candles.reduce((s, k) => s + k[5]!, 0))], [60000, 60300, 60000, 60200, 0.03], 'open, high, low, close, volume')
  const marks = await taker.fetchMarkOHLCV(S, '1m')
  t.same([marks[0]![1], marks.at(-1)![4]], [60000, 60200], 'mark candles: the mark is the last trade here')
  // ccxt asks for the index by the perpetual's id as its pair (Binance's perpetual ids are pairs).
  const byPair = await (await fetch(`${live.base}/fapi/v1/indexPriceKlines?pair=BTCUSDT&interval=1m`)).json() as string[][]
  t.ok(byPair.length > 0, 'the index has candles')
  t.same(await taker.fetchIndexOHLCV(S, '1m'), byPair.map((k) => [Number(k[0]), ...k.slice(1, 6).map(Number)]), 'index candles, as the pair gives them')
  const ticker = await taker.fetchTicker(S)
  t.match(ticker, { symbol: S, last: 60200, open: 60000, high: 60300, low: 60000, baseVolume: 0.03, quoteVolume: 1805 })
  const tickers = await taker.fetchTickers()
  t.same(Object.keys(tickers).sort(), [S, 'ETH/USDT:USDT'])
  t.equal(tickers[S]!.last, 60200)

  // Funding: the premium index's mark is the last trade; no funding boundary has passed yet.
  const funding = await taker.fetchFundingRate(S)
  t.match(funding, { symbol: S, markPrice: 60200, fundingRate: 0, interestRate: 0.0001 })
  t.equal(funding.fundingTimestamp! % (8 * 3600_000), 0, 'next funding on an 8 h boundary')
  t.same(await taker.fetchFundingRateHistory(S), [])

  // Transfers spot ⇄ futures: 100 in, 40 back; the futures wallet moves by the difference.
  // (binanceusdm's fetchBalance is the futures account; the spot wallet is read by hand.)
  const spotFree = async (): Promise<string | undefined> => {
    const account = await live.signed(live.taker, 'GET', '/api/v3/account') as { balances: { asset: string; free: string }[] }
    return account.balances.find((x) => x.asset === 'USDT')?.free
  }
  t.equal(await spotFree(), '10000.00000000')
  const tin = await taker.transfer('USDT', 100, 'spot', 'future')
  const tout = await taker.transfer('USDT', 40, 'future', 'spot')
  // Binance answers a transfer with its tranId alone, which is all ccxt can parse.
  t.match([tin, tout], [{ currency: 'USDT', info: { tranId: Number } }, { currency: 'USDT', info: { tranId: Number } }])
  t.ok(Number(tin.id) > 0 && Number(tout.id) > Number(tin.id), 'transfer ids increase')
  t.equal(await spotFree(), '9940.00000000')
  t.equal(r10((await taker.fetchBalance()).USDT!.total), r10(takerWallet + 0.5 + 60))

  // A withdrawal to the account's own address, then both histories.
  const w = await taker.withdraw('USDT', 25, live.taker.address)
  t.ok(w.id, 'withdrawal id')
  t.equal(await spotFree(), '9915.00000000')
  // Processing (ccxt's 'pending') until the executor's next poll pays it on the embedded chain
  // (at most half a second): either may be read first, then it is paid ('ok', with its transaction).
  const withdrawals = await taker.fetchWithdrawals('USDT')
  t.match(withdrawals.map((x) => [x.id, x.amount, x.currency, x.status, x.type, x.address]),
    [[w.id, 25, 'USDT', /^(pending|ok)$/, 'withdrawal', live.taker.address]])
  const paid = await eventually(() => taker.fetchWithdrawals('USDT'), (xs) => xs[0]?.status === 'ok')
  t.match(paid, [{ id: w.id, status: 'ok', txid: /^0x[0-9a-f]{64}$/ }], 'paid on chain')
  const deposits = await taker.fetchDeposits('USDT')
  t.same(deposits.map((x) => [x.amount, x.currency, x.status, x.type]).sort(),
    [[20000, 'USDT', 'ok', 'deposit']], 'one on-chain deposit funded the account')

  // fetchTransfers reads one direction, named by Binance's type (binanceusdm's own default
  // pairs swap with future, UMFUTURE_UMFUTURE, which Binance refuses as well).
  const transfers = await taker.fetchTransfers('USDT', undefined, undefined, { type: 'UMFUTURE_MAIN' })
  t.same(transfers.map((x) => [x.id, x.amount, x.currency, x.fromAccount, x.toAccount, x.status]),
    [[tout.id, 40, 'USDT', 'linear', 'spot', 'ok']])
  // Newest first: the 100 moved in above (funding may have moved some in before it).
  const movedIn = await taker.fetchTransfers('USDT', undefined, undefined, { type: 'MAIN_UMFUTURE' })
  t.match(movedIn.at(-1), { id: tin.id, amount: 100, fromAccount: 'spot', toAccount: 'linear' })
  t.match(await taker.fetchDepositAddress('USDT'), { currency: 'USDT', address: live.taker.address })

  // Batches and amendments: two bids in one request, one amended (new price and size), then
  // both amended in a batch, then both canceled in one request.
  const [e1, e2] = await maker.createOrders([
    { symbol: S, type: 'limit', side: 'buy', amount: 0.01, price: 57000 },
    { symbol: S, type: 'limit', side: 'buy', amount: 0.02, price: 56000, params: { clientOrderId: 'batch-2' } },
  ])
  t.match([e1, e2], [{ symbol: S, price: 57000, amount: 0.01, status: 'open' },
    { symbol: S, price: 56000, amount: 0.02, status: 'open', clientOrderId: 'batch-2' }])
  const edited = await maker.editOrder(e1!.id!, S, 'limit', 'buy', 0.015, 57500)
  t.match(edited, { id: e1!.id, symbol: S, price: 57500, amount: 0.015, filled: 0, status: 'open' })
  // (ccxt's OrderRequest type lacks the `id` editOrders reads.)
  const editedBoth = await maker.editOrders([
    { id: e1!.id!, symbol: S, type: 'limit', side: 'buy', amount: 0.01, price: 57400 },
    { id: e2!.id!, symbol: S, type: 'limit', side: 'buy', amount: 0.03, price: 56000 },
  ] as unknown as Parameters<typeof maker.editOrders>[0])
  t.same(editedBoth.map((o) => [o.id, o.price, o.amount]), [[e1!.id, 57400, 0.01], [e2!.id, 56000, 0.03]])
  t.same((await maker.fetchOrderBook(S)).bids, [[57400, 0.01], [56000, 0.03]])
  const canceled = await maker.cancelOrders([e1!.id!, e2!.id!], S)
  t.same(canceled.map((o) => [o.id, o.status]), [[e1!.id, 'canceled'], [e2!.id, 'canceled']])
  t.same(await maker.fetchOpenOrders(S), [])

  t.same(live.offMachine, [], 'no request left this machine')
})
