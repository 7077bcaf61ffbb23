// The helper-thread calls behind the chain verifier and the root hasher (replica/worker-calls.ts):
// replies reach their own calls, a lost thread hands back what it owed, and a thread that dies
// before saying anything is not started again at once.

import t from 'tap'
import { WorkerCalls } from '../../replica/worker-calls.js'

/** A worker module from source (a data: URL, as Node runs ES modules from one). */
const moduleOf = (source: string): URL => new URL(`data:text/javascript,${encodeURIComponent(source)}`)

/** Says it is up, then answers each request with its x doubled, the later ones first when asked. */
const ECHO = moduleOf(`
  import { parentPort } from 'node:worker_threads'
  parentPort.postMessage({ id: 0 })
  parentPort.on('message', (m) => setTimeout(() => parentPort.postMessage({ id: m.id, y: m.x * 2 }), m.delay))
`)
/** Takes requests and never answers. */
const SILENT = moduleOf(`import { parentPort } from 'node:worker_threads'; parentPort.on('message', () => {})`)
/** Ends its thread before saying anything. */
const DYING = moduleOf('process.exit(3)')

interface Call { x: number; resolve: (y: number) => void; reject: (err: Error) => void }
interface Reply { id: number; y: number }

function calls(url: URL): { wc: WorkerCalls<Reply, Call>; lost: { calls: Call[]; why: string }[] } {
  const lost: { calls: Call[]; why: string }[] = []
  const wc = new WorkerCalls<Reply, Call>(url, {
    answered: (reply, call) => call.resolve(reply.y),
    lost: (owed, why) => {
      lost.push({ calls: owed, why })
      for (const c of owed) c.reject(new Error(why))
    },
  })
  return { wc, lost }
}

function ask(wc: WorkerCalls<Reply, Call>, x: number, delay = 0): Promise<number> {
  return new Promise((resolve, reject) => wc.send({ x, resolve, reject }, (id) => ({ id, x, delay })))
}

t.test('each reply reaches its own call, whatever order they come back in', async (t) => {
  const { wc, lost } = calls(ECHO)
  t.teardown(() => wc.close())
  t.equal(wc.ready, false, 'not ready before it has started and spoken')
  const answers = await Promise.all([ask(wc, 1, 50), ask(wc, 2, 0), ask(wc, 3, 20)])
  t.same(answers, [2, 4, 6])
  t.equal(wc.ready, true, 'ready once the thread has been heard from')
  t.same(lost, [])
})

t.test('a thread that has spoken and owes nothing holds nothing open: a process with nothing else to do ends', async (t) => {
  const { wc } = calls(ECHO)
  t.teardown(() => wc.close())
  const ports = (): number => (process as unknown as { _getActiveHandles(): object[] })._getActiveHandles()
    .filter((h) => h.constructor.name === 'MessagePort').length
  const before = ports()
  wc.start()
  while (!wc.ready) await new Promise((r) => setTimeout(r, 10))
  t.equal(ports(), before, 'no handle left by the idle thread')
  t.equal(await ask(wc, 5), 10, 'and it still answers')
  t.equal(ports(), before, 'nor once it has answered')
})

t.test('closing hands back the calls still owed', async (t) => {
  const { wc, lost } = calls(SILENT)
  // Caught at once: they reject during close(), before the checks below.
  const pending = [ask(wc, 1), ask(wc, 2)].map((p) => p.then(() => 'answered', (err: Error) => err.message))
  await wc.close()
  t.equal(lost.length, 1)
  t.same(lost[0]!.calls.map((c) => c.x), [1, 2])
  t.equal(lost[0]!.why, 'closed')
  t.same(await Promise.all(pending), ['closed', 'closed'], 'and they are refused as the owner decided')
})

t.test('a thread that dies before speaking: its calls come back, and no new thread starts at once', async (t) => {
  const { wc, lost } = calls(DYING)
  t.teardown(() => wc.close())
  await t.rejects(ask(wc, 1), /exited \(3\)/)
  t.same(lost.map((l) => l.calls.map((c) => c.x)), [[1]])
  t.throws(() => wc.start(), /not retried yet/, 'start() refuses for a while rather than start another')
  t.throws(() => wc.send({ x: 2, resolve: () => {}, reject: () => {} }, (id) => ({ id })), /not retried yet/)
  t.equal(wc.ready, false)
})
