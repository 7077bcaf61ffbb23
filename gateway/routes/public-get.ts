// One public GET route the Binance way: parameters from the query (winning) and form body,
// the request's weight charged before anything is validated or read (Binance charges failed
// requests too), duplicate parameters refused, then the handler.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Params } from '../market-params.js'
import { anyObject, route as routeOptions } from '../schemas/common.js'
import { MARKET_DOCS } from '../schemas/market.js'
import { checkDuplicates, rawRequest } from '../params.js'
import type { WeightCounter } from '../weights.js'

export interface PublicGet {
  /** The path, or several serving the same thing (versions, aliases). */
  url: string | readonly string[]
  /** Parameters the route reads: the querystring schema lists them. */
  params: readonly string[]
  /** Schema of the 200 body (a free-form object when absent). */
  response?: Record<string, unknown>
  /** The request weight, from the raw parameters; must not throw. */
  weight: number | ((params: Params) => number)
  /** The body; a Buffer (a page, gateway/pages.ts) goes out as it is, its content type set. */
  handler: (params: Params, req: FastifyRequest, reply: FastifyReply) => unknown
}

export function publicGet(app: FastifyInstance, weights: WeightCounter, route: PublicGet): void {
  const urls = typeof route.url === 'string' ? [route.url] : route.url
  // Summary, weight rule and security type come from the family's document table.
  const doc = MARKET_DOCS[urls[0]!]
  const options = routeOptions({
    family: 'market', summary: doc?.summary ?? urls[0]!, security: doc?.security ?? 'NONE',
    weight: typeof route.weight === 'number' ? route.weight : doc?.weight ?? 'depends on the parameters',
    params: route.params, response: route.response ?? anyObject,
    ...(doc?.description === undefined ? {} : { description: doc.description }),
    ...(doc?.required === undefined ? {} : { required: doc.required }),
  })
  for (const url of urls) {
    // attachValidation (in the options): fastify's own verdict (only ever "not a string", for
    // a repeated parameter) is replaced by ours, with Binance's codes.
    app.get(url, options, async (req, reply) => {
      const raw = rawRequest(req)
      weights.charge(req.ip, typeof route.weight === 'number' ? route.weight : route.weight(raw.params))
      checkDuplicates(raw)
      return route.handler(raw.params, req, reply)
    })
  }
}
