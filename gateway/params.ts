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
  addParams(params, rawBody)
  addParams(params, rawQuery)
  return params
}

/** What only the full form-urlencoded parser handles: escapes, '+', lone surrogates. */
const NEEDS_DECODING = /[%+\uD800-\uDFFF]/

/**
 * Adds the pairs of `raw` as the WHATWG form-urlencoded parser (URLSearchParams) reads them,
 * later pairs winning. A text with nothing to decode (a bot's usual request) is split in
 * one pass here, without URLSearchParams' iterator and its per-pair arrays; anything else,
 * or a leading '?' (which URLSearchParams drops), goes to URLSearchParams itself.
 */
function addParams(params: Map<string, string>, raw: string): void {
  if (raw === '') return
  if (raw.charCodeAt(0) === 63 /* ? */ || NEEDS_DECODING.test(raw)) {
    for (const [k, v] of new URLSearchParams(raw)) params.set(k, v)
    return
  }
  // The next '=' (the text's length when there is none) only ever moves forward, so the
  // whole split reads the text once, however many pairs lack one.
  let eq = -1
  for (let start = 0; start < raw.length;) {
    let end = raw.indexOf('&', start)
    if (end < 0) end = raw.length
    // Empty pairs ('&&') are skipped; a name without '=' has the empty value.
    if (end > start) {
      if (eq < start) {
        eq = raw.indexOf('=', start)
        if (eq < 0) eq = raw.length
      }
      if (eq < end) params.set(raw.slice(start, eq), raw.slice(eq + 1, end))
      else params.set(raw.slice(start, end), '')
    }
    start = end + 1
  }
}

export function rawRequest(req: FastifyRequest): RawRequest {
  const url = req.raw.url ?? ''
  const q = url.indexOf('?')
  const rawQuery = q < 0 ? '' : url.slice(q + 1)
  const rawBody = typeof req.body === 'string' ? req.body : ''
  return { rawQuery, rawBody, params: parseParams(rawQuery, rawBody) }
}
