// The log entry: `{seq, time, command, prevHash, hash}` with hash = SHA-256(prevHash ‖ body),
// body being the msgpack encoding of [seq, time, command]. The chain makes any change to
// any entry visible at every later one.

import { hash } from 'node:crypto'
import { Packr } from 'msgpackr'
import type { Command } from '../core/commands.js'

export interface LogEntry {
  readonly seq: number
  readonly time: number
  readonly command: Command
  readonly prevHash: Uint8Array
  readonly hash: Uint8Array
}

export const HASH_BYTES = 32

/** The hash before the first entry. */
export const GENESIS_HASH: Uint8Array = new Uint8Array(HASH_BYTES)

// Plain maps and arrays only, so the bytes depend on nothing but the values.
export const packr = new Packr({ useRecords: false })

export function encodeBody(seq: number, time: number, command: Command): Uint8Array {
  return packr.pack([seq, time, command])
}

/**
 * An entry whose body bytes are known to encode its own seq, time and command, because this
 * module made them from that command object (makeEntry) or made that object from them
 * (sealEntry, when a stored or received body is decoded). Stores write the sealed bytes
 * instead of encoding the command again. The body sits in a private field and the entry is
 * frozen, so a copy (`{...entry, command}`) or an entry built anywhere else carries no body
 * and is encoded afresh: it can never pass off one command's bytes as another's. Commands
 * themselves are values: nothing changes one after it is sealed (the core only reads them).
 */
class SealedEntry implements LogEntry {
  /** The body is bytes start..end of these; its own view is made when first asked for. */
  readonly #bytes: Uint8Array
  readonly #start: number
  readonly #end: number
  #body: Uint8Array | undefined
  /** Whether `hash` is known to be chainHash(prevHash, body): computed or checked when sealed. */
  readonly #hashChecked: boolean

  constructor(
    readonly seq: number, readonly time: number, readonly command: Command,
    readonly prevHash: Uint8Array, readonly hash: Uint8Array, bytes: Uint8Array, start: number, end: number, hashChecked: boolean,
  ) {
    this.#bytes = bytes
    this.#start = start
    this.#end = end
    this.#body = start === 0 && end === bytes.length ? bytes : undefined
    this.#hashChecked = hashChecked
    Object.freeze(this)
  }

