// The network a replica talks over, behind an interface: WebSocket on loopback in
// production (ws-network.ts), a simulated packet network in the simulator.

export interface Connection {
  send(message: Uint8Array): void
  /** Bytes queued and not yet sent, so a slow peer can be cut off. */
  readonly bufferedBytes: number
  onMessage(fn: (message: Uint8Array) => void): void
  onClose(fn: (reason: string) => void): void
  close(reason?: string): void
}

export interface Listener {
  /** The URL followers connect to. */
  readonly url: string
  close(): Promise<void>
}

export interface Network {
  listen(host: string, port: number, onConnection: (c: Connection) => void): Promise<Listener>
  connect(url: string): Promise<Connection>
}
