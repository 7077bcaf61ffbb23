// A follower's way to the sequencer for commands: an ingress client opened on first use and
// reopened after the connection drops, so a gateway on a follower keeps working through a
// sequencer restart (submissions during the outage fail as DISCONNECTED, never hang).

import type { Command } from '../core/commands.js'
import { IngressClient, IngressError } from './ingress.js'
import type { Network } from './network.js'
import type { Acknowledged } from './sequencer.js'

/** The sequencer's server from its replication URL: ingress is served beside replication. */
export function sequencerBaseOf(replicationUrl: string): string {
  return new URL(replicationUrl).origin
}

export class IngressLink {
  private client: Promise<IngressClient> | null = null
  private closed = false

  /**
   * `url` is the sequencer's server without a path (IngressClient adds /commands), or where to
   * find it before each connect (the leader a consensus service names, leadership.ts).
   */
  constructor(private readonly network: Network, private readonly url: string | (() => Promise<string>)) {}

  async submit(command: Command): Promise<Acknowledged> {
    if (this.closed) throw new IngressError('STOPPED', 'ingress link closed')
    this.client ??= (typeof this.url === 'string' ? Promise.resolve(this.url) : this.url())
      .then((url) => IngressClient.connect(this.network, url))
    let client: IngressClient
    try {
      client = await this.client
    } catch (err) {
      this.client = null
      throw new IngressError('DISCONNECTED', `sequencer unreachable: ${(err as Error).message}`)
    }
    try {
      return await client.submit(command)
    } catch (err) {
      // A dropped connection is replaced on the next submit; the command's fate is unknown.
      if (err instanceof IngressError && err.code === 'DISCONNECTED') this.client = null
      throw err
    }
  }

  close(): void {
    this.closed = true
    void this.client?.then((c) => c.close(), () => undefined)
  }
}
