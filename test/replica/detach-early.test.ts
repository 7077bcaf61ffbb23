// The first detached ArrayBuffer in an isolate throws away its optimized typed-array code
// (replica/detach-early.ts). The modules that transfer buffers detach one as they load, so a
// later transfer leaves optimized code alone. Each probe runs in a worker thread: an isolate
// of its own, with no buffer detached yet.

import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { Worker } from 'node:worker_threads'
import t from 'tap'
import { DIST } from '../helpers/paths.js'


// The probes ask V8 whether a function is optimized.
setFlagsFromString('--allow-natives-syntax')

/** Whether a function reading a typed array is still optimized after a transfer, `module` loaded first. */
async function optimizedAfterTransfer(module: string | undefined): Promise<boolean> {
  const load = module === undefined ? '' : `await import(${JSON.stringify(pathToFileURL(path.join(DIST, module)).href)})`
  const code = `
    const { parentPort } = require('node:worker_threads')
    ;(async () => {
      ${load}
      function sum(a) { let s = 0; for (let i = 0; i < a.length; i++) s += a[i]; return s }
      const a = new Int32Array(64);
      %PrepareFunctionForOptimization(sum); sum(a); sum(a); %OptimizeFunctionOnNextCall(sum); sum(a);
      const optimized = () => (%GetOptimizationStatus(sum) & 16) !== 0
      const before = optimized()
      const b = new ArrayBuffer(8)
      structuredClone(b, { transfer: [b] })
      parentPort.postMessage({ probe: { before, after: optimized() } })
    })()`
  const worker = new Worker(code, { eval: true })
  try {
    const probe = await new Promise<{ before: boolean, after: boolean }>((resolve, reject) => {
      // The chain verifier says it is up first; the probe's message is the one to wait for.
      worker.on('message', (m: { probe?: { before: boolean, after: boolean } }) => { if (m.probe) resolve(m.probe) })
      worker.on('error', reject)
    })
    if (!probe.before) throw new Error('the probe function was not optimized')
    return probe.after
  } finally {
    await worker.terminate()
  }
}

t.test('without it, a transfer throws away optimized typed-array code', async (t) => {
  t.equal(await optimizedAfterTransfer(undefined), false)
})

for (const module of ['replica/worker-calls.js', 'replica/verify-worker.js', 'replica/projections/projections-client.js']) {
  t.test(`once ${module} has loaded, a transfer leaves it optimized`, async (t) => {
    t.equal(await optimizedAfterTransfer(module), true)
  })
}
