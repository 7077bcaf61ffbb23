// Messages between the projections' worker thread and the node's main thread that feeds it
// committed entries and asks it queries (projections-client.ts, projections-worker.ts).

import type { WireEvents } from './event-wire.js'
import type { ProjectionsOptions } from './projections.js'

export interface WorkerSetup {
  path: string
  options: ProjectionsOptions
}

/** Where the store stands: sent when it opens and with every reply. */
export interface Position {
  lastSeq: number
  lastTime: number
  flushedSeq: number
  flushedTime: number
}

/** Consecutive entries from firstSeq: each one's time and the events the projections keep. */
export interface Entries {
  firstSeq: number
  times: number[]
  events: WireEvents
}

/**
 * A call (a flush, a query), after the entries applied since the last message: one message
 * per flush, as each one wakes the other thread.
 */
export interface CallMessage {
  id: number
  method: string
  args: unknown[]
  entries: Entries | null
}

export type ToWorker = CallMessage

export type FromWorker =
  | { op: 'ready'; position: Position }
  | { op: 'reply'; id: number; ok: true; value: unknown; position: Position }
  | { op: 'reply'; id: number; ok: false; error: string; position: Position }
  /** Applying an entry failed: the store stopped, as it does in the main thread. */
  | { op: 'failure'; error: string }
