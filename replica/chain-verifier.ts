// Hash-chain verification of stored batches on a second thread. Each entry's hash depends only
// on stored bytes (the previous hash and its body), so a batch can be checked whole, away
// from the thread that decodes and applies it. One worker per process, started on first use;
// it keeps the process alive only while a batch is being checked.

import type { Verdict } from './batch-codec.js'
import { LogCorruptError } from './chain.js'
import type { BodyTape } from './body-tape.js'
import { WorkerCalls } from './worker-calls.js'

export interface VerifyRequest {
  id: number
  /** Stored batches' bytes (envelopes) end to end, in a buffer of their own that is transferred. */
  bytes: Uint8Array
  /** Per batch, in pairs: the seq of its first entry and where its bytes end in `bytes`. */
  batches: number[]
}

/**
 * Per batch, where each body ends (as verifyBodies() returns it), and all their bodies on one
 * tape with where each batch's begin (`starts`, ints and floats in pairs); or where and why
 * the chain breaks, with the ends of the batches before it; id 0 is the thread saying it is up.
 */
export type VerifyReply =
  | { id: number; ends: Uint32Array[]; tape?: BodyTape; starts?: number[] }
  | { id: number; ends: Uint32Array[]; seq: number; reason: string }
  | { id: 0; up: true }

/** The verifier thread could not answer (it failed to start or died); the check was not made. */
export class VerifierUnavailableError extends Error {
  override name = 'VerifierUnavailableError'
}

interface Answer {
  resolve: (verdict: Verdict) => void
  reject: (err: Error) => void
}

/** A request's batches, each waiting for its verdict. */
type Waiting = Answer[]

const WORKER_URL = new URL('./verify-worker.js', import.meta.url)

export class ChainVerifier {
  readonly #calls: WorkerCalls<VerifyReply, Waiting>

  /** `url`: the worker's module, verify-worker.ts unless a test says otherwise. */
  constructor(url: URL = WORKER_URL) {
    this.#calls = new WorkerCalls(url, {
      answered(reply, answers) {
        if (!('ends' in reply)) return
        const n = reply.ends.length
        // A broken batch's reply brings no tape: the batches before it are decoded from their bytes.
        const { tape, starts } = 'tape' in reply ? reply : { tape: undefined, starts: undefined }
        for (let i = 0; i < n; i++) {
          const tapeAt = starts !== undefined ? [starts[2 * i]!, starts[2 * i + 1]!] as const : undefined
          answers[i]!.resolve({ ends: reply.ends[i]!, tape, tapeAt })
        }
        if ('reason' in reply) {
          const err = new LogCorruptError(reply.seq, reply.reason)
          for (let i = n; i < answers.length; i++) answers[i]!.reject(err)
        }
      },
      lost(calls, why) {
        const err = new VerifierUnavailableError(`chain verifier thread: ${why}`)
        for (const answers of calls) for (const a of answers) a.reject(err)
      },
    })
  }

  /** Whether the thread is running and up: starting one takes tens of milliseconds. */
  get ready(): boolean {
    return this.#calls.ready
  }

  /** Starts the thread if it is not running, without asking anything. */
  warm(): void {
    try {
      this.#calls.start()
    } catch {
      // Not startable now; verifyBatch() will say so.
    }
  }

  /**
   * Verifies the stored batch `bytes` under `firstSeq` (its own chain from its stored
   * prevHash); resolves with the end of each body and the bodies on a tape (body-tape.ts),
   * rejects with LogCorruptError, or with VerifierUnavailableError when the thread cannot
   * answer. The bytes are copied, so the caller keeps its own.
   */
  verifyBatch(firstSeq: number, bytes: Uint8Array): Promise<Verdict> {
    return this.verifyBatches([{ seq: firstSeq, bytes }])[0]!
  }

  /**
   * verifyBatch() for several stored batches in one request (each still checked on its own
   * chain): one message each way instead of one per batch, and one tape for their bodies.
   * A broken batch rejects itself and those after it; the ones before it are answered.
   */
  verifyBatches(batches: readonly { seq: number, bytes: Uint8Array }[]): Promise<Verdict>[] {
    const answers: Answer[] = []
    const verdicts = batches.map(() => new Promise<Verdict>((resolve, reject) => { answers.push({ resolve, reject }) }))
    let size = 0
    for (const b of batches) size += b.bytes.length
    const bytes = new Uint8Array(size)
    const ranges: number[] = []
    let at = 0
    for (const b of batches) {
      bytes.set(b.bytes, at)
      at += b.bytes.length
      ranges.push(b.seq, at)
    }
    try {
      this.#calls.send(answers, (id) => ({ id, bytes, batches: ranges } satisfies VerifyRequest), [bytes.buffer as ArrayBuffer])
    } catch (err) {
      const unavailable = new VerifierUnavailableError(`chain verifier thread: ${(err as Error).message}`)
      for (const a of answers) a.reject(unavailable)
    }
    return verdicts
  }

  /** Stops the worker; batches still being checked are rejected. */
  close(): Promise<void> {
    return this.#calls.close()
  }
}

/** The process's verifier. */
export const chainVerifier = new ChainVerifier()
