// Finds where a msgpack value ends without decoding it: how the chain verifier splits a batch's
// bodies into the exact bytes each hash covers, at a fraction of the cost of decoding them.

/** Items of a container (or 1 for a scalar) a tag opens; set by each tagSize() call. */
let itemsOpened = 0

// Size of the fixed part after each tag from 0xc0, and the width of the length or count that
// follows it (0 for none). -1 marks the one tag msgpack never uses (0xc1).
const FIXED: readonly number[] = [
  0, -1, 0, 0, 1, 2, 4, 1, 2, 4, 4, 8, 1, 2, 4, 8, // c0..cf: nil, (unused), false, true, bin8..32, ext8..32, float32/64, uint8..64
  1, 2, 4, 8, 2, 3, 5, 9, 17, 1, 2, 4, 2, 4, 2, 4, // d0..df: int8..64, fixext1..16, str8..32, array16/32, map16/32
]

/**
 * Bytes taken by the tag at `pos` and what follows it inline (a string's or a binary's bytes),
 * or -1 when the bytes are not msgpack. Sets itemsOpened to the items a container holds.
 */
function tagSize(b: Uint8Array, pos: number): number {
  const tag = b[pos]!
  itemsOpened = 0
  if (tag < 0x80 || tag >= 0xe0) return 1
  if (tag < 0x90) { itemsOpened = (tag & 0x0f) * 2; return 1 }
  if (tag < 0xa0) { itemsOpened = tag & 0x0f; return 1 }
  if (tag < 0xc0) return 1 + (tag & 0x1f)
  const fixed = FIXED[tag - 0xc0]!
  if (fixed < 0) return -1
  if (tag >= 0xc4 && tag <= 0xc6) return 1 + fixed + readLength(b, pos + 1, fixed) // bin
  if (tag >= 0xc7 && tag <= 0xc9) return 2 + fixed + readLength(b, pos + 1, fixed) // ext: length, type, data
  if (tag >= 0xd9 && tag <= 0xdb) return 1 + fixed + readLength(b, pos + 1, fixed) // str
  if (tag >= 0xdc) { // array16/32, map16/32
    const n = readLength(b, pos + 1, fixed)
    itemsOpened = tag >= 0xde ? n * 2 : n
  }
  return 1 + fixed
}

function readLength(b: Uint8Array, pos: number, width: number): number {
  if (pos + width > b.length) return b.length // past the end either way; the caller sees it
  if (width === 1) return b[pos]!
  if (width === 2) return (b[pos]! << 8) | b[pos + 1]!
  return ((b[pos]! << 24) >>> 0) + ((b[pos + 1]! << 16) | (b[pos + 2]! << 8) | b[pos + 3]!)
}

/** Where the msgpack value starting at `pos` ends, or -1 when it is not whole, valid msgpack. */
export function skipValue(b: Uint8Array, pos: number): number {
  let pending = 1
  while (pending > 0) {
    if (pos >= b.length) return -1
    const size = tagSize(b, pos)
    if (size < 0) return -1
    pos += size
    pending += itemsOpened - 1
  }
  return pos <= b.length ? pos : -1
}
