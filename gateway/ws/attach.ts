// Everything the gateway streams over WebSocket, on one hub: the market streams, and the user
// data streams (futures and spot) whose stream names are live listen keys (/ws/<listenKey>,
// /stream?streams=, /private/ws|stream?listenKey=, or SUBSCRIBE; a connection on a key its
// owner closes is closed); and the WebSocket APIs beside them (futures, and spot's with its
// user data stream subscriptions).

import type { FastifyInstance } from 'fastify'
import type { GatewayContext } from '../context.js'
import { UserStreams } from '../user-data/user-streams.js'
import { StreamHub } from './hub.js'
import { CLOSE } from './managed-socket.js'
import { attachWebSocket, type MarketStreams, type WebSocketOptions } from './server.js'
import { attachWsApi, type WsApi } from '../ws-api/server.js'

export interface Streams extends MarketStreams {
  users: UserStreams
  /** The WebSocket APIs (/ws-fapi/v1 and /ws-api/v1; spot's /ws-api/v3), on the same server. */
  api: WsApi
}

export function attachStreams(app: FastifyInstance, ctx: GatewayContext,
  o: Omit<WebSocketOptions, 'hub' | 'extraStreams' | 'otherUpgrades'> & { listenKeySweepMs?: number } = {}): Streams {
  const hub = new StreamHub()
  const users = new UserStreams(ctx, { FUTURES: app.listenKeys, SPOT: app.spotListenKeys }, hub, o.listenKeySweepMs)
  app.addHook('onClose', async () => users.close())
  const api = attachWsApi(app, users, o)
  const market = attachWebSocket(app, ctx, {
    ...o, hub, otherUpgrades: api.handleUpgrade,
    extraStreams: { accepts: (name) => users.isListenKey(name), subscribed: (name) => { users.watch(name) } },
  })
  users.onKeyClosed((key) => {
    for (const c of [...market.connections]) if (c.streams.has(key)) c.close(CLOSE.normal, 'listenKey closed')
  })
  return { ...market, users, api }
}
