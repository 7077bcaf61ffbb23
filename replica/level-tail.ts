// Verification and repair of the LevelDB log's tail at open: a batch that fails to decode or
// to continue the chain is a torn or corrupt write, and it and every batch after it are dropped.

import { decodeBatch, decodeEnvelope } from './batch-codec.js'
import { LogCorruptError } from './chain.js'
import { sameHash, type LogEntry } from './entry.js'
import { keySeq, seqKey, SYNC, type LogKeySpaces } from './level-keys.js'
import type { Logger } from './log-store.js'
import { REPLICA_LIMITS } from '../core/limits.js'

type Bytes = Uint8Array

interface TailBatch {
  seq: number
  entries?: LogEntry[]
  /** Entries the batch claims when it fails its own chain but its envelope decodes. */
  count?: number
  error?: string
}

function inspect(seq: number, bytes: Bytes): TailBatch {
  try {
    return { seq, entries: decodeBatch(seq, bytes) }
  } catch (err) {
    if (!(err instanceof LogCorruptError)) throw err
    let count: number | undefined
    try {
      count = decodeEnvelope(seq, bytes).count
    } catch {
      count = undefined
    }
    return { seq, count, error: err.message }
  }
}

// Newest first, until the window holds tailCheckBatches and its oldest batch is sound in
// itself (that one is trusted as the anchor), or the log's first batch is reached.
async function tailWindow(log: LogKeySpaces['log']): Promise<{ window: TailBatch[], reachedStart: boolean }> {
  const window: TailBatch[] = []
  const it = log.iterator({ reverse: true })
  try {
    for (let next = await it.next(); next !== undefined; next = await it.next()) {
      const batch = inspect(keySeq(next[0]), next[1])
      window.push(batch)
      if (window.length >= REPLICA_LIMITS.tailCheckBatches && batch.entries) {
        return { window: window.reverse(), reachedStart: false }
      }
      if (window.length > REPLICA_LIMITS.tailCheckBatches + REPLICA_LIMITS.tailRepairBatchesMax) {
        throw new LogCorruptError(batch.seq, `no sound batch among the last ${window.length}; not a torn tail, refusing to start`)
      }
    }
  } finally {
    await it.close()
  }
  return { window: window.reverse(), reachedStart: true }
}

/**
 * Verifies the tail against the base (seq, hash) before the first entry, drops the batches
 * from the first one that breaks the chain onwards, and returns the durable verified tail.
 * `readOnly` (the tools that read a stopped node's log) drops nothing: the verified tail comes
 * back with the damage after it (`damaged`), for the tool to report; a node drops it as it starts.
 */
export async function repairTail(
  log: LogKeySpaces['log'], baseSeq: number, baseHash: Bytes, logger?: Logger, readOnly = false,
): Promise<{ seq: number, hash: Bytes, damaged?: LogCorruptError }> {
  const { window, reachedStart } = await tailWindow(log)
  let tail = { seq: baseSeq, hash: baseHash }
  let kept = 0
  for (const batch of window) {
    const first = batch.entries?.[0]
    if (first === undefined) break
    // The anchor's own link lies below the window; a full replay checks it.
    const anchor = kept === 0 && !reachedStart
    if (!anchor && (first.seq !== tail.seq + 1 || !sameHash(first.prevHash, tail.hash))) break
    const last = batch.entries![batch.entries!.length - 1]!
    tail = { seq: last.seq, hash: last.hash }
    kept++
  }
  const dropped = window.slice(kept)
  if (dropped.length === 0) return tail
  const { entriesDropped, entriesDroppedExact } = droppedCount(dropped)
  const reason = dropped[0]!.error ?? 'does not continue the chain'
  if (readOnly) {
    const batches = dropped.length === 1 ? '1 batch' : `${dropped.length} batches`
    const entries = `${entriesDroppedExact ? '' : 'at least '}${entriesDropped} ${entriesDropped === 1 ? 'entry' : 'entries'}`
    return { ...tail, damaged: new LogCorruptError(dropped[0]!.seq, `the log's tail from here (${batches}, ${entries}) ` +
      `does not hold: ${reason} (left as found; a node drops a torn tail as it starts)`) }
  }
  if (dropped.length > REPLICA_LIMITS.tailRepairBatchesMax) {
    throw new LogCorruptError(dropped[0]!.seq, `${dropped.length} batches break the chain; not a torn tail, refusing to start`)
  }
  // A crash tears only what it was writing. Dropping every batch would start a new exchange on
  // the data of an old one, so a log none of whose batches holds is refused: only a node whose
  // very first write was torn has that, and starting it afresh is then the operator's call.
  if (kept === 0 && reachedStart) {
    throw new LogCorruptError(dropped[0]!.seq, 'no batch of the log continues the chain; refusing to start on it ' +
      '(a node whose first write a crash tore: remove its log to start it afresh)')
  }
  await log.batch(dropped.map((b) => ({ type: 'del' as const, key: seqKey(b.seq) })), SYNC)
  logger?.warn({ entriesDropped, entriesDroppedExact, batchesDropped: dropped.length, firstDroppedSeq: dropped[0]!.seq, lastSeq: tail.seq,
    reason }, 'log tail truncated: torn or corrupt batches dropped')
  return tail
}

// An undecodable batch's size is known from the key of the batch after it, if any.
function droppedCount(dropped: TailBatch[]): { entriesDropped: number, entriesDroppedExact: boolean } {
  let entriesDropped = 0
  let entriesDroppedExact = true
  dropped.forEach((b, i) => {
    const next = dropped[i + 1]
    const count = b.entries?.length ?? b.count ?? (next ? next.seq - b.seq : undefined)
    if (count === undefined) entriesDroppedExact = false
    entriesDropped += count ?? 1
  })
  return { entriesDropped, entriesDroppedExact }
}
