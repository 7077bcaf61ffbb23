// What gateway routes read and do: the local replica's state (read only), its projections,
// a way to submit commands to the sequencer, and the clock. Routes never mutate state.

import type { Command } from '../core/commands.js'
import type { State } from '../core/state.js'
import type { Projections } from '../replica/projections/index.js'
import type { Acknowledged } from '../replica/sequencer.js'

export interface GatewayContext {
  /** The replica state, as of its last applied entry. */
  state(): State
  projections: Projections
  submit(command: Command): Promise<Acknowledged>
  /** Wall-clock ms (server time). */
  now(): number
  /** 'mainnet' or 'testnet': the chain id and paths served. */
  network: 'mainnet' | 'testnet'
  /** Chain id of the EIP-712 domain that session signatures are made in. */
  chainId: number
  /** Gateways derive each session's HMAC secret from this and the apiKey; never logged. */
  masterSecret: Uint8Array
}
