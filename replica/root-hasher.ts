// State roots of checkpoints on a second thread. A root hashes every leaf of the state: tens of
// milliseconds with a few thousand resting orders, a stall the gateway's clients would see
// every checkpoint if it ran where commands are applied. The node encodes the checkpoint's
// snapshot (which it keeps anyway) and the root is computed from those bytes here: restoring a
// snapshot gives the same root (core/snapshot.ts), and a node that restarts checks exactly
// that. If the thread cannot answer, the root is computed on the caller's thread instead, so a
// checkpoint is never lost, only slower.

import { stateRoot } from '../core/root.js'
import { decodeSnapshot } from '../core/snapshot.js'
import { ownCopy, WorkerCalls } from './worker-calls.js'

export interface RootRequest {
  id: number
  /** A snapshot's bytes, in a buffer of their own that is transferred. */
  bytes: Uint8Array
}

/** A root, or why it could not be computed; id 0 is the thread saying it is up. */
export type RootReply = { id: number; root: string } | { id: number; error: string } | { id: 0; up: true }

/** What a node asks for its checkpoints' roots (replica/node.ts). */
export interface RootSource {
  rootOf(bytes: Uint8Array): Promise<string>
}

const WORKER_URL = new URL('./root-worker.js', import.meta.url)

interface Waiting {
  bytes: Uint8Array
  resolve: (root: string) => void
  reject: (err: Error) => void
}

export class RootHasher implements RootSource {
  readonly #calls: WorkerCalls<RootReply, Waiting>
  #closed = false

  /** `url`: the worker's module, root-worker.ts unless a test says otherwise. */
  constructor(url: URL = WORKER_URL) {
    this.#calls = new WorkerCalls(url, {
      answered(reply, w) {
        if ('root' in reply) w.resolve(reply.root)
        else if ('error' in reply) w.reject(new Error(`checkpoint root: ${reply.error}`))
      },
      // Whatever the lost (or closed) thread still owed is computed here.
      lost: (calls) => {
        for (const w of calls) here(w)
      },
    })
  }

  /** Starts the thread now rather than at the first checkpoint. */
  warm(): void {
    try {
      this.#calls.start()
    } catch {
      // Not startable now; rootOf() computes in place.
    }
  }

  /** The state root of the snapshot `bytes` (copied; the caller keeps its own). */
  rootOf(bytes: Uint8Array): Promise<string> {
    return new Promise((resolve, reject) => {
      const w = { bytes, resolve, reject }
      if (this.#closed) return here(w)
      const copy = ownCopy(bytes)
      try {
        this.#calls.send(w, (id) => ({ id, bytes: copy } satisfies RootRequest), [copy.buffer as ArrayBuffer])
      } catch {
        here(w)
      }
    })
  }

  /** Stops the thread; roots still being computed are computed here. */
  async close(): Promise<void> {
    this.#closed = true
    await this.#calls.close()
  }
}

function here(w: Waiting): void {
  try {
    w.resolve(stateRoot(decodeSnapshot(w.bytes)))
  } catch (err) {
    w.reject(err as Error)
  }
}
