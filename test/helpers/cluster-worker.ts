// Cluster-simulator runs for the simulator's tests, in a worker thread. tap watches every
// promise made on the thread its tests run on (async-hook-domain's init and destroy hooks, so
// an error thrown later is blamed on its test), and the simulator makes promises for every
// simulated message and disk write: on the test's thread a seed took up to a third longer.
// A worker thread has async hooks of its own, and none are set there. The run is the same:
// `runCluster` is deterministic, and its report is plain data.

import type { TestFault } from '../../replica/test-faults.js'
import { WorkerCalls } from '../../replica/worker-calls.js'
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

interface Waiting {
  resolve: (r: ThreadRun) => void
  reject: (err: Error) => void
}

/** One worker thread for a test file's runs (replica/worker-calls.ts: made on the first, let go while idle). */
export class ClusterWorker {
  readonly #calls = new WorkerCalls<ThreadReply, Waiting>(new URL('./cluster-thread.js', import.meta.url), {
    answered: (reply, w) => {
      if ('error' in reply) w.reject(new Error(`cluster run failed in the worker: ${reply.error}`))
      else w.resolve(reply.run)
    },
    lost: (calls, why) => { for (const w of calls) w.reject(new Error(`the cluster worker was lost: ${why}`)) },
  })

  run(options: PlainClusterOptions): Promise<ThreadRun> {
    return new Promise((resolve, reject) => this.#calls.send({ resolve, reject }, (id) => ({ id, options })))
  }

  /** Stops the thread (runs still out are refused). */
  close(): Promise<void> {
    return this.#calls.close()
  }
}
