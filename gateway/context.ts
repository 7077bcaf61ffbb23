// What gateway routes read and do: the local replica's state (read only), its projections,
// a way to submit commands to the sequencer, and the clock. Routes never mutate state.

import type { Command } from '../core/commands.js'
import type { Result } from '../core/events.js'
import type { State } from '../core/state.js'
import type { BalanceProof } from '../replica/balance-proof.js'
import type { ProofRefusal } from '../replica/balance-prover.js'
import type { Projections } from '../replica/projections/index.js'
import type { Acknowledged } from '../replica/sequencer.js'
import type { TrustProxy } from './client-ip.js'
import type { CorsOrigins } from './cors.js'
import type { RateLimits } from './rate-limits.js'

export interface ReadableSeq {
  readonly seq: number
  /** True once `seq` is readable; false if `timeoutMs` passes first. */
  until(seq: number, timeoutMs: number): Promise<boolean>
}

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
  /**
   * The seq this node's state and projections both answer as of, and a bounded wait for a
   * later one: writes answer only once readable here; reads may name a seq to wait for.
   */
  applied: ReadableSeq
  /** Request weight and order limits; Binance's defaults when absent. */
  rateLimits?: RateLimits
  /** Web page origins the API and streams answer (cors.ts); any when absent. */
  corsOrigins?: CorsOrigins
  /** Reverse proxies whose X-Forwarded-For names the client (client-ip.ts); none when absent. */
  trustProxy?: TrustProxy
  /**
   * Every batch this replica applies, in seq order, with each entry's core result (the
   * WebSocket market streams are built from these). Returns an unsubscribe. Absent: no streams.
   */
  onCommitted?(listener: (c: CommittedBatch) => void): () => void
  /** Balance proofs at checkpoints (replica/balance-prover.ts). Absent: the endpoint answers 404 -1099. */
  balanceProofs?: BalanceProofSource
}

export interface BalanceProofSource {
  /** `account` as the state spells it; without `seq`, the anchored checkpoint (or the newest held). */
  prove(account: string, sub: number, seq?: number): Promise<BalanceProof | ProofRefusal>
}

/** Entries of one committed batch and the core result of each. */
export interface CommittedBatch {
  entries: readonly { seq: number; time: number }[]
  results: readonly Result[]
}
