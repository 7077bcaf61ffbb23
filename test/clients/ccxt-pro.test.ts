// ccxt pro's `binanceusdm`, unmodified, pointed at a real exchange process by base URLs only
// (its `urls.api` REST entries and `urls.api.ws`), watches every stream issue 5 names while two
// accounts trade over REST: the order book, trades, a 1m candle, the ticker, the maker's
// orders, both balances and the taker's position, each checked against what happened.

import t from 'tap'
import ccxt, { type Exchange, type Order } from 'ccxt'
import { startLiveExchange, type LiveAccount } from '../helpers/live-exchange.js'

const S = 'BTC/USDT:USDT'

/** Every URL in ccxt's tree moved from Binance's hosts to ours (https→http, wss→ws). */
function rehost(tree: unknown, http: string, ws: string): unknown {
  if (typeof tree === 'string') return tree.replace(/^https:\/\/[^/]+/, http).replace(/^wss:\/\/[^/]+/, ws)
  if (tree !== null && typeof tree === 'object') {
    return Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, rehost(v, http, ws)]))
  }
  return tree
}

async function clientFor(base: string, who: LiveAccount): Promise<Exchange> {
  const api = rehost(new ccxt.pro.binanceusdm().urls.api, base, base.replace(/^http/, 'ws'))
  const ex = new ccxt.pro.binanceusdm({ apiKey: who.apiKey, secret: who.secretKey, urls: { api }, timeout: 10_000,
    // A short keep-alive: the PUT /fapi/v1/listenKey flow runs during the test, and ccxt's
    // 20-minute default timer would otherwise hold the test process open after close().
    options: { listenKeyRefreshRate: 1000 } })
  // ccxt refuses plain ws:// URLs until its node:http agent is loaded (its one-time setup).
  await ex.loadHttpProxyAgent()
  return ex
}

/** Rounds away binary noise in ccxt's float sums, to 10 decimals. */
const r10 = (n: number | undefined): number => Math.round((n ?? NaN) * 1e10) / 1e10

/**
 * Calls a watch method over and over in the background, keeping a copy of each value it
 * yields, until stopped; `until` waits (bounded) for a value that satisfies a test.
 */
function follow<T>(watch: () => Promise<T>): { seen: T[]; errors: unknown[]; until(ok: (v: T) => boolean, ms?: number): Promise<T | undefined>; stop(): void } {
  const seen: T[] = []
  const errors: unknown[] = []
  let stopped = false
  void (async () => {
    while (!stopped) {
      try {
        seen.push(structuredClone(await watch()))
      } catch (err) {
        if (!stopped) errors.push(err)
        return
      }
    }
  })()
  return {
    seen, errors,
    stop: () => { stopped = true },
    async until(ok, ms = 15_000) {
      const deadline = Date.now() + ms
      for (;;) {
        const v = seen.find(ok)
        if (v !== undefined || errors.length > 0 || Date.now() > deadline) return v
        await new Promise((r) => setTimeout(r, 50))
      }
    },
  }
}

interface WsLike { ping(): void; once(event: 'pong', fn: () => void): void }

/**
 * Waits until `n` connections are open and the server has read everything sent on them: a
 * ping's pong comes back after the server handled the frames before it (the SUBSCRIBEs), so
 * no trade below can happen before its stream is subscribed.
 */
