// What one gateway records or hands out, another serves: a spot amendment, an OTOCO list, a
// trailing stop and an OPO list made through the sequencer's gateway are listed by a
// follower's (the projections, built on each replica from the log; open and pending orders
// are replica state), and a history download id made on one gateway turns into a link on the
// other, whose file either gateway serves (ids and links are MACs under the shared master
// secret; nothing is stored). Real processes.

import t from 'tap'
import { signedRequest, startGatewayPair } from '../helpers/processes.js'

const SECRET = '33'.repeat(32)

t.test('amendments and history downloads are served by any gateway', { timeout: 90_000 }, async (t) => {
  const { apiA, apiB, demo } = await startGatewayPair(t, SECRET, ['--tick-ms', '100'], ['--chain', 'off', '--price-feed', 'off', '--bot', 'off'])
  const signed = (port: number, method: string, path: string, params: Record<string, string>) =>
    signedRequest(`http://127.0.0.1:${port}`, demo, method, path, params)
  // The follower may be a moment behind a write: wait for its seq, as a client would.
  const caughtUp = async (seq: number): Promise<void> => {
    const until = Date.now() + 10_000
    while (Number((await fetch(`http://127.0.0.1:${apiB}/fapi/v1/ping`)).headers.get('x-exchange-seq')) < seq) {
      if (Date.now() > until) throw new Error('the follower did not catch up')
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  const startTime = Date.now() - 60_000
  const placed = await signed(apiA, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
    quantity: '0.0100', price: '20000.00', newClientOrderId: 'x1' })
  t.equal(placed.status, 200)
  const amended = await signed(apiA, 'PUT', '/api/v3/order/amend/keepPriority', { symbol: 'BTCUSDT', orderId: String(placed.body.orderId),
    newQty: '0.0060' })
  t.match(amended, { status: 200, body: { amendedOrder: { origClientOrderId: 'x1', qty: '0.0060' } } })
  await caughtUp(amended.seq)
  const history = { symbol: 'BTCUSDT', orderId: String(placed.body.orderId) }
  const onB = await signed(apiB, 'GET', '/api/v3/order/amendments', history)
  t.match(onB.body, [{ executionId: amended.body.executionId, origClientOrderId: 'x1', origQty: '0.0100', newQty: '0.0060' }],
    'the follower lists the amendment')
  t.same(onB.body, (await signed(apiA, 'GET', '/api/v3/order/amendments', history)).body, 'as the sequencer\'s gateway does')

  // An OTOCO list placed through the sequencer's gateway: the follower holds it with its pending
  // orders (replica state) and lists it (projections), as the sequencer's gateway does.
  const listed = await signed(apiA, 'POST', '/api/v3/orderList/otoco', { symbol: 'BTCUSDT', listClientOrderId: 'e2e-list',
    workingType: 'LIMIT_MAKER', workingSide: 'BUY', workingPrice: '20000.00', workingQuantity: '0.0100', pendingSide: 'SELL',
    pendingQuantity: '0.0090', pendingAboveType: 'LIMIT_MAKER', pendingAbovePrice: '90000.00', pendingBelowType: 'STOP_LOSS',
    pendingBelowStopPrice: '15000.00' })
  t.match(listed, { status: 200, body: { contingencyType: 'OTO', listStatusType: 'EXEC_STARTED' } })
  await caughtUp(listed.seq)
  for (const path of ['/api/v3/openOrderList', '/api/v3/allOrderList']) {
    const b = await signed(apiB, 'GET', path, {})
    t.match(b.body, [{ orderListId: listed.body.orderListId, listClientOrderId: 'e2e-list', orders: listed.body.orders }], `${path} on the follower`)
    t.same(b.body, (await signed(apiA, 'GET', path, {})).body, 'as on the sequencer\'s gateway')
  }
  const pending = (await signed(apiB, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).body.filter((o: { status: string }) => o.status === 'PENDING_NEW')
  t.equal(pending.length, 2, 'the pending pair is open on the follower')

  // A trailing stop and an OPO list: the follower's replica holds them as the sequencer's does.
  const trailing = await signed(apiA, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'STOP_LOSS', quantity: '0.0010',
    stopPrice: '90000.00', trailingDelta: '200' })
  const opo = await signed(apiA, 'POST', '/api/v3/orderList/opo', { symbol: 'BTCUSDT', workingType: 'LIMIT_MAKER', workingSide: 'BUY',
    workingPrice: '20000.00', workingQuantity: '0.0100', pendingType: 'LIMIT_MAKER', pendingSide: 'SELL', pendingPrice: '90000.00' })
  t.same([trailing.status, opo.status], [200, 200])
  await caughtUp(opo.seq)
  const open = async (port: number) => (await signed(port, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).body
  const onFollower = await open(apiB)
  t.match(onFollower.find((o: { orderId: number }) => o.orderId === trailing.body.orderId), { type: 'STOP_LOSS', trailingDelta: 200, trailingTime: -1 })
  t.notOk('origQty' in onFollower.find((o: { orderId: number }) => o.orderId === opo.body.orders[1].orderId), 'the OPO sell has no quantity yet')
  t.same(onFollower, await open(apiA), 'as on the sequencer\'s gateway')

  const range = { startTime: String(startTime), endTime: String(Date.now() + 1_000) }
  const id = await signed(apiA, 'GET', '/fapi/v1/income/asyn', range)
  t.equal(id.status, 200)
  const link = await signed(apiB, 'GET', '/fapi/v1/income/asyn/id', { downloadId: id.body.downloadId })
  t.match(link.body, { status: 'completed', url: new RegExp(`^http://127\\.0\\.0\\.1:${apiB}/fapi/v1/download\\?link=`) },
    'the follower turns the sequencer\'s id into a link to itself')
  const { pathname, search } = new URL(link.body.url)
  const [fromB, fromA] = await Promise.all([apiB, apiA].map((port) => fetch(`http://127.0.0.1:${port}${pathname}${search}`)))
  t.same([fromB!.status, fromA!.status], [200, 200])
  const [fileB, fileA] = await Promise.all([fromB!.text(), fromA!.text()])
  t.equal(fileA, fileB, 'either gateway serves the same file')
  t.match(fileA, /^symbol,incomeType,income,asset,info,time,tranId,tradeId\r\n,TRANSFER,50000\.00000000,USDT,/, 'the demo account\'s funding')
})
