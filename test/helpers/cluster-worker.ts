// Cluster-simulator runs for the simulator's tests, in a worker thread. tap watches every
// promise made on the thread its tests run on (async-hook-domain's init and destroy hooks, so
// an error thrown later is blamed on its test), and the simulator makes promises for every
// simulated message and disk write: on the test's thread a seed took up to a third longer.
// A worker thread has async hooks of its own, and none are set there. The run is the same:
// `runCluster` is deterministic, and its report is plain data.

import { Worker } from 'node:worker_threads'
import type { TestFault } from '../../replica/test-faults.js'
import type { ClusterOptions, SeedReport } from '../../sim/cluster.js'

/** What a run in the worker can take: options that are plain data (no price moves, no result hook). */
export type PlainClusterOptions = Omit<ClusterOptions, 'priceMoves' | 'onResult'>

export interface ThreadRun {
  report: SeedReport
  /** The worker's deliberate-bug switches after the run: runCluster must have turned them off again. */
  faultsAfter: Record<TestFault, boolean>
}

/** A reply of the worker (test/helpers/cluster-thread.ts) to one request. */
export type ThreadReply = { id: number; run: ThreadRun } | { id: number; error: string }

/** One worker thread for a test file's runs, made on the first and let go while idle. */
export class ClusterWorker {
  #worker: Worker | undefined
  #nextId = 1
  readonly #pending = new Map<number, { resolve: (r: ThreadRun) => void; reject: (err: Error) => void }>()

  run(options: PlainClusterOptions): Promise<ThreadRun> {
    const worker = this.#started()
    const id = this.#nextId++
    return new Promise<ThreadRun>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject })
      // Held while a run is out, so the process waits for the answer; let go when none is.
      worker.ref()
      worker.postMessage({ id, options })
    })
  }

  /** Stops the thread (runs still out are refused). */
  async close(): Promise<void> {
    const worker = this.#worker
    this.#worker = undefined
    if (worker !== undefined) await worker.terminate()
  }

  #started(): Worker {
    if (this.#worker !== undefined) return this.#worker
    const worker = new Worker(new URL('./cluster-thread.js', import.meta.url))
    worker.on('message', (reply: ThreadReply) => {
      const waiting = this.#pending.get(reply.id)
      this.#pending.delete(reply.id)
      if (this.#pending.size === 0) worker.unref()
      if ('error' in reply) waiting?.reject(new Error(`cluster run failed in the worker: ${reply.error}`))
      else waiting?.resolve(reply.run)
    })
    const refuseAll = (err: Error): void => {
      for (const w of this.#pending.values()) w.reject(err)
      this.#pending.clear()
      if (this.#worker === worker) this.#worker = undefined
    }
    worker.on('error', refuseAll)
    worker.on('exit', (code) => refuseAll(new Error(`the cluster worker exited (code ${code})`)))
    this.#worker = worker
    return worker
  }
}
