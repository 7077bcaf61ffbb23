// The checkpoint root hasher and the chain verifier run nicer than the thread that answers
// orders (replica/thread-priority.ts): each lowers its own thread's priority, and only its own.

import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { encodeSnapshot } from '../../core/snapshot.js'
import { createState } from '../../core/state.js'
import { encodeEntries } from '../../replica/batch-codec.js'
import { ChainVerifier } from '../../replica/chain-verifier.js'
import { GENESIS_HASH, sealedBody } from '../../replica/entry.js'
import { RootHasher } from '../../replica/root-hasher.js'
import { BACKGROUND_NICE_INCREMENT } from '../../replica/thread-priority.js'
import { chain } from '../helpers/log-fixtures.js'

const linux = process.platform === 'linux'

/** Nice value of each thread of this process, by thread id. */
function niceByThread(): Map<number, number> {
  const out = new Map<number, number>()
  for (const tid of readdirSync('/proc/self/task')) {
    // Fields after the command name (which may hold spaces): nice is the 19th field overall.
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    out.set(Number(tid), Number(fields[16]))
  }
  return out
}

/** Threads that appeared since `before`, with their nice values. */
function newThreads(before: Map<number, number>): number[] {
  return [...niceByThread()].filter(([tid]) => !before.has(tid)).map(([, nice]) => nice)
}

t.test('the root hasher\'s thread runs at a lower priority once it has answered', { skip: !linux && 'Linux only' }, async (t) => {
  const mine = niceByThread().get(process.pid)!
  const before = niceByThread()
  const hasher = new RootHasher()
  t.teardown(() => hasher.close())
  // The empty state's snapshot: any root will do, it shows the thread has started and run.
  await hasher.rootOf(encodeSnapshot(createState()))
  const expected = Math.min(19, mine + BACKGROUND_NICE_INCREMENT)
  t.equal(newThreads(before).filter((n) => n === expected).length, 1, `one new thread at nice ${expected}`)
  t.equal(niceByThread().get(process.pid), mine, 'the main thread is unchanged')
})

t.test('the chain verifier\'s thread runs at a lower priority once it has answered', { skip: !linux && 'Linux only' }, async (t) => {
  const mine = niceByThread().get(process.pid)!
  const before = niceByThread()
  const verifier = new ChainVerifier()
  t.teardown(() => verifier.close())
  const entries = chain(1, 5, GENESIS_HASH)
  const verdict = await verifier.verifyBatch(1, encodeEntries(entries, entries.map((e) => sealedBody(e)!)))
  t.equal(verdict.ends.length, 5, 'it checked the batch')
  const expected = Math.min(19, mine + BACKGROUND_NICE_INCREMENT)
  t.equal(newThreads(before).filter((n) => n === expected).length, 1, `one new thread at nice ${expected}`)
  t.equal(niceByThread().get(process.pid), mine, 'the main thread is unchanged')
})
