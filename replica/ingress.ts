// Command ingress: how gateways (in this process or on other machines) hand commands to the
// sequencer and hear their results once durable. msgpack arrays over binary frames:
//   client → sequencer: ['submit', requestId, command]
//   sequencer → client: ['ack', requestId, seq, time, result] | ['nack', requestId, code, message]

import type { Command } from '../core/commands.js'
import type { Result } from '../core/events.js'
import { LIMITS } from '../core/limits.js'
import { packr } from './entry.js'
import { verifyOraclePrice } from './oracle-signature.js'
import type { Connection, Network } from './network.js'
import type { Acknowledged, Sequencer } from './sequencer.js'

export const INGRESS_PATH = '/commands'

type ClientMessage = ['submit', number, Command]
type ServerMessage = ['ack', number, number, number, Result] | ['nack', number, string, string]

/** Serves one ingress connection against the sequencer. */
export function serveIngress(conn: Connection, sequencer: Sequencer): void {
  conn.onMessage((bytes) => {
    let m: ClientMessage
    try {
      if (bytes.length > LIMITS.commandBytesMax) throw new Error('command too large')
      m = packr.unpack(bytes) as ClientMessage
      if (!Array.isArray(m) || m[0] !== 'submit' || !Number.isSafeInteger(m[1]) || typeof m[2] !== 'object' || m[2] === null) {
        throw new Error('malformed submit')
      }
    } catch (err) {
      conn.close((err as Error).message)
      return
    }
    const id = m[1]
    // An oracle price is sequenced only with a valid signature by the key it names (the core checks that key is registered).
    if (m[2].type === 'OraclePrice' && !verifyOraclePrice(m[2])) {
      send(conn, ['nack', id, 'SIGNATURE_INVALID', 'the oracle price signature does not verify'])
      return
    }
    // A term is opened by the elected sequencer itself (replica.ts): from anyone else it would
    // misstate which leader wrote what follows, and raise the epoch its standbys vote with.
    if (m[2].type === 'Lead') {
      send(conn, ['nack', id, 'EPOCH_INVALID', 'a term is opened only by the sequencer elected to it'])
      return
    }
    sequencer.submit(m[2]).then(
      (a) => send(conn, ['ack', id, a.seq, a.time, a.result]),
      (err: Error & { code?: string }) => send(conn, ['nack', id, err.code ?? 'ERROR', err.message]),
    )
  })
}

function send(conn: Connection, m: ServerMessage): void {
  try { conn.send(packr.pack(m)) } catch { /* the client went away; it learns from the log */ }
}

export class IngressError extends Error {
  override name = 'IngressError'
  constructor(readonly code: string, message: string) { super(message) }
}

/** A client that submits commands to a remote sequencer. */
export class IngressClient {
  private nextId = 1
  private readonly waiting = new Map<number, { resolve: (a: Acknowledged) => void; reject: (e: Error) => void }>()
  private closed = false

  private constructor(private readonly conn: Connection) {
    conn.onMessage((bytes) => {
      const m = packr.unpack(bytes) as ServerMessage
      const w = this.waiting.get(m[1])
      if (!w) return
      this.waiting.delete(m[1])
      if (m[0] === 'ack') w.resolve({ seq: m[2], time: m[3], result: m[4] })
      else w.reject(new IngressError(m[2], m[3]))
    })
    conn.onClose((reason) => {
      this.closed = true
      for (const w of this.waiting.values()) w.reject(new IngressError('DISCONNECTED', `connection closed: ${reason}`))
      this.waiting.clear()
    })
  }

  static async connect(network: Network, baseUrl: string): Promise<IngressClient> {
    return new IngressClient(await network.connect(baseUrl + INGRESS_PATH))
  }

  get pending(): number { return this.waiting.size }

  submit(command: Command): Promise<Acknowledged> {
    if (this.closed) return Promise.reject(new IngressError('DISCONNECTED', 'connection closed'))
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject })
      this.conn.send(packr.pack(['submit', id, command]))
    })
  }

  close(): void { this.conn.close('client closing') }
}
