// Spot stop orders over REST: STOP_LOSS_LIMIT, STOP_LOSS, TAKE_PROFIT_LIMIT and TAKE_PROFIT
// with stopPrice; records show the stop type, stopPrice and isWorking false while the stop
// waits (workingTime -1), true once the last price reached it; what a stop holds shows as
// locked; the spot stream's executionReport carries them; refusals in spot's forms.

import t from 'tap'
import { stateRoot } from '../../core/root.js'
import { gatewayRig, signedInject, spotStreamOf, spotTraders } from '../helpers/gateway.js'

t.test('a stop-limit waits, then works once the price falls to it', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, buyer, sellerWallet } = await spotTraders(rig)
  const seen = spotStreamOf(rig, (a) => a === sellerWallet.address)
  const post = (keys: typeof seller, p: Record<string, string>) => signedInject(rig, keys, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', ...p })
  const tradeAt = async (price: string) => {
    await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price })
    await post(buyer, { side: 'BUY', type: 'MARKET', quantity: '0.0100' })
  }
  await tradeAt('30000.00')

  const info = (await rig.app.inject('/api/v3/exchangeInfo?symbol=BTCUSDT')).json().symbols[0]
  t.same(info.orderTypes, ['LIMIT', 'LIMIT_MAKER', 'MARKET', 'STOP_LOSS', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT', 'TAKE_PROFIT_LIMIT'])

  const ack = await post(seller, { side: 'SELL', type: 'STOP_LOSS_LIMIT', timeInForce: 'GTC', quantity: '0.1000', price: '28900.00',
    stopPrice: '29000.00', newClientOrderId: 'sl-1' })
  t.same(Object.keys(ack.json()), ['symbol', 'orderId', 'orderListId', 'clientOrderId', 'transactTime'], 'ACK by default, as Binance\'s stops')
  const { orderId } = ack.json()
  const query = async () => (await signedInject(rig, seller, 'GET', '/api/v3/order', { symbol: 'BTCUSDT', orderId })).json()
  t.match(await query(), { type: 'STOP_LOSS_LIMIT', status: 'NEW', price: '28900.00', stopPrice: '29000.00', origQty: '0.1000',
    isWorking: false, workingTime: -1, timeInForce: 'GTC' })
  t.match((await signedInject(rig, seller, 'GET', '/api/v3/openOrders', { symbol: 'BTCUSDT' })).json(), [{ orderId, isWorking: false }])
  const btc = async () => (await signedInject(rig, seller, 'GET', '/api/v3/account')).json().balances.find((b: { asset: string }) => b.asset === 'BTC')
  t.match(await btc(), { locked: '0.10000000' }, 'the stop holds its 0.1 BTC')
  t.same((await rig.app.inject('/api/v3/depth?symbol=BTCUSDT')).json().asks, [], 'not on the book')
  t.match(seen.filter((p) => p.e === 'executionReport' && p.i === orderId), [{ x: 'NEW', X: 'NEW', o: 'STOP_LOSS_LIMIT', P: '29000.00',
    p: '28900.00', w: false, W: -1 }])

  await tradeAt('29500.00')
  t.match(await query(), { isWorking: false })
  await tradeAt('29000.00')
  const triggered = await query()
  t.match(triggered, { type: 'STOP_LOSS_LIMIT', status: 'NEW', stopPrice: '29000.00', isWorking: true })
  t.equal(triggered.workingTime, rig.ex.time, 'working since the trigger')
  t.same((await rig.app.inject('/api/v3/depth?symbol=BTCUSDT')).json().asks, [['28900.00', '0.1000']], 'resting at its limit')
  t.match(seen.filter((p) => p.e === 'executionReport' && p.i === orderId).at(-1), { x: 'NEW', o: 'STOP_LOSS_LIMIT', w: true })
  t.match(await btc(), { locked: '0.10000000' })
})

t.test('a stop-market buy, canceled while it waits; refusals', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, buyer } = await spotTraders(rig)
  const post = (keys: typeof seller, p: Record<string, string>) => signedInject(rig, keys, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', ...p })
  await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '30000.00' })
  await post(buyer, { side: 'BUY', type: 'MARKET', quantity: '0.0100' })

  const placed = (await post(buyer, { side: 'BUY', type: 'STOP_LOSS', quantity: '0.0100', stopPrice: '31000.00', newOrderRespType: 'RESULT' })).json()
  t.match(placed, { type: 'STOP_LOSS', status: 'NEW', price: '0.00', stopPrice: '31000.00', workingTime: -1 })
  const usdt = async () => (await signedInject(rig, buyer, 'GET', '/api/v3/account')).json().balances.find((b: { asset: string }) => b.asset === 'USDT')
  t.match(await usdt(), { locked: '310.00000000' }, 'its cost at the stop price')
  const amended = (await signedInject(rig, buyer, 'PUT', '/api/v3/order/amend/keepPriority', { symbol: 'BTCUSDT',
    orderId: placed.orderId, newQty: '0.0050' })).json()
  t.match(amended.amendedOrder, { type: 'STOP_LOSS', qty: '0.0050', workingTime: -1 }, 'amended while it waits, still a stop')
  t.match(await usdt(), { locked: '155.00000000' })
  const canceled = (await signedInject(rig, buyer, 'DELETE', '/api/v3/order', { symbol: 'BTCUSDT', orderId: placed.orderId })).json()
  t.match(canceled, { type: 'STOP_LOSS', status: 'CANCELED', stopPrice: '31000.00' })
  t.match(await usdt(), { locked: '0.00000000' })

  const before = stateRoot(rig.ex.state)
  const cases: [string, Record<string, string>, { code: number; msg: string | RegExp }][] = [
    ['no stopPrice', { side: 'SELL', type: 'STOP_LOSS', quantity: '0.0100' }, { code: -1102, msg: /'stopPrice'/ }],
    ['a stopPrice on a LIMIT', { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '31000.00', stopPrice: '30500.00' },
      { code: -1106, msg: "Parameter 'stopPrice' sent when not required." }],
    ['a price on a STOP_LOSS', { side: 'SELL', type: 'STOP_LOSS', quantity: '0.0100', stopPrice: '29000.00', price: '29000.00' },
      { code: -1106, msg: "Parameter 'price' sent when not required." }],
    ['no timeInForce on a stop-limit', { side: 'SELL', type: 'STOP_LOSS_LIMIT', quantity: '0.0100', stopPrice: '29000.00', price: '29000.00' },
      { code: -1102, msg: /'timeInForce'/ }],
    ['a trailingDelta on a LIMIT', { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '31000.00', trailingDelta: '100' },
      { code: -1106, msg: "Parameter 'trailingDelta' sent when not required." }],
    ['a stop-loss sell above the last price', { side: 'SELL', type: 'STOP_LOSS', quantity: '0.0100', stopPrice: '30500.00' },
      { code: -2010, msg: 'Order would trigger immediately.' }],
    ['a stop price off the tick', { side: 'SELL', type: 'STOP_LOSS', quantity: '0.0100', stopPrice: '29000.001' }, { code: -1111, msg: /Precision/ }],
    ['more than held', { side: 'SELL', type: 'STOP_LOSS', quantity: '5.0000', stopPrice: '29000.00' },
      { code: -2010, msg: 'Account has insufficient balance for requested action.' }],
  ]
  for (const [what, p, error] of cases) t.match((await post(seller, p)).json(), error, what)
  t.equal(stateRoot(rig.ex.state), before, 'nothing changed')
})
