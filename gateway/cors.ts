// Cross-origin access for web pages (CORS). Binance answers a browser's public requests but
// refuses the X-MBX-APIKEY header in preflights, so a web app there trades through a server of
// its own. Here a session is signed by the user's wallet, which lives in the browser, so a page
// may go straight to the API: nothing the API reads confers ambient authority (no cookie; every
// signed request carries its key and signature), so answering any origin lets no page act for a
// user it holds no key of. `--cors-origins` narrows it to a list of origins, or to none.

import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { originNotAllowed } from './errors.js'

/** '*' any origin; a list: exactly those origins (an empty list: none). */
export type CorsOrigins = '*' | readonly string[]

/** Response headers a page may read: the usage counters, read-your-writes, back-off. */
const EXPOSED = 'X-MBX-USED-WEIGHT-1M, X-MBX-ORDER-COUNT-10S, X-MBX-ORDER-COUNT-1M, X-SAPI-USED-IP-WEIGHT-1M, X-SAPI-USED-UID-WEIGHT-1M, '
  + 'X-EXCHANGE-SEQ, Retry-After'
const METHODS = 'GET, HEAD, POST, PUT, DELETE'
/** How long a browser may reuse a preflight's answer, s (Chromium caps it at 7200). */
const PREFLIGHT_MAX_AGE_S = 7200
/** A preflight's Access-Control-Request-Headers: header names, comma-separated, bounded. */
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(?: *, *[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/
const HEADER_LIST_MAX = 1024
/** An origin as browsers send it: scheme://host[:port], no path. */
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(?::[0-9]{1,5})?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](?::[0-9]{1,5})?$/

/**
 * Reads `--cors-origins`: `*`, `none`, or a comma-separated list of origins
 * (`https://app.example.com,http://localhost:3000`). Throws with the offending item.
 */
export function parseCorsOrigins(text: string): CorsOrigins {
  const s = text.trim()
  if (s === '*') return '*'
  if (s === 'none') return []
  const origins = s.split(',').map((o) => o.trim())
  for (const o of origins) {
    if (!ORIGIN.test(o)) throw new Error(`not an origin: '${o}' (scheme://host[:port], no path; or '*', or 'none')`)
  }
  return origins.map((o) => o.toLowerCase())
}

export function originAllowed(origins: CorsOrigins, origin: string): boolean {
  return origins === '*' || origins.includes(origin.toLowerCase())
}

/**
 * Whether a WebSocket handshake's Origin may connect. Browsers do not apply CORS to
 * WebSockets: the server must. Without an Origin header (programs, not pages) it may.
 */
export function upgradeOriginAllowed(origins: CorsOrigins, req: IncomingMessage): boolean {
  const origin = req.headers.origin
  return origin === undefined || origins === '*' || originAllowed(origins, origin)
}

/**
 * Adds the CORS headers to every answer to an allowed origin (errors too, so a page can read
 * the code) and answers preflights (OPTIONS on any path, no weight charged).
 */
export function corsHooks(app: FastifyInstance, origins: CorsOrigins): void {
  const any = origins === '*'
  app.addHook('onRequest', (req, reply, done) => {
    // Answers differ by Origin when a list decides: caches must keep them apart.
    if (!any) void reply.header('Vary', 'Origin')
    const origin = req.headers.origin
    if (origin !== undefined && originAllowed(origins, origin)) {
      void reply.header('Access-Control-Allow-Origin', any ? '*' : origin)
      void reply.header('Access-Control-Expose-Headers', EXPOSED)
    }
    done()
  })
  app.route({
    method: 'OPTIONS',
    url: '*',
    schema: { hide: true },
    handler: (req, reply) => {
      const origin = req.headers.origin
      const method = req.headers['access-control-request-method']
      if (origin === undefined || method === undefined) {
        // Not a preflight: say what the path takes.
        return reply.status(204).header('Allow', `${METHODS}, OPTIONS`).send()
      }
      if (!originAllowed(origins, origin)) throw originNotAllowed(origin)
      const requested = req.headers['access-control-request-headers']
      void reply.status(204).header('Access-Control-Allow-Methods', METHODS)
        .header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S))
      // The names asked for are granted: the API ignores headers it does not read.
      if (typeof requested === 'string' && requested.length <= HEADER_LIST_MAX && HEADER_LIST.test(requested.trim())) {
        void reply.header('Access-Control-Allow-Headers', requested.trim())
      }
      // Chromium asks before a public page reaches a private address (a local exchange).
      if (req.headers['access-control-request-private-network'] === 'true') void reply.header('Access-Control-Allow-Private-Network', 'true')
      return reply.send()
    },
  })
}
