// Binance's own USDⓈ-M connector (@binance/derivatives-trading-usds-futures), unmodified, pointed
// at a real exchange process by its three base URLs alone: REST, the WebSocket API and the
// WebSocket streams (market and user data). It sends every REST request with Content-Type
// application/json and its parameters in the query string, so each POST, PUT and DELETE comes
// with that type and an empty body, which the gateway refused until it read a JSON body as none;
// and it sends a batch cancel's order ids as strings.

import t from 'tap'
import {
  DerivativesTradingUsdsFutures, DerivativesTradingUsdsFuturesRestAPI as Rest, DerivativesTradingUsdsFuturesWebsocketAPI as WsApi,
} from '@binance/derivatives-trading-usds-futures'
import { eventually, startLiveExchange, type LiveAccount } from '../helpers/live-exchange.js'

const S = 'BTCUSDTPERP'
const SELL = Rest.NewOrderSideEnum.SELL
const { LIMIT } = Rest.NewOrderTypeEnum
const GTC = Rest.NewOrderTimeInForceEnum.GTC
const RESULT = Rest.NewOrderNewOrderRespTypeEnum.RESULT
const Ws = { BUY: WsApi.NewOrderSideEnum.BUY, MARKET: WsApi.NewOrderTypeEnum.MARKET, LIMIT: WsApi.NewOrderTypeEnum.LIMIT,
  GTC: WsApi.NewOrderTimeInForceEnum.GTC, RESULT: WsApi.NewOrderNewOrderRespTypeEnum.RESULT }

function connector(base: string, who: LiveAccount): DerivativesTradingUsdsFutures {
  const keys = { apiKey: who.apiKey, apiSecret: who.secretKey }
  const ws = base.replace('http://', 'ws://')
  return new DerivativesTradingUsdsFutures({
    configurationRestAPI: { ...keys, basePath: base, retries: 0 },
    configurationWebsocketAPI: { ...keys, wsURL: `${ws}/ws-fapi/v1` },
    configurationWebsocketStreams: { wsURL: ws },
  })
}

/** A REST call's parsed body. */
async function body<T>(call: Promise<{ data(): Promise<T> }>): Promise<T> {
  return (await call).data()
}

