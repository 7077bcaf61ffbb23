// The bytes of one appended batch as the LevelDB log stores it: msgpack [FORMAT, prevHash,
// hashes, bodies], hashes being the 32-byte entry hashes end to end and bodies the exact
// encodeBody() bytes that were hashed, end to end (each msgpack value delimits itself).
// Replication ships the same hashes and bodies.

import type { Command } from '../core/commands.js'
import { TapeReader, type BodyTape } from './body-tape.js'
import { LogCorruptError } from './chain.js'
import { chainDigest, digestEquals, HASH_BYTES, packr, sealEntryAt, type LogEntry } from './entry.js'
import { skipValue } from './msgpack-skip.js'

const FORMAT = 1

// Keeping the hashed bytes means verifying a read never depends on re-encoding giving the
// same bytes; keeping them end to end lets one unpackMultiple() call decode the whole batch.
export function encodeBatch(prevHash: Uint8Array, hashes: Uint8Array, bodies: Uint8Array): Uint8Array {
  return packWithBins([FORMAT], [prevHash, hashes, bodies])
}

/** Binary data given whole, or as parts to be written end to end. */
export type Bin = Uint8Array | readonly Uint8Array[]

/**
 * msgpack [...head, ...bins] (at most 15 items), the same value packr.pack() gives for the
 * bins joined, written straight into one buffer of the right size: each byte copied once.
 */
export function packWithBins(head: readonly unknown[], bins: readonly Bin[]): Uint8Array {
  const items = head.length + bins.length
  if (items > 15) throw new RangeError(`packWithBins takes at most 15 items, not ${items}`)
  const packed = head.map((v) => packr.pack(v))
  let size = 1
  for (const p of packed) size += p.length
  for (const b of bins) size += binSize(binLength(b))
  const out = new Uint8Array(size)
  out[0] = 0x90 | items
  let at = 1
  for (const p of packed) {
    out.set(p, at)
    at += p.length
  }
  for (const b of bins) at = writeBin(out, at, b)
  return out
}

/** A batch of entries already checked by checkContinues(), with the bodies it returned. */
export function encodeEntries(entries: readonly LogEntry[], bodies: readonly Uint8Array[]): Uint8Array {
  return packWithBins([FORMAT], [entries[0]!.prevHash, entries.map((e) => e.hash), bodies])
}

function binLength(b: Bin): number {
  if (b instanceof Uint8Array) return b.length
  let n = 0
  for (const part of b) n += part.length
  return n
}

function binSize(n: number): number {
  return n + (n < 0x100 ? 2 : n < 0x10000 ? 3 : 5)
}

function writeBin(out: Uint8Array, at: number, bin: Bin): number {
  const n = binLength(bin)
  if (n < 0x100) {
    out[at++] = 0xc4
    out[at++] = n
  } else if (n < 0x10000) {
    out[at++] = 0xc5
    out[at++] = n >>> 8
    out[at++] = n & 0xff
  } else {
    out[at++] = 0xc6
    new DataView(out.buffer, out.byteOffset + at, 4).setUint32(0, n)
    at += 4
  }
  if (bin instanceof Uint8Array) {
    out.set(bin, at)
    return at + n
  }
  for (const part of bin) {
    out.set(part, at)
    at += part.length
  }
  return at
}

/**
 * The same bytes as a plain Uint8Array: msgpackr decodes binaries as Buffers, whose subarray()
 * makes a Buffer, several times the cost of a view, and the walks below take one per entry.
 */
function plain(b: Uint8Array): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.length)
}

export interface Envelope {
  prevHash: Uint8Array
  hashes: Uint8Array
  bodies: Uint8Array
  count: number
}

/** Decodes the envelope only: cheap, no command is decoded. Throws LogCorruptError. */
export function decodeEnvelope(firstSeq: number, bytes: Uint8Array): Envelope {
  let value: unknown
  try {
    value = packr.unpack(bytes)
  } catch (err) {
    throw new LogCorruptError(firstSeq, `undecodable batch (${(err as Error).message})`)
  }
  const [format, prevHash, hashes, bodies] = (Array.isArray(value) ? value : []) as unknown[]
  if (format !== FORMAT || !(prevHash instanceof Uint8Array) || prevHash.length !== HASH_BYTES ||
    !(hashes instanceof Uint8Array) || hashes.length === 0 || hashes.length % HASH_BYTES !== 0 ||
    !(bodies instanceof Uint8Array) || bodies.length === 0) {
    throw new LogCorruptError(firstSeq, 'undecodable batch (bad envelope)')
  }
  return { prevHash, hashes, bodies, count: hashes.length / HASH_BYTES }
}

