// One workload of the core benchmark's price-moving comparison, in a V8 isolate of its own
// (see bench/core.ts): generates the plain or the price-moving workload and counts what it
// does, says it is ready, then runs one throughput pass per 'pass' message, and on 'report'
// runs the latency pass and sends back the rest (with what the prices did, for the
// price-moving one).

import { parentPort, workerData } from 'node:worker_threads'
import { DEFAULT_WORKLOAD, generateWorkload, PRICE_MOVES } from '../../sim/workload.js'
import { countEvents, latencyPass, passOf, prepare, type WorkerMessage, type WorkloadReport } from '../core.js'

const { priceMoves } = workerData as { priceMoves: boolean }
const w = generateWorkload(priceMoves ? { ...DEFAULT_WORKLOAD, priceMoves: PRICE_MOVES } : DEFAULT_WORKLOAD)
const prepared = prepare(w)
let books = ''
const port = parentPort!
const send = (m: WorkerMessage): void => port.postMessage(m)

port.on('message', (request: 'pass' | 'report') => {
  if (request === 'pass') {
    const t = passOf(prepared)
    books = t.books
    send({ type: 'pass', pass: t.pass })
    return
  }
  const report: WorkloadReport = {
    pw: { stream: { length: w.stream.length }, setup: w.setup, accounts: w.accounts, mix: w.mix },
    counts: prepared.counts,
    latency: latencyPass(prepared),
    books,
    events: priceMoves ? countEvents(w) : null,
  }
  send({ type: 'report', report })
})
send({ type: 'ready' })
