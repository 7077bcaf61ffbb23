// The hash-chain checks shared by every log store: what an append must satisfy before it is
// written, and the errors for a refused append and for a log found corrupt when read back.

import { bodyHeadIs, chainDigest, digestEquals, encodeBody, hashChecked, HASH_BYTES, hex, sameHash, sealedBody, type LogEntry } from './entry.js'
import { REPLICA_LIMITS } from '../core/limits.js'

/** An append that does not continue the chain; the store is unchanged. */
export class AppendRefusedError extends Error {
  override name = 'AppendRefusedError'
  constructor(readonly seq: number, reason: string) {
    super(`append refused at seq ${seq}: ${reason}`)
  }
}

/** Stored entries that fail to decode, leave a gap or break the hash chain. Never skipped. */
export class LogCorruptError extends Error {
  override name = 'LogCorruptError'
  constructor(readonly seq: number, readonly reason: string) {
    super(`log corrupt at seq ${seq}: ${reason}`)
  }
}

/**
 * Checks that `entries` continue the chain after (lastSeq, lastHash): seqs consecutive, times
 * valid, prevHash links, and every hash matches the entry's body. A sealed entry (entry.ts)
 * brings its body, the bytes its command was encoded to once, and they are hashed as given
 * after a look at their head (seq and time), unless the hash was already computed or checked
 * over them when the entry was sealed (hashChecked); any other entry is encoded and hashed
 * now. Returns the bodies, so a store keeps exactly the bytes that were hashed.
 */
export function checkContinues(lastSeq: number, lastHash: Uint8Array, entries: readonly LogEntry[]): Uint8Array[] {
  const n = entries.length
  if (n === 0 || n > REPLICA_LIMITS.batchEntriesMax) {
    throw new AppendRefusedError(lastSeq + 1, `a batch holds 1 to ${REPLICA_LIMITS.batchEntriesMax} entries, not ${n}`)
  }
  const bodies: Uint8Array[] = new Array(n)
  let seq = lastSeq
  let prevHash = lastHash
  for (let i = 0; i < n; i++) {
    const e = entries[i]!
    if (e.seq !== seq + 1) throw new AppendRefusedError(e.seq, `expected seq ${seq + 1}`)
    if (!Number.isSafeInteger(e.time) || e.time < 0) throw new AppendRefusedError(e.seq, `bad time ${e.time}`)
    // The same array (an entry made after the one before it) needs no byte compare.
    if (e.prevHash !== prevHash && !sameHash(e.prevHash, prevHash)) {
      throw new AppendRefusedError(e.seq, `prevHash ${hex(e.prevHash)} does not match ${hex(prevHash)}`)
    }
    let body = sealedBody(e)
    if (body === undefined) body = encodeBody(e.seq, e.time, e.command)
    else if (!bodyHeadIs(body, e.seq, e.time)) throw new AppendRefusedError(e.seq, 'its body does not hold its seq and time')
    // An entry whose hash was computed or checked over this body when it was sealed (its
    // prevHash being the one just compared) is not hashed twice: SHA-256 is the largest part
    // of an append's own work.
    if (e.hash.length !== HASH_BYTES || (!hashChecked(e) && !digestEquals(chainDigest(prevHash, body), e.hash))) {
      throw new AppendRefusedError(e.seq, 'hash does not match its body')
    }
    bodies[i] = body
    seq = e.seq
    prevHash = e.hash
  }
  return bodies
}

/** Checks that `next` follows (seq, hash) with no gap; used where batches or reads meet. */
export function checkLink(seq: number, hash: Uint8Array, next: LogEntry): void {
  if (next.seq !== seq + 1) throw new LogCorruptError(seq + 1, `gap: found seq ${next.seq} after ${seq}`)
  if (!sameHash(next.prevHash, hash)) throw new LogCorruptError(next.seq, `prevHash does not match the hash of seq ${seq}`)
}
