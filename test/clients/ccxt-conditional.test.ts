// ccxt's `binanceusdm`, unmodified, places, lists and cancels a conditional order against a
// real exchange process: since Binance's algo service, ccxt sends STOP_MARKET with a stopPrice
// to POST /fapi/v1/algoOrder (algoType CONDITIONAL, triggerPrice) and reads it back from
// openAlgoOrders; a cancel goes to DELETE /fapi/v1/algoOrder by algoId, and the history
// (fetchOrders with trigger) to allAlgoOrders.

import t from 'tap'
import ccxt, { type Exchange } from 'ccxt'
import { startLiveExchange, type LiveAccount } from '../helpers/live-exchange.js'

const S = 'BTC/USDT:USDT'

function clientFor(base: string, who: LiveAccount): Exchange {
  const defaults = new ccxt.binanceusdm().urls.api as Record<string, string>
  const api = Object.fromEntries(Object.entries(defaults).map(([k, url]) => [k, url.replace(/^https:\/\/[^/]+/, base)]))
  return new ccxt.binanceusdm({ apiKey: who.apiKey, secret: who.secretKey, urls: { api }, timeout: 10_000 })
}

t.test('ccxt binanceusdm: a STOP_MARKET through the algo routes', { timeout: 120_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const maker = clientFor(live.base, live.maker)
  await maker.loadMarkets()

  const stop = await maker.createOrder(S, 'STOP_MARKET', 'sell', 0.01, undefined, { stopPrice: 50000, clientOrderId: 'ccxt-sl' })
  t.match(stop, { symbol: S, side: 'sell', amount: 0.01, triggerPrice: 50000, status: 'open', clientOrderId: 'ccxt-sl' })
  // The first order of market 1: orderId 1, algoId 1 × 256 + 1.
  t.equal(stop.id, '257')

  const open = await maker.fetchOpenOrders(S, undefined, undefined, { trigger: true })
  t.same(open.map((o) => [o.id, o.triggerPrice, o.amount, o.side]), [['257', 50000, 0.01, 'sell']])

  const canceled = await maker.cancelOrder('257', S, { trigger: true })
  t.equal(canceled.id, '257')
  t.same(await maker.fetchOpenOrders(S, undefined, undefined, { trigger: true }), [])
  // The history (allAlgoOrders) keeps it, canceled; by default the last seven days, or since a time.
  const history = await maker.fetchOrders(S, undefined, undefined, { trigger: true })
  t.same(history.map((o) => [o.id, o.status, o.triggerPrice]), [['257', 'canceled', 50000]])
  t.same((await maker.fetchCanceledOrders(S, stop.timestamp, undefined, { trigger: true })).map((o) => o.id), ['257'])
  t.same(await maker.fetchOrders(S, stop.timestamp! + 60_000, undefined, { trigger: true }), [], 'none placed since')
})
