// ccxt's spot client (`binance`), unmodified, pointed at a real exchange process by base URL
// only, with its markets limited to spot: an order placed, edited (editOrder sends
// /api/v3/order/cancelReplace), read back and canceled; the fee and the windowed ticker.

import t from 'tap'
import ccxt, { type Exchange } from 'ccxt'
import { startLiveExchange, type LiveAccount } from '../helpers/live-exchange.js'

const S = 'BTC/USDT'

/** Every ccxt REST base moved to our host (nested ones too). */
function spotClientFor(base: string, who: LiveAccount): Exchange {
  const rehost = (tree: unknown): unknown => typeof tree === 'string' ? tree.replace(/^https:\/\/[^/]+/, base)
    : tree !== null && typeof tree === 'object' ? Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, rehost(v)])) : tree
  return new ccxt.binance({ apiKey: who.apiKey, secret: who.secretKey, urls: { api: rehost(new ccxt.binance().urls.api) },
    timeout: 10_000, options: { defaultType: 'spot', fetchMarkets: { types: ['spot'] } } })
}

t.test('ccxt binance (spot): place, edit, read back, cancel', { timeout: 60_000 }, async (t) => {
  const live = await startLiveExchange(t)
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
})
