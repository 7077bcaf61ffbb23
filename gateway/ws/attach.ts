// Everything the gateway streams over WebSocket, on one hub: the market streams, and the user
// data stream whose stream names are live listen keys (/ws/<listenKey>, /stream?streams=,
// /private/ws|stream?listenKey=, or SUBSCRIBE).

import type { FastifyInstance } from 'fastify'
import type { GatewayContext } from '../context.js'
import { UserStreams } from '../user-data/user-streams.js'
import { StreamHub } from './hub.js'
import { attachWebSocket, type MarketStreams, type WebSocketOptions } from './server.js'

export interface Streams extends MarketStreams {
  users: UserStreams
}

export function attachStreams(app: FastifyInstance, ctx: GatewayContext,
  o: Omit<WebSocketOptions, 'hub' | 'extraStreams'> & { listenKeySweepMs?: number } = {}): Streams {
  const hub = new StreamHub()
  const users = new UserStreams(ctx, app.listenKeys, hub, o.listenKeySweepMs)
  app.addHook('onClose', async () => users.close())
  const market = attachWebSocket(app, ctx, {
    ...o, hub,
    extraStreams: { accepts: (name) => users.isListenKey(name), subscribed: (name) => { users.watch(name) } },
  })
  return { ...market, users }
}
