// Key layout of the LevelDB log: a `log` key space of batches under the big-endian 8-byte seq
// of their first entry (so key order is seq order), and a `meta` key space for the base record.

import type { Level } from 'level'
import { assert } from '../core/assert.js'

type Bytes = Uint8Array

/** Write options for a durable write: classic-level honours `sync`, the sublevel typings omit it. */
export const SYNC: object = { sync: true }

export function seqKey(seq: number): Bytes {
  if (!(Number.isSafeInteger(seq) && seq >= 0)) assert(false, `log key for seq ${seq}`)
  const key = new Uint8Array(8)
  const view = new DataView(key.buffer)
  view.setUint32(0, Math.floor(seq / 2 ** 32))
  view.setUint32(4, seq >>> 0)
  return key
}

export function keySeq(key: Bytes): number {
  if (key.length !== 8) assert(false, `log key of ${key.length} bytes`)
  const view = new DataView(key.buffer, key.byteOffset, 8)
  const high = view.getUint32(0)
  // Below 2^32 the low word alone: the sum is a heap number even when it is a small integer,
  // and a heap number reaching state.seq changes that field's representation (small integer
  // to double), which throws away the optimized code of everything reading the state.
  return high === 0 ? view.getUint32(4) : high * 2 ** 32 + view.getUint32(4)
}

export function keySpaces(db: Level<Bytes, Bytes>) {
  return {
    log: db.sublevel<Bytes, Bytes>('log', { keyEncoding: 'view', valueEncoding: 'view' }),
    meta: db.sublevel<string, Bytes>('meta', { keyEncoding: 'utf8', valueEncoding: 'view' }),
  }
}
export type LogKeySpaces = ReturnType<typeof keySpaces>
