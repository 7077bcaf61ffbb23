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

/**
 * Every level of the tree, the leaves first and the root's level (one node) last: what
 * pathIn() reads the paths of many leaves from, each hash computed once.
 */
export function merkleLevels(leaves: Uint8Array[]): Uint8Array[][] {
  const levels = [leaves]
  let level = leaves
  while (level.length > 1) {
    const next: Uint8Array[] = []
    for (let j = 0; j < level.length; j += 2) {
      next.push(j + 1 < level.length ? hashNode(level[j]!, level[j + 1]!) : level[j]!)
    }
    levels.push(next)
    level = next
  }
  return levels
}

/** The path from leaf `index` to the root, read from the tree's levels (merkleLevels). */
export function pathIn(levels: Uint8Array[][], index: number): ProofStep[] {
  const path: ProofStep[] = []
  let i = index
  for (let d = 0; d < levels.length - 1; d++) {
    const level = levels[d]!
    const sib = i % 2 === 0 ? i + 1 : i - 1
    // An odd node at the end is carried up as is: no step.
    if (sib < level.length) path.push({ sibling: level[sib]!, left: sib < i })
    i >>= 1
  }
  return path
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
