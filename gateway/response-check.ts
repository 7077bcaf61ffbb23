// A check for tests: response schemas also serialize (fast-json-stringify writes only the
// properties a schema names, coerced to its types), so a schema that misses or mistypes a
// field the handler returned loses it silently. With this check on, such a response is
// answered 500 naming the field instead; a page, sent as the bytes the projections' thread made
// (pages.ts), is checked against what its schema would make of it. Off in production: it
// serializes every body twice.

import type { FastifyInstance, FastifyReply } from 'fastify'
import { ApiError } from './errors.js'

/** The first path at which `got` lacks or differs from `want`, or undefined when equal. */
function firstDifference(want: unknown, got: unknown, at: string): string | undefined {
  if (want === null || got === null || typeof want !== 'object' || typeof got !== 'object') {
    return want === got ? undefined : at || '(body)'
  }
  if (Array.isArray(want) !== Array.isArray(got)) return at || '(body)'
  const w = want as Record<string, unknown>
  const g = got as Record<string, unknown>
  for (const key of new Set([...Object.keys(w), ...Object.keys(g)])) {
    if (!(key in w) || !(key in g)) return `${at}.${key}`
    const d = firstDifference(w[key], g[key], `${at}.${key}`)
    if (d !== undefined) return d
  }
  return undefined
}

/**
 * A page (gateway/pages.ts) is JSON the route did not serialize: what its schema's serializer
 * would make of the same body must be that body.
 */
function pageDifference(reply: FastifyReply, payload: Buffer): string | undefined {
  if (!/json/.test(String(reply.getHeader('content-type')))) return undefined
  const serialize = reply.getSerializationFunction(String(reply.statusCode)) as ((doc: unknown) => string) | undefined
  if (serialize === undefined) return undefined
  const body: unknown = JSON.parse(payload.toString())
  return firstDifference(body, JSON.parse(serialize(body)), '')
}

export function checkResponses(app: FastifyInstance): void {
  const handed = new WeakMap<FastifyReply, string>()
  app.addHook('preSerialization', async (_req, reply, payload) => {
    handed.set(reply, JSON.stringify(payload))
    return payload
  })
  app.addHook('onSend', async (req, reply, payload) => {
    const want = handed.get(reply)
    handed.delete(reply)
    const where = want !== undefined && typeof payload === 'string' ? firstDifference(JSON.parse(want), JSON.parse(payload), '')
      : want === undefined && Buffer.isBuffer(payload) ? pageDifference(reply, payload) : undefined
    if (where !== undefined) {
      throw new ApiError(500, -1000, `The response schema of ${req.method} ${req.routeOptions.url} loses or changes ${where}.`)
    }
    return payload
  })
}
