// The balance proof a user checks without the log: a sub-account's money leaves at one
// checkpoint, each with its Merkle path to that checkpoint's state root, and the log entry's
// hash the Vault anchors beside the root. `exchange prove` writes it from a replayed log; a
// running node serves it from a checkpoint's snapshot (balance-prover.ts); `exchange
// verify-proof` checks either.

import { toHex } from '../core/merkle.js'
import { accountProofsIn, type ProofTree } from '../core/root.js'

export const PROOF_FORMAT = 'perp-exchange-balance-proof'

export interface BalanceProof {
  format: typeof PROOF_FORMAT
  /** 1: leaves unsalted (a log under rules 1); 2: each leaf carries its salt (rules 2 on, core/root.ts). */
  version: 1 | 2
  seq: number
  /** The state root after entry `seq`, 0x hex. */
  root: string
  /** That entry's hash, 0x hex (the Vault anchors it beside the root). */
  logHash: string
  account: string
  sub: number
  /** Each money leaf's text, its salt (0x hex, version 2), its path to the root. */
  leaves: { leaf: string; salt?: string; proof: { sibling: string; left: boolean }[] }[]
  /**
   * The Vault whose anchors the node knows, when it knows one (a proof a running node serves);
   * the user may check against it, or against the address they deposit into.
   */
  vault?: string
}

/** The proof of `account`'s (as the state spells it) sub-account `sub` in the tree of the state after entry `seq`. */
export function balanceProofIn(tree: ProofTree, at: { seq: number; logHash: string }, account: string, sub: number): BalanceProof {
  const p = accountProofsIn(tree, account, sub)
  return {
    format: PROOF_FORMAT, version: tree.seed === '' ? 1 : 2, seq: at.seq, root: p.root,
    logHash: at.logHash.startsWith('0x') ? at.logHash : `0x${at.logHash}`, account, sub,
    leaves: p.leaves.map(({ leaf, salt, proof }) => ({
      leaf, ...(salt === undefined ? {} : { salt: toHex(salt) }), proof: proof.map((s) => ({ sibling: toHex(s.sibling), left: s.left })),
    })),
  }
}
