// Requests to a helper thread that answers each one by id (the chain verifier, the checkpoint
// root hasher). The thread starts on first use and keeps the process alive only while a call
// is outstanding. When it is lost (an error, an exit, or close()), the calls it still owed go
// back to the owner, which decides what they become: refused, or done on its own thread.

import { Worker } from 'node:worker_threads'
import { detachEarly } from './detach-early.js'

/** After a thread fails before saying anything, how long start() refuses rather than start another. */
export const RESTART_AFTER_MS = 10_000

// Calls hand their buffers over (detach-early.ts).
detachEarly()

export interface WorkerCallsHandlers<Reply, Call> {
  /** The reply to `call` (no longer outstanding). */
  answered(reply: Reply, call: Call): void
  /** The thread is gone with these calls unanswered (none outstanding any more). */
  lost(calls: Call[], why: string): void
}

export class WorkerCalls<Reply extends { id: number }, Call> {
  #worker: Worker | undefined
  /** Whether the running thread has sent anything yet: a thread that dies before is broken. */
  #up = false
  #startFailedAt = -Infinity
  #nextId = 1
  readonly #waiting = new Map<number, Call>()

  constructor(private readonly url: URL, private readonly handlers: WorkerCallsHandlers<Reply, Call>) {}

  /** Whether a thread is running and has been heard from. */
  get ready(): boolean {
    return this.#worker !== undefined && this.#up
  }

  /** The running thread, started if need be; throws when it cannot be, or failed to lately. */
  start(): Worker {
    if (this.#worker !== undefined) return this.#worker
    if (performance.now() - this.#startFailedAt < RESTART_AFTER_MS) throw new Error('failed to start; not retried yet')
    const worker = new Worker(this.url)
    worker.unref()
    let up = false
    this.#up = false
    worker.on('message', (reply: Reply) => {
      // Unref'd as it was made, a thread still held its process open once it had started
      // (under the test runner's module hooks, where a test that read a long log hung at its
      // end): unref'd again when it first speaks, unless a call is already out.
      if (!up && this.#waiting.size === 0) worker.unref()
      up = true
      if (this.#worker === worker) this.#up = true
      this.#settle(reply)
    })
    const lost = (why: string): void => {
      if (!up) this.#startFailedAt = performance.now()
      if (this.#worker !== worker) return
      this.#worker = undefined
      this.#loseAll(why)
    }
    worker.on('error', (err) => lost(err.message))
    worker.on('exit', (code) => lost(`exited (${code})`))
    this.#worker = worker
    return worker
  }

  /**
   * Sends the request `message(id)` and holds `call` until its reply; throws as start() does.
   * `transfer`: buffers the request hands over to the thread.
   */
  send(call: Call, message: (id: number) => object, transfer: ArrayBuffer[] = []): void {
    const worker = this.start()
    const id = this.#nextId++
    if (this.#waiting.size === 0) worker.ref()
    this.#waiting.set(id, call)
    worker.postMessage(message(id), transfer)
  }

  /** Stops the thread; the calls it owed go to `lost`. */
  async close(): Promise<void> {
    const worker = this.#worker
    this.#worker = undefined
    this.#loseAll('closed')
    await worker?.terminate()
  }

  #settle(reply: Reply): void {
    const call = this.#waiting.get(reply.id)
    if (call === undefined) return
    this.#waiting.delete(reply.id)
    if (this.#waiting.size === 0) this.#worker?.unref()
    this.handlers.answered(reply, call)
  }

  #loseAll(why: string): void {
    const calls = [...this.#waiting.values()]
    this.#waiting.clear()
    this.#worker?.unref()
    if (calls.length > 0) this.handlers.lost(calls, why)
  }
}

/** A buffer of its own holding a copy of `bytes`, to transfer (a Buffer may share its pool's). */
export function ownCopy(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes.length)
  copy.set(bytes)
  return copy
}