/** Why an entry is refused when its hash is not the one its body and the previous hash give. */
export const HASH_MISMATCH = 'hash does not match its body'

/**
 * Verifies the chain over `hashes` and `bodies` without decoding a command: each body's
 * extent found by skipping its msgpack value, each hash recomputed from the previous one
 * (`prevHash` first) and the body's bytes. Returns where each body ends, for decodeChain().
 * This is all that depends on the hash function, so it can run on another thread.
 */
export function verifyBodies(
  firstSeq: number, prevHash: Uint8Array, hashes: Uint8Array, bodies: Uint8Array,
  fail: (seq: number, reason: string) => Error,
): Uint32Array {
  const count = hashes.length / HASH_BYTES
  const ends = new Uint32Array(count)
  const hashBytes = plain(hashes)
  const bodyBytes = plain(bodies)
  let prev = prevHash
  let start = 0
  for (let i = 0; i < count; i++) {
    if (start >= bodyBytes.length) throw fail(firstSeq + i, 'fewer bodies than hashes')
    const end = skipValue(bodyBytes, start)
    if (end < 0) throw fail(firstSeq + i, 'undecodable entry (not msgpack)')
    const offset = i * HASH_BYTES
    if (!digestEquals(chainDigest(prev, bodyBytes.subarray(start, end)), hashBytes, offset)) {
      throw fail(firstSeq + i, HASH_MISMATCH)
    }
    prev = hashBytes.subarray(offset, offset + HASH_BYTES)
    ends[i] = end
    start = end
  }
  if (start !== bodyBytes.length) throw fail(firstSeq + count, 'more bodies than hashes')
  return ends
}

/**
 * Decodes and verifies entries from `hashes` and `bodies` (as an envelope holds them), the
 * first one seq `firstSeq` after `prevHash`: each hash recomputed from the previous one and
 * the body bytes, each body holding the next seq and a time. With `ends` from verifyBodies(),
 * the hashes are already checked over exactly those extents, and each decoded body must end
 * where it said; with a `tape` of the same bodies too (body-tape.ts), the commands are built
 * from it instead of decoded. The entries come back sealed (their bodies are the verified
 * bytes). `stopAfter` ends the walk early; `fail` makes the error. Hashes and bodies must
 * agree in number unless the walk stops early.
 */
export function decodeChain(
  firstSeq: number, prevHash: Uint8Array, hashes: Uint8Array, bodies: Uint8Array,
  fail: (seq: number, reason: string) => Error, o: { stopAfter?: number, ends?: Uint32Array, tape?: BodyTape, tapeAt?: TapeAt } = {},
): { entries: LogEntry[], bodiesEnd: number } {
  const count = hashes.length / HASH_BYTES
  const { stopAfter = Infinity, ends, tape, tapeAt } = o
  const hashBytes = plain(hashes)
  const bodyBytes = plain(bodies)
  const entries: LogEntry[] = []
  let prev = prevHash
  let bodiesEnd = 0
  let failed: Error | undefined
  /** Takes the next entry's decoded [seq, time, command], found at start..end of the bodies. */
  const accept = (bodySeq: unknown, time: unknown, command: unknown, start: number, end: number): boolean | undefined => {
    const i = entries.length
    const seq = firstSeq + i
    if (i >= count) throw (failed = fail(seq, 'more bodies than hashes'))
    if (ends === undefined && !digestEquals(chainDigest(prev, bodyBytes.subarray(start, end)), hashBytes, i * HASH_BYTES)) {
      throw (failed = fail(seq, HASH_MISMATCH))
    }
    if (ends !== undefined && ends[i] !== end) throw (failed = fail(seq, 'body does not end where its hash was checked'))
    if (bodySeq !== seq || typeof time !== 'number' || typeof command !== 'object' || command === null) {
      throw (failed = fail(seq, `entry body does not hold seq ${seq}`))
    }
    const hash = hashBytes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES)
    entries.push(sealEntryAt(seq, time, command as Command, prev, hash, bodyBytes, start, end, true))
    prev = hash
    bodiesEnd = end
    return entries.length < stopAfter ? undefined : false
  }
  const visit = (value: unknown, start: number, end: number): boolean | undefined => {
    const [bodySeq, time, command] = (Array.isArray(value) ? value : []) as unknown[]
    return accept(bodySeq, time, command, start, end)
  }
  try {
    if (tape !== undefined && ends !== undefined) acceptTaped(new TapeReader(tape, tapeAt?.[0], tapeAt?.[1]), ends, bodyBytes, Math.min(count, stopAfter), accept, visit)
    else packr.unpackMultiple(bodyBytes, visit as (value: unknown, start?: number, end?: number) => boolean | undefined)
  } catch (err) {
    if (err === failed) throw err
    throw fail(firstSeq + entries.length, `undecodable entry (${(err as Error).message})`)
  }
  if (entries.length < Math.min(count, stopAfter)) throw fail(firstSeq + entries.length, 'fewer bodies than hashes')
  return { entries, bodiesEnd }
}

