// One engine of the core benchmark in a V8 isolate of its own (see bench/core.ts): ours on the
// plain or the price-moving workload, or the peer on the plain workload's book operations.
// Generates the workload and counts what it does, says it is ready, then runs one throughput
// pass per 'pass' message, and on 'report' runs the latency pass and sends back the rest
// (with what the prices did, for the price-moving one).

import { parentPort, workerData } from 'node:worker_threads'
import { DEFAULT_WORKLOAD, generateWorkload, PRICE_MOVES } from '../../sim/workload.js'
import { countEvents, countPeer, latencyPass, latencyPeer, MARKET_IDS, passOf, prepare, throughputPeer, type Counts, type Pass, type WorkerKind,
  type WorkerMessage, type WorkloadReport } from '../core.js'
import { toPeerOps } from './peer-book.js'

const { kind } = workerData as { kind: WorkerKind }
const w = generateWorkload(kind === 'price-moving' ? { ...DEFAULT_WORKLOAD, priceMoves: PRICE_MOVES } : DEFAULT_WORKLOAD)

/** What the worker runs: one engine on one workload, counted once up front. */
interface Engine {
  counts: Counts
  pass(): Pass
  latency(): WorkloadReport['latency']
  books(): string
}

function engine(): Engine {
  if (kind === 'peer') {
    const ops = toPeerOps(w.stream, MARKET_IDS)
    return { counts: countPeer(ops), pass: () => throughputPeer(ops), latency: () => latencyPeer(ops), books: () => '' }
  }
  const prepared = prepare(w)
  let books = ''
  return {
    counts: prepared.counts,
    pass: () => {
      const t = passOf(prepared)
      books = t.books
      return t.pass
    },
    latency: () => latencyPass(prepared),
    books: () => books,
  }
}

const e = engine()
const port = parentPort!
const send = (m: WorkerMessage): void => port.postMessage(m)

port.on('message', (request: 'pass' | 'report') => {
  if (request === 'pass') {
    send({ type: 'pass', pass: e.pass() })
    return
  }
  const report: WorkloadReport = {
    pw: { stream: { length: w.stream.length }, setup: w.setup, accounts: w.accounts, mix: w.mix, options: w.options },
    counts: e.counts,
    latency: e.latency(),
    books: e.books(),
    events: kind === 'price-moving' ? countEvents(w) : null,
  }
  send({ type: 'report', report })
})
send({ type: 'ready' })
