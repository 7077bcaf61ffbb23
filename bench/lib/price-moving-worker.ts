// One workload of the core benchmark's price-moving comparison, in a V8 isolate of its own
// (see bench/core.ts): generates the plain or the price-moving workload, measures it and sends
// back the figures (with what the prices did, for the price-moving one).

import { parentPort, workerData } from 'node:worker_threads'
import { DEFAULT_WORKLOAD, generateWorkload, PRICE_MOVES } from '../../sim/workload.js'
import { countEvents, measurePriceMoving, type PriceMovingReport } from '../core.js'

const { priceMoves } = workerData as { priceMoves: boolean }
const w = generateWorkload(priceMoves ? { ...DEFAULT_WORKLOAD, priceMoves: PRICE_MOVES } : DEFAULT_WORKLOAD)
const pm = measurePriceMoving(w)
const report: PriceMovingReport = {
  pw: { stream: { length: w.stream.length }, setup: w.setup, accounts: w.accounts, mix: w.mix },
  pm,
  events: priceMoves ? countEvents(w) : null,
}
parentPort!.postMessage(report)
