// Why a spot order expired (Binance spot's expiryReason in records and answers, eR on the user
// stream): an IOC's rest, a market order the book ran out for, an OCO's other order, an OTO's
// pending order when its working order expired or when its own placement was refused.

import t from 'tap'
import { gatewayRig, signedInject, spotStreamOf, spotTraders } from '../helpers/gateway.js'

async function scene() {
  const rig = await gatewayRig()
  const traders = await spotTraders(rig)
  const post = (keys: typeof traders.seller, p: Record<string, string>, route = '/api/v3/order') =>
    signedInject(rig, keys, 'POST', route, { symbol: 'BTCUSDT', newOrderRespType: 'RESULT', ...p }).then((r) => r.json())
  const order = (keys: typeof traders.seller, orderId: number) =>
    signedInject(rig, keys, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId }).then((r) => r.json())
  const limit = { type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010' }
  return { rig, ...traders, post, order, limit }
}

t.test('an IOC\'s rest and a market order the book ran out for', async (t) => {
  const { rig, seller, buyer, buyerWallet, post, order, limit } = await scene()
  t.teardown(() => rig.close())
  const seen = spotStreamOf(rig, (a) => a === buyerWallet.address)
  await post(seller, { ...limit, side: 'SELL', price: '30000.00' })
  await post(seller, { ...limit, side: 'SELL', price: '30010.00' })
  const ioc = await post(buyer, { ...limit, side: 'BUY', timeInForce: 'IOC', quantity: '0.0020', price: '30000.00' })
  t.match(ioc, { status: 'EXPIRED', executedQty: '0.0010', expiryReason: 'UNFILLED_IOC_QUANTITY_EXPIRED' })
  t.match(await order(buyer, ioc.orderId), { expiryReason: 'UNFILLED_IOC_QUANTITY_EXPIRED' })
  t.match(seen.filter((p) => p.e === 'executionReport' && p.i === ioc.orderId).at(-1), { X: 'EXPIRED', eR: 'UNFILLED_IOC_QUANTITY_EXPIRED' })
  const market = await post(buyer, { side: 'BUY', type: 'MARKET', quantity: '0.0050' })
  t.match(market, { status: 'EXPIRED', executedQty: '0.0010', expiryReason: 'INSUFFICIENT_LIQUIDITY' })
  const filled = await order(seller, 1)
  t.equal(filled.status, 'FILLED')
  t.notOk('expiryReason' in filled, 'an order that did not expire has none')
  t.notOk('eR' in seen.find((p) => p.e === 'executionReport' && p.i === ioc.orderId && p.X === 'NEW')!, 'nor its reports before')
})

t.test('an OCO\'s other order; an OTO\'s pending order as its working order expired, or refused as it was placed', async (t) => {
  const { rig, seller, buyer, post, order, limit } = await scene()
  t.teardown(() => rig.close())
  await post(seller, { ...limit, side: 'SELL', price: '30000.00' })
  await post(buyer, { ...limit, side: 'BUY', price: '30000.00' })

  // An OCO sell: its limit maker fills, its stop expires with it.
  const oco = await post(seller, { side: 'SELL', quantity: '0.0010', aboveType: 'LIMIT_MAKER', abovePrice: '31000.00',
    belowType: 'STOP_LOSS', belowStopPrice: '29000.00' }, '/api/v3/orderList/oco')
  await post(buyer, { ...limit, side: 'BUY', price: '31000.00' })
  const [stop, maker] = oco.orders as { orderId: number }[]
  t.match(await order(seller, maker!.orderId), { status: 'FILLED' })
  t.match(await order(seller, stop!.orderId), { status: 'EXPIRED', expiryReason: 'OCO_TRIGGER' })

  // An OTO whose IOC working order finds nothing: its pending order expires with it.
  const lapsed = await post(buyer, { workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '20000.00', workingQuantity: '0.0010',
    workingTimeInForce: 'IOC', pendingType: 'LIMIT_MAKER', pendingSide: 'SELL', pendingPrice: '33000.00', pendingQuantity: '0.0010' },
  '/api/v3/orderList/oto')
  t.match(lapsed.orderReports, [{ status: 'EXPIRED', expiryReason: 'UNFILLED_IOC_QUANTITY_EXPIRED' },
    { status: 'EXPIRED', expiryReason: 'OTO_PHASE_ONE_EXPIRED' }])

  // An OTO whose pending LIMIT_MAKER would take once its working order filled: refused, it expires.
  await post(buyer, { ...limit, side: 'BUY', price: '29500.00' })
  await post(seller, { ...limit, side: 'SELL', price: '30000.00' })
  const refused = await post(buyer, { workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '30000.00', workingQuantity: '0.0010',
    workingTimeInForce: 'GTC', pendingType: 'LIMIT_MAKER', pendingSide: 'SELL', pendingPrice: '29000.00', pendingQuantity: '0.0010' },
  '/api/v3/orderList/oto')
  t.match(refused.orderReports, [{ status: 'FILLED' }, { status: 'EXPIRED', expiryReason: 'REJECTED' }])
  // A canceled list's orders were canceled, not expired: no reason.
  const placed = await post(buyer, { workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '20000.00', workingQuantity: '0.0010',
    workingTimeInForce: 'GTC', pendingType: 'LIMIT_MAKER', pendingSide: 'SELL', pendingPrice: '33000.00', pendingQuantity: '0.0010' },
  '/api/v3/orderList/oto')
  const canceled = (await signedInject(rig, buyer, 'DELETE', '/api/v3/orderList', { symbol: 'BTCUSDT', orderListId: placed.orderListId })).json()
  for (const r of canceled.orderReports) t.notOk('expiryReason' in r, `${r.status}: no reason`)
})
