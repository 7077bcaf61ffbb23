// A minimal WebSocket client for load generation: the opening handshake over a plain TCP
// socket, then server frames read in place. A thousand `ws` clients in two threads cost more
// CPU than the server they measure on a two-core machine; this one reads every socket into
// one buffer its thread shares (net's `onread`: no stream, no buffer per read) and hands each
// message's bytes over in place, copying only a frame split between two reads. It handles
// what a stream subscriber receives (text, binary, ping, close; server frames are never
// masked) and nothing else: use a real client everywhere else.

import { randomBytes } from 'node:crypto'
import net from 'node:net'

const OP_CONTINUATION = 0x0
const OP_CLOSE = 0x8
const OP_PING = 0x9
const OP_PONG = 0xa

export interface LightSocket {
  close(): void
}

/** A message's payload: `data[start..end)`, valid only during the call. */
export type OnMessage = (data: Buffer, start: number, end: number) => void

/** Every connection of the thread reads into this; each read is consumed before the next. */
const READ = Buffer.allocUnsafe(256 * 1024)
const HEAD_END = Buffer.from('\r\n\r\n')

export function connectLight(host: string, port: number, path: string, onMessage: OnMessage, onClose: () => void): Promise<LightSocket> {
  return new Promise((resolve, reject) => {
    let open = false
    /** The bytes of a frame (or of the handshake reply) the last read ended inside of. */
    let rest: Buffer | null = null
    let fragments: Buffer[] = []

    const send = (opcode: number, payload: Buffer): void => {
      // Client frames must be masked; a zero mask keeps the payload as is.
      const head = Buffer.from([0x80 | opcode, 0x80 | payload.length, 0, 0, 0, 0])
      socket.write(Buffer.concat([head, payload]))
    }

    /** Takes the handshake reply from data[at..end); the offset after it, or -1 to wait for more. */
    const handshake = (data: Buffer, at: number, end: number): number => {
      const head = data.subarray(at, end).indexOf(HEAD_END)
      if (head < 0) return -1
      const status = data.toString('latin1', at, data.indexOf(13, at))
      if (!status.includes(' 101 ')) {
        reject(new Error(`handshake refused: ${status}`))
        socket.destroy()
        return end
      }
      open = true
      resolve({ close: () => socket.end() })
      return at + head + 4
    }

    const onRead = (n: number, buf: Buffer): boolean => {
      let data = buf
      let at = 0
      let end = n
      if (rest !== null) {
        data = Buffer.concat([rest, buf.subarray(0, n)])
        end = data.length
        rest = null
      }
      if (!open) {
        const next = handshake(data, at, end)
        if (next < 0) {
          rest = Buffer.from(data.subarray(at, end))
          return true
        }
        at = next
      }
      while (end - at >= 2) {
        const b0 = data[at]!
        const fin = (b0 & 0x80) !== 0
        const opcode = b0 & 0x0f
        let len = data[at + 1]! & 0x7f
        let head = 2
        if (len === 126) {
          if (end - at < 4) break
          len = data.readUInt16BE(at + 2)
          head = 4
        } else if (len === 127) {
          if (end - at < 10) break
          len = Number(data.readBigUInt64BE(at + 2))
          head = 10
        }
        if (end - at < head + len) break
        const start = at + head
        at = start + len
        if (opcode === OP_PING) send(OP_PONG, Buffer.from(data.subarray(start, at)))
        else if (opcode === OP_CLOSE) socket.end()
        else if (opcode < OP_CLOSE) {
          if (!fin || opcode === OP_CONTINUATION) {
            fragments.push(Buffer.from(data.subarray(start, at)))
            if (!fin) continue
            const whole = Buffer.concat(fragments)
            fragments = []
            onMessage(whole, 0, whole.length)
          } else onMessage(data, start, at)
        }
      }
      // The shared buffer is overwritten by the next read: keep a copy of what is left.
      if (at < end) rest = Buffer.from(data.subarray(at, end))
      return true
    }

    const socket = net.connect({ host, port, onread: { buffer: READ, callback: onRead } })
    socket.setNoDelay(true)
    socket.once('connect', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`)
    })
    socket.on('error', (err) => { if (!open) reject(err) })
    socket.on('close', () => { if (open) onClose() })
  })
}
