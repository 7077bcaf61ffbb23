// The `binance` package's WebsocketClient, unmodified, pointed at a real exchange process by
// its `wsUrl` option (and `restOptions.baseUrl` for the listen key): a 1m kline stream (by symbol
// and as the pair's continuous contract klines) and the USD-M user data stream see what a
// scripted sequence of two accounts' REST calls produced, checked as the exact strings Binance
// prints.

import t from 'tap'
import { USDMClient, WebsocketClient } from 'binance'
import { inbox, listenKeysOf, quiet, teardownListenKeys } from '../helpers/binance-inbox.js'
import { startLiveExchange, type LiveAccount } from '../helpers/live-exchange.js'

const S = 'BTCUSDTPERP'

function wsClient(base: string, who: LiveAccount): WebsocketClient {
  return new WebsocketClient({
    api_key: who.apiKey, api_secret: who.secretKey,
    wsUrl: base.replace(/^http/, 'ws'),
    restOptions: { baseUrl: base },
  }, quiet)
}

t.test('binance WebsocketClient: klines and the user data stream see a scripted sequence', { timeout: 60_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const makerWs = wsClient(live.base, live.maker)
  const takerWs = wsClient(live.base, live.taker)
  const maker = new USDMClient({ api_key: live.maker.apiKey, api_secret: live.maker.secretKey, baseUrl: live.base })
  const taker = new USDMClient({ api_key: live.taker.apiKey, api_secret: live.taker.secretKey, baseUrl: live.base })
  const market = inbox(takerWs)
  const makerUser = inbox(makerWs)
  const takerUser = inbox(takerWs)
  t.teardown(async () => {
    for (const ws of [makerWs, takerWs]) {
      teardownListenKeys(ws)
      ws.closeAll(true)
    }
  })

  // The kline subscription resolves once the server acknowledged the SUBSCRIBE
  // (/market/stream), the user data streams once /private/stream?listenKey= is open.
  await takerWs.subscribeKlines(S, '1m', 'usdm')
  // The perpetual's candles by pair too: the continuous contract kline stream.
  await takerWs.subscribeContinuousContractKlines('BTCUSDT', 'perpetual', '1m', 'usdm')
  await makerWs.subscribeUsdFuturesUserDataStream()
  await takerWs.subscribeUsdFuturesUserDataStream()
  t.equal([...listenKeysOf(makerWs), ...listenKeysOf(takerWs)].length, 2, 'a listen key per account from POST /fapi/v1/listenKey')

  const rates = await maker.getAccountCommissionRate({ symbol: S })
  const makerFee = 600 * Number(rates.makerCommissionRate)
  const takerFee = 600 * Number(rates.takerCommissionRate)

  // The sequence: a resting sell and buy, a market buy filling the sell (0.01 at 60000), the
  // buy canceled, 100 USDT moved into the taker's futures wallet.
  const a = await maker.submitNewOrder({ symbol: S, side: 'SELL', type: 'LIMIT', quantity: 0.01, price: 60000, timeInForce: 'GTC' })
  const b = await maker.submitNewOrder({ symbol: S, side: 'BUY', type: 'LIMIT', quantity: 0.01, price: 59000, timeInForce: 'GTC' })
  await taker.submitNewOrder({ symbol: S, side: 'BUY', type: 'MARKET', quantity: 0.01 })
  await maker.cancelOrder({ symbol: S, orderId: b.orderId })
  const signedTransfer = await live.signed(live.taker, 'POST', '/sapi/v1/asset/transfer', { type: 'MAIN_UMFUTURE', asset: 'USDT', amount: '100' })
  t.match(signedTransfer, { tranId: Number })

  const kline = await market.until((e) => e.e === 'kline' && (e.k as { v: string }).v === '0.010')
  t.match(kline, { e: 'kline', s: S, k: { s: S, i: '1m', f: 1, L: 1, o: '60000.0', c: '60000.0', h: '60000.0', l: '60000.0',
    v: '0.010', n: 1, q: '600.0000' } }, 'the candle of the one trade')
  const continuous = await market.until((e) => e.e === 'continuous_kline' && (e.k as { v: string }).v === '0.010')
  t.match(continuous, { e: 'continuous_kline', ps: 'BTCUSDT', ct: 'PERPETUAL', k: { t: (kline?.k as { t: number } | undefined)?.t, i: '1m', f: 1, L: 1,
    o: '60000.0', c: '60000.0', v: '0.010', n: 1, q: '600.0000' } }, 'the same candle by pair, as a continuous kline')

  // The maker's orders, NEW → FILLED and NEW → CANCELED, in order.
  await makerUser.until((e) => e.e === 'ORDER_TRADE_UPDATE' && (e.o as { X: string }).X === 'CANCELED')
  const updates = makerUser.events.filter((e) => e.e === 'ORDER_TRADE_UPDATE').map((e) => e.o as Record<string, unknown>)
  t.same(updates.map((o) => [o.i, o.x, o.X]), [
    [a.orderId, 'NEW', 'NEW'], [b.orderId, 'NEW', 'NEW'], [a.orderId, 'TRADE', 'FILLED'], [b.orderId, 'CANCELED', 'CANCELED'],
  ])
  t.match(updates[2], { s: S, S: 'SELL', o: 'LIMIT', q: '0.010', p: '60000.0', ap: '60000.0', l: '0.010', z: '0.010',
    L: '60000.0', N: 'USDT', n: makerFee.toFixed(8), m: true, t: 1 }, 'the fill with its maker commission')

  // Balances and positions after the fill: wallet = funding − fee; ±0.01 at 60000.
  const makerAccount = await makerUser.until((e) => e.e === 'ACCOUNT_UPDATE')
  t.match(makerAccount, { a: { m: 'ORDER', B: [{ a: 'USDT', wb: (50000 - makerFee).toFixed(8) }],
    P: [{ s: S, pa: '-0.010', ep: '60000.0', ps: 'BOTH' }] } }, 'maker: short 0.01')
  const takerFill = await takerUser.until((e) => e.e === 'ACCOUNT_UPDATE' && (e.a as { m: string }).m === 'ORDER')
  t.match(takerFill, { a: { B: [{ a: 'USDT', wb: (10000 - takerFee).toFixed(8) }], P: [{ s: S, pa: '0.010', ep: '60000.0' }] } },
    'taker: long 0.01')
  const deposit = await takerUser.until((e) => e.e === 'ACCOUNT_UPDATE' && (e.a as { m: string }).m === 'DEPOSIT')
  t.match(deposit, { a: { B: [{ a: 'USDT', wb: (10100 - takerFee).toFixed(8), bc: '100.00000000' }] } }, 'the transfer in')

  t.same([...makerUser.exceptions, ...takerUser.exceptions], [], 'no client exception')
  t.same(live.offMachine, [], 'no connection left this machine')
})
