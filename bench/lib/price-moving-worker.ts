// The price-moving half of the core benchmark, in a V8 isolate of its own (see bench/core.ts):
// generates the workload, measures it and sends back the figures with what the prices did.

import { parentPort } from 'node:worker_threads'
import { DEFAULT_WORKLOAD, generateWorkload, PRICE_MOVES } from '../../sim/workload.js'
import { countEvents, measurePriceMoving, type PriceMovingReport } from '../core.js'

const w = generateWorkload({ ...DEFAULT_WORKLOAD, priceMoves: PRICE_MOVES })
const pm = measurePriceMoving(w)
const report: PriceMovingReport = {
  pw: { stream: { length: w.stream.length }, setup: w.setup, accounts: w.accounts, mix: w.mix },
  pm,
  events: countEvents(w),
}
parentPort!.postMessage(report)
