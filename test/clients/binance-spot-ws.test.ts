// The `binance` package's spot user data, unmodified, pointed at a real exchange process by
// its `wsUrl` option (and `restOptions.baseUrl`): WebsocketClient's subscribeSpotUserDataStream
// (a listen key from POST /api/v3/userDataStream, streamed at /ws/<listenKey>) and
// WebsocketAPIClient's subscribeUserDataStream (userDataStream.subscribe.signature on
// /ws-api/v3) both see the spot order the maker places, amends keeping priority
// (WebsocketAPIClient.amendSpotOrderKeepPriority) and cancels, and its balance.

import t from 'tap'
import { MainClient, WebsocketAPIClient, WebsocketClient } from 'binance'
import { inbox, quiet, teardownListenKeys } from '../helpers/binance-inbox.js'
import { startLiveExchange } from '../helpers/live-exchange.js'

t.test('binance package: the spot user data stream by listen key and by WebSocket API subscription', { timeout: 60_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const creds = { api_key: live.maker.apiKey, api_secret: live.maker.secretKey }
  const byKey = new WebsocketClient({ ...creds, wsUrl: live.base.replace(/^http/, 'ws'), restOptions: { baseUrl: live.base } }, quiet)
  const api = new WebsocketAPIClient({ ...creds, wsUrl: live.base.replace(/^http/, 'ws') }, quiet)
  const rest = new MainClient({ ...creds, baseUrl: live.base })
  const keyed = inbox(byKey)
  const subscribed = inbox(api.getWSClient())
  t.teardown(async () => {
    teardownListenKeys(byKey)
    byKey.closeAll(true)
    api.getWSClient().closeAll(true)
  })

  await byKey.subscribeSpotUserDataStream()
  const sub = await api.subscribeUserDataStream('mainWSAPI')
  t.match(sub, { status: 200, result: { subscriptionId: 0 } })

  const placed = await rest.submitNewOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: 0.01, price: 20000 })
  // Cut to 0.004 keeping its place, over the WebSocket API (order.amend.keepPriority).
  const amended = await api.amendSpotOrderKeepPriority({ symbol: 'BTCUSDT', orderId: placed.orderId, newQty: '0.004',
    newClientOrderId: 'cut-1', timestamp: Date.now() })
  t.match(amended, { status: 200, result: { amendedOrder: { orderId: placed.orderId, origClientOrderId: placed.clientOrderId,
    clientOrderId: 'cut-1', qty: '0.0040', status: 'NEW' } } })
  await rest.cancelOrder({ symbol: 'BTCUSDT', orderId: placed.orderId })
  for (const [name, box] of [['listen key', keyed], ['WebSocket API', subscribed]] as const) {
    const canceled = await box.until((e) => e.e === 'executionReport' && e.x === 'CANCELED')
    const reports = box.events.filter((e) => e.e === 'executionReport')
    t.same(reports.map((e) => [e.i, e.x, e.X, e.q]), [[placed.orderId, 'NEW', 'NEW', '0.0100'],
      [placed.orderId, 'REPLACED', 'NEW', '0.0040'], [placed.orderId, 'CANCELED', 'CANCELED', '0.0040']], `${name}: NEW, REPLACED, CANCELED`)
    t.match(reports[1], { c: 'cut-1', C: placed.clientOrderId })
    // The cancel named no id of its own: one made for it (c), the order's (C).
    t.match(canceled, { s: 'BTCUSDT', S: 'BUY', o: 'LIMIT', q: '0.0040', p: '20000.00', z: '0.0000', c: `x-3-${placed.orderId}-cancel`, C: 'cut-1' })
    const balances = box.events.filter((e) => e.e === 'outboundAccountPosition').map((e) => (e.B as { a: string; l: string }[])[0])
    t.match(balances, [{ a: 'USDT', l: '200.00000000' }, { a: 'USDT', l: '80.00000000' }, { a: 'USDT', l: '0.00000000' }],
      `${name}: 200 USDT locked, 80 after the cut, then released`)
  }
  t.same([...keyed.exceptions, ...subscribed.exceptions], [], 'no client exception')
  t.same(live.offMachine, [], 'no connection left this machine')
})
