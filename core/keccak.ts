// Keccak-256 (the original Keccak padding, as Ethereum uses it; not NIST SHA3-256), written
// for the state root's many short inputs: the lanes live in one preallocated Int32Array as
// 32-bit halves and the permutation runs unrolled on locals, so a hash allocates only its
// output. About twice as fast as the general-purpose library for these inputs. Pure and
// synchronous, like the rest of the core.

const RATE = 136 // bytes absorbed per permutation: 1600 - 2 × 256 bits
const ROUNDS = 24

// Round constants as low and high 32-bit halves, from the specification's LFSR
// (x^8 + x^6 + x^5 + x^4 + 1): bit 2^j - 1 of round i's constant is output bit j + 7i.
const RC_LO = new Int32Array(ROUNDS)
const RC_HI = new Int32Array(ROUNDS)
{
  let r = 1
  for (let i = 0; i < ROUNDS; i++) {
    for (let j = 0; j < 7; j++) {
      if (r & 1) {
        const bit = (1 << j) - 1
        if (bit < 32) RC_LO[i]! |= 1 << bit
        else RC_HI[i]! |= 1 << (bit - 32)
      }
      r = r & 0x80 ? ((r << 1) ^ 0x71) & 0xff : (r << 1) & 0xff
    }
  }
}

// The state: lane i (x + 5y) has its low half at 2i, its high half at 2i + 1 (lanes are
// little-endian 64-bit words).
const s = new Int32Array(50)

