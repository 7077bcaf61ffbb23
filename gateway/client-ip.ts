// Which address a request comes from, for the per-IP limits: request weight, the 418 ban and
// WebSocket connection attempts. By default the socket's peer. Behind reverse proxies (a TLS
// terminator, a load balancer) every client would show the proxy's address and share one
// budget and one ban; `--trust-proxy` names those proxies, and a request from one of them is
// taken to come from the address it forwarded (X-Forwarded-For read from the right, past the
// trusted hops, as fastify's req.ip reads it). Only listed proxies are believed: a client that
// writes X-Forwarded-For itself gains nothing.

import type { IncomingMessage } from 'node:http'
import proxyAddr from '@fastify/proxy-addr'

/** Trusted proxies: addresses, CIDR ranges, or `loopback`, `linklocal`, `uniquelocal`; empty: none. */
export type TrustProxy = readonly string[]

/** Reads `--trust-proxy`: a comma-separated list, or empty for none. Throws naming a bad entry. */
export function parseTrustProxy(text: string): TrustProxy {
  if (text.trim() === '') return []
  const entries = text.split(',').map((e) => e.trim())
  for (const e of entries) {
    try {
      proxyAddr.compile(e)
    } catch {
      throw new Error(`not an address, a CIDR range or loopback, linklocal, uniquelocal: '${e}'`)
    }
  }
  return entries
}

/** fastify's `trustProxy` option for the same list. */
export function fastifyTrustProxy(trust: TrustProxy): string[] | false {
  return trust.length === 0 ? false : [...trust]
}

/** The client address of a request (an HTTP upgrade, where fastify's req.ip is not at hand). */
export function clientIpOf(trust: TrustProxy): (req: IncomingMessage) => string {
  if (trust.length === 0) return (req) => req.socket.remoteAddress ?? ''
  const trusted = proxyAddr.compile([...trust])
  return (req) => proxyAddr(req, trusted)
}
