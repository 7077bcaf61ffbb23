// Request parameters the Binance way: from the query string and an
// application/x-www-form-urlencoded body, the query winning on a clash; the raw bytes of
// both are kept, because signatures are computed over them exactly as sent.

import type { FastifyRequest } from 'fastify'

export interface RawRequest {
  /** The query string as received, without '?'. */
  rawQuery: string
  /** The form body as received ('' when none). */
  rawBody: string
  params: Map<string, string>
}

export function parseParams(rawQuery: string, rawBody: string): Map<string, string> {
  const params = new Map<string, string>()
  for (const [k, v] of new URLSearchParams(rawBody)) params.set(k, v)
  for (const [k, v] of new URLSearchParams(rawQuery)) params.set(k, v)
  return params
}

export function rawRequest(req: FastifyRequest): RawRequest {
  const url = req.raw.url ?? ''
  const q = url.indexOf('?')
  const rawQuery = q < 0 ? '' : url.slice(q + 1)
  const rawBody = typeof req.body === 'string' ? req.body : ''
  return { rawQuery, rawBody, params: parseParams(rawQuery, rawBody) }
}