// The permutation unrolled over 50 locals. The shift amounts are ρ's offsets and the b-index
// of each rotated lane is π's destination (lane x + 5y goes to y + 5(2x + 3y)), both
// written out from the specification's definitions by a generator; the tests check every
// input length across block boundaries against an independent implementation.
function permute(): void {
  let a0l = s[0]!, a0h = s[1]!
  let a1l = s[2]!, a1h = s[3]!
  let a2l = s[4]!, a2h = s[5]!
  let a3l = s[6]!, a3h = s[7]!
  let a4l = s[8]!, a4h = s[9]!
  let a5l = s[10]!, a5h = s[11]!
  let a6l = s[12]!, a6h = s[13]!
  let a7l = s[14]!, a7h = s[15]!
  let a8l = s[16]!, a8h = s[17]!
  let a9l = s[18]!, a9h = s[19]!
  let a10l = s[20]!, a10h = s[21]!
  let a11l = s[22]!, a11h = s[23]!
  let a12l = s[24]!, a12h = s[25]!
  let a13l = s[26]!, a13h = s[27]!
  let a14l = s[28]!, a14h = s[29]!
  let a15l = s[30]!, a15h = s[31]!
  let a16l = s[32]!, a16h = s[33]!
  let a17l = s[34]!, a17h = s[35]!
  let a18l = s[36]!, a18h = s[37]!
  let a19l = s[38]!, a19h = s[39]!
  let a20l = s[40]!, a20h = s[41]!
  let a21l = s[42]!, a21h = s[43]!
  let a22l = s[44]!, a22h = s[45]!
  let a23l = s[46]!, a23h = s[47]!
  let a24l = s[48]!, a24h = s[49]!
  for (let round = 0; round < ROUNDS; round++) {
    // θ
    const c0l = a0l ^ a5l ^ a10l ^ a15l ^ a20l
    const c0h = a0h ^ a5h ^ a10h ^ a15h ^ a20h
    const c1l = a1l ^ a6l ^ a11l ^ a16l ^ a21l
    const c1h = a1h ^ a6h ^ a11h ^ a16h ^ a21h
    const c2l = a2l ^ a7l ^ a12l ^ a17l ^ a22l
    const c2h = a2h ^ a7h ^ a12h ^ a17h ^ a22h
    const c3l = a3l ^ a8l ^ a13l ^ a18l ^ a23l
    const c3h = a3h ^ a8h ^ a13h ^ a18h ^ a23h
    const c4l = a4l ^ a9l ^ a14l ^ a19l ^ a24l
    const c4h = a4h ^ a9h ^ a14h ^ a19h ^ a24h
    const d0l = c4l ^ ((c1l << 1) | (c1h >>> 31))
    const d0h = c4h ^ ((c1h << 1) | (c1l >>> 31))
    const d1l = c0l ^ ((c2l << 1) | (c2h >>> 31))
    const d1h = c0h ^ ((c2h << 1) | (c2l >>> 31))
    const d2l = c1l ^ ((c3l << 1) | (c3h >>> 31))
    const d2h = c1h ^ ((c3h << 1) | (c3l >>> 31))
    const d3l = c2l ^ ((c4l << 1) | (c4h >>> 31))
    const d3h = c2h ^ ((c4h << 1) | (c4l >>> 31))
    const d4l = c3l ^ ((c0l << 1) | (c0h >>> 31))
    const d4h = c3h ^ ((c0h << 1) | (c0l >>> 31))
    a0l ^= d0l; a0h ^= d0h
    a1l ^= d1l; a1h ^= d1h
    a2l ^= d2l; a2h ^= d2h
    a3l ^= d3l; a3h ^= d3h
    a4l ^= d4l; a4h ^= d4h
    a5l ^= d0l; a5h ^= d0h
    a6l ^= d1l; a6h ^= d1h
    a7l ^= d2l; a7h ^= d2h
    a8l ^= d3l; a8h ^= d3h
    a9l ^= d4l; a9h ^= d4h
    a10l ^= d0l; a10h ^= d0h
    a11l ^= d1l; a11h ^= d1h
    a12l ^= d2l; a12h ^= d2h
    a13l ^= d3l; a13h ^= d3h
    a14l ^= d4l; a14h ^= d4h
    a15l ^= d0l; a15h ^= d0h
    a16l ^= d1l; a16h ^= d1h
    a17l ^= d2l; a17h ^= d2h
    a18l ^= d3l; a18h ^= d3h
    a19l ^= d4l; a19h ^= d4h
    a20l ^= d0l; a20h ^= d0h
    a21l ^= d1l; a21h ^= d1h
    a22l ^= d2l; a22h ^= d2h
    a23l ^= d3l; a23h ^= d3h
    a24l ^= d4l; a24h ^= d4h
    // ρ and π
    const b0l = a0l, b0h = a0h
    const b10l = (a1l << 1) | (a1h >>> 31), b10h = (a1h << 1) | (a1l >>> 31)
    const b20l = (a2h << 30) | (a2l >>> 2), b20h = (a2l << 30) | (a2h >>> 2)
    const b5l = (a3l << 28) | (a3h >>> 4), b5h = (a3h << 28) | (a3l >>> 4)
    const b15l = (a4l << 27) | (a4h >>> 5), b15h = (a4h << 27) | (a4l >>> 5)
    const b16l = (a5h << 4) | (a5l >>> 28), b16h = (a5l << 4) | (a5h >>> 28)
    const b1l = (a6h << 12) | (a6l >>> 20), b1h = (a6l << 12) | (a6h >>> 20)
    const b11l = (a7l << 6) | (a7h >>> 26), b11h = (a7h << 6) | (a7l >>> 26)
    const b21l = (a8h << 23) | (a8l >>> 9), b21h = (a8l << 23) | (a8h >>> 9)
    const b6l = (a9l << 20) | (a9h >>> 12), b6h = (a9h << 20) | (a9l >>> 12)
    const b7l = (a10l << 3) | (a10h >>> 29), b7h = (a10h << 3) | (a10l >>> 29)
    const b17l = (a11l << 10) | (a11h >>> 22), b17h = (a11h << 10) | (a11l >>> 22)
    const b2l = (a12h << 11) | (a12l >>> 21), b2h = (a12l << 11) | (a12h >>> 21)
    const b12l = (a13l << 25) | (a13h >>> 7), b12h = (a13h << 25) | (a13l >>> 7)
    const b22l = (a14h << 7) | (a14l >>> 25), b22h = (a14l << 7) | (a14h >>> 25)
    const b23l = (a15h << 9) | (a15l >>> 23), b23h = (a15l << 9) | (a15h >>> 23)
    const b8l = (a16h << 13) | (a16l >>> 19), b8h = (a16l << 13) | (a16h >>> 19)
    const b18l = (a17l << 15) | (a17h >>> 17), b18h = (a17h << 15) | (a17l >>> 17)
    const b3l = (a18l << 21) | (a18h >>> 11), b3h = (a18h << 21) | (a18l >>> 11)
    const b13l = (a19l << 8) | (a19h >>> 24), b13h = (a19h << 8) | (a19l >>> 24)
    const b14l = (a20l << 18) | (a20h >>> 14), b14h = (a20h << 18) | (a20l >>> 14)
    const b24l = (a21l << 2) | (a21h >>> 30), b24h = (a21h << 2) | (a21l >>> 30)
    const b9l = (a22h << 29) | (a22l >>> 3), b9h = (a22l << 29) | (a22h >>> 3)
    const b19l = (a23h << 24) | (a23l >>> 8), b19h = (a23l << 24) | (a23h >>> 8)
    const b4l = (a24l << 14) | (a24h >>> 18), b4h = (a24h << 14) | (a24l >>> 18)
    // χ
    a0l = b0l ^ (~b1l & b2l); a0h = b0h ^ (~b1h & b2h)
    a1l = b1l ^ (~b2l & b3l); a1h = b1h ^ (~b2h & b3h)
    a2l = b2l ^ (~b3l & b4l); a2h = b2h ^ (~b3h & b4h)
    a3l = b3l ^ (~b4l & b0l); a3h = b3h ^ (~b4h & b0h)
    a4l = b4l ^ (~b0l & b1l); a4h = b4h ^ (~b0h & b1h)
    a5l = b5l ^ (~b6l & b7l); a5h = b5h ^ (~b6h & b7h)
    a6l = b6l ^ (~b7l & b8l); a6h = b6h ^ (~b7h & b8h)
    a7l = b7l ^ (~b8l & b9l); a7h = b7h ^ (~b8h & b9h)
    a8l = b8l ^ (~b9l & b5l); a8h = b8h ^ (~b9h & b5h)
    a9l = b9l ^ (~b5l & b6l); a9h = b9h ^ (~b5h & b6h)
    a10l = b10l ^ (~b11l & b12l); a10h = b10h ^ (~b11h & b12h)
    a11l = b11l ^ (~b12l & b13l); a11h = b11h ^ (~b12h & b13h)
    a12l = b12l ^ (~b13l & b14l); a12h = b12h ^ (~b13h & b14h)
    a13l = b13l ^ (~b14l & b10l); a13h = b13h ^ (~b14h & b10h)
    a14l = b14l ^ (~b10l & b11l); a14h = b14h ^ (~b10h & b11h)
    a15l = b15l ^ (~b16l & b17l); a15h = b15h ^ (~b16h & b17h)
    a16l = b16l ^ (~b17l & b18l); a16h = b16h ^ (~b17h & b18h)
    a17l = b17l ^ (~b18l & b19l); a17h = b17h ^ (~b18h & b19h)
    a18l = b18l ^ (~b19l & b15l); a18h = b18h ^ (~b19h & b15h)
    a19l = b19l ^ (~b15l & b16l); a19h = b19h ^ (~b15h & b16h)
    a20l = b20l ^ (~b21l & b22l); a20h = b20h ^ (~b21h & b22h)
    a21l = b21l ^ (~b22l & b23l); a21h = b21h ^ (~b22h & b23h)
    a22l = b22l ^ (~b23l & b24l); a22h = b22h ^ (~b23h & b24h)
    a23l = b23l ^ (~b24l & b20l); a23h = b23h ^ (~b24h & b20h)
    a24l = b24l ^ (~b20l & b21l); a24h = b24h ^ (~b20h & b21h)
    // ι
    a0l ^= RC_LO[round]!
    a0h ^= RC_HI[round]!
  }
  s[0] = a0l; s[1] = a0h
  s[2] = a1l; s[3] = a1h
  s[4] = a2l; s[5] = a2h
  s[6] = a3l; s[7] = a3h
  s[8] = a4l; s[9] = a4h
  s[10] = a5l; s[11] = a5h
  s[12] = a6l; s[13] = a6h
  s[14] = a7l; s[15] = a7h
  s[16] = a8l; s[17] = a8h
  s[18] = a9l; s[19] = a9h
  s[20] = a10l; s[21] = a10h
  s[22] = a11l; s[23] = a11h
  s[24] = a12l; s[25] = a12h
  s[26] = a13l; s[27] = a13h
  s[28] = a14l; s[29] = a14h
  s[30] = a15l; s[31] = a15h
  s[32] = a16l; s[33] = a16h
  s[34] = a17l; s[35] = a17h
  s[36] = a18l; s[37] = a18h
  s[38] = a19l; s[39] = a19h
  s[40] = a20l; s[41] = a20h
  s[42] = a21l; s[43] = a21h
  s[44] = a22l; s[45] = a22h
  s[46] = a23l; s[47] = a23h
  s[48] = a24l; s[49] = a24h
}


