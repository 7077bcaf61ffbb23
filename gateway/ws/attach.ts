// Everything the gateway streams over WebSocket, on one hub: the market streams, and the user
// data stream whose stream names are live listen keys (/ws/<listenKey>, /stream?streams=,
// /private/ws|stream?listenKey=, or SUBSCRIBE); and the WebSocket API beside them.

import type { FastifyInstance } from 'fastify'
import type { GatewayContext } from '../context.js'
import { UserStreams } from '../user-data/user-streams.js'
import { StreamHub } from './hub.js'
import { attachWebSocket, type MarketStreams, type WebSocketOptions } from './server.js'
import { attachWsApi, type WsApi } from '../ws-api/server.js'

export interface Streams extends MarketStreams {
  users: UserStreams
  /** The WebSocket API (/ws-fapi/v1, /ws-api/v1), on the same server. */
  api: WsApi
}

export function attachStreams(app: FastifyInstance, ctx: GatewayContext,
  o: Omit<WebSocketOptions, 'hub' | 'extraStreams' | 'otherUpgrades'> & { listenKeySweepMs?: number } = {}): Streams {
  const hub = new StreamHub()
  const users = new UserStreams(ctx, app.listenKeys, hub, o.listenKeySweepMs)
  app.addHook('onClose', async () => users.close())
  const api = attachWsApi(app, o)
  const market = attachWebSocket(app, ctx, {
    ...o, hub, otherUpgrades: api.handleUpgrade,
    extraStreams: { accepts: (name) => users.isListenKey(name), subscribed: (name) => { users.watch(name) } },
  })
  return { ...market, users, api }
}
