// The WebSocket handshake's own checks, made before `ws` sees the request: `ws` refuses a bad
// one itself, but with a text/html body; here the refusal is Binance's {code, msg} like every
// other (the checks are the ones RFC 6455 §4.2.1 asks of a server, as `ws` makes them).

import type { IncomingMessage } from 'node:http'

/** A handshake refused: HTTP status, body, and any header that says what would be accepted. */
export interface HandshakeRefusal {
  status: number
  body: { code: number; msg: string }
  header?: string
}

const KEY = /^[+/0-9A-Za-z]{22}==$/

/** Why this upgrade request is no WebSocket handshake a server may accept, or undefined. */
export function handshakeRefusal(req: IncomingMessage): HandshakeRefusal | undefined {
  if (req.method !== 'GET') return { status: 405, body: { code: -1100, msg: 'A WebSocket handshake is a GET request.' } }
  if (req.headers.upgrade?.toLowerCase() !== 'websocket') {
    return { status: 400, body: { code: -1100, msg: 'Invalid Upgrade header: only websocket is served.' } }
  }
  const key = req.headers['sec-websocket-key']
  if (key === undefined || !KEY.test(key)) return { status: 400, body: { code: -1100, msg: 'Missing or invalid Sec-WebSocket-Key header.' } }
  const version = req.headers['sec-websocket-version']
  if (version !== '13' && version !== '8') {
    return { status: 400, body: { code: -1100, msg: 'Missing or invalid Sec-WebSocket-Version header: 13 or 8.' }, header: 'Sec-WebSocket-Version: 13, 8' }
  }
  return undefined
}
