// The balance prover's thread (see balance-prover.ts): builds the Merkle tree of a checkpoint
// from its snapshot's bytes, keeps the last few, and reads sub-accounts' proofs from them.

import { parentPort } from 'node:worker_threads'
import { proofTree, type ProofTree } from '../core/root.js'
import { decodeSnapshot } from '../core/snapshot.js'
import { balanceProofIn } from './balance-proof.js'
import { TREES_KEPT, type ProveReply, type ProveRequest } from './balance-prover.js'
import { nameThread } from './thread-name.js'
import { lowerThreadPriority } from './thread-priority.js'

// A proof may take a little longer; applying should not wait for a core (thread-priority.ts).
lowerThreadPriority()
nameThread('balance-prover')

/** Trees by seq, oldest built first. */
const trees = new Map<number, { tree: ProofTree; logHash: string }>()

function answer(m: ProveRequest): ProveReply {
  if (m.bytes !== undefined) {
    trees.delete(m.seq)
    trees.set(m.seq, { tree: proofTree(decodeSnapshot(m.bytes)), logHash: m.logHash ?? '' })
    while (trees.size > TREES_KEPT) trees.delete(trees.keys().next().value!)
  }
  if (m.account === undefined) return { id: m.id, built: true }
  const kept = trees.get(m.seq)
  if (kept === undefined) return { id: m.id, missing: true }
  return { id: m.id, proof: balanceProofIn(kept.tree, { seq: m.seq, logHash: kept.logHash }, m.account, m.sub ?? 0) }
}

parentPort!.on('message', (m: ProveRequest) => {
  let reply: ProveReply
  try {
    reply = answer(m)
  } catch (err) {
    reply = { id: m.id, error: (err as Error).message }
  }
  parentPort!.postMessage(reply)
})

parentPort!.postMessage({ id: 0, up: true } satisfies ProveReply)