async function subscribed(ex: Exchange, n: number): Promise<void> {
  // (ex.clients also holds bookkeeping entries without a socket.)
  const sockets = (): { connected: Promise<unknown>; connection?: WsLike }[] =>
    (Object.values(ex.clients) as { connected: Promise<unknown>; connection?: WsLike }[]).filter((c) => c.connection !== undefined)
  const deadline = Date.now() + 15_000
  while (sockets().length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  for (const client of sockets()) {
    await client.connected
    await new Promise((r) => setTimeout(r, 20))
    await new Promise<void>((resolve) => { client.connection!.once('pong', resolve); client.connection!.ping() })
  }
}

t.test('ccxt pro binanceusdm: every watch sees a scripted trading sequence', { timeout: 60_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const maker = await clientFor(live.base, live.maker)
  const taker = await clientFor(live.base, live.taker)
  await Promise.all([maker.loadMarkets(), taker.loadMarkets()])
  const fee = await maker.fetchTradingFee(S)

  // The empty book arrives once the depth subscription is acknowledged and the snapshot read.
  const book0 = await taker.watchOrderBook(S)
  t.same([book0.bids, book0.asks], [[], []])
  const books = follow(() => taker.watchOrderBook(S))
  const trades = follow(() => taker.watchTrades(S))
  const candles = follow(() => taker.watchOHLCV(S, '1m'))
  const ticker = follow(() => taker.watchTicker(S))
  // ccxt's watchTicker reads @miniTicker by default; `name: 'ticker'` the full 24hrTicker.
  const fullTicker = follow(() => taker.watchTicker(S, { name: 'ticker' }))
  const orders = follow(() => maker.watchOrders(S))
  const makerBalance = follow(() => maker.watchBalance())
  const takerBalance = follow(() => taker.watchBalance())
  const positions = follow(() => taker.watchPositions([S]))
  const all = [books, trades, candles, ticker, fullTicker, orders, makerBalance, takerBalance, positions]
  t.teardown(async () => {
    for (const f of all) f.stop()
    await Promise.allSettled([maker.close(), taker.close()])
  })
  // ccxt opens a connection per subscription: the taker's depth and trade on /public/ws/<n>,
  // kline and the two tickers on /market/ws/<n>, and /private/ws?listenKey=; the maker's private one.
  await subscribed(taker, 6)
  await subscribed(maker, 1)
  const authenticatedAt = (): number => (maker.options as { future: { lastAuthenticatedTime: number } }).future.lastAuthenticatedTime
  const firstAuth = authenticatedAt()

  // The sequence: three resting maker orders, a market buy lifting the best ask (one trade at
  // 60000 for 0.01), a cancel, and 100 USDT moved from spot into the taker's futures wallet.
  const a = await maker.createOrder(S, 'limit', 'sell', 0.01, 60000)
  const b = await maker.createOrder(S, 'limit', 'buy', 0.01, 59000)
  const c = await maker.createOrder(S, 'limit', 'sell', 0.02, 60300)
  await taker.createOrder(S, 'market', 'buy', 0.01)
  await maker.cancelOrder(b.id!, S)
  await taker.transfer('USDT', 100, 'spot', 'future')

  // Order book: the local book ccxt keeps from the diffs equals REST depth after the sequence.
  const rest = await taker.fetchOrderBook(S)
  t.same([rest.bids, rest.asks], [[], [[60300, 0.02]]])
  const book = await books.until((x) => JSON.stringify([x.bids, x.asks]) === JSON.stringify([rest.bids, rest.asks]))
  t.same([book?.symbol, book?.bids, book?.asks], [S, rest.bids, rest.asks], 'watchOrderBook equals REST depth')

  const traded = await trades.until((x) => x.length > 0)
  t.same(traded?.map((x) => [x.id, x.symbol, x.price, x.amount, x.side]), [['1', S, 60000, 0.01, 'buy']], 'watchTrades')

  const candle = await candles.until((x) => x.some((k) => k[5] === 0.01))
  t.same(candle?.map((k) => k.slice(1)), [[60000, 60000, 60000, 60000, 0.01]], 'watchOHLCV: o h l c v of the one trade')
  t.equal(candle![0]![0]! % 60_000, 0, 'the candle opens on a minute')

  const tick = await ticker.until((x) => x.last === 60000)
  t.match(tick, { symbol: S, last: 60000, open: 60000, high: 60000, low: 60000, baseVolume: 0.01, quoteVolume: 600 }, 'watchTicker')
  const full = await fullTicker.until((x) => x.last === 60000)
  t.match(full, { symbol: S, last: 60000, open: 60000, high: 60000, low: 60000, baseVolume: 0.01, quoteVolume: 600, vwap: 60000,
    change: 0, percentage: 0 }, 'watchTicker on @ticker')

  // Orders: each of the maker's orders as it went, NEW → FILLED / CANCELED.
  const closed = (id: string, status: string) => (x: Order[]): boolean => x.some((o) => o.id === id && o.status === status)
  await orders.until(closed(b.id!, 'canceled'))
  await orders.until(closed(a.id!, 'closed'))
  const history = (id: string): [string | undefined, string][] => orders.seen.flat().filter((o) => o.id === id)
    .map((o): [string | undefined, string] => [o.status, (o.info as { X: string }).X])
    .filter((s, i, l) => i === 0 || s[1] !== l[i - 1]![1])
  t.same(history(a.id!), [['open', 'NEW'], ['closed', 'FILLED']], 'the filled sell')
  t.same(history(b.id!), [['open', 'NEW'], ['canceled', 'CANCELED']], 'the canceled buy')
  t.same(history(c.id!), [['open', 'NEW']], 'the resting sell')
  const fill = orders.seen.flat().find((o) => o.id === a.id && o.status === 'closed')
  t.match(fill, { symbol: S, side: 'sell', price: 60000, amount: 0.01, filled: 0.01, remaining: 0, average: 60000 })

  // Balances (wallet balances, the stream's `wb`): funding less the fee of the one fill, and
  // for the taker the 100 transferred in.
  const makerWallet = r10(50000 - 600 * fee.maker!)
  const takerWallet = r10(10000 - 600 * fee.taker! + 100)
  const mb = await makerBalance.until((x) => r10(x.USDT?.total) === makerWallet)
  t.equal(r10(mb?.USDT?.total), makerWallet, 'maker balance after its maker fee')
  const tb = await takerBalance.until((x) => r10(x.USDT?.total) === takerWallet)
  t.equal(r10(tb?.USDT?.total), takerWallet, 'taker balance after its taker fee and the transfer')

  // The taker's position: long 0.01 at the trade's price.
  const pos = await positions.until((x) => x.some((p) => p.contracts === 0.01))
  t.match(pos?.find((p) => p.contracts === 0.01), { symbol: S, side: 'long', contracts: 0.01, entryPrice: 60000 }, 'watchPositions')

  // ccxt's keep-alive (PUT /fapi/v1/listenKey, no key parameter) stamps each success.
  const deadline = Date.now() + 10_000
  while (authenticatedAt() === firstAuth && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  t.ok(authenticatedAt() > firstAuth, 'the listen key was kept alive')
  t.same(all.flatMap((f) => f.errors).map(String), [], 'no watch failed')
  t.same(live.offMachine, [], 'no connection left this machine')
})
