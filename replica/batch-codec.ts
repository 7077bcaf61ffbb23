// The bytes of one appended batch as the LevelDB log stores it: msgpack [FORMAT, prevHash,
// hashes, bodies], hashes being the 32-byte entry hashes end to end and bodies the exact
// encodeBody() bytes that were hashed, end to end (each msgpack value delimits itself).

import type { Command } from '../core/commands.js'
import { LogCorruptError } from './chain.js'
import { chainHash, packr, sameHash, type LogEntry } from './entry.js'

const FORMAT = 1
const HASH_BYTES = 32

// Keeping the hashed bytes means verifying a read never depends on re-encoding giving the
// same bytes; keeping them end to end lets one unpackMultiple() call decode the whole batch.
export function encodeBatch(prevHash: Uint8Array, hashes: Uint8Array, bodies: Uint8Array): Uint8Array {
  return packr.pack([FORMAT, prevHash, hashes, bodies])
}

/** A batch of entries already checked by checkContinues(), with the bodies it returned. */
export function encodeEntries(entries: readonly LogEntry[], bodies: readonly Uint8Array[]): Uint8Array {
  return encodeBatch(entries[0]!.prevHash, Buffer.concat(entries.map((e) => e.hash)), Buffer.concat(bodies))
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

/**
 * Walks the bodies of a batch stored under `firstSeq`, verifying its own chain: each hash
 * recomputed from the previous one and the stored body bytes, each seq consecutive from
 * firstSeq. `visit` gets each entry and the end offset of its body; returning false stops.
 */
function walk(firstSeq: number, env: Envelope, visit: (e: LogEntry, end: number) => boolean | void): void {
  let i = 0
  let prev = env.prevHash
  const check = (body: unknown, start?: number, end?: number): boolean | void => {
    const seq = firstSeq + i
    if (i >= env.count) throw new LogCorruptError(seq, 'more bodies than hashes')
    const hash = env.hashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES)
    const computed = chainHash(prev, env.bodies.subarray(start!, end!))
    if (!sameHash(computed, hash)) throw new LogCorruptError(seq, 'hash does not match its body')
    const [bodySeq, time, command] = (Array.isArray(body) ? body : []) as unknown[]
    if (bodySeq !== seq || typeof time !== 'number' || typeof command !== 'object' || command === null) {
      throw new LogCorruptError(seq, `entry body does not hold seq ${seq}`)
    }
    const stop = visit({ seq, time, command: command as Command, prevHash: prev, hash }, end!) === false
    prev = hash
    i++
    return stop ? false : undefined
  }
  try {
    packr.unpackMultiple(env.bodies, check)
  } catch (err) {
    if (err instanceof LogCorruptError) throw err
    throw new LogCorruptError(firstSeq + i, `undecodable entry (${(err as Error).message})`)
  }
}

/** Decodes and verifies a whole batch; the first entry's prevHash is the one it stored. */
export function decodeBatch(firstSeq: number, bytes: Uint8Array): LogEntry[] {
  const env = decodeEnvelope(firstSeq, bytes)
  const entries: LogEntry[] = []
  walk(firstSeq, env, (e) => { entries.push(e) })
  if (entries.length !== env.count) throw new LogCorruptError(firstSeq + entries.length, 'fewer bodies than hashes')
  return entries
}

/** The batch cut down to its first `keep` entries (verified as they are walked), and the last of them. */
export function truncateBatch(firstSeq: number, bytes: Uint8Array, keep: number): { bytes: Uint8Array, last: LogEntry } {
  const env = decodeEnvelope(firstSeq, bytes)
  let last: LogEntry | undefined
  let bodiesEnd = 0
  walk(firstSeq, env, (e, end) => {
    last = e
    bodiesEnd = end
    return e.seq < firstSeq + keep - 1
  })
  if (last === undefined || last.seq !== firstSeq + keep - 1) {
    throw new LogCorruptError(firstSeq, `batch holds fewer than ${keep} entries`)
  }
  return { bytes: encodeBatch(env.prevHash, env.hashes.subarray(0, keep * HASH_BYTES), env.bodies.subarray(0, bodiesEnd)), last }
}
