// The replication network over WebSocket binary frames.

import { WebSocket, WebSocketServer } from 'ws'
import type { Connection, Network } from './network.js'

function wrap(ws: WebSocket): Connection {
  return {
    send: (m) => ws.send(m, { binary: true }),
    get bufferedBytes() { return ws.bufferedAmount },
    onMessage: (fn) => ws.on('message', (data: Buffer) => fn(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))),
    onClose: (fn) => {
      ws.on('close', (code, reason) => fn(reason.toString() || `closed (${code})`))
      ws.on('error', (err) => fn(err.message))
    },
    close: (reason) => ws.close(1000, reason?.slice(0, 120)),
  }
}

export const wsNetwork: Network = {
  listen(host, port, onConnection) {
    return new Promise((resolve, reject) => {
      const server = new WebSocketServer({ host, port, maxPayload: 1 << 20 })
      server.once('error', reject)
      server.on('connection', (ws, req) => onConnection(wrap(ws), new URL(req.url ?? '/', 'ws://x').pathname))
      server.once('listening', () => {
        const addr = server.address()
        const actualPort = typeof addr === 'object' && addr ? addr.port : port
        resolve({
          url: `ws://${host}:${actualPort}`,
          close: () => new Promise<void>((r) => {
            for (const c of server.clients) c.terminate()
            server.close(() => r())
          }),
        })
      })
    })
  },
  connect(url) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { maxPayload: 512 << 20 })
      ws.once('open', () => resolve(wrap(ws)))
      ws.once('error', reject)
    })
  },
}
