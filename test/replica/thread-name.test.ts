// The exchange's own threads carry names (replica/thread-name.ts), so `top -H` and
// /proc/<pid>/task/*/comm tell the projections, the checkpoint root hasher and the chain
// verifier from the main thread and from Node's and LevelDB's own threads.

import { mkdtemp, rm } from 'node:fs/promises'
import { readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { encodeSnapshot } from '../../core/snapshot.js'
import { createState } from '../../core/state.js'
import { ChainVerifier } from '../../replica/chain-verifier.js'
import { startProjectionsWorker } from '../../replica/projections/index.js'
import { RootHasher } from '../../replica/root-hasher.js'

const linux = process.platform === 'linux'

function threadNames(): Map<number, string> {
  const out = new Map<number, string>()
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      out.set(Number(tid), readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim())
    } catch { /* the thread ended meanwhile */ }
  }
  return out
}

t.test('the projections, root hasher and chain verifier threads are named; the main thread is not renamed', { skip: !linux && 'Linux only' }, async (t) => {
  const mainName = threadNames().get(process.pid)
  const dir = await mkdtemp(path.join(os.tmpdir(), 'thread-name-'))
  const projections = await startProjectionsWorker(path.join(dir, 'projections'))
  const hasher = new RootHasher()
  const verifier = new ChainVerifier()
  t.teardown(async () => {
    await projections.close()
    await hasher.close()
    await verifier.close()
    await rm(dir, { recursive: true, force: true })
  })
  // Each thread names itself as it starts: an answer from each shows it has.
  await hasher.rootOf(encodeSnapshot(createState()))
  verifier.warm()
  for (let i = 0; i < 200 && !verifier.ready; i++) await new Promise((r) => setTimeout(r, 10))
  t.ok(verifier.ready, 'the verifier thread is up')
  const names = [...threadNames().values()]
  for (const name of ['projections', 'root-hasher', 'chain-verifier']) {
    t.equal(names.filter((n) => n === name).length, 1, `one thread named ${name}`)
  }
  t.equal(threadNames().get(process.pid), mainName, 'the main thread keeps its name')
})
