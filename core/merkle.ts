// A binary Merkle tree over keccak-256, with domain separation between leaves and inner
// nodes (so a node can never pass for a leaf). An odd node at a level is carried up as is.

import { keccak_256 } from '@noble/hashes/sha3.js'

const LEAF = 0
const NODE = 1

export function hashLeaf(data: Uint8Array): Uint8Array {
  const buf = new Uint8Array(data.length + 1)
  buf[0] = LEAF
  buf.set(data, 1)
  return keccak_256(buf)
}

export function hashNode(left: Uint8Array, right: Uint8Array): Uint8Array {
  const buf = new Uint8Array(65)
  buf[0] = NODE
  buf.set(left, 1)
  buf.set(right, 33)
  return keccak_256(buf)
}

export function merkleRoot(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return keccak_256(new Uint8Array(0))
  let level = leaves
  while (level.length > 1) {
    const next: Uint8Array[] = []
    for (let i = 0; i < level.length; i += 2) {
      next.push(i + 1 < level.length ? hashNode(level[i]!, level[i + 1]!) : level[i]!)
    }
    level = next
  }
  return level[0]!
}

export interface ProofStep {
  sibling: Uint8Array
  /** True when the sibling is on the left. */
  left: boolean
}

/** The path from leaf `index` to the root. */
export function merkleProof(leaves: Uint8Array[], index: number): ProofStep[] {
  const proof: ProofStep[] = []
  let level = leaves
  let i = index
  while (level.length > 1) {
    const sib = i % 2 === 0 ? i + 1 : i - 1
    if (sib < level.length) proof.push({ sibling: level[sib]!, left: sib < i })
    const next: Uint8Array[] = []
    for (let j = 0; j < level.length; j += 2) {
      next.push(j + 1 < level.length ? hashNode(level[j]!, level[j + 1]!) : level[j]!)
    }
    level = next
    i = i >> 1
  }
  return proof
}

export function verifyProof(leaf: Uint8Array, proof: ProofStep[], root: Uint8Array): boolean {
  let h = leaf
  for (const step of proof) h = step.left ? hashNode(step.sibling, h) : hashNode(h, step.sibling)
  return toHex(h) === toHex(root)
}

export function toHex(bytes: Uint8Array): string {
  let s = '0x'
  for (const b of bytes) s += (b < 16 ? '0' : '') + b.toString(16)
  return s
}
