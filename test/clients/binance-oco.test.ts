// The `binance` package's spot order lists, unmodified, against a real exchange process:
// MainClient's submitNewOrderList (POST /api/v3/orderList/oco), submitNewOCO (the older
// /api/v3/order/oco), submitNewOrderListOTO, getOCO, getAllOpenOCO, getAllOCO and cancelOCO,
// submitNewOrderListOPO and submitNewOrderListOPOCO (a trailing stop among the pending orders),
// WebsocketAPIClient's placeSpotOCOOrderList, placeSpotOTOCOOrderList and cancelSpotOrderList,
// and the listStatus events of the spot user data stream by listen key.

import t from 'tap'
import { MainClient, WebsocketAPIClient, WebsocketClient } from 'binance'
import { inbox, quiet, teardownListenKeys } from '../helpers/binance-inbox.js'
import { startLiveExchange } from '../helpers/live-exchange.js'

t.test('binance package: OCO lists over REST and the WebSocket API, seen on the user data stream', { timeout: 60_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const creds = { api_key: live.maker.apiKey, api_secret: live.maker.secretKey }
  const rest = new MainClient({ ...creds, baseUrl: live.base })
  const stream = new WebsocketClient({ ...creds, wsUrl: live.base.replace(/^http/, 'ws'), restOptions: { baseUrl: live.base } }, quiet)
  const api = new WebsocketAPIClient({ ...creds, wsUrl: live.base.replace(/^http/, 'ws') }, quiet)
  const box = inbox(stream)
  t.teardown(async () => {
    teardownListenKeys(stream)
    stream.closeAll(true)
    api.getWSClient().closeAll(true)
  })
  await stream.subscribeSpotUserDataStream()

  // A BUY: a LIMIT_MAKER below at 20,000, a stop limit above at 60,000 (the larger need, 60 USDT, held once).
  const placed = await rest.submitNewOrderList({ symbol: 'BTCUSDT', side: 'BUY', quantity: 0.001, listClientOrderId: 'bracket-1',
    aboveType: 'STOP_LOSS_LIMIT', aboveStopPrice: 60000, abovePrice: 60000, aboveTimeInForce: 'GTC',
    belowType: 'LIMIT_MAKER', belowPrice: 20000, belowClientOrderId: 'maker-1' } as Parameters<MainClient['submitNewOrderList']>[0])
  t.match(placed, { contingencyType: 'OCO', listStatusType: 'EXEC_STARTED', listOrderStatus: 'EXECUTING', listClientOrderId: 'bracket-1',
    orderReports: [{ type: 'LIMIT_MAKER', clientOrderId: 'maker-1', price: '20000.00' }, { type: 'STOP_LOSS_LIMIT', stopPrice: '60000.00' }] })
  const usdt = async () => (await rest.getAccountInformation()).balances.find((b) => b.asset === 'USDT')!
  t.match(await usdt(), { locked: '60.00000000' })
  t.match(await rest.getOCO({ orderListId: placed.orderListId }), { orderListId: placed.orderListId, listClientOrderId: 'bracket-1' })
  t.match(await rest.getAllOpenOCO(), [{ orderListId: placed.orderListId }])

  // The older form, then the WebSocket API's.
  const legacy = await rest.submitNewOCO({ symbol: 'BTCUSDT', side: 'BUY', quantity: 0.001, price: 21000, stopPrice: 61000,
    stopLimitPrice: 61000, stopLimitTimeInForce: 'GTC' } as Parameters<MainClient['submitNewOCO']>[0])
  t.match(legacy, { contingencyType: 'OCO', orderReports: [{ type: 'LIMIT_MAKER' }, { type: 'STOP_LOSS_LIMIT' }] })
  const byWs = await api.placeSpotOCOOrderList({ symbol: 'BTCUSDT', side: 'BUY', quantity: '0.001', aboveType: 'STOP_LOSS',
    aboveStopPrice: '62000', belowType: 'LIMIT_MAKER', belowPrice: '22000', timestamp: Date.now() })
  t.match(byWs, { status: 200, result: { contingencyType: 'OCO', listStatusType: 'EXEC_STARTED' } })
  t.equal((await rest.getAllOpenOCO()).length, 3)

  const canceled = await rest.cancelOCO({ symbol: 'BTCUSDT', orderListId: placed.orderListId })
  t.match(canceled, { listStatusType: 'ALL_DONE', orderReports: [{ status: 'CANCELED' }, { status: 'CANCELED' }] })
  const wsCanceled = await api.cancelSpotOrderList({ symbol: 'BTCUSDT', orderListId: byWs.result.orderListId, timestamp: Date.now() })
  t.match(wsCanceled, { status: 200, result: { listStatusType: 'ALL_DONE' } })
  t.same((await rest.getAllOpenOCO()).map((l) => l.orderListId), [legacy.orderListId])
  t.same((await rest.getAllOCO({})).map((l) => [l.orderListId, l.listStatusType]),
    [[placed.orderListId, 'ALL_DONE'], [legacy.orderListId, 'EXEC_STARTED'], [byWs.result.orderListId, 'ALL_DONE']])

  const done = await box.until((e) => e.e === 'listStatus' && e.g === byWs.result.orderListId && e.l === 'ALL_DONE')
  t.match(done, { s: 'BTCUSDT', c: 'OCO', L: 'ALL_DONE' })
  const lists = box.events.filter((e) => e.e === 'listStatus').map((e) => [e.g, e.l])
  t.same(lists, [[placed.orderListId, 'EXEC_STARTED'], [legacy.orderListId, 'EXEC_STARTED'], [byWs.result.orderListId, 'EXEC_STARTED'],
    [placed.orderListId, 'ALL_DONE'], [byWs.result.orderListId, 'ALL_DONE']])
  t.ok(box.events.some((e) => e.e === 'executionReport' && e.g === placed.orderListId), 'executionReport names the list (g)')

  // OTO over REST (a buy at 20,000, then a sell at 90,000 once it fills) and OTOCO over the WebSocket API.
  const otoList = await rest.submitNewOrderListOTO({ symbol: 'BTCUSDT', workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '20000',
    workingQuantity: '0.001', workingTimeInForce: 'GTC', pendingType: 'LIMIT_MAKER', pendingSide: 'SELL', pendingPrice: '90000',
    pendingQuantity: '0.0009' } as Parameters<MainClient['submitNewOrderListOTO']>[0])
  t.match(otoList, { contingencyType: 'OTO', orderReports: [{ status: 'NEW', type: 'LIMIT' }, { status: 'PENDING_NEW', type: 'LIMIT_MAKER' }] })
  const otoco = await api.placeSpotOTOCOOrderList({ symbol: 'BTCUSDT', workingType: 'LIMIT_MAKER', workingSide: 'BUY', workingPrice: '20000',
    workingQuantity: '0.001', pendingSide: 'SELL', pendingQuantity: '0.0009', pendingAboveType: 'LIMIT_MAKER', pendingAbovePrice: '90000',
    pendingBelowType: 'STOP_LOSS', pendingBelowStopPrice: '15000', timestamp: Date.now() })
  t.match(otoco, { status: 200, result: { contingencyType: 'OTO', orderReports: [{ status: 'NEW' }, { status: 'PENDING_NEW' }, { status: 'PENDING_NEW' }] } })
  const pendingOpen = (await rest.getOpenOrders({ symbol: 'BTCUSDT' })).filter((o) => o.status === 'PENDING_NEW')
  t.equal(pendingOpen.length, 3, 'the pending orders are open orders')
  t.match(await rest.cancelOCO({ symbol: 'BTCUSDT', orderListId: otoco.result.orderListId }), { contingencyType: 'OTO', listStatusType: 'ALL_DONE' })

  // OPO and OPOCO (the pending sells are for what the buy brings: no pendingQuantity), and an OCO whose stop trails.
  const opo = await rest.submitNewOrderListOPO({ symbol: 'BTCUSDT', workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '20000',
    workingQuantity: '0.001', workingTimeInForce: 'GTC', pendingType: 'LIMIT_MAKER', pendingSide: 'SELL', pendingPrice: '90000' })
  t.match(opo, { contingencyType: 'OTO', orderReports: [{ status: 'NEW', origQty: '0.0010' }, { status: 'PENDING_NEW', type: 'LIMIT_MAKER' }] })
  const opoco = await rest.submitNewOrderListOPOCO({ symbol: 'BTCUSDT', workingType: 'LIMIT_MAKER', workingSide: 'BUY', workingPrice: '20000',
    workingQuantity: '0.001', pendingSide: 'SELL', pendingAboveType: 'LIMIT_MAKER', pendingAbovePrice: '90000', pendingBelowType: 'STOP_LOSS',
    pendingBelowStopPrice: '15000', pendingBelowTrailingDelta: '200' } as Parameters<MainClient['submitNewOrderListOPOCO']>[0])
  t.match(opoco, { contingencyType: 'OTO', orderReports: [{ status: 'NEW' }, { status: 'PENDING_NEW', type: 'STOP_LOSS', trailingDelta: 200 },
    { status: 'PENDING_NEW' }] })
  for (const l of [opo, opoco]) t.match(await rest.cancelOCO({ symbol: 'BTCUSDT', orderListId: l.orderListId }), { listStatusType: 'ALL_DONE' })
  t.same(box.exceptions, [], 'no client exception')
  t.same(live.offMachine, [], 'no connection left this machine')
})
