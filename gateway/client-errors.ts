// HTTP requests refused before fastify sees them (Node's 'clientError': headers past its size
// limit, bytes that are not HTTP, a request that never finishes arriving). Answered in Binance's
// {code, msg} like every other refusal; fastify's default answers {error, message, statusCode},
// which a Binance client reads as an error with no code.

import http from 'node:http'
import type { Socket } from 'node:net'

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
  refused.add(socket)
  const [status, code, msg] = REFUSALS[err.code ?? ''] ?? MALFORMED
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
