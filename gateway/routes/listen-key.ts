// The user data streams' listen keys (USER_STREAM: the API key only, no signature): POST
// creates or extends, PUT extends, DELETE closes; /fapi/v1/listenKey for the futures stream,
// /api/v3/userDataStream for the spot stream (a second key of the session). The streams
// themselves are served by the WebSocket server at /ws/<listenKey> and the /private forms.

import type { FastifyPluginAsync } from 'fastify'
import { authenticate } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { invalidListenKey } from '../errors.js'
import { object, route, str, type Schema } from '../schemas/common.js'
import type { ListenKeys } from '../user-data/listen-keys.js'
import type { WeightCounter } from '../weights.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
  listenKeys: ListenKeys
  spotListenKeys: ListenKeys
}

const keyBody = object({ listenKey: str })
const docsFor = (family: 'account' | 'spot', stream: string, keepAliveBody: Schema) => ({
  open: route({ family, summary: `Start the ${stream} user data stream (or extend the live one)`,
    description: 'Valid 60 minutes; a POST while a key is live returns the same key and extends it.',
    security: 'USER_STREAM', weight: 1, response: keyBody }),
  keepAlive: route({ family, summary: `Keep the ${stream} user data stream alive for 60 more minutes`,
    security: 'USER_STREAM', weight: 1, params: ['listenKey'], response: keepAliveBody }),
  close: route({ family, summary: `Close the ${stream} user data stream`,
    security: 'USER_STREAM', weight: 1, params: ['listenKey'], response: object({}) }),
})
const futuresDocs = docsFor('account', 'futures', keyBody)
const spotDocs = docsFor('spot', 'spot', object({}))

export const listenKeyRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights, listenKeys, spotListenKeys }) => {
  /** One stream's three routes; a listenKey sent is checked by ListenKeys.checkSent. PUT answers the key, spot's {}. */
  const serve = (path: string, keys: ListenKeys, docs: typeof futuresDocs): void => {

    app.post(path, docs.open, async (req) => {
      weights.charge(req.ip, 1)
      const a = authenticate(ctx, req, 'USER_STREAM')
      return { listenKey: (await keys.open(a.session)).listenKey }
    })

    app.put(path, docs.keepAlive, async (req) => {
      weights.charge(req.ip, 1)
      const a = authenticate(ctx, req, 'USER_STREAM')
      keys.checkSent(a.session.apiKey, a.params)
      const entry = await keys.keepAlive(a.session)
      if (!entry) throw invalidListenKey()
      return keys.stream === 'SPOT' ? {} : { listenKey: entry.listenKey }
    })

    app.delete(path, docs.close, async (req) => {
      weights.charge(req.ip, 1)
      const a = authenticate(ctx, req, 'USER_STREAM')
      keys.checkSent(a.session.apiKey, a.params)
      if (!(await keys.close(a.session))) throw invalidListenKey()
      return {}
    })
  }
  serve('/fapi/v1/listenKey', listenKeys, futuresDocs)
  serve('/api/v3/userDataStream', spotListenKeys, spotDocs)
}