/** Walks `n` bodies on a tape: each built from it, or decoded from its bytes where it says so. */
function acceptTaped(
  reader: TapeReader, ends: Uint32Array, bodyBytes: Uint8Array, n: number,
  accept: (seq: unknown, time: unknown, command: unknown, start: number, end: number) => unknown,
  visit: (value: unknown, start: number, end: number) => unknown,
): void {
  let start = 0
  for (let i = 0; i < n && i < ends.length; i++) {
    const end = ends[i]!
    const command = reader.next()
    if (command !== undefined) accept(reader.seq, reader.time, command, start, end)
    else visit(packr.unpack(bodyBytes.subarray(start, end)), start, end)
    start = end
  }
}

const corrupt = (seq: number, reason: string): Error => new LogCorruptError(seq, reason)

/** Where a batch's bodies begin on a tape written for several batches: its ints, then its floats. */
export type TapeAt = readonly [number, number]

/** The chain verifier's answer for a stored batch: where each body ends, and the bodies on a tape. */
export interface Verdict {
  ends: Uint32Array
  tape?: BodyTape
  /** Where on `tape` this batch's bodies begin, when the tape holds other batches' too. */
  tapeAt?: TapeAt
}

/**
 * Decodes and verifies a whole batch; the first entry's prevHash is the one it stored.
 * `verdict` is the chain verifier's answer for these bytes when it checked the hashes already.
 */
export function decodeBatch(firstSeq: number, bytes: Uint8Array, verdict?: Verdict): LogEntry[] {
  const env = decodeEnvelope(firstSeq, bytes)
  return decodeChain(firstSeq, env.prevHash, env.hashes, env.bodies, corrupt, { ends: verdict?.ends, tape: verdict?.tape, tapeAt: verdict?.tapeAt }).entries
}

/** A stored batch checked but not decoded: its envelope, and where each body ends in `bodies`. */
export interface CheckedBatch extends Envelope {
  seq: number
  ends: Uint32Array
}

/**
 * The batch's envelope with its hashes checked over its bodies, no command decoded (what
 * an archive copies out); `verdict` is the chain verifier's answer when it checked them already.
 */
export function checkBatch(firstSeq: number, bytes: Uint8Array, verdict?: Verdict): CheckedBatch {
  const env = decodeEnvelope(firstSeq, bytes)
  const ends = verdict?.ends ?? verifyBodies(firstSeq, env.prevHash, env.hashes, env.bodies, corrupt)
  if (ends.length !== env.count || ends[ends.length - 1] !== env.bodies.length) throw corrupt(firstSeq, 'bodies and hashes disagree')
  return { ...env, seq: firstSeq, ends }
}

/** The batch cut down to its first `keep` entries (verified as they are walked), and the last of them. */
export function truncateBatch(firstSeq: number, bytes: Uint8Array, keep: number): { bytes: Uint8Array, last: LogEntry } {
  const env = decodeEnvelope(firstSeq, bytes)
  if (keep < 1 || keep > env.count) throw new LogCorruptError(firstSeq, `batch holds fewer than ${keep} entries`)
  const { entries, bodiesEnd } = decodeChain(firstSeq, env.prevHash, env.hashes, env.bodies, corrupt, { stopAfter: keep })
  return { bytes: encodeBatch(env.prevHash, env.hashes.subarray(0, keep * HASH_BYTES), env.bodies.subarray(0, bodiesEnd)), last: entries[keep - 1]! }
}
