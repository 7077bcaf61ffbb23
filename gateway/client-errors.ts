// HTTP requests Node answers before fastify sees them, or would: 'clientError' (headers past its
// size limit, bytes that are not HTTP, a request that never finishes arriving), a CONNECT, an
// Expect other than 100-continue, an HTTP/1.1 request without Host. Answered in Binance's
// {code, msg} like every other refusal; fastify's and Node's defaults answer {error, message,
// statusCode} or an empty body (a CONNECT: a silent close), which a Binance client reads as an
// error with no code.

import http, { type IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { expectationFailed, missingHost } from './errors.js'

type Refusal = [status: number, code: number, msg: string]

const REFUSALS: Record<string, Refusal> = {
  // As a body past the limit is (app.ts): too much sent.
  HPE_HEADER_OVERFLOW: [431, -1101, 'Request header fields too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, -1100, 'The request did not arrive in time.'],
}
const MALFORMED: Refusal = [400, -1100, 'Malformed HTTP request.']

/** Sockets already refused: the parser reports each later chunk of a refused connection again. */
const refused = new WeakSet<Socket>()

export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  // A connection reset: there is no one to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed || refused.has(socket)) return
  refuseSocket(socket, REFUSALS[err.code ?? ''] ?? MALFORMED)
}

/** A CONNECT: no route of this API is a tunnel, and its target (host:port) is no path of ours. */
const CONNECT_REFUSED: Refusal = [400, -1100, 'Malformed HTTP request: CONNECT is not supported.']

/**
 * Node's own answers made Binance's: a CONNECT (with no 'connect' listener Node closes the socket
 * without a word) answered on the socket; an Expect other than 100-continue (Node: 417, no body)
 * and an HTTP/1.1 request without Host (Node: 400, no body, unless the server is built with
 * `requireHostHeader: false`, as app.ts builds it) refused by fastify's error handler, so they
 * carry the usage and CORS headers every refusal carries.
 */
export function httpRefusalHooks(app: FastifyInstance): void {
  app.server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    // Node took its own listeners off the socket before handing it over: a reset would throw.
    socket.on('error', () => socket.destroy())
    refuseSocket(socket, CONNECT_REFUSED)
  })
  const unmet = new WeakSet<IncomingMessage>()
  app.server.on('checkExpectation', (req: IncomingMessage, res: http.ServerResponse) => {
    unmet.add(req)
    app.server.emit('request', req, res)
  })
  app.addHook('onRequest', (req, _reply, done) => {
    if (unmet.has(req.raw)) done(expectationFailed())
    else if (req.raw.httpVersion === '1.1' && req.raw.headers.host === undefined) done(missingHost())
    else done()
  })
}

/** Writes `refusal` on `socket` and closes it, after the responses in progress on it. */
function refuseSocket(socket: Socket, [status, code, msg]: Refusal): void {
  refused.add(socket)
  // Pipelined requests before the bad bytes are answered first, in order: a refusal written
  // now would reach the client as the answer to one of them (an order placed, answered 400).
  afterResponses(socket, () => {
    if (socket.writable) socket.write(rawJsonResponse(status, { code, msg }))
    socket.destroy()
  })
}

/** Runs `then` once the socket has no response in progress (Node's current one, `_httpMessage`), nor any queued after it. */
function afterResponses(socket: Socket, then: () => void): void {
  const current = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage
  if (current == null || socket.destroyed) {
    then()
    return
  }
  // The next pipelined response, if any, becomes current as this one finishes.
  const next = (): void => { setImmediate(() => afterResponses(socket, then)) }
  current.once('finish', next)
  current.once('close', () => { if (!current.writableFinished) socket.destroy() })
}

/**
 * A whole HTTP/1.1 response with a JSON body, for a socket no HTTP framework answers (a request
 * the parser refused, an upgrade refused); `header`, a whole header line, is sent too.
 */
export function rawJsonResponse(status: number, body: object, header?: string): string {
  const text = JSON.stringify(body)
  const extra = header === undefined ? '' : `${header}\r\n`
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(text)}\r\n${extra}Connection: close\r\n\r\n${text}`
}
