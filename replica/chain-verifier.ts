// Hash-chain verification of stored batches on a second thread. Each entry's hash depends only
// on stored bytes (the previous hash and its body), so a batch can be checked whole, away
// from the thread that decodes and applies it. One worker per process, started on first use;
// it keeps the process alive only while a batch is being checked.

import type { Verdict } from './batch-codec.js'
import { LogCorruptError } from './chain.js'
import { ownCopy, WorkerCalls } from './worker-calls.js'

export interface VerifyRequest {
  id: number
  firstSeq: number
  /** A stored batch's bytes (an envelope), in a buffer of its own that is transferred. */
  bytes: Uint8Array
}

/**
 * Where each body ends (as verifyBodies() returns it) and the bodies on a tape, or where and
 * why the chain breaks; id 0 is the thread saying it is up.
 */
export type VerifyReply = ({ id: number } & Verdict) | { id: number; seq: number; reason: string } | { id: 0; up: true }

/** The verifier thread could not answer (it failed to start or died); the check was not made. */
export class VerifierUnavailableError extends Error {
  override name = 'VerifierUnavailableError'
}

interface Waiting {
  resolve: (verdict: Verdict) => void
  reject: (err: Error) => void
}

// Under the test runner the sources are TypeScript; compiled, they are JavaScript.
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './verify-worker.ts' : './verify-worker.js', import.meta.url)

export class ChainVerifier {
  readonly #calls: WorkerCalls<VerifyReply, Waiting>

  /** `url`: the worker's module, verify-worker.ts unless a test says otherwise. */
  constructor(url: URL = WORKER_URL) {
    this.#calls = new WorkerCalls(url, {
      answered(reply, w) {
        if ('ends' in reply) w.resolve({ ends: reply.ends, tape: reply.tape })
        else if ('reason' in reply) w.reject(new LogCorruptError(reply.seq, reply.reason))
      },
      lost(calls, why) {
        const err = new VerifierUnavailableError(`chain verifier thread: ${why}`)
        for (const w of calls) w.reject(err)
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
    return new Promise((resolve, reject) => {
      const copy = ownCopy(bytes)
      try {
        this.#calls.send({ resolve, reject }, (id) => ({ id, firstSeq, bytes: copy } satisfies VerifyRequest), [copy.buffer as ArrayBuffer])
      } catch (err) {
        reject(new VerifierUnavailableError(`chain verifier thread: ${(err as Error).message}`))
      }
    })
  }

  /** Stops the worker; batches still being checked are rejected. */
  close(): Promise<void> {
    return this.#calls.close()
  }
}

/** The process's verifier. */
export const chainVerifier = new ChainVerifier()