t.test("Binance's USDⓈ-M connector: REST, WebSocket API and streams against the gateway", { timeout: 120_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const maker = connector(live.base, live.maker)
  const taker = connector(live.base, live.taker)
  const m = maker.restAPI
  const k = taker.restAPI

  const info = await body(m.exchangeInformation())
  t.same(info.symbols?.map((s) => s.symbol), ['BTCUSDTPERP', 'ETHUSDTPERP'])
  // POSTs with an empty JSON body: leverage, a listen key, orders.
  t.same(await body(m.changeInitialLeverage({ symbol: S, leverage: 10 })), { leverage: 10, maxNotionalValue: '230000000', symbol: S })
  const { listenKey } = await body(m.startUserDataStream())
  t.match(listenKey, /^[0-9a-f]{64}$/)
  if (listenKey === undefined) throw new Error('no listen key')
  t.same(await body(m.keepaliveUserDataStream()), { listenKey }, 'PUT: the key kept alive')

  const streams = await maker.websocketStreams.connect()
  t.teardown(() => streams.disconnect())
  const events: { e?: string; o?: { i?: number; X?: string } }[] = []
  streams.userData(listenKey).on('message', (d) => { events.push(d as (typeof events)[number]) })
  const trades: { p?: string; q?: string }[] = []
  streams.aggregateTradeStreams({ symbol: S }).on('message', (d) => { trades.push(d as (typeof trades)[number]) })

  const sell = await body(m.newOrder({ symbol: S, side: SELL, type: LIMIT, timeInForce: GTC, quantity: 0.01, price: 60000, newOrderRespType: RESULT }))
  t.match(sell, { symbol: S, status: 'NEW', price: '60000.0', origQty: '0.010', type: 'LIMIT', side: 'SELL' })
  t.match(await body(m.queryOrder({ symbol: S, orderId: sell.orderId })), { orderId: sell.orderId, status: 'NEW' })
  await t.rejects(k.queryOrder({ symbol: S, orderId: 999_999 }), { name: 'BadRequestError', message: 'Order does not exist.', code: -2013 }, 'a refusal: its code and msg')

  // The taker buys over the WebSocket API: one fill at the maker's price.
  const wsApi = await taker.websocketAPI.connect()
  t.teardown(() => wsApi.disconnect())
  const bought = await wsApi.newOrder({ symbol: S, side: Ws.BUY, type: Ws.MARKET, quantity: 0.01, newOrderRespType: Ws.RESULT })
  t.match(bought.data, { symbol: S, status: 'FILLED', executedQty: '0.010', avgPrice: '60000.0', type: 'MARKET' })
  t.match(bought.rateLimits, [{ rateLimitType: 'REQUEST_WEIGHT' }, { rateLimitType: 'ORDERS' }, { rateLimitType: 'ORDERS' }])
  await t.rejects(wsApi.cancelOrder({ symbol: S, orderId: 999_999 }), { code: -2011, msg: 'Unknown order sent.' }, 'a WebSocket API refusal')
  const rest = await wsApi.newOrder({ symbol: S, side: Ws.BUY, type: Ws.LIMIT, timeInForce: Ws.GTC, quantity: 0.01, price: 50000 })
  t.match((await wsApi.cancelOrder({ symbol: S, orderId: rest.data.orderId })).data, { orderId: rest.data.orderId, status: 'CANCELED' })

  t.match(await body(m.queryOrder({ symbol: S, orderId: sell.orderId })), { status: 'FILLED', executedQty: '0.010', avgPrice: '60000.0' })
  t.match(await body(k.positionInformationV3({ symbol: S })), [{ symbol: S, positionAmt: '0.010', entryPrice: '60000.0' }])
  t.match(await body(m.positionInformationV3({ symbol: S })), [{ symbol: S, positionAmt: '-0.010', entryPrice: '60000.0' }])
  t.match(await body(k.accountInformationV3()), { positions: [{ symbol: S, positionAmt: '0.010' }] })

  // DELETE with an empty JSON body; the streams carried the fill to both.
  const open = await body(m.newOrder({ symbol: S, side: SELL, type: LIMIT, timeInForce: GTC, quantity: 0.01, price: 61000 }))
  t.same(await body(m.cancelAllOpenOrders({ symbol: S })), { code: 200, msg: 'The operation of cancel all open order is done.' })
  t.match(await body(m.queryOrder({ symbol: S, orderId: open.orderId })), { status: 'CANCELED' })
  const seen = await eventually(async () => events, (e) => e.some((x) => x.e === 'ORDER_TRADE_UPDATE' && x.o?.i === sell.orderId && x.o?.X === 'FILLED') &&
    e.some((x) => x.e === 'ORDER_TRADE_UPDATE' && x.o?.i === open.orderId && x.o?.X === 'CANCELED'))
  t.ok(seen.some((x) => x.e === 'ACCOUNT_UPDATE'), "the maker's user data stream: the fill, the cancel and the account update")
  t.match(await eventually(async () => trades, (x) => x.length > 0), [{ p: '60000.0', q: '0.010' }], 'the aggregate trade stream')
  // A batch cancel: the connector sends the ids as a JSON list of strings (["5","6"]).
  const two = [
    await body(m.newOrder({ symbol: S, side: SELL, type: LIMIT, timeInForce: GTC, quantity: 0.01, price: 62000 })),
    await body(m.newOrder({ symbol: S, side: SELL, type: LIMIT, timeInForce: GTC, quantity: 0.01, price: 62100 })),
  ]
  t.match(await body(m.cancelMultipleOrders({ symbol: S, orderIdList: two.map((o) => Number(o.orderId)) })),
    two.map((o) => ({ orderId: o.orderId, status: 'CANCELED' })), 'a batch cancel by order ids')
  t.same(await body(m.closeUserDataStream()), {}, 'DELETE: the key closed')
  t.same(live.offMachine, [], 'no request left this machine')
})
