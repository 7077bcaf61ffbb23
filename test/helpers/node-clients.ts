// Two Binance clients from npm, unmodified, pointed at a gateway by their base URL options
// alone (docs/WEBSOCKET.md, "Using binance-api-node / node-binance-api"), and a box that
// collects what a stream callback gets.

import BinanceApiNode from 'binance-api-node'
import NodeBinanceApi from 'node-binance-api'
import { eventually, type LiveAccount } from './live-exchange.js'

/**
 * `binance-api-node`: REST on `base`; futures streams on the hosts Binance splits them across
 * (/public, /market, /private), spot streams on the spot stream host, spot user data on the
 * WebSocket API. (A CommonJS package: its function is the module's `default`.)
 */
export function binanceApiNode(base: string, who: LiveAccount) {
  const ws = base.replace(/^http/, 'ws')
  return BinanceApiNode.default({ apiKey: who.apiKey, apiSecret: who.secretKey, httpBase: base, httpFutures: base,
    wsBase: `${ws}/spot/ws`, wsApi: `${ws}/ws-api/v3`,
    wsFuturesPublic: `${ws}/public/ws`, wsFuturesMarket: `${ws}/market/ws`, wsFuturesPrivate: `${ws}/private/ws` })
}

/**
 * `node-binance-api`: REST on `base`, spot streams on the spot stream host. It does not reconnect
 * (the exchange stops at a test's end), and its notes of streams closing stay out of the output.
 */
export function nodeBinanceApi(base: string, who: LiveAccount): NodeBinanceApi {
  const ws = base.replace(/^http/, 'ws')
  return new NodeBinanceApi({ APIKEY: who.apiKey, APISECRET: who.secretKey, reconnect: false, log: () => undefined,
    urls: { base: `${base}/api/`, sapi: `${base}/sapi/`, fapi: `${base}/fapi/`, stream: `${ws}/spot/ws/`, combineStream: `${ws}/spot/stream?streams=` } })
}

/** Ends every stream a node-binance-api client opened. */
export function closeStreams(c: NodeBinanceApi): void {
  for (const endpoint of Object.keys(c.websockets.subscriptions())) c.websockets.terminate(endpoint)
}

/** What a stream callback gets (`push`), and a wait for an item. */
export function box<T>() {
  const items: T[] = []
  return {
    items,
    push: (x: T) => { items.push(x) },
    until: (pred: (x: T) => boolean) => eventually(async () => items.find(pred), (x) => x !== undefined),
  }
}
