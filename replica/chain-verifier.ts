// Hash-chain verification of stored batches on a second thread. Each entry's hash depends only
// on stored bytes (the previous hash and its body), so a batch can be checked whole, away
// from the thread that decodes and applies it. One worker per process, started on first use;
// it keeps the process alive only while a batch is being checked.

import { Worker } from 'node:worker_threads'
import { LogCorruptError } from './chain.js'

export interface VerifyRequest {
  id: number
  firstSeq: number
  /** A stored batch's bytes (an envelope), in a buffer of its own that is transferred. */
  bytes: Uint8Array
}

/**
 * Where each body ends (as verifyBodies() returns it), or where and why the chain breaks; id 0
 * is the thread saying it is up.
 */
export type VerifyReply = { id: number; ends: Uint32Array } | { id: number; seq: number; reason: string } | { id: 0; up: true }

/** The verifier thread could not answer (it failed to start or died); the check was not made. */
export class VerifierUnavailableError extends Error {
  override name = 'VerifierUnavailableError'
}

interface Waiting {
  resolve: (ends: Uint32Array) => void
  reject: (err: Error) => void
}

// Under the test runner the sources are TypeScript; compiled, they are JavaScript.
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './verify-worker.ts' : './verify-worker.js', import.meta.url)

/** After the thread fails to start, how long calls are refused at once rather than start it again. */
const RESTART_AFTER_MS = 10_000

export class ChainVerifier {
  readonly #url: URL
  #worker: Worker | undefined
  /** Whether the running thread has said it is up. */
  #up = false
  /** Set when a thread failed before it was up: no new one is started for a while. */
  #startFailedAt = -Infinity
  #nextId = 1
  readonly #waiting = new Map<number, Waiting>()

  /** `url`: the worker's module, verify-worker.ts unless a test says otherwise. */
  constructor(url: URL = WORKER_URL) {
    this.#url = url
  }

  /** Whether the thread is running and up: starting one takes tens of milliseconds. */
  get ready(): boolean {
    return this.#worker !== undefined && this.#up
  }

  /** Starts the thread if it is not running, without asking anything. */
  warm(): void {
    try {
      this.#start()
    } catch {
      // Not startable now; verifyBatch() will say so.
    }
  }

  /**
   * Verifies the stored batch `bytes` under `firstSeq` (its own chain from its stored
   * prevHash); resolves with the end of each body, rejects with LogCorruptError, or with
   * VerifierUnavailableError when the thread cannot answer. The bytes are copied, so the
   * caller keeps its own.
   */
  verifyBatch(firstSeq: number, bytes: Uint8Array): Promise<Uint32Array> {
    let worker: Worker
    try {
      worker = this.#start()
    } catch (err) {
      return Promise.reject(new VerifierUnavailableError(`chain verifier thread: ${(err as Error).message}`))
    }
    const id = this.#nextId++
    const copy = new Uint8Array(bytes.length) // its own buffer, to transfer (Buffer.slice shares)
    copy.set(bytes)
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0) worker.ref()
      this.#waiting.set(id, { resolve, reject })
      worker.postMessage({ id, firstSeq, bytes: copy } satisfies VerifyRequest, [copy.buffer])
    })
  }

  /** Stops the worker; batches still being checked are rejected. */
  async close(): Promise<void> {
    const worker = this.#worker
    this.#worker = undefined
    this.#failAll(new VerifierUnavailableError('chain verifier closed'))
    await worker?.terminate()
  }

  #start(): Worker {
    if (this.#worker !== undefined) return this.#worker
    if (performance.now() - this.#startFailedAt < RESTART_AFTER_MS) throw new Error('failed to start; not retried yet')
    const worker = new Worker(this.#url)
    worker.unref()
    let up = false
    this.#up = false
    worker.on('message', (reply: VerifyReply) => {
      up = true
      if (this.#worker === worker) this.#up = true
      this.#settle(reply)
    })
    const lost = (why: string): void => {
      if (!up) this.#startFailedAt = performance.now()
      if (this.#worker === worker) this.#worker = undefined
      this.#failAll(new VerifierUnavailableError(`chain verifier thread: ${why}`))
    }
    worker.on('error', (err) => lost(err.message))
    worker.on('exit', (code) => lost(`exited (${code})`))
    this.#worker = worker
    return worker
  }

  #settle(reply: VerifyReply): void {
    const w = this.#waiting.get(reply.id)
    if (w === undefined) return
    this.#waiting.delete(reply.id)
    if (this.#waiting.size === 0) this.#worker?.unref()
    if ('ends' in reply) w.resolve(reply.ends)
    else if ('reason' in reply) w.reject(new LogCorruptError(reply.seq, reply.reason))
  }

  #failAll(err: Error): void {
    const waiting = [...this.#waiting.values()]
    this.#waiting.clear()
    this.#worker?.unref()
    for (const w of waiting) w.reject(err)
  }
}

/** The process's verifier. */
export const chainVerifier = new ChainVerifier()
