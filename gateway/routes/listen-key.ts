// The user data stream's listen key (USER_STREAM: the API key only, no signature):
// POST creates or extends, PUT extends, DELETE closes. The stream itself is served by the
// WebSocket server at /ws/<listenKey> and the /private forms.

import type { FastifyPluginAsync } from 'fastify'
import { authenticate } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { invalidListenKey } from '../errors.js'
import { object, route, str } from '../schemas/common.js'
import type { ListenKeys } from '../user-data/listen-keys.js'
import type { WeightCounter } from '../weights.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
  listenKeys: ListenKeys
}

const keyBody = object({ listenKey: str })
const docs = {
  open: route({ family: 'account', summary: 'Start a user data stream (or extend the live one)',
    description: 'Valid 60 minutes; a POST while a key is live returns the same key and extends it.',
    security: 'USER_STREAM', weight: 1, response: keyBody }),
  keepAlive: route({ family: 'account', summary: 'Keep the user data stream alive for 60 more minutes',
    security: 'USER_STREAM', weight: 1, params: ['listenKey'], response: keyBody }),
  close: route({ family: 'account', summary: 'Close the user data stream',
    security: 'USER_STREAM', weight: 1, params: ['listenKey'], response: object({}) }),
}

export const listenKeyRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights, listenKeys }) => {
  app.post('/fapi/v1/listenKey', docs.open, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'USER_STREAM')
    return { listenKey: (await listenKeys.open(a.session)).listenKey }
  })

  // The listenKey parameter is optional (Binance: the key names the stream); a key sent that
  // is not this session's is refused rather than extending another.
  const own = (a: ReturnType<typeof authenticate>): void => {
    const sent = a.params.get('listenKey')
    if (sent !== undefined && sent !== listenKeys.keyOf(a.session.apiKey)) throw invalidListenKey()
  }

  app.put('/fapi/v1/listenKey', docs.keepAlive, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'USER_STREAM')
    own(a)
    const entry = await listenKeys.keepAlive(a.session)
    if (!entry) throw invalidListenKey()
    return { listenKey: entry.listenKey }
  })

  app.delete('/fapi/v1/listenKey', docs.close, async (req) => {
    weights.charge(req.ip, 1)
    const a = authenticate(ctx, req, 'USER_STREAM')
    own(a)
    if (!(await listenKeys.close(a.session))) throw invalidListenKey()
    return {}
  })
}
