// The state root's own keccak-256 and its reuse of unchanged leaves and nodes: the same bytes
// as an independent implementation (@noble/hashes) at every length across block boundaries,
// and the same root as the plain definition (each leaf hashed, each pair hashed) at every
// checkpoint of a trading stream, whatever was computed before it.

import t from 'tap'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { apply } from '../../core/apply.js'
import { keccak256 } from '../../core/keccak.js'
import { stateLeaves, stateRoot } from '../../core/root.js'
import { createState } from '../../core/state.js'
import { DEFAULT_WORKLOAD, generateWorkload } from '../../sim/workload.js'

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex')

/** Deterministic bytes, different for each (length, salt). */
function bytes(length: number, salt: number): Uint8Array {
  const out = new Uint8Array(length)
  for (let i = 0; i < length; i++) out[i] = (i * 31 + salt * 7 + (i >> 3)) & 0xff
  return out
}

t.test('keccak-256 gives the bytes an independent implementation gives, at every length', async (t) => {
  t.equal(hex(keccak256(new Uint8Array(0))), 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470', 'the empty input')
  t.equal(hex(keccak256(new TextEncoder().encode('abc'))), '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45', 'abc')
  let differ = 0
  for (let length = 0; length <= 3 * 136 + 2; length++) {
    for (const prefix of [-1, 0, 1]) {
      const data = bytes(length, prefix + 2)
      const joined = prefix < 0 ? data : Uint8Array.from([prefix, ...data])
      if (hex(keccak256(data, prefix)) !== hex(keccak_256(joined))) differ++
    }
  }
  t.equal(differ, 0, 'lengths 0 to 410, with no prefix and with each domain byte')
})

/** The root by its definition: every leaf hashed, every pair hashed, an odd node carried up. */
function plainRoot(leaves: string[]): string {
  const encoder = new TextEncoder()
  let level: Uint8Array[] = leaves.map((l) => keccak_256(Uint8Array.from([0, ...encoder.encode(l)])))
  if (level.length === 0) return '0x' + hex(keccak_256(new Uint8Array(0)))
  while (level.length > 1) {
    const next: Uint8Array[] = []
    for (let i = 0; i < level.length; i += 2) {
      next.push(i + 1 < level.length ? keccak_256(Uint8Array.from([1, ...level[i]!, ...level[i + 1]!])) : level[i]!)
    }
    level = next
  }
  return '0x' + hex(level[0]!)
}

t.test('the state root reusing earlier hashes is the root by its definition at every checkpoint', async (t) => {
  const w = generateWorkload({ ...DEFAULT_WORKLOAD, commands: 3_000 })
  const state = createState()
  // A second state 125 entries behind: computing both roots in turn leaves the caches holding
  // the other state's leaves and nodes each time.
  const behind = createState()
  let time = 1_700_000_000_000
  const entries = [...w.setup, ...w.stream].map((command, i) => ({ seq: i + 1, time: time++, command }))
  let checked = 0
  for (const entry of entries) {
    apply(state, entry)
    if (entry.seq > 125) apply(behind, structuredClone(entries[entry.seq - 126]!))
    if (state.seq % 250 === 0) {
      t.equal(stateRoot(state), plainRoot(stateLeaves(state)), `seq ${state.seq}`)
      t.equal(stateRoot(behind), plainRoot(stateLeaves(behind)), `seq ${behind.seq}, after seq ${state.seq}`)
      t.equal(stateRoot(state), plainRoot(stateLeaves(state)), `seq ${state.seq}, again`)
      checked++
    }
  }
  t.ok(checked >= 10)
})