/** XORs `len` bytes of `data` from `at` into the state from byte `offset` (within one block). */
function absorb(data: Uint8Array, at: number, len: number, offset: number): void {
  for (let k = 0; k < len; k++) {
    const pos = offset + k
    s[pos >> 2] ^= data[at + k]! << ((pos & 3) << 3)
  }
}

/**
 * Keccak-256 of `prefix` (a single byte, or -1 for none) followed by `data`: the Merkle tree's
 * leaves and nodes are a domain byte and their contents, hashed without joining them first.
 */
export function keccak256(data: Uint8Array, prefix = -1): Uint8Array {
  s.fill(0)
  let offset = 0
  if (prefix >= 0) {
    s[0] = prefix & 0xff
    offset = 1
  }
  let at = 0
  let left = data.length
  while (offset + left >= RATE) {
    const n = RATE - offset
    absorb(data, at, n, offset)
    permute()
    at += n
    left -= n
    offset = 0
  }
  absorb(data, at, left, offset)
  offset += left
  // Padding: 0x01 after the message, 0x80 in the block's last byte (the same byte when they meet).
  s[offset >> 2] ^= 0x01 << ((offset & 3) << 3)
  s[(RATE - 1) >> 2] ^= 0x80 << (((RATE - 1) & 3) << 3)
  permute()
  const out = new Uint8Array(32)
  for (let k = 0; k < 32; k++) out[k] = (s[k >> 2]! >>> ((k & 3) << 3)) & 0xff
  return out
}
