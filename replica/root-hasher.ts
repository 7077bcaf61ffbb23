// State roots of checkpoints on a second thread. A root hashes every leaf of the state: tens of
// milliseconds with a few thousand resting orders, a stall the gateway's clients would see
// every checkpoint if it ran where commands are applied. The node encodes the checkpoint's
// snapshot (which it keeps anyway) and the root is computed from those bytes here: restoring a
// snapshot gives the same root (core/snapshot.ts), and a node that restarts checks exactly
// that. If the thread cannot answer, the root is computed on the caller's thread instead, so a
// checkpoint is never lost, only slower.

import { Worker } from 'node:worker_threads'
import { stateRoot } from '../core/root.js'
import { decodeSnapshot } from '../core/snapshot.js'

export interface RootRequest {
  id: number
  /** A snapshot's bytes, in a buffer of their own that is transferred. */
  bytes: Uint8Array
}

export type RootReply = { id: number; root: string } | { id: number; error: string }

/** What a node asks for its checkpoints' roots (replica/node.ts). */
export interface RootSource {
  rootOf(bytes: Uint8Array): Promise<string>
}

// Under the test runner the sources are TypeScript; compiled, they are JavaScript.
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './root-worker.ts' : './root-worker.js', import.meta.url)

interface Waiting {
  bytes: Uint8Array
  resolve: (root: string) => void
  reject: (err: Error) => void
}

export class RootHasher implements RootSource {
  #worker: Worker | undefined
  #nextId = 1
  readonly #waiting = new Map<number, Waiting>()
  #closed = false

  /** `url`: the worker's module, root-worker.ts unless a test says otherwise. */
  constructor(private readonly url: URL = WORKER_URL) {}

  /** Starts the thread now rather than at the first checkpoint. */
  warm(): void {
    this.#start()
  }

  /** The state root of the snapshot `bytes` (copied; the caller keeps its own). */
  rootOf(bytes: Uint8Array): Promise<string> {
    return new Promise((resolve, reject) => {
      const worker = this.#closed ? undefined : this.#start()
      if (worker === undefined) {
        this.#here({ bytes, resolve, reject })
        return
      }
      const id = this.#nextId++
      const copy = new Uint8Array(bytes.length) // its own buffer, to transfer (a Buffer may share one)
      copy.set(bytes)
      if (this.#waiting.size === 0) worker.ref()
      this.#waiting.set(id, { bytes, resolve, reject })
      worker.postMessage({ id, bytes: copy } satisfies RootRequest, [copy.buffer])
    })
  }

  /** Stops the thread; roots still being computed are computed here. */
  async close(): Promise<void> {
    this.#closed = true
    const worker = this.#worker
    this.#worker = undefined
    this.#takeBack()
    await worker?.terminate()
  }

  #start(): Worker | undefined {
    if (this.#worker !== undefined) return this.#worker
    let worker: Worker
    try {
      worker = new Worker(this.url)
    } catch {
      return undefined
    }
    worker.unref()
    worker.on('message', (reply: RootReply) => {
      const w = this.#waiting.get(reply.id)
      if (w === undefined) return
      this.#waiting.delete(reply.id)
      if (this.#waiting.size === 0) worker.unref()
      if ('root' in reply) w.resolve(reply.root)
      else w.reject(new Error(`checkpoint root: ${reply.error}`))
    })
    const lost = (): void => {
      if (this.#worker !== worker) return
      this.#worker = undefined
      this.#takeBack()
    }
    worker.on('error', lost)
    worker.on('exit', lost)
    this.#worker = worker
    return worker
  }

  /** Computes on this thread every root the lost (or closed) thread still owed. */
  #takeBack(): void {
    const waiting = [...this.#waiting.values()]
    this.#waiting.clear()
    for (const w of waiting) this.#here(w)
  }

  #here(w: Waiting): void {
    try {
      w.resolve(stateRoot(decodeSnapshot(w.bytes)))
    } catch (err) {
      w.reject(err as Error)
    }
  }
}
