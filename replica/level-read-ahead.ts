// Reads a LevelDB log's batches ahead of their reader and starts each one's hash-chain check on
// the verifier thread as it arrives, so reading, checking and decoding overlap.

import { REPLICA_LIMITS } from '../core/limits.js'
import type { Verdict } from './batch-codec.js'
import type { ChainVerifier } from './chain-verifier.js'
import { keySeq } from './level-keys.js'

type Bytes = Uint8Array
/** The part of a LevelDB iterator over the log key space used here. */
export interface BatchIterator {
  nextv(size: number): Promise<[Bytes, Bytes][]>
}

/** Batches asked for per iterator hop. */
const BATCHES_PER_HOP = 32
/**
 * Consecutive batches go to the verifier together up to this many bytes: a batch committed
 * under light load holds a few dozen entries, and a message each way and a tape per batch
 * made both threads spend more per entry on them (docs/REPLICA.md). A batch this large goes
 * alone, as one that waits for a group's last verdict waits longer.
 */
const VERIFY_GROUP_BYTES = 128 * 1024

export interface StoredBatch {
  /** Seq of the batch's first entry (its key). */
  seq: number
  bytes: Bytes
  /** The verifier's answer for these bytes, when it is checking them. */
  verdict?: Promise<Verdict>
}

export class ReadAhead {
  readonly #queue: StoredBatch[] = []
  #queuedBytes = 0
  #reading: Promise<void> | undefined
  #done = false
  #failed: { err: unknown } | undefined

  /**
   * With a `verifier`, each batch's chain check starts on its thread as the batch arrives;
   * while that thread is still starting, batches are left to the inline check unless
   * `waitForThread`.
   */
  constructor(private readonly it: BatchIterator, private readonly verifier?: ChainVerifier, private readonly waitForThread = false) {
    verifier?.warm()
  }

  /** The next stored batch, or undefined after the last. */
  async next(): Promise<StoredBatch | undefined> {
    for (;;) {
      const batch = this.#queue.shift()
      if (batch !== undefined) {
        this.#queuedBytes -= batch.bytes.length
        this.#fill()
        return batch
      }
      if (this.#failed !== undefined) throw this.#failed.err
      if (this.#done) return undefined
      this.#fill()
      await this.#reading
    }
  }

  /** Waits out a read in flight: the iterator closes only after it. */
  async settle(): Promise<void> {
    while (this.#reading !== undefined) await this.#reading
  }

  #fill(): void {
    if (this.#reading !== undefined || this.#done || this.#failed !== undefined || this.#queuedBytes >= REPLICA_LIMITS.readAheadBytesMax) return
    this.#reading = this.it.nextv(BATCHES_PER_HOP).then((hop) => {
      this.#reading = undefined
      if (hop.length === 0) this.#done = true
      const v = this.verifier
      const checked = v !== undefined && (v.ready || this.waitForThread) ? v : undefined
      let group: StoredBatch[] = []
      let groupBytes = 0
      const check = (): void => {
        if (checked === undefined || group.length === 0) return
        const verdicts = checked.verifyBatches(group)
        for (let i = 0; i < group.length; i++) {
          // A check past a failed batch is never awaited; its rejection is expected.
          verdicts[i]!.catch(() => {})
          group[i]!.verdict = verdicts[i]!
        }
        group = []
        groupBytes = 0
      }
      for (const [key, bytes] of hop) {
        const batch: StoredBatch = { seq: keySeq(key), bytes, verdict: undefined }
        this.#queue.push(batch)
        this.#queuedBytes += bytes.length
        // Inline checks (no thread asked) need no groups.
        if (checked === undefined) continue
        if (groupBytes + bytes.length > VERIFY_GROUP_BYTES) check()
        group.push(batch)
        groupBytes += bytes.length
      }
      check()
      this.#fill()
    }, (err: unknown) => {
      this.#reading = undefined
      this.#failed = { err }
    })
  }
}
