// The projections' worker thread: owns the projections' LevelDB, applies the entries each
// message from the main thread brings (with a flush, a query, or on their own during a long
// replay), writes them, and answers the calls in the order they come. A query first writes
// every entry sent before it (its own message's included) and waits for that write, so it
// reads every entry sent before it: the main thread counts an entry readable as soon as it is
// applied there, since any query takes it along (ProjectionsClient.readableSeq).

import { parentPort, workerData } from 'node:worker_threads'
import { nameThread } from '../thread-name.js'
import { readWire } from './event-wire.js'
import type { Page } from './pages.js'
import { createProjections, type Projections } from './projections.js'
import type { CallMessage, Entries, FromWorker, Position, ToWorker, WorkerSetup } from './worker-protocol.js'

/** What the main thread may call: queries and the store's own upkeep, nothing internal. */
const UPKEEP: ReadonlySet<string> = new Set(['flush', 'written', 'prune', 'clear', 'close'])
const CALLABLE: ReadonlySet<string> = new Set([
  ...UPKEEP, 'recentTrades', 'historicalTrades', 'aggTrades', 'klines', 'ticker24h',
  'openInterest', 'openInterestHistory', 'topTradersHistory', 'priceKlines', 'fundingRates', 'order', 'orders', 'orderByClientId', 'allOrders',
  'userTrades', 'userTradesWithLists', 'forceOrders', 'orderAmendments', 'orderAmendmentsFrom', 'preventedMatches', 'orderList', 'allOrderLists', 'positionMargins', 'income', 'deposits', 'pendingDeposits',
  'withdrawals', 'withdrawal', 'transfers', 'subTransfers', 'page',
])

nameThread('projections')
const port = parentPort!
const setup = workerData as WorkerSetup
const send = (m: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer)

function position(p: Projections): Position {
  return { lastSeq: p.lastSeq, lastTime: p.lastTime, flushedSeq: p.flushedSeq, flushedTime: p.flushedTime }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

const projections = await createProjections(setup.path, setup.options)
let failed = false

async function call(m: CallMessage): Promise<void> {
  try {
    // Entries sent on ahead of a flush (a long replay): applied already, nothing to answer.
    if (m.method === 'send') {
      send({ op: 'reply', id: m.id, ok: true, value: undefined, position: position(projections) })
      return
    }
    if (!CALLABLE.has(m.method)) throw new Error(`projections: ${m.method} is not callable`)
    // Entries sent before the query may be pending or their write in flight: it reads after them.
    if (!UPKEEP.has(m.method)) await projections.flush()
    const fn = (projections as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[m.method]!
    const value = await fn.apply(projections, m.args)
    // A page's bytes are handed over: the main thread neither copies nor decodes them.
    const transfer = m.method === 'page' ? [(value as Page).bytes.buffer as ArrayBuffer] : []
    send({ op: 'reply', id: m.id, ok: true, value, position: position(projections) }, transfer)
    if (m.method === 'close') port.close()
  } catch (err) {
    send({ op: 'reply', id: m.id, ok: false, error: message(err), position: position(projections) })
  }
}

port.on('message', (m: ToWorker) => {
  if (m.entries !== null && !failed) apply(m.entries)
  void call(m)
})

function apply(m: Entries): void {
  try {
    const events = readWire(m.events)
    for (let i = 0; i < m.times.length; i++) projections.apply(m.firstSeq + i, m.times[i]!, events[i]!)
    // The main thread flushes once per batch; during a long replay this bounds the batch anyway.
    if (projections.flushDue) projections.flush().catch(() => undefined)
  } catch (err) {
    failed = true
    send({ op: 'failure', error: message(err) })
  }
}

send({ op: 'ready', position: position(projections) })