  static bodyOf(e: LogEntry): Uint8Array | undefined {
    if (!(#body in e)) return undefined
    // A replayed entry is applied, not stored again: most never need a view of their own.
    return e.#body ??= e.#bytes.subarray(e.#start, e.#end)
  }

  static hashChecked(e: LogEntry): boolean {
    return #body in e && e.#hashChecked
  }
}

/** The sealed body of `e`, or undefined when `e` is not a sealed entry. */
export function sealedBody(e: LogEntry): Uint8Array | undefined {
  return SealedEntry.bodyOf(e)
}

/** The bytes `e` is hashed over: its sealed body, or its fields encoded now. */
export function bodyOf(e: LogEntry): Uint8Array {
  return SealedEntry.bodyOf(e) ?? encodeBody(e.seq, e.time, e.command)
}

/**
 * Whether `e`'s hash is known to be SHA-256(prevHash ‖ body) over its sealed body: makeEntry()
 * computed it, or the decoder that sealed it checked it (`hashChecked`). A store appending
 * such an entry need not hash it again; any other entry is hashed at the append.
 */
export function hashChecked(e: LogEntry): boolean {
  return SealedEntry.hashChecked(e)
}

/**
 * Seals an entry with `body` and the command decoded from exactly those bytes: only the
 * decoders of stored batches and replicated ones call this (batch-codec.ts). `hashChecked`
 * says the caller has checked `hash` against `prevHash` and these bytes.
 */
export function sealEntry(
  seq: number, time: number, command: Command, prevHash: Uint8Array, hash: Uint8Array, body: Uint8Array, hashChecked = false,
): LogEntry {
  return new SealedEntry(seq, time, command, prevHash, hash, body, 0, body.length, hashChecked)
}

/** sealEntry() with the body given as bytes start..end of `bytes` (a batch's bodies end to end). */
export function sealEntryAt(
  seq: number, time: number, command: Command, prevHash: Uint8Array, hash: Uint8Array,
  bytes: Uint8Array, start: number, end: number, hashChecked: boolean,
): LogEntry {
  return new SealedEntry(seq, time, command, prevHash, hash, bytes, start, end, hashChecked)
}

/**
 * Whether `body` starts as the encoding of [seq, time, …] does: a cheap look at the first
 * bytes, no decoding. A store uses it to check that given bytes belong to the entry's seq.
 */
export function bodyHeadIs(body: Uint8Array, seq: number, time: number): boolean {
  if (body[0] !== 0x93) return false
  const s = readNumber(body, 1)
  return s === seq && readNumber(body, headEnd) === time
}

// Where the number readNumber() read ends; set by each call.
let headEnd = 0

/** The msgpack number at `pos` (NaN when there is none), setting headEnd past it. */
function readNumber(b: Uint8Array, pos: number): number {
  const tag = b[pos]
  if (tag === undefined) return NaN
  const size = tag < 0x80 || tag >= 0xe0 ? 1 : NUMBER_SIZE[tag - 0xc0] ?? 0
  if (size === 0 || pos + size > b.length) return NaN
  headEnd = pos + size
  if (tag < 0x80) return tag
  if (tag >= 0xe0) return tag - 0x100
  for (let i = 1; i < size; i++) numberBytes[i - 1] = b[pos + i]!
  switch (tag) {
    case 0xca: return numberView.getFloat32(0)
    case 0xcb: return numberView.getFloat64(0)
    case 0xcc: return numberView.getUint8(0)
    case 0xcd: return numberView.getUint16(0)
    case 0xce: return numberView.getUint32(0)
    case 0xcf: return numberView.getUint32(0) * 2 ** 32 + numberView.getUint32(4)
    case 0xd0: return numberView.getInt8(0)
    case 0xd1: return numberView.getInt16(0)
    case 0xd2: return numberView.getInt32(0)
    default: return numberView.getInt32(0) * 2 ** 32 + numberView.getUint32(4)
  }
}

const numberBytes = new Uint8Array(8)
const numberView = new DataView(numberBytes.buffer)

// Encoded size (tag included) of the msgpack numbers from tag 0xc0, 0 for anything else.
const NUMBER_SIZE: readonly number[] = [
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 9, 2, 3, 5, 9, // c0..cf: float32 ca, float64 cb, uint cc..cf
  2, 3, 5, 9, // d0..d3: int8..int64
]

// One scratch buffer for prevHash ‖ body, a view of it per length, and the digest taken as a
// binary string: a Buffer per digest (and per input) cost more than the SHA-256 itself.
// Single-threaded and synchronous, so one scratch buffer per thread is enough.
let scratch = new Uint8Array(8192)
let scratchViews: (Uint8Array | undefined)[] = new Array(scratch.length + 1)

/** SHA-256(prevHash ‖ body) as a 32-character binary (latin1) string, one character per byte. */
export function chainDigest(prevHash: Uint8Array, body: Uint8Array): string {
  const n = HASH_BYTES + body.length
  if (n > scratch.length) {
    scratch = new Uint8Array(Math.max(n, scratch.length * 2))
    scratchViews = new Array(scratch.length + 1)
  }
  scratch.set(prevHash, 0)
  scratch.set(body, HASH_BYTES)
  const input = scratchViews[n] ??= scratch.subarray(0, n)
  return hash('sha256', input, 'binary')
}

/** Writes a digest from chainDigest() into `out` at `offset`. */
export function writeDigest(digest: string, out: Uint8Array, offset: number): void {
  for (let i = 0; i < HASH_BYTES; i++) out[offset + i] = digest.charCodeAt(i)
}

/** Whether the digest from chainDigest() equals the 32 bytes of `bytes` at `offset`. */
export function digestEquals(digest: string, bytes: Uint8Array, offset = 0): boolean {
  if (bytes.length - offset < HASH_BYTES) return false
  for (let i = 0; i < HASH_BYTES; i++) if (digest.charCodeAt(i) !== bytes[offset + i]) return false
  return true
}

export function chainHash(prevHash: Uint8Array, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(HASH_BYTES)
  writeDigest(chainDigest(prevHash, body), out, 0)
  return out
}

/** Builds the entry that follows `prevHash`, encoding and hashing it once. */
export function makeEntry(seq: number, time: number, command: Command, prevHash: Uint8Array): LogEntry {
  const body = encodeBody(seq, time, command)
  return new SealedEntry(seq, time, command, prevHash, chainHash(prevHash, body), body, 0, body.length, true)
}

export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex')
}
