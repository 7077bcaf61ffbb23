// What an operator's dashboard reads from /metrics of a real `exchange start` process while
// clients use it: REST responses by status, refusals by Binance code over REST and over the
// WebSocket API, the WebSocket connections open, and what the log applied (commands, refusals
// by the core's code, trades and traded volume, open interest), and what the chain operator has
// left for gas.

import t from 'tap'
import WebSocket from 'ws'
import { scrapeGauges } from '../helpers/processes.js'
import { eventually, startLiveExchange } from '../helpers/live-exchange.js'

function opened(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })
}

t.test('responses, refusals, connections and trades, as clients make them', { timeout: 120_000 }, async (t) => {
  // No bot: every request and trade here is the test's own.
  const ex = await startLiveExchange(t, ['--no-bot'])
  const before = await scrapeGauges(ex.metrics)
  const delta = (g: Record<string, number>, name: string): number => (g[name] ?? 0) - (before[name] ?? 0)

  const order = { symbol: 'BTCUSDTPERP', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '30000' }
  t.match(await ex.signed(ex.maker, 'POST', '/fapi/v1/order', order), { orderId: Number })
  t.match(await ex.signed(ex.taker, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'MARKET', quantity: '0.010' }),
    { orderId: Number })
  // The taker's 10,000 USDT does not cover 10 BTC at 30,000 at the default leverage: the core refuses it.
  t.match(await ex.signed(ex.taker, 'POST', '/fapi/v1/order', { ...order, side: 'BUY', quantity: '10' }), { code: -2019 })
  // Refused before the core: a missing parameter, an unknown symbol, an unknown path.
  t.equal((await fetch(`${ex.base}/fapi/v1/depth`)).status, 400)
  t.equal((await fetch(`${ex.base}/fapi/v1/depth?symbol=NOPE`)).status, 400)
  t.equal((await fetch(`${ex.base}/fapi/v1/nothing-here`)).status, 404)

  const streams = await opened(`${ex.base.replace('http', 'ws')}/ws/btcusdtperp@trade`)
  const api = await opened(`${ex.base.replace('http', 'ws')}/ws-fapi/v1`)
  const answer = new Promise<{ error?: { code: number } }>((resolve) => api.once('message', (m) => resolve(JSON.parse(String(m)))))
  api.send(JSON.stringify({ id: 1, method: 'no.such.method', params: {} }))
  t.equal((await answer).error?.code, -1020)

  const g = await scrapeGauges(ex.metrics)
  t.equal(delta(g, 'exchange_http_responses_total{status="200"}'), 2, 'the two orders placed')
  t.equal(delta(g, 'exchange_http_responses_total{status="400"}'), 3, 'the refused order, the missing symbol, the unknown one')
  t.equal(delta(g, 'exchange_http_responses_total{status="404"}'), 1)
  t.equal(delta(g, 'exchange_refusals_total{api="rest",code="-2019"}'), 1, 'margin insufficient')
  t.equal(delta(g, 'exchange_refusals_total{api="rest",code="-1102"}'), 1, 'a mandatory parameter missing')
  t.equal(delta(g, 'exchange_refusals_total{api="rest",code="-1121"}'), 1, 'an invalid symbol')
  t.equal(delta(g, 'exchange_refusals_total{api="ws",code="-1020"}'), 1, 'the WebSocket API\'s unknown method')
  t.equal(g['exchange_ws_connections{api="streams"}'], 1)
  t.equal(g['exchange_ws_connections{api="ws-api"}'], 1)
  t.equal(delta(g, 'exchange_commands_total{command="PlaceOrder",outcome="accepted"}'), 2)
  t.equal(delta(g, 'exchange_commands_total{command="PlaceOrder",outcome="rejected"}'), 1)
  t.equal(delta(g, 'exchange_command_rejections_total{code="MARGIN_INSUFFICIENT"}'), 1)
  t.equal(delta(g, 'exchange_trades_total{symbol="BTCUSDTPERP"}'), 1)
  t.equal(delta(g, 'exchange_traded_base_total{symbol="BTCUSDTPERP"}'), 0.01)
  t.equal(delta(g, 'exchange_traded_quote_total{symbol="BTCUSDTPERP"}'), 300)
  t.equal(g['exchange_open_interest{symbol="BTCUSDTPERP"}'], 0.01, 'the taker\'s long')
  // The embedded chain's operator: anvil's first dev account, 10,000 ETH less what it spent on gas.
  t.ok(g.exchange_operator_balance_ether! > 9_000 && g.exchange_operator_balance_ether! < 10_000, `${g.exchange_operator_balance_ether}`)
  t.ok(g.exchange_operator_transactions_affordable! >= 100, 'no warning due')

  streams.close()
  api.close()
  const after = await eventually(() => scrapeGauges(ex.metrics),
    (x) => x['exchange_ws_connections{api="streams"}'] === 0 && x['exchange_ws_connections{api="ws-api"}'] === 0)
  t.equal(after['exchange_ws_connections{api="streams"}'], 0, 'closed connections are no longer counted')
})
