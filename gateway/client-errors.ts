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

export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  // A connection reset: there is no one to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, code, msg] = REFUSALS[err.code ?? ''] ?? MALFORMED
  if (socket.writable) {
    const body = JSON.stringify({ code, msg })
    socket.write(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy()
}
