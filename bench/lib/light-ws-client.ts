// A minimal WebSocket client for load generation: the opening handshake over a plain TCP
// socket, then server frames read in place. A thousand `ws` clients in two threads cost more
// CPU than the server they measure on a two-core machine; this one does no per-message
// allocation beyond the payload slice, so the figures stay the server's. It handles what a
// stream subscriber receives (text, binary, ping, close; server frames are never masked)
// and nothing else: use a real client everywhere else.

import { randomBytes } from 'node:crypto'
import net from 'node:net'

const OP_CONTINUATION = 0x0
const OP_CLOSE = 0x8
const OP_PING = 0x9

export interface LightSocket {
  close(): void
}

export function connectLight(host: string, port: number, path: string,
  onMessage: (payload: Buffer) => void, onClose: () => void): Promise<LightSocket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port })
    socket.setNoDelay(true)
    let buf: Buffer = Buffer.alloc(0)
    let open = false
    let fragments: Buffer[] = []
    const send = (opcode: number, payload: Buffer): void => {
      // Client frames must be masked; a zero mask keeps the payload as is.
      const head = Buffer.from([0x80 | opcode, 0x80 | payload.length, 0, 0, 0, 0])
      socket.write(Buffer.concat([head, payload]))
    }
    socket.once('connect', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`)
    })
    socket.on('error', (err) => { if (!open) reject(err) })
    socket.on('close', () => { if (open) onClose() })
    socket.on('data', (chunk: Buffer) => {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk])
      if (!open) {
        const end = buf.indexOf('\r\n\r\n')
        if (end < 0) return
        const status = buf.subarray(0, buf.indexOf('\r\n')).toString()
        if (!status.includes(' 101 ')) {
          reject(new Error(`handshake refused: ${status}`))
          socket.destroy()
          return
        }
        open = true
        buf = buf.subarray(end + 4)
        resolve({ close: () => socket.end() })
      }
      for (;;) {
        if (buf.length < 2) return
        const fin = (buf[0]! & 0x80) !== 0
        const opcode = buf[0]! & 0x0f
        let len = buf[1]! & 0x7f
        let at = 2
        if (len === 126) {
          if (buf.length < 4) return
          len = buf.readUInt16BE(2)
          at = 4
        } else if (len === 127) {
          if (buf.length < 10) return
          len = Number(buf.readBigUInt64BE(2))
          at = 10
        }
        if (buf.length < at + len) return
        const payload = buf.subarray(at, at + len)
        buf = buf.subarray(at + len)
        if (opcode === OP_PING) send(0xa, Buffer.from(payload))
        else if (opcode === OP_CLOSE) socket.end()
        else if (opcode < OP_CLOSE) {
          if (!fin || opcode === OP_CONTINUATION) {
            fragments.push(Buffer.from(payload))
            if (!fin) continue
            const whole = Buffer.concat(fragments)
            fragments = []
            onMessage(whole)
          } else onMessage(payload)
        }
      }
    })
  })
}
