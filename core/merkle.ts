// A binary Merkle tree over keccak-256, with domain separation between leaves and inner
// nodes (so a node can never pass for a leaf). An odd node at a level is carried up as is.

import { keccak256 } from './keccak.js'

const LEAF = 0
const NODE = 1

/** keccak-256(0x00 ‖ data). */
export function hashLeaf(data: Uint8Array): Uint8Array {
  return keccak256(data, LEAF)
}

// The two children end to end; keccak256() has read it by the time it returns.
const pair = new Uint8Array(64)

/** keccak-256(0x01 ‖ left ‖ right). */
export function hashNode(left: Uint8Array, right: Uint8Array): Uint8Array {
  pair.set(left, 0)
  pair.set(right, 32)
  return keccak256(pair, NODE)
}

export function merkleRoot(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return keccak256(new Uint8Array(0))
  // The last level is the root alone (merkleLevels, where the odd-node rule lives once).
  return merkleLevels(leaves).at(-1)!
}

// Inner nodes already hashed, by their left child: the parent of (left, right) when the
// right child is the same object as then. Only stateRoot() builds trees through it, over
// leaf and node hashes it never hands out, so no array it keys on is ever changed after.
const parents = new WeakMap<Uint8Array, { right: Uint8Array, parent: Uint8Array }>()

/**
 * merkleRoot() for a caller whose leaf hashes are immutable objects that often recur from one
 * call to the next (the state root's): a pair of children met before is not hashed again,
 * so a tree whose leaves barely changed costs little more than walking it. Same result.
 */
export function merkleRootReusing(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return merkleRoot(leaves)
  let level = leaves
  while (level.length > 1) {
    const next: Uint8Array[] = []
    for (let i = 0; i < level.length; i += 2) {
      if (i + 1 === level.length) {
        next.push(level[i]!)
        continue
      }
      const left = level[i]!
      const right = level[i + 1]!
      const known = parents.get(left)
      if (known !== undefined && known.right === right) {
        next.push(known.parent)
      } else {
        const parent = hashNode(left, right)
        parents.set(left, { right, parent })
        next.push(parent)
      }
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
  return merkleProofs(leaves, [index])[0]!
}

/** The paths from each of the leaves `indexes` to the root, the tree's levels built once. */
export function merkleProofs(leaves: Uint8Array[], indexes: number[]): ProofStep[][] {
  const levels = merkleLevels(leaves)
  return indexes.map((i) => pathIn(levels, i))
}

const HASH_BYTES = 32

/**
 * Every level of the tree, the leaves' hashes first and the root's level (one node) last, each
 * level packed in one buffer (node i at bytes 32i to 32i + 32): what pathIn() reads the paths of
 * many leaves from, each hash computed once. Packed, a tree kept to answer proofs takes about a
 * quarter of the memory a buffer per node would (a state of 100,000 accounts has 400,000 leaves).
 */
export function merkleLevels(leaves: Uint8Array[]): Uint8Array[] {
  const first = new Uint8Array(leaves.length * HASH_BYTES)
  for (let i = 0; i < leaves.length; i++) first.set(leaves[i]!, i * HASH_BYTES)
  const levels = [first]
  let level = first
  let n = leaves.length
  const node = (lv: Uint8Array, i: number): Uint8Array => lv.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES)
  while (n > 1) {
    const m = (n + 1) >> 1
    const next = new Uint8Array(m * HASH_BYTES)
    for (let j = 0; j < n; j += 2) {
      next.set(j + 1 < n ? hashNode(node(level, j), node(level, j + 1)) : node(level, j), (j >> 1) * HASH_BYTES)
    }
    levels.push(next)
    level = next
    n = m
  }
  return levels
}

/** The path from leaf `index` to the root, read from the tree's levels (merkleLevels). */
export function pathIn(levels: Uint8Array[], index: number): ProofStep[] {
  const path: ProofStep[] = []
  let i = index
  for (let d = 0; d < levels.length - 1; d++) {
    const n = levels[d]!.length / HASH_BYTES
    const sib = i % 2 === 0 ? i + 1 : i - 1
    // An odd node at the end is carried up as is: no step.
    if (sib < n) path.push({ sibling: levels[d]!.slice(sib * HASH_BYTES, (sib + 1) * HASH_BYTES), left: sib < i })
    i >>= 1
  }
  return path
}

export function verifyProof(leaf: Uint8Array, proof: ProofStep[], root: Uint8Array): boolean {
  let h = leaf
  for (const step of proof) h = step.left ? hashNode(step.sibling, h) : hashNode(h, step.sibling)
  return toHex(h) === toHex(root)
}

/** Bytes of 0x-prefixed (or bare) hex; the caller has checked it is hex. */
export function fromHex(hex: string): Uint8Array {
  const digits = hex.startsWith('0x') ? hex.slice(2) : hex
  const out = new Uint8Array(digits.length >> 1)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(digits.slice(2 * i, 2 * i + 2), 16)
  return out
}

export function toHex(bytes: Uint8Array): string {
  let s = '0x'
  for (const b of bytes) s += (b < 16 ? '0' : '') + b.toString(16)
  return s
}
