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
  /** Base URL of the endpoint, e.g. ws://127.0.0.1:9090 (services add their path). */
  readonly url: string
  close(): Promise<void>
}

export interface Network {
  /** Accepts connections on every path; the handler is told which one was asked for. */
  listen(host: string, port: number, onConnection: (c: Connection, path: string) => void): Promise<Listener>
  connect(url: string): Promise<Connection>
}
