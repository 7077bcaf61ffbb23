// Binary keys whose byte order is the order queries need: numbers big-endian (so LevelDB's
// byte order is numeric order), strings length-prefixed (so no key is a prefix of another's
// field and a prefix range holds exactly one owner's rows).

import { assert } from '../../core/assert.js'

const TWO_32 = 2 ** 32

export class KeyBuilder {
  // One small buffer per key (sliced from Node's pool); grown on the rare longer key.
  private bytes = Buffer.allocUnsafe(96)
  private length = 0

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return
    const bigger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + n))
    this.bytes.copy(bigger, 0, 0, this.length)
    this.bytes = bigger
  }

  u8(n: number): this {
    if (!(Number.isInteger(n) && n >= 0 && n < 256)) assert(false, `key u8 out of range: ${n}`)
    this.room(1)
    this.bytes[this.length++] = n
    return this
  }

  u32(n: number): this {
    if (!(Number.isInteger(n) && n >= 0 && n < TWO_32)) assert(false, `key u32 out of range: ${n}`)
    this.room(4)
    this.bytes.writeUInt32BE(n, this.length)
    this.length += 4
    return this
  }

  /** A non-negative safe integer as 8 bytes big-endian. */
  u64(n: number): this {
    if (!(Number.isSafeInteger(n) && n >= 0)) assert(false, `key u64 out of range: ${n}`)
    this.room(8)
    this.bytes.writeUInt32BE(Math.floor(n / TWO_32), this.length)
    this.bytes.writeUInt32BE(n % TWO_32, this.length + 4)
    this.length += 8
    return this
  }

  str(s: string): this {
    const len = Buffer.byteLength(s, 'utf8')
    assert(len < 256, 'key string longer than 255 bytes')
    this.room(1 + len)
    this.bytes[this.length] = len
    this.bytes.write(s, this.length + 1, 'utf8')
    this.length += 1 + len
    return this
  }

  /** Bytes already in key form (a cached prefix), as they are. */
  raw(b: Buffer): this {
    this.room(b.length)
    b.copy(this.bytes, this.length)
    this.length += b.length
    return this
  }

  build(): Buffer {
    return this.bytes.subarray(0, this.length)
  }
}

export function key(): KeyBuilder {
  return new KeyBuilder()
}

/** Reads the 8-byte big-endian number at `offset`. */
export function readU64(b: Buffer, offset: number): number {
  return b.readUInt32BE(offset) * TWO_32 + b.readUInt32BE(offset + 4)
}

/** The smallest key greater than every key that starts with `prefix` (exclusive upper bound). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix)
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i] = end[i]! + 1
      return end.subarray(0, i + 1)
    }
  }
  assert(false, 'a prefix of all 0xff bytes has no end')
}

/** Accounts' encoded strings (the same bytes `str` writes), kept: every fill writes several owner keys. */
const accountBytes = new Map<string, Buffer>()
const ACCOUNTS_CACHED_MAX = 10_000

/** Owner prefix shared by every per-sub-account store: account, then sub-account. */
export function ownerKey(account: string, sub: number): KeyBuilder {
  let a = accountBytes.get(account)
  if (a === undefined) {
    if (accountBytes.size >= ACCOUNTS_CACHED_MAX) accountBytes.clear()
    accountBytes.set(account, a = key().str(account).build())
  }
  return key().raw(a).u8(sub)
}
