// Request parameters the Binance way: from the query string and an
// application/x-www-form-urlencoded body, the query winning on a clash; the raw bytes of
// both are kept, because signatures are computed over them exactly as sent.

import type { FastifyRequest } from 'fastify'
import { duplicateParameter } from './errors.js'

export interface RawRequest {
  /** The query string as received, without '?'. */
  rawQuery: string
  /** The form body as received ('' when none). */
  rawBody: string
  params: Map<string, string>
  /** Whether a name came twice in the query, or twice in the body (refused, -1101). */
  duplicate: boolean
}

export function parseParams(rawQuery: string, rawBody: string): Pick<RawRequest, 'params' | 'duplicate'> {
  const params = new Map<string, string>()
  // The usual request has no body: a name sent twice shows as more pairs than names.
  if (rawBody === '') return { params, duplicate: addParams(params, rawQuery) > params.size }
  const bodyPairs = addParams(params, rawBody)
  const bodyDuplicate = bodyPairs > params.size
  const query = new Map<string, string>()
  const queryPairs = addParams(query, rawQuery)
  for (const [k, v] of query) params.set(k, v)
  return { params, duplicate: bodyDuplicate || queryPairs > query.size }
}

/** What only the full form-urlencoded parser handles: escapes, '+', lone surrogates. */
const NEEDS_DECODING = /[%+\uD800-\uDFFF]/

/**
 * Adds the pairs of `raw` as the WHATWG form-urlencoded parser (URLSearchParams) reads them,
 * later pairs winning, and returns how many pairs there were. A text with nothing to decode
 * (a bot's usual request) is split in one pass here, without URLSearchParams' iterator and
 * its per-pair arrays; anything else, or a leading '?' (which URLSearchParams drops), goes to
 * URLSearchParams itself.
 */
function addParams(params: Map<string, string>, raw: string): number {
  if (raw === '') return 0
  let pairs = 0
  if (raw.charCodeAt(0) === 63 /* ? */ || NEEDS_DECODING.test(raw)) {
    for (const [k, v] of new URLSearchParams(raw)) { params.set(k, v); pairs++ }
    return pairs
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
      pairs++
    }
    start = end + 1
  }
  return pairs
}

export function rawRequest(req: FastifyRequest): RawRequest {
  const url = req.raw.url ?? ''
  const q = url.indexOf('?')
  const rawQuery = q < 0 ? '' : url.slice(q + 1)
  const rawBody = typeof req.body === 'string' ? req.body : ''
  return { rawQuery, rawBody, ...parseParams(rawQuery, rawBody) }
}

/**
 * A parameter sent twice in the query string, or twice in the body, is refused (-1101). One
 * sent in both is not a duplicate: the query wins, as the spec says.
 */
export function checkDuplicates(raw: Pick<RawRequest, 'duplicate'>): void {
  if (raw.duplicate) throw duplicateParameter()
}
