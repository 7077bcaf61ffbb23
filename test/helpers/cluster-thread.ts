// The worker thread behind test/helpers/cluster-worker.ts: runs one cluster-simulator seed per
// request, in order, and answers with its report and the bug switches as the run left them.

import { parentPort } from 'node:worker_threads'
import { TEST_FAULTS } from '../../replica/test-faults.js'
import { runCluster } from '../../sim/cluster.js'
import type { PlainClusterOptions, ThreadReply } from './cluster-worker.js'

const port = parentPort!
let queue = Promise.resolve()

port.on('message', ({ id, options }: { id: number; options: PlainClusterOptions }) => {
  queue = queue.then(async () => {
    let reply: ThreadReply
    try {
      const report = await runCluster(options)
      reply = { id, run: { report, faultsAfter: { ...TEST_FAULTS } } }
    } catch (err) {
      reply = { id, error: err instanceof Error ? err.stack ?? err.message : String(err) }
    }
    port.postMessage(reply)
  })
})
