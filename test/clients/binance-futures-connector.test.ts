// Binance's older futures connector (@binance/futures-connector, the UMFutures and UMStream
// clients), unmodified, pointed at a real exchange process by its base URLs alone: orders placed,
// queried, amended and cancelled over REST, and streams. Its first stream goes in the URL as
// Binance writes it; every later one it SUBSCRIBEs in lowercase (`btcusdtperp@bookticker`,
// `!bookticker`), which the gateway refused with code 2 until it read stream names' words in
// any case.

import t from 'tap'
import { createRequire } from 'node:module'
import { eventually, startLiveExchange } from '../helpers/live-exchange.js'

interface Response<T> { data: T }
interface UMFutures {
  newOrder(symbol: string, side: string, type: string, options: object): Promise<Response<{ orderId: number; clientOrderId: string }>>
  queryOrder(symbol: string, options: object): Promise<Response<{ status: string; price: string; origQty: string }>>
  modifyOrder(symbol: string, side: string, quantity: number, price: number, options: object): Promise<Response<{ price: string; origQty: string }>>
  cancelOrder(symbol: string, options: object): Promise<Response<{ status: string }>>
  getExchangeInfo(): Promise<Response<{ symbols: { symbol: string }[] }>>
}
interface UMStream {
  aggregateTradeStream(symbol: string): void
  individualSymbolBookTickerStreams(symbol: string): void
  allBookTickersStream(): void
  disconnect(): void
}
interface Connector {
  UMFutures: new (key: string, secret: string, o: { baseURL: string }) => UMFutures
  UMStream: new (o: { wsURL: string; callbacks: { open?: () => void; message?: (d: string) => void }; logger?: object }) => UMStream
}
const { UMFutures, UMStream } = createRequire(import.meta.url)('@binance/futures-connector') as Connector

const S = 'BTCUSDTPERP'
const quiet = { info() {}, warn() {}, error() {}, debug() {} }

t.test("Binance's older futures connector: REST and streams against the gateway", { timeout: 120_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const rest = new UMFutures(live.maker.apiKey, live.maker.secretKey, { baseURL: live.base })
  t.same((await rest.getExchangeInfo()).data.symbols.map((s) => s.symbol), ['BTCUSDTPERP', 'ETHUSDTPERP'])

  const messages: Record<string, unknown>[] = []
  let opened: () => void = () => {}
  const open = new Promise<void>((resolve) => { opened = resolve })
  const stream = new UMStream({ wsURL: live.base.replace('http://', 'ws://'), logger: quiet,
    callbacks: { open: () => opened(), message: (d) => { messages.push(JSON.parse(d) as Record<string, unknown>) } } })
  t.teardown(() => stream.disconnect())
  stream.aggregateTradeStream(S)
  await open
  stream.individualSymbolBookTickerStreams(S)
  stream.allBookTickersStream()
  const replies = await eventually(async () => messages.filter((m) => 'result' in m || 'code' in m), (r) => r.length >= 2)
  t.same(replies.map((r) => r.result), [null, null], 'both lowercase SUBSCRIBEs accepted')

  const placed = (await rest.newOrder(S, 'BUY', 'LIMIT', { timeInForce: 'GTC', quantity: 0.01, price: 40000, newClientOrderId: 'older-1' })).data
  t.equal(placed.clientOrderId, 'older-1')
  const tickers = await eventually(async () => messages.filter((m) => m.e === 'bookTicker' && m.b === '40000.0'), (m) => m.length >= 2)
  t.ok(tickers.length >= 2, 'the bid on both book ticker streams')
  t.match((await rest.queryOrder(S, { origClientOrderId: 'older-1' })).data, { status: 'NEW', price: '40000.0', origQty: '0.010' })
  t.match((await rest.modifyOrder(S, 'BUY', 0.02, 40001, { origClientOrderId: 'older-1' })).data, { price: '40001.0', origQty: '0.020' })
  t.equal((await rest.cancelOrder(S, { origClientOrderId: 'older-1' })).data.status, 'CANCELED')
  t.same(live.offMachine, [])
})
