// The fan-out process (see fan-out.ts): holds the market-stream sockets the gateway hands it,
// writes each event it receives once to every subscriber of its stream, and reports what the
// clients send. It ends with the gateway: when the IPC channel closes, so does this process.

import type { Duplex } from 'node:stream'
import { WebSocketServer } from 'ws'
import type { FanOutConfig, FanOutEvent, FromFanOut, ToFanOut } from './fan-out.js'
import { StreamHub } from './hub.js'
import { StreamSocket } from './stream-socket.js'

const config = JSON.parse(process.argv[2]!) as FanOutConfig
const hub = new StreamHub()
const wss = new WebSocketServer({ noServer: true, maxPayload: config.maxPayload })
const sockets = new Map<number, StreamSocket>()

let events: FanOutEvent[] = []
const report = (e: FanOutEvent): void => {
  events.push(e)
  // One message per turn, like the gateway's side.
  if (events.length === 1) process.nextTick(flush)
}
const flush = (): void => {
  const m: FromFanOut = { t: 'events', events }
  events = []
  post(m)
}

/** Sends to the gateway, if it is still there. A channel the gateway closed is not always known
 * closed yet (its end is read on this process's next turn), and a send on it fails with EPIPE:
 * given no callback, Node raises that as an unhandled 'error' and prints a stack on the stderr
 * the gateway shares. Either way the gateway is gone, and so this process goes. */
function post(m: FromFanOut): void {
  if (!process.connected) return
  process.send!(m, undefined, undefined, (err: Error | null) => { if (err !== null) process.exit(0) })
}

function adopt(m: Extract<ToFanOut, { t: 'adopt' }>, socket: Duplex | undefined): void {
  if (socket === undefined) {
    report(['ended', m.id])
    return
  }
  socket.on('error', () => socket.destroy())
  let done = false
  // A request the gateway routed but that is no WebSocket handshake is refused here (400).
  wss.handleUpgrade({ method: m.method, url: m.url, headers: m.headers } as never, socket, Buffer.from(m.head), (ws) => {
    done = true
    const s = new StreamSocket(ws, socket, config.limits, hub, m.combined, m.micro)
    sockets.set(m.id, s)
    s.listen({
      message: (text) => report(['message', m.id, text]),
      control: () => report(['control', m.id]),
      ended: () => {
        sockets.delete(m.id)
        report(['ended', m.id])
      },
    })
    for (const name of m.streams) s.add(name)
  })
  if (!done) report(['ended', m.id])
}

function run(ops: Extract<ToFanOut, { t: 'ops' }>['ops']): void {
  for (const o of ops) {
    if (o[0] === 'publish') {
      hub.publish(o[1], o[2], o[3])
      continue
    }
    const s = sockets.get(o[1])
    if (s === undefined) continue
    switch (o[0]) {
      case 'add': s.add(o[2]); break
      case 'remove': s.remove(o[2]); break
      case 'reply': s.reply(o[2]); break
      case 'combined': s.setCombined(o[2]); break
      case 'close': s.close(o[2], o[3]); break
      case 'terminate': s.terminate(); break
    }
  }
}

function stop(): void {
  // Frames and close frames queued this turn leave first (outbox.ts writes them at its end).
  setImmediate(() => {
    for (const s of [...sockets.values()]) s.terminate()
    process.exit(0)
  })
}

process.on('message', (m: ToFanOut, handle: unknown) => {
  if (m.t === 'ops') run(m.ops)
  else if (m.t === 'adopt') adopt(m, handle as Duplex | undefined)
  else stop()
})
process.on('disconnect', () => process.exit(0))
// The gateway may be gone before this process is up (a start refused, say a port in use).
if (process.connected) post({ t: 'ready' })
else process.exit(0)
